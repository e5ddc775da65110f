// SPDX-License-Identifier: GPL-2.0
/*
 * fp_plug_order: loaded with dev=/dev/nullbN (a null_blk that ends its
 * requests inside ->queue_rq(), irqmode=0, without a scheduler), opened
 * exclusively and only read, it makes "rounds" times the state in which
 * a new plug could overtake a request that waits on the hardware queue:
 *
 *   1. the hardware queues stopped, a read of sector 0 submitted under a
 *      plug: it cannot be issued and waits on its software queue;
 *   2. the queues started again asynchronously (BLK_MQ_S_STOPPED
 *      cleared, the run left to kblockd, which on a kernel without
 *      preemption and with one CPU online cannot run before this task
 *      sleeps), a read of sector 2048 submitted under a plug (not next
 *      to the first, which it would otherwise join on the software
 *      queue).
 *
 * The second read must not complete before the first.  Results in the
 * parameters: rounds_done, inversions (the second completed first) and
 * timeouts (a round whose reads did not both end within 10 s: the module
 * then stops and stays loaded, as its reads may still end).  Leaves the
 * queues started.  tests/queuerqs/nullb_queue_rqs_order.
 */
#include <linux/module.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/completion.h>

static char *dev;
module_param(dev, charp, 0444);
static unsigned int rounds = 100;
module_param(rounds, uint, 0444);
static unsigned int rounds_done, inversions, timeouts;
module_param(rounds_done, uint, 0444);
module_param(inversions, uint, 0444);
module_param(timeouts, uint, 0444);

struct fp_round {
	atomic_t seq;
	atomic_t left;
	int order[2];
	int status[2];
	struct completion done;
};

struct fp_read {
	struct fp_round *round;
	int idx;
};

static void fp_end_io(struct bio *bio)
{
	struct fp_read *r = bio->bi_private;
	struct fp_round *round = r->round;

	round->order[r->idx] = atomic_inc_return(&round->seq);
	round->status[r->idx] = blk_status_to_errno(bio->bi_status);
	bio_put(bio);
	if (atomic_dec_and_test(&round->left))
		complete(&round->done);
}

static struct bio *fp_bio(struct block_device *bdev, struct page *page,
			  sector_t sector, struct fp_read *r)
{
	struct bio *bio = bio_alloc(GFP_KERNEL, 1);

	bio_set_dev(bio, bdev);
	bio->bi_iter.bi_sector = sector;
	bio->bi_opf = REQ_OP_READ;
	bio->bi_end_io = fp_end_io;
	bio->bi_private = r;
	if (bio_add_page(bio, page, 4096, 0) != 4096) {
		bio_put(bio);
		return NULL;
	}
	return bio;
}

static void fp_submit(struct bio *bio)
{
	struct blk_plug plug;

	blk_start_plug(&plug);
	submit_bio(bio);
	blk_finish_plug(&plug);
}

static int __init fp_plug_order_init(void)
{
	const fmode_t mode = FMODE_READ | FMODE_EXCL;
	struct block_device *bdev;
	struct request_queue *q;
	struct fp_round *round = NULL;
	struct fp_read *reads = NULL;
	struct page *page[2] = { };
	struct bio *a, *b;
	unsigned int i;
	int ret = 0;

	if (!dev)
		return -EINVAL;
	bdev = blkdev_get_by_path(dev, mode, &rounds);
	if (IS_ERR(bdev))
		return PTR_ERR(bdev);
	q = bdev_get_queue(bdev);
	if (!queue_is_mq(q)) {
		ret = -EOPNOTSUPP;
		goto out;
	}
	page[0] = alloc_page(GFP_KERNEL);
	page[1] = alloc_page(GFP_KERNEL);
	if (!page[0] || !page[1]) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < rounds; i++) {
		/* left allocated if a round times out: its reads may still end */
		round = kzalloc(sizeof(*round), GFP_KERNEL);
		reads = kcalloc(2, sizeof(*reads), GFP_KERNEL);
		if (!round || !reads) {
			ret = -ENOMEM;
			break;
		}
		atomic_set(&round->left, 2);
		init_completion(&round->done);
		reads[0] = (struct fp_read){ round, 0 };
		reads[1] = (struct fp_read){ round, 1 };
		a = fp_bio(bdev, page[0], 0, &reads[0]);
		/* not next to the first: it must not merge into it */
		b = fp_bio(bdev, page[1], 2048, &reads[1]);
		if (!a || !b) {
			if (a)
				bio_put(a);
			if (b)
				bio_put(b);
			ret = -ENOMEM;
			break;
		}
		blk_mq_stop_hw_queues(q);
		fp_submit(a);
		blk_mq_start_stopped_hw_queues(q, true);
		fp_submit(b);
		if (!wait_for_completion_timeout(&round->done, 10 * HZ)) {
			timeouts++;
			pr_err("fp_plug_order: round %u: the reads had not ended after 10 s\n", i);
			page[0] = page[1] = NULL;	/* the reads' pages */
			round = NULL;
			reads = NULL;
			break;
		}
		if (round->status[0] || round->status[1])
			pr_err("fp_plug_order: round %u: read errors %d, %d\n", i,
			       round->status[0], round->status[1]);
		if (round->order[1] < round->order[0])
			inversions++;
		rounds_done++;
		kfree(round);
		kfree(reads);
		round = NULL;
		reads = NULL;
	}
	kfree(round);
	kfree(reads);
	pr_info("fp_plug_order: %s: %u rounds, %u inversions, %u unfinished\n",
		dev, rounds_done, inversions, timeouts);
out:
	blk_mq_start_stopped_hw_queues(q, false);
	if (page[0])
		__free_page(page[0]);
	if (page[1])
		__free_page(page[1]);
	blkdev_put(bdev, mode);
	return ret;
}

static void __exit fp_plug_order_exit(void)
{
}

module_init(fp_plug_order_init);
module_exit(fp_plug_order_exit);
MODULE_LICENSE("GPL");
