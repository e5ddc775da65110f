// SPDX-License-Identifier: GPL-2.0
/*
 * fp-fusewrite DIR: a FUSE direct write that the server applies in part
 * and then answers -EAGAIN must not be sent to the server again.  The
 * probe is its own FUSE server (raw /dev/fuse, no libfuse; a child
 * process, as a real server is another process than the writer's): it
 * mounts at DIR one 1 MiB file, opened with FOPEN_DIRECT_IO, asynchronous
 * direct I/O (FUSE_ASYNC_DIO) and a max_write of 4 KiB, so that an 8 KiB
 * IORING_OP_WRITE of the O_DIRECT file is two FUSE WRITEs.  In the
 * cells "inside" (at 0, inside the file, which FUSE sends asynchronously
 * and ends from ->ki_complete()) and "extending" (at 1 MiB - 4 KiB, which
 * FUSE waits for inside ->write_iter(): it cannot extend a file
 * asynchronously) the server applies the first WRITE and answers -EAGAIN
 * to the second, once; a WRITE it sees again it applies.  Their CQEs
 * must carry the -EAGAIN that FUSE reports for the write
 * (fuse_get_res_by_io(): the first error, though a part was applied; a
 * write(2) would return 4096), and the server must have seen two WRITEs,
 * each range once.  The cells "rwf_nowait" and "o_nonblock" pin 5.10's
 * results: RWF_NOWAIT is refused (-EOPNOTSUPP: FUSE files have no
 * FMODE_NOWAIT) before FUSE sees it; a descriptor opened O_NONBLOCK
 * writes 8192 in two WRITEs.  In "buffered" a descriptor opened without
 * O_DIRECT (which io_uring sends to io-wq, and FUSE writes through
 * FOPEN_DIRECT_IO all the same) writes 8192 in two WRITEs.  The server
 * answers FUSE_POLL (ready) and counts it: no write may ask it whether
 * the file is writable (io_uring's async poll before io-wq; 5.10 asks it
 * APOLL_MAX_RETRY times for a write it sends there).  It prints each WRITE
 * and CQE; exit 0 when right, 1 when not, 2 when it could not run.
 *
 * Why: io_uring issues a write inline with IOCB_NOWAIT and, when it ends
 * with -EAGAIN, issues it again, whole, from io-wq: by ->ki_complete()
 * (the reissue) or by the inline attempt's return.  That is safe where
 * the -EAGAIN comes from the block layer before anything was written, not
 * for a file system whose server may apply part of a write first: the
 * first 4 KiB would be written twice and the application told 8192.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <linux/fuse.h>

static void die(const char *what)
{
	perror(what);
	exit(2);
}

#include "ring.h"

#define FILE_SIZE (1 << 20)
#define WSIZE 8192
#define MAX_WRITES 16

/*
 * EAGAIN: the server answers the cell's second WRITE -EAGAIN (once);
 * RWF: the write's rw_flags; FD: the descriptor, opened O_DIRECT (0),
 * O_DIRECT | O_NONBLOCK (1) or without O_DIRECT (2); RES: the CQE's
 * result; WRITES: the WRITEs the server sees (two: each range once; none:
 * refused before FUSE).
 */
static const struct cell {
	const char *name;
	uint64_t off;
	int eagain, rwf, fd, res, writes;
} cells[] = {
	{ "inside", 0, 1, 0, 0, -EAGAIN, 2 },
	{ "extending", FILE_SIZE - 4096, 1, 0, 0, -EAGAIN, 2 },
	{ "rwf_nowait", 65536, 0, RWF_NOWAIT, 0, -EOPNOTSUPP, 0 },
	{ "o_nonblock", 131072, 0, 0, 1, WSIZE, 2 },
	{ "buffered", 196608, 0, 0, 2, WSIZE, 2 },
};
#define NCELLS (int)(sizeof(cells) / sizeof(cells[0]))

static int fuse_fd;
/* what the server saw, shared with the parent; only the server writes */
static struct seen {
	int nwrites, npolls, eagain_sent[NCELLS];
	struct { uint64_t off; uint32_t size; int err; } writes[MAX_WRITES];
} *seen;

static void reply(uint64_t unique, int err, const void *arg, size_t len)
{
	char buf[sizeof(struct fuse_out_header) + 256];
	struct fuse_out_header *oh = (void *)buf;

	if (err)
		len = 0;
	oh->len = sizeof(*oh) + len;
	oh->error = err;
	oh->unique = unique;
	if (len)
		memcpy(buf + sizeof(*oh), arg, len);
	/* ENOENT: the request was interrupted or the connection is gone */
	if (write(fuse_fd, buf, oh->len) < 0 && errno != ENOENT)
		perror("fp-fusewrite: reply");
}

static void fill_attr(struct fuse_attr *a, uint64_t ino)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->nlink = 1;
	a->blksize = 4096;
	if (ino == FUSE_ROOT_ID) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
	} else {
		a->mode = S_IFREG | 0644;
		a->size = FILE_SIZE;
		a->blocks = FILE_SIZE / 512;
	}
}

/* the server: answers requests until the connection goes */
static void serve(void)
{
	static char buf[FUSE_MIN_READ_BUFFER + 1024 * 1024];
	struct fuse_in_header *ih = (void *)buf;
	void *in = buf + sizeof(*ih);
	ssize_t n;

	for (;;) {
		n = read(fuse_fd, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == ENOENT || errno == EAGAIN))
			continue;
		if (n < (ssize_t)sizeof(*ih))
			break;
		switch (ih->opcode) {
		case FUSE_INIT: {
			struct fuse_init_in *ii = in;
			struct fuse_init_out o = {
				.major = FUSE_KERNEL_VERSION,
				.minor = ii->minor < 31 ? ii->minor : 31,
				.max_readahead = ii->max_readahead,
				.flags = FUSE_ASYNC_DIO | FUSE_BIG_WRITES,
				.max_background = 16,
				.congestion_threshold = 12,
				.max_write = 4096,
				.time_gran = 1,
			};

			reply(ih->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_LOOKUP: {
			struct fuse_entry_out o = { 0 };

			if (ih->nodeid != FUSE_ROOT_ID || strcmp(in, "f")) {
				reply(ih->unique, -ENOENT, NULL, 0);
				break;
			}
			o.nodeid = 2;
			o.generation = 1;
			o.entry_valid = o.attr_valid = 3600;
			fill_attr(&o.attr, 2);
			reply(ih->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out o = { .attr_valid = 3600 };

			fill_attr(&o.attr, ih->nodeid);
			reply(ih->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_OPEN:
		case FUSE_OPENDIR: {
			struct fuse_open_out o = { .fh = 1 };

			if (ih->opcode == FUSE_OPEN)
				o.open_flags = FOPEN_DIRECT_IO;
			reply(ih->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_WRITE: {
			struct fuse_write_in *wi = in;
			struct fuse_write_out o = { .size = wi->size };
			int err = 0, i;

			for (i = 0; i < NCELLS; i++)
				if (cells[i].eagain && wi->offset == cells[i].off + 4096 &&
				    !seen->eagain_sent[i]) {
					seen->eagain_sent[i] = 1;
					err = -EAGAIN;
				}
			if (seen->nwrites < MAX_WRITES) {
				seen->writes[seen->nwrites].off = wi->offset;
				seen->writes[seen->nwrites].size = wi->size;
				seen->writes[seen->nwrites].err = err;
			}
			/* counted before the reply that may end the write */
			__atomic_add_fetch(&seen->nwrites, 1, __ATOMIC_RELEASE);
			reply(ih->unique, err, &o, sizeof(o));
			break;
		}
		case FUSE_POLL: {
			/* a regular file is always ready; counted */
			struct fuse_poll_out o = { .revents = POLLIN | POLLOUT };

			__atomic_add_fetch(&seen->npolls, 1, __ATOMIC_RELEASE);
			reply(ih->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_FLUSH:
		case FUSE_RELEASE:
		case FUSE_RELEASEDIR:
		case FUSE_FSYNC:
			reply(ih->unique, 0, NULL, 0);
			break;
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			/* no reply */
			break;
		default:
			reply(ih->unique, -ENOSYS, NULL, 0);
			break;
		}
	}
}

int main(int argc, char **argv)
{
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct ring r;
	pid_t server, parent;
	char opts[128], path[4096];
	void *wbuf;
	int fds[3], i, c, ret, res, n, bad = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: fp-fusewrite DIR\n");
		return 2;
	}
	/* nothing here may wait for ever: the test bounds the probe too */
	alarm(60);
	if (access("/dev/fuse", F_OK) && mknod("/dev/fuse", S_IFCHR | 0666, makedev(10, 229)))
		die("mknod /dev/fuse");
	fuse_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fuse_fd < 0)
		die("open /dev/fuse");
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", fuse_fd);
	if (mount("fp-fusewrite", argv[1], "fuse", MS_NOSUID | MS_NODEV, opts))
		die("mount fuse");
	seen = mmap(NULL, sizeof(*seen), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (seen == MAP_FAILED)
		die("mmap");
	parent = getpid();
	server = fork();
	if (server < 0)
		die("fork");
	if (!server) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		serve();
		_exit(0);
	}

	snprintf(path, sizeof(path), "%s/f", argv[1]);
	fds[0] = open(path, O_RDWR | O_DIRECT);
	fds[1] = open(path, O_RDWR | O_DIRECT | O_NONBLOCK);
	fds[2] = open(path, O_RDWR);
	if (fds[0] < 0 || fds[1] < 0 || fds[2] < 0)
		die("open the FUSE file");
	if (posix_memalign(&wbuf, 4096, WSIZE))
		die("posix_memalign");
	for (i = 0; i < WSIZE; i++)
		((unsigned char *)wbuf)[i] = i * 7 + 1;

	ring_init(&r, 4, 0, 0);
	for (c = 0; c < NCELLS; c++) {
		int first = __atomic_load_n(&seen->nwrites, __ATOMIC_ACQUIRE);
		int polls = __atomic_load_n(&seen->npolls, __ATOMIC_ACQUIRE);
		int want = cells[c].res;

		sqe = get_sqe(&r);
		sqe->opcode = IORING_OP_WRITE;
		sqe->fd = fds[cells[c].fd];
		sqe->rw_flags = cells[c].rwf;
		sqe->addr = (unsigned long)wbuf;
		sqe->len = WSIZE;
		sqe->off = cells[c].off;
		__atomic_store_n(r.sq_tail, r.local_tail, __ATOMIC_RELEASE);
		ret = syscall(__NR_io_uring_enter, r.fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0);
		if (ret != 1)
			die("io_uring_enter");
		if (__atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE) == *r.cq_head) {
			fprintf(stderr, "fp-fusewrite: no CQE after io_uring_enter\n");
			return 2;
		}
		cqe = &r.cqes[*r.cq_head & *r.cq_mask];
		res = cqe->res;
		__atomic_store_n(r.cq_head, *r.cq_head + 1, __ATOMIC_RELEASE);

		n = __atomic_load_n(&seen->nwrites, __ATOMIC_ACQUIRE) - first;
		for (i = first; i < first + n && i < MAX_WRITES; i++)
			printf("%s: WRITE %d: offset %llu size %u: %s\n", cells[c].name,
			       i - first + 1, (unsigned long long)seen->writes[i].off,
			       seen->writes[i].size,
			       seen->writes[i].err ? "answered -EAGAIN" : "applied");
		polls = __atomic_load_n(&seen->npolls, __ATOMIC_ACQUIRE) - polls;
		printf("%s: writes %d, polls %d, cqe %d (%s)\n", cells[c].name, n,
		       polls, res, res < 0 ? strerror(-res) : "bytes");
		if (polls) {
			printf("bad: %s: %d FUSE_POLLs for a write to a regular file\n",
			       cells[c].name, polls);
			bad = 1;
		}
		if (n != cells[c].writes || (n == 2 && (first + 2 > MAX_WRITES ||
		    seen->writes[first].off + seen->writes[first + 1].off !=
		    2 * cells[c].off + 4096 ||
		    seen->writes[first].size != 4096 ||
		    seen->writes[first + 1].size != 4096))) {
			printf("bad: %s: %d WRITEs, where FUSE sends %d%s\n",
			       cells[c].name, n, cells[c].writes,
			       cells[c].writes ? " of 4 KiB, one per range" : "");
			bad = 1;
		}
		if (res != want) {
			printf("bad: %s: cqe %d, where FUSE reports %d for the write\n",
			       cells[c].name, res, want);
			bad = 1;
		}
	}
	if (!bad)
		printf("%d cells, 0 bad\n", NCELLS);

	for (i = 0; i < 3; i++)
		close(fds[i]);
	if (umount2(argv[1], MNT_DETACH))
		perror("fp-fusewrite: umount");
	close(fuse_fd);
	kill(server, SIGKILL);
	waitpid(server, NULL, 0);
	return bad;
}
