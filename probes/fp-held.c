// SPDX-License-Identifier: GPL-2.0
/*
 * fp-held DEV N MODE: N 4 KiB O_DIRECT reads left in flight, unreaped,
 * on the block device DEV, then, by MODE:
 *
 *   hold            (an IOPOLL ring, DEV with a poll queue, where only
 *                   polling ends them) print "held N" and wait for
 *                   SIGUSR1 (at most 300 s), then reap them: the tags
 *                   they hold stay taken until then;
 *   register        (an IOPOLL ring, as hold) IORING_REGISTER_EVENTFD
 *                   and IORING_UNREGISTER_EVENTFD on the ring, each
 *                   bounded by a 10 s alarm, then reap them: the
 *                   registration quiesces the ring, and this thread is
 *                   its only poller;
 *   register-plain  the same on a ring without IOPOLL: the reads end
 *                   while the registration waits for them;
 *   close           print "held N" and exit at once, the ring closed
 *                   with the reads in flight.
 *
 * The reads are of every other block, so that none merges with another
 * and each holds a request (and a tag) of its own.  The N blocks are
 * first written with O_DIRECT, each stamped with its number and this
 * run's nonce, and every read must end with 4096 bytes
 * equal to its block; one that ends with -EAGAIN is counted as such.
 * Prints what it did, a line a step, and "N reads, E -EAGAIN, W wrong";
 * exits 0 when all went right, 1 when a call failed or timed out or a
 * read ended wrong (-EAGAIN included), 2 when it could not run.
 * Static, raw system calls (ring.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>

static void die(const char *what)
{
	perror(what);
	exit(2);
}

#include "ring.h"

#define BS 4096
#define MAXN 64

static volatile sig_atomic_t alarmed, released;

static void on_alarm(int sig)
{
	alarmed = 1;
}

static void on_usr1(int sig)
{
	released = 1;
}

static void stamp(char *p, unsigned int blk, unsigned long nonce)
{
	unsigned int i;

	for (i = 0; i < BS; i += 16)
		snprintf(p + i, 16, "%08lx%06u", nonce & 0xffffffff, blk);
}

/* the registration call OP with ARG, bounded by a 10 s alarm */
static int reg(int fd, unsigned int op, void *arg, unsigned int nr,
	       const char *name)
{
	double t0 = now();
	int ret;

	alarmed = 0;
	alarm(10);
	ret = syscall(__NR_io_uring_register, fd, op, arg, nr);
	alarm(0);
	if (ret < 0 && alarmed) {
		printf("%s: did not return within 10 s (%s)\n", name, strerror(errno));
		return 1;
	}
	if (ret < 0) {
		printf("%s: %s\n", name, strerror(errno));
		return 1;
	}
	printf("%s: returned in %.3f s\n", name, now() - t0);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { 0 };
	unsigned long nonce;
	unsigned int n, i, got = 0, bad = 0, eagain = 0;
	const char *mode;
	int poll;
	char *wbuf, *rbuf;
	struct ring r;
	int fd, efd, rc = 0;

	mode = argc == 4 ? argv[3] : "";
	if (strcmp(mode, "hold") && strcmp(mode, "register") &&
	    strcmp(mode, "register-plain") && strcmp(mode, "close")) {
		fprintf(stderr, "usage: fp-held DEV N hold|register|register-plain|close\n");
		return 2;
	}
	poll = !strcmp(mode, "hold") || !strcmp(mode, "register");
	n = atoi(argv[2]);
	if (!n || n > MAXN) {
		fprintf(stderr, "N: 1 to %d\n", MAXN);
		return 2;
	}
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);

	fd = open(argv[1], O_RDWR | O_DIRECT);
	if (fd < 0)
		die(argv[1]);
	if (posix_memalign((void **)&wbuf, BS, n * BS) ||
	    posix_memalign((void **)&rbuf, BS, n * BS))
		die("posix_memalign");
	nonce = (unsigned long)now() ^ getpid();
	for (i = 0; i < n; i++) {
		stamp(wbuf + i * BS, i, nonce);
		if (pwrite(fd, wbuf + i * BS, BS, 2ULL * i * BS) != BS)
			die("pwrite");
	}
	memset(rbuf, 0xa5, n * BS);

	ring_init(&r, MAXN, poll ? IORING_SETUP_IOPOLL : 0, 0);
	for (i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = get_sqe(&r);

		sqe->opcode = IORING_OP_READ;
		sqe->fd = fd;
		sqe->addr = (unsigned long)(rbuf + i * BS);
		sqe->len = BS;
		sqe->off = 2ULL * i * BS;
		sqe->user_data = i;
	}
	__atomic_store_n(r.sq_tail, r.local_tail, __ATOMIC_RELEASE);
	/* submitted, not waited for: on a poll queue they stay in flight */
	if (syscall(__NR_io_uring_enter, r.fd, n, 0, 0, NULL, 0) != (long)n)
		die("io_uring_enter (submit)");
	printf("held %u\n", n);
	fflush(stdout);
	if (!strcmp(mode, "close"))
		return 0;

	if (!strcmp(mode, "hold")) {
		alarmed = 0;
		alarm(300);
		while (!released && !alarmed)
			usleep(100000);
		alarm(0);
		if (!released) {
			printf("no SIGUSR1 within 300 s\n");
			rc = 1;
		}
	} else {
		efd = eventfd(0, 0);
		if (efd < 0)
			die("eventfd");
		rc |= reg(r.fd, IORING_REGISTER_EVENTFD, &efd, 1, "register eventfd");
		rc |= reg(r.fd, IORING_UNREGISTER_EVENTFD, NULL, 0, "unregister eventfd");
	}

	/* reap them all, within 30 s */
	alarmed = 0;
	alarm(30);
	while (got < n && !alarmed) {
		unsigned int head = *r.cq_head;
		unsigned int tail = __atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE);

		for (; head != tail; head++) {
			struct io_uring_cqe *cqe = &r.cqes[head & *r.cq_mask];

			i = cqe->user_data;
			if (cqe->res == -EAGAIN)
				eagain++;
			if (i >= n || cqe->res != BS ||
			    memcmp(rbuf + i * BS, wbuf + i * BS, BS)) {
				printf("read %u: res %d%s\n", i, cqe->res,
				       i < n && cqe->res == BS ? ", data wrong" : "");
				bad++;
			}
			got++;
		}
		__atomic_store_n(r.cq_head, head, __ATOMIC_RELEASE);
		if (got < n &&
		    syscall(__NR_io_uring_enter, r.fd, 0, 1, IORING_ENTER_GETEVENTS,
			    NULL, 0) < 0 && errno != EINTR)
			die("io_uring_enter (reap)");
	}
	alarm(0);
	if (got < n) {
		printf("%u of %u reads completed within 30 s\n", got, n);
		rc = 1;
	}
	printf("%u reads, %u -EAGAIN, %u wrong\n", got, eagain, bad);
	return rc || bad ? 1 : 0;
}
