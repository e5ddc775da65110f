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
 *   fp-bench uring DEV BS QD BATCH_SUBMIT BATCH_COMPLETE SECONDS [poll] [plain]
 *   fp-bench aio DEV BS QD BATCH_SUBMIT BATCH_COMPLETE SECONDS
 *   fp-bench pvsync2 DEV BS SECONDS
 *   fp-bench psync DEV BS SECONDS
 *
 * uring reads into registered buffers (READ_FIXED) unless "plain" (READ);
 * "poll" sets up the ring with IORING_SETUP_IOPOLL.  aio is libaio's
 * engine (io_submit/io_getevents), pvsync2 preadv2 with RWF_HIPRI, psync
 * plain pread; the last three complete by interrupt unless the device
 * completes inline.
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
#include <linux/aio_abi.h>
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

static void usage(void)
{
	fprintf(stderr,
		"usage: fp-bench nop BATCH SECONDS\n"
		"       fp-bench uring DEV BS QD BATCH_SUBMIT BATCH_COMPLETE SECONDS [poll] [plain]\n"
		"       fp-bench aio DEV BS QD BATCH_SUBMIT BATCH_COMPLETE SECONDS\n"
		"       fp-bench pvsync2|psync DEV BS SECONDS\n");
	exit(2);
}

static int open_dev(const char *dev, uint64_t *size)
{
	int fd = open(dev, O_RDONLY | O_DIRECT);

	if (fd < 0 || ioctl(fd, BLKGETSIZE64, size))
		die(dev);
	return fd;
}

/* uring and aio: DEV BS QD BATCH_SUBMIT BATCH_COMPLETE SECONDS, one buffer per slot */
struct qd_job {
	const char *dev;
	unsigned int bs, qd, bsub, bcomp;
	double secs;
	unsigned long blocks;
	struct iovec *iov;
	int fd;
};

static void qd_job_init(struct qd_job *j, char **argv)
{
	uint64_t size = 0;
	unsigned int i;

	j->dev = argv[2];
	j->bs = atoi(argv[3]);
	j->qd = atoi(argv[4]);
	j->bsub = atoi(argv[5]);
	j->bcomp = atoi(argv[6]);
	j->secs = atof(argv[7]);
	j->fd = open_dev(j->dev, &size);
	j->blocks = size / j->bs;
	j->iov = calloc(j->qd, sizeof(*j->iov));
	if (!j->iov)
		die("alloc");
	for (i = 0; i < j->qd; i++) {
		if (posix_memalign(&j->iov[i].iov_base, 4096, j->bs))
			die("alloc");
		j->iov[i].iov_len = j->bs;
	}
}

/*
 * How many completions to wait for: BATCH_COMPLETE once QD are in
 * flight, none before
 */
static unsigned int qd_job_want(const struct qd_job *j, unsigned int inflight)
{
	unsigned int want = inflight >= j->qd ? j->bcomp : 0;

	return want > inflight ? inflight : want;
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
	int poll = 0, plain = 0;
	unsigned long ops = 0;
	unsigned int inflight = 0, slot = 0, i;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	double t0, t;
	struct qd_job j;
	struct ring r;

	for (i = 8; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "poll"))
			poll = 1;
		else if (!strcmp(argv[i], "plain"))
			plain = 1;
		else
			usage();
	}
	qd_job_init(&j, argv);
	printf("# uring: %s bs %u qd %u submit %u complete %u polled %d fixedbufs %d registerfiles 1, %.1f s\n",
	       j.dev, j.bs, j.qd, j.bsub, j.bcomp, poll, !plain, j.secs);
	ring_init(&r, j.qd, poll ? IORING_SETUP_IOPOLL : 0, 0);
	if (!plain && syscall(__NR_io_uring_register, r.fd, IORING_REGISTER_BUFFERS, j.iov, j.qd))
		die("register buffers");
	if (syscall(__NR_io_uring_register, r.fd, IORING_REGISTER_FILES, &j.fd, 1))
		die("register files");

	/* buffer slots are handed out round-robin: at most qd in flight */
	mark();
	t0 = now();
	do {
		unsigned int n = 0;

		while (n < j.bsub && inflight + n < j.qd) {
			struct io_uring_sqe *sqe = get_sqe(&r);

			sqe->opcode = plain ? IORING_OP_READ : IORING_OP_READ_FIXED;
			sqe->flags = IOSQE_FIXED_FILE;
			sqe->fd = 0;
			sqe->addr = (unsigned long)j.iov[slot].iov_base;
			sqe->len = j.bs;
			if (!plain)
				sqe->buf_index = slot;
			sqe->off = (rnd(&seed) % j.blocks) * j.bs;
			slot = (slot + 1) % j.qd;
			n++;
		}
		inflight += n;
		enter(&r, n, qd_job_want(&j, inflight));
		i = reap(&r);
		inflight -= i;
		ops += i;
		t = now() - t0;
	} while (t < j.secs);
	while (inflight) {
		enter(&r, 0, 1);
		inflight -= reap(&r);
	}
	result("uring", ops, t);
	return 0;
}

/* aio: fetch up to qd events; any error result is fatal */
static unsigned int aio_reap(aio_context_t ctx, const struct qd_job *j,
			     unsigned int min, struct io_event *ev)
{
	int n = syscall(__NR_io_getevents, ctx, min, j->qd, ev, NULL), i;

	if (n < 0)
		die("io_getevents");
	for (i = 0; i < n; i++) {
		if (ev[i].res != (__s64)j->bs) {
			errno = ev[i].res < 0 ? -ev[i].res : EIO;
			die("completion");
		}
	}
	return n;
}

/*
 * libaio's engine by raw system calls, QD in flight as uring above.
 * io_submit() copies an iocb, so slots go round-robin as there.
 */
static int bench_aio(int argc, char **argv)
{
	unsigned long ops = 0;
	unsigned int inflight = 0, slot = 0, i;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	struct iocb *cbs, **cbp;
	aio_context_t ctx = 0;
	struct io_event *ev;
	double t0, t;
	struct qd_job j;

	qd_job_init(&j, argv);
	printf("# aio: %s bs %u qd %u submit %u complete %u, %.1f s\n",
	       j.dev, j.bs, j.qd, j.bsub, j.bcomp, j.secs);
	if (syscall(__NR_io_setup, j.qd, &ctx))
		die("io_setup");
	cbs = calloc(j.qd, sizeof(*cbs));
	cbp = calloc(j.qd, sizeof(*cbp));
	ev = calloc(j.qd, sizeof(*ev));
	if (!cbs || !cbp || !ev)
		die("alloc");
	for (i = 0; i < j.qd; i++) {
		cbs[i].aio_fildes = j.fd;
		cbs[i].aio_lio_opcode = IOCB_CMD_PREAD;
		cbs[i].aio_buf = (unsigned long)j.iov[i].iov_base;
		cbs[i].aio_nbytes = j.bs;
	}
	mark();
	t0 = now();
	do {
		unsigned int n = 0;

		while (n < j.bsub && inflight + n < j.qd) {
			cbs[slot].aio_offset = (rnd(&seed) % j.blocks) * j.bs;
			cbp[n++] = &cbs[slot];
			slot = (slot + 1) % j.qd;
		}
		if (n && syscall(__NR_io_submit, ctx, n, cbp) != n)
			die("io_submit");
		inflight += n;
		i = aio_reap(ctx, &j, qd_job_want(&j, inflight), ev);
		inflight -= i;
		ops += i;
		t = now() - t0;
	} while (t < j.secs);
	while (inflight)
		inflight -= aio_reap(ctx, &j, 1, ev);
	result("aio", ops, t);
	return 0;
}

/* QD 1: preadv2 with RWF_HIPRI (pvsync2), or pread (psync) */
static int bench_sync(int argc, char **argv)
{
	const char *dev = argv[2];
	unsigned int bs = atoi(argv[3]);
	double secs = atof(argv[4]), t0, t;
	uint64_t size = 0, seed = 0x12345;
	unsigned long ops = 0, blocks;
	int hipri = !strcmp(argv[1], "pvsync2");
	struct iovec iov;
	int fd, i;

	fd = open_dev(dev, &size);
	blocks = size / bs;
	printf("# %s: %s bs %u qd 1%s, %.1f s\n", argv[1], dev, bs,
	       hipri ? " RWF_HIPRI" : "", secs);
	if (posix_memalign(&iov.iov_base, 4096, bs))
		die("alloc");
	iov.iov_len = bs;
	mark();
	t0 = now();
	do {
		for (i = 0; i < 64; i++) {
			off_t off = (rnd(&seed) % blocks) * bs;
			ssize_t ret = hipri ? preadv2(fd, &iov, 1, off, RWF_HIPRI) :
					      pread(fd, iov.iov_base, bs, off);

			if (ret != bs)
				die(argv[1]);
			ops++;
		}
		t = now() - t0;
	} while (t < secs);
	result(argv[1], ops, t);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "nop"))
		return bench_nop(argc, argv);
	if (argc >= 8 && argc <= 10 && !strcmp(argv[1], "uring"))
		return bench_uring(argc, argv);
	if (argc == 8 && !strcmp(argv[1], "aio"))
		return bench_aio(argc, argv);
	if (argc == 5 && (!strcmp(argv[1], "pvsync2") || !strcmp(argv[1], "psync")))
		return bench_sync(argc, argv);
	usage();
	return 2;
}
