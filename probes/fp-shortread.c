// SPDX-License-Identifier: GPL-2.0
/*
 * fp-shortread DIR: a read that crosses the end of a file must report
 * in its CQE the bytes that pread() reports for it, on an IOPOLL ring as
 * on a plain one.  In DIR (on the file system under test) it makes files
 * of holes, of data, and of both, each ending off a block boundary, and
 * reads each with O_DIRECT at several offsets and lengths that cross the
 * end: IORING_OP_READ, READ_FIXED and READV, each on a ring with and
 * without IORING_SETUP_IOPOLL.  A cell whose CQE differs from pread()'s
 * return, or whose data differs from pread()'s, prints "bad" and the
 * probe exits 1; it prints one line per cell and a summary.
 *
 * Why: a read that ends short at EOF is finished by io-wq with the bytes
 * the first attempt read kept aside; on an IOPOLL ring 5.10 posted the
 * last attempt's result alone (0 at EOF), which an application takes for
 * the end of the file at offset 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/uio.h>

static void die(const char *what)
{
	perror(what);
	exit(2);
}

#include "ring.h"

#define BUFSZ (64 * 1024)

/* a file: its name, its size, and the ranges written (the rest holes) */
struct shape {
	const char *name;
	off_t size;
	off_t data_off[2], data_len[2];
};

static const struct shape shapes[] = {
	{ "holes", 6144, { 0, 0 }, { 0, 0 } },
	{ "data", 6144, { 0, 0 }, { 6144, 0 } },
	{ "data-hole", 10240, { 0, 0 }, { 4096, 0 } },
	{ "hole-data", 6144, { 4096, 0 }, { 2048, 0 } },
	{ "data-hole-data", 14848, { 0, 8192 }, { 4096, 6656 } },
};

static const off_t offs[] = { 0, 4096 };
static const size_t lens[] = { 8192, 16384, 32768 };

enum mode { PLAIN, FIXED, VEC };
static const char *const mode_name[] = { "read", "read_fixed", "readv" };

static char *buf, *want;

static void make_file(int dfd, const struct shape *s)
{
	char pat[8192];
	int fd, i;

	fd = openat(dfd, s->name, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(s->name);
	for (i = 0; i < (int)sizeof(pat); i++)
		pat[i] = (char)(i * 7 + 1);
	for (i = 0; i < 2; i++)
		if (s->data_len[i] &&
		    pwrite(fd, pat, s->data_len[i], s->data_off[i]) != s->data_len[i])
			die("pwrite");
	if (ftruncate(fd, s->size) || fsync(fd))
		die("ftruncate or fsync");
	close(fd);
}

/* one read on ring R (its buffer registered at index 0 when FIXED) */
static int ring_read(struct ring *r, int fd, enum mode m, size_t len, off_t off)
{
	struct io_uring_sqe *sqe = get_sqe(r);
	struct iovec iov[2] = {
		{ buf, len / 2 }, { buf + len / 2, len - len / 2 },
	};

	sqe->fd = fd;
	sqe->off = off;
	sqe->user_data = 1;
	switch (m) {
	case PLAIN:
		sqe->opcode = IORING_OP_READ;
		sqe->addr = (unsigned long)buf;
		sqe->len = len;
		break;
	case FIXED:
		sqe->opcode = IORING_OP_READ_FIXED;
		sqe->addr = (unsigned long)buf;
		sqe->len = len;
		sqe->buf_index = 0;
		break;
	case VEC:
		sqe->opcode = IORING_OP_READV;
		sqe->addr = (unsigned long)iov;
		sqe->len = 2;
		break;
	}
	return ring_one(r);
}

int main(int argc, char **argv)
{
	int dfd, fd, iopoll, bad = 0, cells = 0;
	unsigned int si, oi, li;
	enum mode m;

	if (argc != 2) {
		fprintf(stderr, "usage: fp-shortread DIR\n");
		return 2;
	}
	dfd = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (dfd < 0)
		die(argv[1]);
	if (posix_memalign((void **)&buf, 4096, BUFSZ) ||
	    posix_memalign((void **)&want, 4096, BUFSZ))
		die("posix_memalign");
	for (si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++)
		make_file(dfd, &shapes[si]);

	for (iopoll = 0; iopoll < 2; iopoll++) {
		struct ring r;
		struct iovec reg = { buf, BUFSZ };

		ring_init(&r, 4, iopoll ? IORING_SETUP_IOPOLL : 0, 0);
		if (syscall(__NR_io_uring_register, r.fd, IORING_REGISTER_BUFFERS,
			    &reg, 1))
			die("IORING_REGISTER_BUFFERS");
		for (si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++) {
			const struct shape *s = &shapes[si];

			fd = openat(dfd, s->name, O_RDONLY | O_DIRECT);
			if (fd < 0)
				die(s->name);
			for (oi = 0; oi < sizeof(offs) / sizeof(offs[0]); oi++)
			for (li = 0; li < sizeof(lens) / sizeof(lens[0]); li++)
			for (m = PLAIN; m <= VEC; m++) {
				ssize_t exp;
				int got;

				memset(want, 0xa5, BUFSZ);
				exp = pread(fd, want, lens[li], offs[oi]);
				if (exp < 0)
					die("pread");
				memset(buf, 0x5a, BUFSZ);
				got = ring_read(&r, fd, m, lens[li], offs[oi]);
				cells++;
				if (got != exp || memcmp(buf, want, exp)) {
					bad++;
					printf("bad %s %s %s off %ld len %zu: cqe %d, pread %zd%s\n",
					       iopoll ? "iopoll" : "irq", s->name,
					       mode_name[m], (long)offs[oi], lens[li],
					       got, exp,
					       got == exp ? ", data differs" : "");
				}
			}
			close(fd);
		}
		close(r.fd);
	}
	printf("%d cells, %d bad\n", cells, bad);
	return bad ? 1 : 0;
}
