# fastpath-5.10: each target is a thin call into scripts/.
LABEL ?= patched
LABELS ?= base patched

.PHONY: help check lint bisect-check bench tree export build fetch vm clean

help:
	@echo "make check   lint the queue, build, boot QEMU, run the tests"
	@echo "make lint    the queue lint and the allmodconfig W=1 build of every changed file"
	@echo "make bisect-check  every patch of the series builds and boots (FROM=, TO=)"
	@echo "make bench   base vs patched benchmarks (LABELS=\"$(LABELS)\")"
	@echo "make tree    git work tree of base + patches/ in tree/"
	@echo "make export  write tree/'s commits back to patches/"
	@echo "make build   build one kernel (LABEL=$(LABEL): base, patched, pN)"
	@echo "make fetch   fetch and verify the pinned base (BASE)"

check:
	scripts/check.sh

bisect-check:
	scripts/bisect-check.sh $(FROM) $(TO)

lint:
	scripts/lint-queue.sh
	scripts/allmod-check.sh $(LABEL)

bench:
	LABELS="$(LABELS)" REF="$(REF)" scripts/bench.sh

tree:
	scripts/tree.sh

export:
	scripts/export.sh

build:
	scripts/build.sh $(LABEL)

fetch:
	scripts/fetch-base.sh

clean:
	rm -rf build results
