# fastpath-5.10: each target is a thin call into scripts/.
LABEL ?= patched
LABELS ?= base patched

.PHONY: help check check-long check-wide check-breaks check-deb deb mail lint bisect-check bench insn eagain-matrix latency tree export build fetch clean

help:
	@echo "make check   lint the queue, build, boot QEMU, run the tests (TESTS='PATTERN...': only those, docs/writing-tests.md)"
	@echo "             (RT=1: Debian's rt flavour, PREEMPT_RT: its config's build of the series' files, the poll, nopoll and eagain boots)"
	@echo "make check-long  the debug kernel's boots (poll, mpath, starved REPEAT=3 times; the others once), and DMA-API debug"
	@echo "             (make check and check-long: CHECK_LABELS=\"patched patched+debug\", the kernels to boot)"
	@echo "make check-wide  base and patched with dm, md, loop, SCSI, nvmet, xfs, btrfs, cgroups (LABELS= FRAGS= TESTS=)"
	@echo "make check-breaks  the tests fail on the hand-broken kernel (harness/breaks/, BREAKS=)"
	@echo "make lint    the queue lint, docs/layout.md against the tree, the tests' headers, the allmodconfig W=1 build of every changed file"
	@echo "make bisect-check  every patch of the series builds and boots (FROM=, TO=)"
	@echo "make bench   the main job: base and patched side by side, ratios (LABELS=\"$(LABELS)\", REF=mainline,"
	@echo "             MODES=\"icount wall\", RUNS=3, ROUNDS=5, SECS=1, PROBES=REGEX; docs/bench.md)"
	@echo "make insn    guest instructions per 128 KiB and 1 MiB read outside the poll and idle loops,"
	@echo "             NVMe and null_blk, polled and by interrupt (LABELS=patched, REF=mainline: gated, PROBES=)"
	@echo "make eagain-matrix  the -EAGAIN CQEs of make check's eagain boot, per kernel (LABELS=, REF=mainline)"
	@echo "make latency cyclictest beside I/O on CONFIG_PREEMPT builds of base and patched (RUNS=3, LAT_LABELS=\"base patched breaks\")"
	@echo "make deb     Debian's linux 5.10.262-1 with the series, built in a Debian 11 root: results/deb/debian-FLAVOUR/"
	@echo "             (FLAVOUR=amd64|rt; DEB_CONFIG=qemu: the small test package make check boots)"
	@echo "make check-deb  install make deb's packages in a Debian 11 guest beside Debian's kernel, boot,"
	@echo "             fio hipri, kselftests, an out-of-tree module, roll back (FLAVOUR=, DEB_CONFIG=qemu)"
	@echo "make mail    the send-ready mails in outgoing/, checked with git send-email --dry-run"
	@echo "             (BASE_VERSION=5.10.223 on check, build, bench: the older pin and its queue)"
	@echo "make tree    git work tree of base + patches/ in tree/"
	@echo "make export  write tree/'s commits back to patches/"
	@echo "make build   build one kernel (LABEL=$(LABEL): base, patched, pN)"
	@echo "make fetch   fetch and verify the pinned base (BASE)"
	@echo "make clean   remove build/, results/ and outgoing/ (the cache stays)"
	@echo "environment: FASTPATH_CACHE (downloads, ccache, roots: ~/.cache/fastpath), FASTPATH_BUILD"
	@echo "             (kernels and guests: build/), FASTPATH_JOBS (compile jobs: all CPUs)"

check:
	TESTS="$(TESTS)" CHECK_RT="$(RT)" scripts/check.sh

# before a resolve: the debug kernel's poll, multipath and tag-starved
# boots three times over, its nopoll, dbbuf, swiotlb, eagain and
# liburing boots once, and the poll and swiotlb boots under DMA-API
# debugging (longer than CI has)
check-long:
	CHECK_LABELS="patched+debug patched+debug+dma-debug" \
		CHECK_REPEAT=$(or $(REPEAT),3) CHECK_LONG=1 \
		CHECK_DEB=0 scripts/check.sh

# before a resolve: what users stack on the series, base and patched
# side by side (configs/wide.config, guest/wide.sh)
check-wide:
	LABELS="$(LABELS)" FRAGS="$(FRAGS)" TESTS="$(TESTS)" scripts/check-wide.sh

# before a resolve: each break of harness/breaks/break.patch fails the
# tests guest/expected/breaks/ names, and only those
check-breaks:
	BREAKS="$(BREAKS)" scripts/check-breaks.sh

# scheduling latency beside I/O on CONFIG_PREEMPT kernels, base and
# patched (configs/preempt.config, guest/run-latency.sh)
latency:
	RUNS="$(RUNS)" LABELS="$(LAT_LABELS)" scripts/latency.sh

# Debian's own kernel package with the series, built in a Debian 11 root
# (FLAVOUR=amd64 or rt); DEB_CONFIG=qemu: make check's small test package
DEB_CONFIG ?= debian
FLAVOUR ?= amd64
deb:
ifeq ($(DEB_CONFIG),qemu)
	DEB_CONFIG=qemu scripts/deb.sh
else
	FLAVOUR=$(FLAVOUR) scripts/deb-debian.sh
endif

check-deb:
ifeq ($(DEB_CONFIG),qemu)
	DEB_CONFIG=qemu scripts/check-deb.sh
else
	FLAVOUR=$(FLAVOUR) scripts/check-deb-debian.sh
endif

mail:
	scripts/mail.sh

bisect-check:
	scripts/bisect-check.sh $(FROM) $(TO)

lint:
	scripts/lint-queue.sh
	scripts/lint-layout.py
	scripts/tests.py lint
	scripts/allmod-check.sh $(LABEL)

bench:
	LABELS="$(LABELS)" REF="$(REF)" scripts/bench.sh

# LABELS given on the command line, else patched alone
insn:
	LABELS="$(if $(filter file,$(origin LABELS)),patched,$(LABELS))" REF="$(REF)" PROBES="$(PROBES)" scripts/insn-table.sh

eagain-matrix:
	LABELS="$(LABELS)" REF="$(REF)" scripts/eagain-matrix.sh

tree:
	scripts/tree.sh

export:
	scripts/export.sh

build:
	scripts/build.sh $(LABEL)

fetch:
	scripts/fetch-base.sh

clean:
	rm -rf build results outgoing
