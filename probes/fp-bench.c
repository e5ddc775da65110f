// SPDX-License-Identifier: GPL-2.0
/*
 * fp-bench: the guest-side probes of "make bench", in the manner of fio's
 * t/io_uring.  Static, raw system calls, no liburing.  Each run echoes its
 * configuration, then prints one line
 *     RESULT <probe> <value> <unit>
 * with the rate measured on CLOCK_MONOTONIC.  Under QEMU -icount the guest
 * clock counts instructions, so the rate is a repeatable instruction cost.
 *
 *   fp-bench nop BATCH SECONDS
 *   fp-bench uring DEV BS QD BATCH_SUBMIT BATCH_COMPLETE SECONDS [poll]
 *   fp-bench pvsync2 DEV BS SECONDS
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/io_uring.h>

#ifndef RWF_HIPRI
#define RWF_HIPRI 0x1
#endif

static void die(const char *what)
{
	fprintf(stderr, "fp-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

#include "ring.h"

static int enter(struct ring *r, unsigned int submit, unsigned int wait)
{
	int ret;

	__atomic_store_n(r->sq_tail, r->local_tail, __ATOMIC_RELEASE);
	ret = syscall(__NR_io_uring_enter, r->fd, submit, wait,
		      wait ? IORING_ENTER_GETEVENTS : 0, NULL, 0);
	if (ret < 0 && errno != EAGAIN && errno != EINTR && errno != EBUSY)
		die("io_uring_enter");
	return ret;
}

/* Consume the CQEs there are; any error result is fatal. */
static unsigned int reap(struct ring *r)
{
	unsigned int head = *r->cq_head, n = 0;
	unsigned int tail = __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE);

	for (; head != tail; head++, n++) {
		struct io_uring_cqe *cqe = &r->cqes[head & *r->cq_mask];

		if (cqe->res < 0) {
			errno = -cqe->res;
			die("completion");
		}
	}
	__atomic_store_n(r->cq_head, head, __ATOMIC_RELEASE);
	return n;
}

/*
 * Bochs' magic breakpoint, a no-op: scripts/insn-profile.sh's QEMU plugin
 * counts instructions between the first two it sees.
 */
static void mark(void)
{
	__asm__ __volatile__("xchg %%bx, %%bx" ::: "memory");
}

static void result(const char *probe, double ops, double secs)
{
	mark();
	printf("# ops %s %.0f\n", probe, ops);
	printf("RESULT %s %.1f ops/s\n", probe, ops / secs);
}

static int bench_nop(int argc, char **argv)
{
	unsigned int batch = atoi(argv[2]), i;
	double secs = atof(argv[3]), t0, t;
	unsigned long ops = 0;
	struct ring r;
	char name[32];

	printf("# nop: batch %u, %.1f s\n", batch, secs);
	ring_init(&r, batch, 0, 0);
	mark();
	t0 = now();
	do {
		for (i = 0; i < 1024; i += batch) {
			unsigned int j, got = 0;

			for (j = 0; j < batch; j++)
				get_sqe(&r)->opcode = IORING_OP_NOP;
			enter(&r, batch, batch);
			while (got < batch)
				got += reap(&r);
			ops += batch;
		}
		t = now() - t0;
	} while (t < secs);
	snprintf(name, sizeof(name), "nop-b%u", batch);
	result(name, ops, t);
	return 0;
}

static int bench_uring(int argc, char **argv)
{
	const char *dev = argv[2];
	unsigned int bs = atoi(argv[3]), qd = atoi(argv[4]);
	unsigned int bsub = atoi(argv[5]), bcomp = atoi(argv[6]);
	double secs = atof(argv[7]), t0, t;
	int poll = argc > 8 && !strcmp(argv[8], "poll");
	unsigned long ops = 0, blocks;
	unsigned int inflight = 0, i;
	uint64_t size = 0, seed = 0x9e3779b97f4a7c15ULL;
	struct iovec *iov;
	struct ring r;
	int fd;

	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size))
		die(dev);
	blocks = size / bs;
	printf("# uring: %s bs %u qd %u submit %u complete %u polled %d fixedbufs 1 registerfiles 1, %.1f s\n",
	       dev, bs, qd, bsub, bcomp, poll, secs);
	ring_init(&r, qd, poll ? IORING_SETUP_IOPOLL : 0, 0);
	iov = calloc(qd, sizeof(*iov));
	for (i = 0; i < qd; i++) {
		if (posix_memalign(&iov[i].iov_base, 4096, bs))
			die("alloc");
		iov[i].iov_len = bs;
	}
	if (syscall(__NR_io_uring_register, r.fd, IORING_REGISTER_BUFFERS, iov, qd))
		die("register buffers");
	if (syscall(__NR_io_uring_register, r.fd, IORING_REGISTER_FILES, &fd, 1))
		die("register files");

	/* buffer slots are handed out round-robin: at most qd in flight */
	unsigned int slot = 0;

	mark();
	t0 = now();
	do {
		unsigned int n = 0, want;

		while (n < bsub && inflight + n < qd) {
			struct io_uring_sqe *sqe = get_sqe(&r);

			sqe->opcode = IORING_OP_READ_FIXED;
			sqe->flags = IOSQE_FIXED_FILE;
			sqe->fd = 0;
			sqe->addr = (unsigned long)iov[slot].iov_base;
			sqe->len = bs;
			sqe->buf_index = slot;
			sqe->off = (rnd(&seed) % blocks) * bs;
			slot = (slot + 1) % qd;
			n++;
		}
		inflight += n;
		want = inflight >= qd ? bcomp : 0;
		if (want > inflight)
			want = inflight;
		enter(&r, n, want);
		i = reap(&r);
		inflight -= i;
		ops += i;
		t = now() - t0;
	} while (t < secs);
	while (inflight) {
		enter(&r, 0, 1);
		inflight -= reap(&r);
	}
	result("uring", ops, t);
	return 0;
}

static int bench_pvsync2(int argc, char **argv)
{
	const char *dev = argv[2];
	unsigned int bs = atoi(argv[3]);
	double secs = atof(argv[4]), t0, t;
	uint64_t size = 0, seed = 0x12345;
	unsigned long ops = 0, blocks;
	struct iovec iov;
	int fd, i;

	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size))
		die(dev);
	blocks = size / bs;
	printf("# pvsync2: %s bs %u qd 1 RWF_HIPRI, %.1f s\n", dev, bs, secs);
	if (posix_memalign(&iov.iov_base, 4096, bs))
		die("alloc");
	iov.iov_len = bs;
	mark();
	t0 = now();
	do {
		for (i = 0; i < 64; i++) {
			if (preadv2(fd, &iov, 1, (rnd(&seed) % blocks) * bs, RWF_HIPRI) != bs)
				die("preadv2");
			ops++;
		}
		t = now() - t0;
	} while (t < secs);
	result("pvsync2", ops, t);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "nop"))
		return bench_nop(argc, argv);
	if ((argc == 8 || argc == 9) && !strcmp(argv[1], "uring"))
		return bench_uring(argc, argv);
	if (argc == 5 && !strcmp(argv[1], "pvsync2"))
		return bench_pvsync2(argc, argv);
	fprintf(stderr,
		"usage: fp-bench nop BATCH SECONDS\n"
		"       fp-bench uring DEV BS QD BATCH_SUBMIT BATCH_COMPLETE SECONDS [poll]\n"
		"       fp-bench pvsync2 DEV BS SECONDS\n");
	return 2;
}
