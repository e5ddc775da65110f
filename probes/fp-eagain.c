// SPDX-License-Identifier: GPL-2.0
/*
 * fp-eagain: count the CQEs of io_uring reads and writes that end with
 * -EAGAIN (or any other error) on a block device, and verify every byte.
 * fio stops at the first -EAGAIN; this goes on, so that a kernel's count
 * can be compared with another's.  Static, raw system calls (ring.h).
 *
 *   fp-eagain DEV BS QD SECONDS [poll] [sqpoll] [fixed|vec] [nowait]
 *
 * (DEV may be a regular file: all of it is used, at most 16 MiB.)
 *
 * First SECONDS of random writes of BS at queue depth QD over the first
 * 16 MiB of DEV (4 x QD x BS if more; all of DEV if less), each block
 * stamped with this run's nonce, its offset and its generation, then
 * reads of every block written, in turn, for SECONDS and at least once
 * each, each into a poisoned buffer and compared with the stamp of the
 * last write there.  poll: an IORING_SETUP_IOPOLL ring; sqpoll:
 * IORING_SETUP_SQPOLL (with a registered file, as 5.10 needs); fixed:
 * READ_FIXED/WRITE_FIXED on registered buffers; vec: READV/WRITEV of two
 * iovecs of BS/2; nowait: RWF_NOWAIT on every SQE, where -EAGAIN is the
 * application's own request (counted all the same).  An I/O that ended
 * with -EAGAIN is issued again until it completes, so that the data
 * stays right; one that ended with another error, or short, is not.
 * A CQE that names no I/O in flight, or one left over at the end, counts
 * as an error.  Prints
 *     EAGAIN writes IOS EAGAIN ERRORS reads IOS EAGAIN ERRORS BAD
 * (ERRORS: other errors and short transfers; BAD: blocks read back
 * wrong) and exits 1 if any count but the I/Os is not 0, 2 if it could
 * not run, 3 if no CQE came for 60 s (the counts so far printed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <linux/fs.h>

#ifndef RWF_NOWAIT
#define RWF_NOWAIT 0x8
#endif

static void die(const char *what)
{
	fprintf(stderr, "fp-eagain: %s: %s\n", what, strerror(errno));
	exit(2);
}

#include "ring.h"

#define REGION (16u << 20)
#define STALL_SECS 60

struct slot {
	void *buf;
	struct iovec iov[2];
	uint64_t off;
	uint32_t seq;	/* of the I/O in flight, in its user_data */
	int busy;
};

struct counts {
	unsigned long ios, eagain, errors, bad;
};

static struct ring r;
static struct slot *slots;
static unsigned int bs, qd, inflight, depth;
static int opt_poll, opt_sqpoll, opt_fixed, opt_vec, opt_nowait, fd;
static uint64_t blocks, nonce;
/* the stamp last written to each block: 0 (none known), else its generation */
static uint32_t *gen;
/* the blocks written, in the order first written; the reads go through them */
static uint64_t *written, nwritten, next_read;
static unsigned char *listed;
static volatile sig_atomic_t stalled;

static void on_alarm(int sig)
{
	(void)sig;
	stalled = 1;
}

static uint64_t stamp(uint64_t off, uint32_t g, unsigned int word)
{
	uint64_t x = (off + word * 8) ^ nonce ^ ((uint64_t)g << 40) ^ ((uint64_t)bs << 20);

	return x * 0x9e3779b97f4a7c15ULL ^ x >> 29;
}

static void fill(struct slot *s, uint32_t g)
{
	uint64_t *w = s->buf;
	unsigned int i;

	for (i = 0; i < bs / 8; i++)
		w[i] = stamp(s->off, g, i);
}

static int check(struct slot *s)
{
	uint32_t g = gen[s->off / bs];
	uint64_t *w = s->buf;
	unsigned int i;

	if (!g)
		return 0;
	for (i = 0; i < bs / 8; i++)
		if (w[i] != stamp(s->off, g, i))
			return 1;
	return 0;
}

/* Wait for a free SQE: the kernel may not have moved the SQ head yet. */
static struct io_uring_sqe *sqe_get(void)
{
	while (r.local_tail - __atomic_load_n(r.sq_head, __ATOMIC_ACQUIRE) >= r.entries)
		sched_yield();
	return get_sqe(&r);
}

static void prep(unsigned int i, int write)
{
	struct io_uring_sqe *sqe = sqe_get();
	struct slot *s = &slots[i];

	if (!write)	/* a read that moves no data must not find the stamp */
		memset(s->buf, 0xa5, bs);
	if (opt_sqpoll) {
		sqe->flags = IOSQE_FIXED_FILE;
		sqe->fd = 0;
	} else {
		sqe->fd = fd;
	}
	if (opt_fixed) {
		sqe->opcode = write ? IORING_OP_WRITE_FIXED : IORING_OP_READ_FIXED;
		sqe->addr = (unsigned long)s->buf;
		sqe->len = bs;
		sqe->buf_index = i;
	} else if (opt_vec) {
		sqe->opcode = write ? IORING_OP_WRITEV : IORING_OP_READV;
		sqe->addr = (unsigned long)s->iov;
		sqe->len = 2;
	} else {
		sqe->opcode = write ? IORING_OP_WRITE : IORING_OP_READ;
		sqe->addr = (unsigned long)s->buf;
		sqe->len = bs;
	}
	sqe->off = s->off;
	sqe->rw_flags = opt_nowait ? RWF_NOWAIT : 0;
	sqe->user_data = (uint64_t)++s->seq << 32 | i;
}

/* Submit every SQE not yet taken and wait for at least WAIT completions. */
static void enter(unsigned int wait)
{
	unsigned int flags = wait ? IORING_ENTER_GETEVENTS : 0, submit = 0;
	int ret;

	__atomic_store_n(r.sq_tail, r.local_tail, __ATOMIC_RELEASE);
	if (opt_sqpoll) {
		/* the SQ thread takes the SQEs; wake it if it went idle */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (__atomic_load_n(r.sq_flags, __ATOMIC_ACQUIRE) & IORING_SQ_NEED_WAKEUP)
			flags |= IORING_ENTER_SQ_WAKEUP;
		if (!flags)
			return;
	} else {
		submit = r.local_tail - __atomic_load_n(r.sq_head, __ATOMIC_ACQUIRE);
	}
	ret = syscall(__NR_io_uring_enter, r.fd, submit, wait, flags, NULL, 0);
	if (ret < 0 && errno != EINTR && errno != EAGAIN && errno != EBUSY)
		die("io_uring_enter");
}

/* The next block to write (random) or read (the written ones in turn). */
static void start(unsigned int i, int write, uint64_t *seed)
{
	struct slot *s = &slots[i];
	unsigned int j;
	uint64_t b;

	/* no two I/Os in flight on one block: the stamp must be exact */
	do {
		if (write)
			b = rnd(seed) % blocks;
		else
			b = written[next_read++ % nwritten];
		for (j = 0; j < qd; j++)
			if (slots[j].busy && slots[j].off == b * bs)
				break;
	} while (j < qd);
	s->off = b * bs;
	s->busy = 1;
	if (write)
		fill(s, gen[b] + 1);
	prep(i, write);
	inflight++;
}

static void error(struct counts *c, const char *what, uint64_t off, int res)
{
	if (++c->errors <= 3)
		fprintf(stderr, "fp-eagain: %s at %llu: %d\n", what, (unsigned long long)off, res);
}

/*
 * One phase: SECS of writes or reads at QD (reads: every block written
 * at least once).  Returns 0, or 3 when no CQE came for STALL_SECS.
 */
static int phase(int write, double secs, struct counts *c, uint64_t *seed)
{
	double t0 = now();
	unsigned int i;

	depth = qd;
	if (!write) {
		if (!nwritten)
			return 0;
		if (depth > nwritten)
			depth = nwritten;
		next_read = 0;
	}
	for (i = 0; i < depth; i++)
		start(i, write, seed);
	alarm(STALL_SECS);
	while (inflight) {
		unsigned int head, tail;
		int stop = now() - t0 >= secs && (write || next_read >= nwritten);

		enter(1);
		if (stalled)
			return 3;
		head = *r.cq_head;
		tail = __atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE);
		if (head != tail)
			alarm(STALL_SECS);
		for (; head != tail; head++) {
			struct io_uring_cqe *cqe = &r.cqes[head & *r.cq_mask];
			struct slot *s;
			uint64_t b;

			i = (uint32_t)cqe->user_data;
			s = &slots[i];
			if (i >= depth || !s->busy || cqe->user_data >> 32 != s->seq) {
				/* a CQE for no I/O in flight: completed twice? */
				error(c, "CQE for no I/O in flight, user_data", cqe->user_data, cqe->res);
				continue;
			}
			if (cqe->res == -EAGAIN) {
				c->eagain++;
				prep(i, write);	/* the same I/O again */
				continue;
			}
			c->ios++;
			s->busy = 0;
			inflight--;
			b = s->off / bs;
			if (cqe->res != (int)bs) {
				error(c, write ? "write" : "read", s->off, cqe->res);
				/* the block holds who knows what now */
				if (write)
					gen[b] = 0;
			} else if (write) {
				gen[b]++;
				if (!listed[b]) {
					listed[b] = 1;
					written[nwritten++] = b;
				}
			} else if (check(s)) {
				if (++c->bad <= 3)
					fprintf(stderr, "fp-eagain: block at %llu read back wrong\n",
						(unsigned long long)s->off);
			}
			if (!stop)
				start(i, write, seed);
		}
		__atomic_store_n(r.cq_head, head, __ATOMIC_RELEASE);
	}
	alarm(0);
	return 0;
}

/* CQEs after the last I/O completed: each is a completion too many. */
static void leftovers(struct counts *c)
{
	unsigned int head, tail;

	usleep(100000);
	head = *r.cq_head;
	tail = __atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE);
	for (; head != tail; head++)
		error(c, "CQE after the end, user_data", r.cqes[head & *r.cq_mask].user_data,
		      r.cqes[head & *r.cq_mask].res);
	__atomic_store_n(r.cq_head, head, __ATOMIC_RELEASE);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct counts w = { 0 }, rd = { 0 };
	uint64_t size = 0, seed;
	struct stat st;
	unsigned int i, flags = 0;
	double secs;
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 5) {
		fprintf(stderr, "usage: fp-eagain DEV BS QD SECONDS [poll] [sqpoll] [fixed|vec] [nowait]\n");
		return 2;
	}
	bs = atoi(argv[2]);
	qd = atoi(argv[3]);
	secs = atof(argv[4]);
	for (i = 5; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "poll"))
			opt_poll = 1;
		else if (!strcmp(argv[i], "sqpoll"))
			opt_sqpoll = 1;
		else if (!strcmp(argv[i], "fixed"))
			opt_fixed = 1;
		else if (!strcmp(argv[i], "vec"))
			opt_vec = 1;
		else if (!strcmp(argv[i], "nowait"))
			opt_nowait = 1;
		else
			return fprintf(stderr, "fp-eagain: unknown option %s\n", argv[i]), 2;
	}
	if (!bs || bs % 4096 || !qd || qd > 256 || (opt_fixed && opt_vec))
		return fprintf(stderr, "fp-eagain: bad arguments\n"), 2;
	fd = open(argv[1], O_RDWR | O_DIRECT);
	if (fd < 0 || fstat(fd, &st))
		die(argv[1]);
	if (S_ISREG(st.st_mode))	/* a file: as large as it is */
		size = st.st_size;
	else if (ioctl(fd, BLKGETSIZE64, &size))
		die(argv[1]);
	if (size > REGION && size > 4ull * qd * bs)
		size = REGION > 4ull * qd * bs ? REGION : 4ull * qd * bs;
	blocks = size / bs;
	if (blocks < 2 * qd)
		return fprintf(stderr, "fp-eagain: %s: too small for %u blocks\n", argv[1], 2 * qd), 2;
	nonce = (uint64_t)getpid() << 32 ^ (uint64_t)(now() * 1e6);
	seed = nonce | 1;
	gen = calloc(blocks, sizeof(*gen));
	written = calloc(blocks, sizeof(*written));
	listed = calloc(blocks, 1);
	slots = calloc(qd, sizeof(*slots));
	if (!gen || !written || !listed || !slots)
		die("alloc");
	for (i = 0; i < qd; i++) {
		if (posix_memalign(&slots[i].buf, 4096, bs))
			die("alloc");
		slots[i].iov[0].iov_base = slots[i].buf;
		slots[i].iov[0].iov_len = bs / 2;
		slots[i].iov[1].iov_base = (char *)slots[i].buf + bs / 2;
		slots[i].iov[1].iov_len = bs / 2;
	}
	if (sigaction(SIGALRM, &sa, NULL))
		die("sigaction");
	if (opt_poll)
		flags |= IORING_SETUP_IOPOLL;
	if (opt_sqpoll)
		flags |= IORING_SETUP_SQPOLL;
	ring_init(&r, qd, flags, 1000);
	if (opt_sqpoll &&
	    syscall(__NR_io_uring_register, r.fd, IORING_REGISTER_FILES, &fd, 1))
		die("register files");
	if (opt_fixed) {
		struct iovec *iov = calloc(qd, sizeof(*iov));

		if (!iov)
			die("alloc");
		for (i = 0; i < qd; i++) {
			iov[i].iov_base = slots[i].buf;
			iov[i].iov_len = bs;
		}
		if (syscall(__NR_io_uring_register, r.fd, IORING_REGISTER_BUFFERS, iov, qd))
			die("register buffers");
		free(iov);
	}
	printf("# fp-eagain: %s bs %u qd %u, %.1f s of writes then reads%s%s%s%s%s, nonce %llx\n",
	       argv[1], bs, qd, secs, opt_poll ? ", IOPOLL" : "",
	       opt_sqpoll ? ", SQPOLL" : "", opt_fixed ? ", fixed buffers" : "",
	       opt_vec ? ", 2 iovecs" : "", opt_nowait ? ", RWF_NOWAIT" : "",
	       (unsigned long long)nonce);
	ret = phase(1, secs, &w, &seed);
	if (!ret)
		ret = phase(0, secs, &rd, &seed);
	if (ret == 3)
		fprintf(stderr, "fp-eagain: no completion for %d s, %u in flight\n", STALL_SECS,
			inflight);
	else
		leftovers(&rd);
	printf("# %llu blocks written, each read back at least once\n",
	       (unsigned long long)nwritten);
	printf("EAGAIN writes %lu %lu %lu reads %lu %lu %lu %lu\n", w.ios, w.eagain,
	       w.errors, rd.ios, rd.eagain, rd.errors, rd.bad);
	if (ret)
		return ret;
	return w.eagain || w.errors || rd.eagain || rd.errors || rd.bad;
}
