// SPDX-License-Identifier: GPL-2.0
/*
 * fp_rcu_unlock: a module that ends its RCU read-side sections as one
 * built against 5.10's <linux/rcupdate.h> does on a kernel without
 * preemptible RCU: rcu_read_unlock() and then a call of the exported
 * rcu_read_unlock_strict().  Loaded, it does so "loops" times and
 * stays; tests/rcu/rcu_unlock_strict_module counts what the calls cost
 * the kernel.
 */
#include <linux/module.h>
#include <linux/rcupdate.h>

static unsigned int loops = 100000;
module_param(loops, uint, 0444);

static int __init fp_rcu_unlock_init(void)
{
#if defined(CONFIG_PREEMPT_RCU)
	pr_info("fp_rcu_unlock: preemptible RCU, no rcu_read_unlock_strict()\n");
	return -EOPNOTSUPP;
#else
	unsigned int i;

	for (i = 0; i < loops; i++) {
		rcu_read_lock();
		rcu_read_unlock();
		rcu_read_unlock_strict();
	}
	pr_info("fp_rcu_unlock: %u calls\n", loops);
	return 0;
#endif
}

static void __exit fp_rcu_unlock_exit(void)
{
}

module_init(fp_rcu_unlock_init);
module_exit(fp_rcu_unlock_exit);
MODULE_LICENSE("GPL");
