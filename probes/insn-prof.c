// SPDX-License-Identifier: GPL-2.0
/*
 * insn-prof: a QEMU TCG plugin that counts the guest instructions executed
 * at each translation block, between two marker instructions.
 *
 * The guest marks a window with "xchg %bx,%bx" (66 87 db, Bochs' magic
 * breakpoint, a no-op on any x86).  The first marker zeroes the counts,
 * the second freezes them; at exit the plugin writes one line per block
 *     <start vaddr> <instructions executed>
 * to the file given as out=FILE.  scripts/insn-profile.sh folds the blocks
 * into functions with the kernel's System.map.  Run the guest with one
 * vCPU: the inline counters are not atomic.
 *
 * Built against QEMU's include/qemu/qemu-plugin.h (API version 1, QEMU 7.2).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct block {
	uint64_t vaddr;
	uint64_t insns;		/* inline counter, live while counting */
	uint64_t frozen;
	struct block *next;
};

#define NBUCKETS (1u << 16)
static struct block *buckets[NBUCKETS];
static const char *out_path = "insn-prof.out";
static int window;		/* 0 before, 1 inside, 2 after */

static struct block *lookup(uint64_t vaddr)
{
	unsigned int h = (vaddr ^ (vaddr >> 17)) & (NBUCKETS - 1);
	struct block *b;

	for (b = buckets[h]; b; b = b->next)
		if (b->vaddr == vaddr)
			return b;
	b = calloc(1, sizeof(*b));
	if (!b)
		abort();
	b->vaddr = vaddr;
	b->next = buckets[h];
	buckets[h] = b;
	return b;
}

static void for_each_block(void (*fn)(struct block *))
{
	unsigned int i;
	struct block *b;

	for (i = 0; i < NBUCKETS; i++)
		for (b = buckets[i]; b; b = b->next)
			fn(b);
}

static void zero(struct block *b)
{
	b->insns = 0;
}

static void freeze(struct block *b)
{
	b->frozen = b->insns;
}

static void marker(unsigned int vcpu, void *udata)
{
	if (window == 0) {
		for_each_block(zero);
		window = 1;
	} else if (window == 1) {
		for_each_block(freeze);
		window = 2;
	}
}

static int is_marker(struct qemu_plugin_insn *insn)
{
	static const unsigned char magic[3] = { 0x66, 0x87, 0xdb };
	const unsigned char *p = qemu_plugin_insn_data(insn);

	return qemu_plugin_insn_size(insn) == 3 && !memcmp(p, magic, 3);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct block *b = lookup(qemu_plugin_tb_vaddr(tb));

	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->insns, n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (is_marker(insn))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, marker,
						QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static FILE *out;

static void dump(struct block *b)
{
	uint64_t v = window == 2 ? b->frozen : b->insns;

	if (v)
		fprintf(out, "%" PRIx64 " %" PRIu64 "\n", b->vaddr, v);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	out = fopen(out_path, "w");
	if (!out) {
		perror(out_path);
		return;
	}
	fprintf(out, "# window %s\n", window == 2 ? "closed" :
		window == 1 ? "open" : "never opened");
	for_each_block(dump);
	fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			out_path = strdup(argv[i] + 4);
		else {
			fprintf(stderr, "insn-prof: unknown option %s\n", argv[i]);
			return -1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
