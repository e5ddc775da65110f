// SPDX-License-Identifier: GPL-2.0
/*
 * fp-align DEV: io_uring's READ_FIXED and WRITE_FIXED on the block device
 * DEV (opened O_DIRECT; the probe writes it: the caller's own device)
 * must end as pread() and pwrite() of the same buffer, length and offset
 * end: the bytes, or -EINVAL when the buffer, the length or the offset is
 * off the logical block size, on a plain ring and on an IOPOLL one.
 * Three registered buffers: one page-aligned (3 MiB: an I/O of more
 * pages than one bio takes, 1 MiB from 3584 bytes in and 2 MiB, is
 * issued again through the blocking path), one that starts 256 bytes
 * into a page (256 bytes further on, an I/O is aligned), one whose
 * length ends 1000 bytes into its third page (an I/O that stops before
 * that end is aligned).  A read's data must equal
 * pread()'s; a write that the kernel refuses must leave the device as
 * it was, one it takes must write what it was given.  A cell that
 * differs prints "bad ..." and the probe exits 1; it prints a summary.
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

#define BIG (3 << 20)
#define SPAN (BIG + 8192)

static struct iovec reg[3];
static char *want, *dev;
static int fd;

struct cell {
	int buf;
	size_t at, len;
	off_t off;
};

static const size_t ats[] = { 0, 256, 512, 3584 };
static const size_t lens[] = { 512, 4096, 4352, 65536, 130560, 2 << 20,
			       (2 << 20) + 256 };
static const off_t offs[] = { 0, 256, 512 };
static const struct cell extra[] = {
	{ 0, 0, 1 << 20, 0 }, { 0, 3584, 1 << 20, 512 },
	{ 1, 0, 4096, 0 }, { 1, 256, 4096, 0 }, { 1, 3840, 4096, 0 },
	{ 1, 3840, 8192, 4096 },
	{ 2, 0, 8192, 0 }, { 2, 0, 8704, 512 }, { 2, 0, 9192, 0 },
};

static int ring_rw(struct ring *r, int write, const struct cell *c)
{
	struct io_uring_sqe *sqe = get_sqe(r);

	sqe->opcode = write ? IORING_OP_WRITE_FIXED : IORING_OP_READ_FIXED;
	sqe->fd = fd;
	sqe->off = c->off;
	sqe->addr = (unsigned long)reg[c->buf].iov_base + c->at;
	sqe->len = c->len;
	sqe->buf_index = c->buf;
	sqe->user_data = 1;
	return ring_one(r);
}

/* the device's bytes [off, off + len), read aligned into dev */
static void dev_read(off_t off, size_t len)
{
	off_t a = off & ~511L;
	size_t n = ((off + len + 511) & ~511UL) - a;

	if (pread(fd, dev, n, a) != (ssize_t)n)
		die("pread (aligned)");
	memmove(dev, dev + (off - a), len);
}

/* byte x of the device in fill V: it differs from its neighbours */
static char pat(off_t x, int v)
{
	return (char)(x * 131 + (x >> 9) + v);
}

static void pat_fill(char *p, off_t off, size_t len, int v)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = pat(off + i, v);
}

/* the device's bytes around [off, off + len) set to fill V, aligned */
static void dev_fill(off_t off, size_t len, int v)
{
	off_t a = off & ~511L;
	size_t n = ((off + len + 511) & ~511UL) - a;

	pat_fill(dev, a, n, v);
	if (pwrite(fd, dev, n, a) != (ssize_t)n)
		die("pwrite (aligned)");
}

static ssize_t ret_of(ssize_t r)
{
	return r < 0 ? -errno : r;
}

/* one cell on ring R; returns 1 if it is bad */
static int one(struct ring *r, int iopoll, int write, const struct cell *c)
{
	char *p = (char *)reg[c->buf].iov_base + c->at;
	ssize_t exp;
	int got;

	if (!write) {
		dev_fill(c->off, c->len, 1);
		memset(p, 0xa5, c->len);
		exp = ret_of(pread(fd, p, c->len, c->off));
		if (exp > 0)
			memcpy(want, p, exp);
		memset(p, 0x5a, c->len);
		got = ring_rw(r, 0, c);
		if (got == exp && (exp <= 0 || !memcmp(p, want, exp)))
			return 0;
	} else {
		pat_fill(p, c->off, c->len, 2);
		exp = ret_of(pwrite(fd, p, c->len, c->off));
		dev_fill(c->off, c->len, 1);
		pat_fill(p, c->off, c->len, 3);
		got = ring_rw(r, 1, c);
		dev_read(c->off, c->len);
		pat_fill(want, c->off, c->len, 1);
		if (got > 0)
			pat_fill(want, c->off, got, 3);
		if (got == exp && !memcmp(dev, want, c->len))
			return 0;
	}
	printf("bad %s %s buf %d at %zu len %zu off %ld: cqe %d, %s %zd%s\n",
	       iopoll ? "iopoll" : "irq", write ? "write_fixed" : "read_fixed",
	       c->buf, c->at, c->len, (long)c->off, got,
	       write ? "pwrite" : "pread", exp,
	       got == exp ? ", data differs" : "");
	return 1;
}

int main(int argc, char **argv)
{
	int iopoll, write, bad = 0, cells = 0;
	unsigned int i, j, k;
	char *b;

	if (argc != 2) {
		fprintf(stderr, "usage: fp-align DEV\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_DIRECT);
	if (fd < 0)
		die(argv[1]);
	if (posix_memalign((void **)&b, 4096, 3 * SPAN) ||
	    posix_memalign((void **)&want, 4096, SPAN) ||
	    posix_memalign((void **)&dev, 4096, SPAN))
		die("posix_memalign");
	reg[0] = (struct iovec){ b, BIG };
	reg[1] = (struct iovec){ b + SPAN + 256, 16384 };
	reg[2] = (struct iovec){ b + 2 * SPAN, 8192 + 1000 };

	for (iopoll = 0; iopoll < 2; iopoll++) {
		struct ring r;

		ring_init(&r, 4, iopoll ? IORING_SETUP_IOPOLL : 0, 0);
		if (syscall(__NR_io_uring_register, r.fd,
			    IORING_REGISTER_BUFFERS, reg, 3))
			die("IORING_REGISTER_BUFFERS");
		for (write = 0; write < 2; write++) {
			for (i = 0; i < sizeof(ats) / sizeof(ats[0]); i++)
			for (j = 0; j < sizeof(lens) / sizeof(lens[0]); j++)
			for (k = 0; k < sizeof(offs) / sizeof(offs[0]); k++) {
				struct cell c = { 0, ats[i], lens[j], offs[k] };

				bad += one(&r, iopoll, write, &c);
				cells++;
			}
			for (i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) {
				bad += one(&r, iopoll, write, &extra[i]);
				cells++;
			}
		}
		close(r.fd);
	}
	printf("%d cells, %d bad\n", cells, bad);
	return bad ? 1 : 0;
}
