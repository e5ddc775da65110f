/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The io_uring ring of the probes: raw system calls, no liburing, so
 * that a probe is one static binary that runs on any kernel the harness
 * boots.  The includer defines die(const char *what) first.
 */
#ifndef FP_RING_H
#define FP_RING_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/io_uring.h>

struct ring {
	int fd;
	unsigned int entries;
	unsigned int *sq_head, *sq_tail, *sq_mask, *sq_array, *sq_flags;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	unsigned int local_tail;
};

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* IDLE_MS: the SQ thread's idle time, with IORING_SETUP_SQPOLL */
static inline void ring_init(struct ring *r, unsigned int entries, unsigned int flags,
		      unsigned int idle_ms)
{
	struct io_uring_params p = { .flags = flags, .sq_thread_idle = idle_ms };
	void *sq, *cq;

	r->fd = syscall(__NR_io_uring_setup, entries, &p);
	if (r->fd < 0)
		die("io_uring_setup");
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * 4, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		  IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		       IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		die("mmap ring");
	r->sq_head = sq + p.sq_off.head;
	r->sq_tail = sq + p.sq_off.tail;
	r->sq_mask = sq + p.sq_off.ring_mask;
	r->sq_array = sq + p.sq_off.array;
	r->sq_flags = sq + p.sq_off.flags;
	r->cq_head = cq + p.cq_off.head;
	r->cq_tail = cq + p.cq_off.tail;
	r->cq_mask = cq + p.cq_off.ring_mask;
	r->cqes = cq + p.cq_off.cqes;
	r->entries = p.sq_entries;
	r->local_tail = *r->sq_tail;
}

static inline struct io_uring_sqe *get_sqe(struct ring *r)
{
	unsigned int idx = r->local_tail++ & *r->sq_mask;

	r->sq_array[idx] = idx;
	memset(&r->sqes[idx], 0, sizeof(r->sqes[idx]));
	return &r->sqes[idx];
}

/*
 * ring_one: submit the one SQE queued on R and wait for its CQE: its
 * res.  An IOPOLL ring's wait may end without the CQE (io_iopoll_check()
 * stops when the task should reschedule): wait again, 10 s in all, then
 * exit 2.
 */
static inline int ring_one(struct ring *r)
{
	struct io_uring_cqe *cqe;
	unsigned int head;
	double t0 = now();
	int ret;

	__atomic_store_n(r->sq_tail, r->local_tail, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0) != 1)
		die("io_uring_enter");
	for (;;) {
		head = *r->cq_head;
		if (head != __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
			break;
		if (now() - t0 > 10) {
			fprintf(stderr, "no CQE in 10 s\n");
			exit(2);
		}
		syscall(__NR_io_uring_enter, r->fd, 0, 1, IORING_ENTER_GETEVENTS,
			NULL, 0);
	}
	cqe = &r->cqes[head & *r->cq_mask];
	ret = cqe->res;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return ret;
}

static inline uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#endif
