# cuda-doctor build. Out-of-tree: everything goes under $(BUILD).
#   make            build $(BUILD)/cuda-doctor
#   make run        install missing build dependencies, build, run `cuda-doctor check`
#                   (its findings are the report, not a failure of make: exit 0 or 1 passes)
#   make install    the binary and the man page under $(DESTDIR)$(PREFIX) (default /usr/local)
#   make test       install missing dependencies, then unit (ASan+UBSan), end-to-end,
#                   lint, clang build and short fuzz runs
#   make unit e2e lint fuzz bench format clean
#   make cross-test  the aarch64 build (CROSS=aarch64-linux-gnu-) under qemu-user
#   make wheel      build $(BUILD)/dist/cuda_doctor_bin-VERSION-py3-none-manylinux_*.whl
# Variables: CC (gcc or clang), BUILD (build dir), SAN=1 (ASan+UBSan), FUZZ=1
# (libFuzzer instrumentation; CC=clang), WERROR=1 (default under CI), V=1.

CC ?= gcc
# CROSS=aarch64-linux-gnu-: a cross build with Debian's toolchain into build/aarch64-linux-gnu; the
# build-time sigc runs under qemu-user (QEMU), embed on the host (docs/portability.md).
CROSS ?=
ifneq ($(CROSS),)
CC := $(CROSS)gcc
BUILD ?= build/$(patsubst %-,%,$(CROSS))
QEMU ?= qemu-$(firstword $(subst -, ,$(CROSS)))-static
endif
HOSTCC ?= $(if $(CROSS),gcc,$(CC))
BUILD ?= build
SAN ?=
FUZZ ?=
WERROR ?= $(if $(CI),1,)
FUZZ_SECONDS ?= 8

ifeq ($(V),1)
Q :=
else
Q := @
endif

VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

WARN := -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wvla -Wpointer-arith -Wundef -Wwrite-strings -Wno-unused-parameter \
	-Wimplicit-fallthrough -Wconversion -Wsign-conversion
CPPFLAGS += -Isrc -I$(BUILD)/gen -D_GNU_SOURCE -DCD_VERSION='"$(VERSION)"'
# The glibc floor, GLIBC_2.28: older symbol versions (src/core/glibc_floor.h says which).
CPPFLAGS += -include src/core/glibc_floor.h
CFLAGS ?= -O2 -g
CFLAGS += -std=c11 $(WARN) -fno-strict-aliasing -fstack-protector-strong -MMD -MP

# Guard rails of every build (docs/contributing.md): a full RELRO, bound at
# load time, and glibc's checked string and memory functions wherever the
# code is optimised (_FORTIFY_SOURCE needs -O1 or more). The sanitizer and
# fuzzer builds leave fortification out: their runtimes do not intercept the
# __*_chk functions, so it would hide from them the bugs they are there for.
HARDEN_LD := -Wl,-z,relro,-z,now
LDFLAGS += $(HARDEN_LD)
ifeq ($(SAN)$(FUZZ),)
ifneq ($(filter -O1 -O2 -O3 -Os -Og -Ofast,$(CFLAGS)),)
CPPFLAGS += -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2
endif
else
CPPFLAGS += -U_FORTIFY_SOURCE
endif
ifeq ($(WERROR),1)
CFLAGS += -Werror
TOOL_WERROR := -Werror
endif
ifeq ($(SAN),1)
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif
ifeq ($(FUZZ),1)
CFLAGS += -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -DCD_FUZZING
LDFLAGS += -fsanitize=address,undefined
endif

# Static third-party libraries: the binary depends on glibc alone.
STATIC_LIBS := -Wl,-Bstatic -ljansson -Wl,-Bdynamic
# Vectorscan's runtime only: the database is compiled at build time (tools/sigc.c).
STATIC_LIBS += -Wl,-Bstatic -lhs_runtime -Wl,-Bdynamic
# libyaml's event parser, for Compose files (format/yamltree.c).
STATIC_LIBS += -Wl,-Bstatic -lyaml -Wl,-Bdynamic
# zlib's deflate for the .tar.gz of `bundle` (docs/bundle.md says why not stored blocks).
STATIC_LIBS += -Wl,-Bstatic -lz -Wl,-Bdynamic
# libdl.so.2 by name: below glibc 2.34 dlopen lives there (and no libdl.so link is installed).
LDLIBS += $(STATIC_LIBS) -Wl,--push-state,--no-as-needed -l:libdl.so.2 -Wl,--pop-state -lm

SRCS := $(shell find src -name '*.c' | sort)
LIB_SRCS := $(filter-out src/main.c,$(SRCS))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
DATA_FILES := $(shell find data -type f \( -name '*.tsv' -o -name '*.txt' \) 2>/dev/null | sort)
GEN_DATA := $(BUILD)/gen/kb_data.c
GEN_OBJ := $(BUILD)/gen/kb_data.o

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
FAKES := $(BUILD)/fakes/libnvidia-ml.so.1 $(BUILD)/fakes/libcuda.so.1 $(BUILD)/fakes/libnccl.so.2
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)

.PHONY: lexicon all run test deps unit e2e lint fuzz fuzz-build bench bench-diff accuracy format clean \
	check-static test-san test-clang fakes wheel cross-test install run-check
all: $(BUILD)/cuda-doctor

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

# The knowledge base: data/ files embedded as byte arrays.
$(BUILD)/tools/embed: tools/embed.c
	@mkdir -p $(dir $@)
	$(Q)$(HOSTCC) -O1 -std=c11 $(WARN) $(TOOL_WERROR) -o $@ $<

# The folders too: a file removed from data/ must leave the binary as well.
$(GEN_DATA): $(BUILD)/tools/embed $(DATA_FILES) $(sort $(dir $(DATA_FILES)))
	@mkdir -p $(dir $@)
	$(Q)$(BUILD)/tools/embed $@ $(DATA_FILES)

$(GEN_OBJ): $(GEN_DATA)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-missing-prototypes -c $< -o $@

$(LIB_OBJS): | $(GEN_DATA)

# Log signatures: sigc validates data/signatures (samples must match, near
# misses must not; a failure stops the build) and compiles one database.
SIG_FILES := $(sort $(wildcard data/signatures/*.txt)) data/explain_fallback.tsv \
	data/explain_facts.tsv data/gpu_models.tsv data/explain_also.tsv
SIGC_SRCS := tools/sigc.c src/explain/tmpl.c src/explain/tmpl_match.c src/explain/sigdb.c \
	src/explain/sigdb_tsv.c \
	src/explain/keyfact.c \
	src/core/arena.c src/core/buf.c src/core/err.c src/core/span.c src/core/str.c src/core/vec.c
$(BUILD)/tools/sigc: $(SIGC_SRCS) $(wildcard src/explain/*.h src/core/*.h)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -O2 -g -std=c11 -D_GNU_SOURCE -Isrc $(WARN) $(TOOL_WERROR) -o $@ $(SIGC_SRCS) \
		-lhs -lstdc++ -lm
# The anchors are chosen by rarity in real output: the tune part's logs and
# the healthy runs' (absent from a tree without tests/, the anchors are
# tmpl_compile's: slower on real text, the same matches).
SIG_REF := $(sort $(wildcard tests/corpus/tune/*.log tests/fixtures/healthy/*.log))
$(BUILD)/gen/sigdb.c: $(BUILD)/tools/sigc $(SIG_FILES) $(SIG_REF)
	@mkdir -p $(dir $@)
	$(Q)$(QEMU) $(BUILD)/tools/sigc $@ $(SIG_FILES) $(if $(SIG_REF),--ref $(SIG_REF))
$(BUILD)/gen/sigdb.o: $(BUILD)/gen/sigdb.c
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@
$(BUILD)/libcd.a: $(BUILD)/gen/sigdb.o

$(BUILD)/libcd.a: $(LIB_OBJS) $(GEN_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/cuda-doctor: $(BUILD)/src/main.o $(BUILD)/libcd.a
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
	@echo "built $@"

# ---- tests -----------------------------------------------------------------
$(BUILD)/tests/test_%: tests/unit/test_%.c $(BUILD)/libcd.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-missing-prototypes $(LDFLAGS) -o $@ $< \
		$(BUILD)/libcd.a -lcmocka $(LDLIBS)

$(BUILD)/fakes/libnvidia-ml.so.1: tests/fakes/fake_nvml.c tests/fakes/fake_common.h
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE -O1 -g -fPIC -shared -Wall -Wl,-soname,libnvidia-ml.so.1 -o $@ $<

$(BUILD)/fakes/libcuda.so.1: tests/fakes/fake_cuda.c tests/fakes/fake_common.h
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE -O1 -g -fPIC -shared -Wall -Wl,-soname,libcuda.so.1 -o $@ $<

$(BUILD)/fakes/libnccl.so.2: tests/fakes/fake_nccl.c tests/fakes/fake_common.h
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE -O1 -g -fPIC -shared -Wall -Wl,-soname,libnccl.so.2 -o $@ $<

fakes: $(FAKES)

unit: $(UNIT_BINS)
	@set -e; pass=0; fail=0; for t in $(UNIT_BINS); do \
		if $$t; then pass=$$((pass+1)); else fail=$$((fail+1)); echo "FAILED: $$t"; fi; \
	done; echo "unit: $$pass passed, $$fail failed"; test $$fail -eq 0

# the bats files side by side, BATS_JOBS at a time (tests/bats-par.sh; default twice the CPUs)
e2e: $(BUILD)/cuda-doctor fakes
	CD_BIN=$(abspath $(BUILD)/cuda-doctor) CD_FAKES=$(abspath $(BUILD)/fakes) \
		BUILD_DIR=$(abspath $(BUILD)) tests/bats-par.sh tests/e2e

check-static: $(BUILD)/cuda-doctor
	@scripts/check-static.sh $(BUILD)/cuda-doctor

lint:
	@scripts/lint.sh

format:
	clang-format -i $$(find src tests tools -name '*.[ch]')

# libFuzzer targets, one per parser of untrusted bytes, seeded from tests/fuzz/corpus/NAME.
fuzz-build:
	$(MAKE) BUILD=$(BUILD)/fuzz CC=clang FUZZ=1 $(BUILD)/fuzz/libcd.a
	@set -e; for f in $(FUZZ_SRCS); do n=$$(basename $$f .c); \
		clang $(filter-out -D_FORTIFY_SOURCE=2,$(CPPFLAGS)) -U_FORTIFY_SOURCE -I$(BUILD)/fuzz/gen \
		-std=c11 -g -O1 $(WARN) -Wno-missing-prototypes $(TOOL_WERROR) \
		-fsanitize=fuzzer,address,undefined $(HARDEN_LD) \
		-o $(BUILD)/fuzz/$$n $$f $(BUILD)/fuzz/libcd.a $(LDLIBS); done

# the targets side by side, FUZZ_JOBS at a time (default: the CPUs), FUZZ_SECONDS each
FUZZ_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
fuzz: fuzz-build
	@printf '%s\n' $(FUZZ_SRCS) | xargs -P $(FUZZ_JOBS) -I{} sh -c 'n=$$(basename {} .c); \
		mkdir -p $(BUILD)/fuzz/corpus/$$n; \
		seeds=tests/fuzz/corpus/$${n#fuzz_}; [ -d $$seeds ] || seeds=; \
		echo "fuzz: $$n for $(FUZZ_SECONDS)s"; \
		$(BUILD)/fuzz/$$n -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=1024 -timeout=10 \
			-print_final_stats=0 $(BUILD)/fuzz/corpus/$$n $$seeds 2>$(BUILD)/fuzz/$$n.log \
			|| { echo "fuzz: $$n FAILED"; tail -40 $(BUILD)/fuzz/$$n.log; exit 1; }'
	@echo "fuzz: $(words $(FUZZ_SRCS)) targets ran clean"

deps:
	@scripts/install-deps.sh

run: deps
	$(MAKE) all
	$(MAKE) run-check

# The report of `make run`: exit 1 (findings at error severity) is its answer.
run-check:
	@rc=0; $(BUILD)/cuda-doctor check || rc=$$?; \
	if [ $$rc -gt 1 ]; then exit $$rc; fi; \
	if [ $$rc -eq 1 ]; then echo "make run: check found errors (above): that is its report, not a build failure"; fi

PREFIX ?= /usr/local
DESTDIR ?=

install: $(BUILD)/cuda-doctor
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/cuda-doctor $(DESTDIR)$(PREFIX)/bin/cuda-doctor
	install -m 644 docs/cuda-doctor.1 $(DESTDIR)$(PREFIX)/share/man/man1/cuda-doctor.1

test-san:
	$(MAKE) BUILD=$(BUILD)/san SAN=1 unit
	CD_SAN=1 $(MAKE) BUILD=$(BUILD)/san SAN=1 e2e

# The aarch64 build (Grace Hopper) under qemu-user beside the native one (tests/cross/).
CROSS_TRIPLE ?= aarch64-linux-gnu
cross-test:
	@scripts/cross-deps.sh
	$(MAKE) all
	$(MAKE) CROSS=$(CROSS_TRIPLE)- BUILD=$(BUILD)/$(CROSS_TRIPLE) all
	CD_BIN=$(abspath $(BUILD)/cuda-doctor) CD_CROSS_BIN=$(abspath $(BUILD)/$(CROSS_TRIPLE)/cuda-doctor) \
		CD_QEMU=qemu-$(firstword $(subst -, ,$(CROSS_TRIPLE)))-static bats --timing tests/cross

test-clang:
	$(MAKE) BUILD=$(BUILD)/clang CC=clang all

test: deps
	$(MAKE) all check-static
	$(MAKE) unit
	$(MAKE) e2e
	$(MAKE) test-san
	$(MAKE) test-clang
	$(MAKE) lint
	$(MAKE) fuzz
	@echo "make test: all steps passed"

# The wheel: the static binary and the thin Python module (python/), built
# with Python's standard library alone (tools/wheel.py; docs/python.md).
PY_SRCS := $(wildcard python/cuda_doctor/*.py)
wheel: $(BUILD)/cuda-doctor $(PY_SRCS) tools/wheel.py docs/python.md
	$(Q)python3 tools/wheel.py --binary $(BUILD)/cuda-doctor --version $(VERSION) --out $(BUILD)/dist

$(BUILD)/bench/timeit: bench/timeit.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -O2 -std=c11 -D_GNU_SOURCE -Wall -o $@ $<

# explain's guess: the lines of each tune log a signature matches, then the words table learnt
# from the tune logs whole and without those lines (tools/lexicon.py; docs/explain.md)
lexicon: all
	tools/lexicon-lines.sh $(BUILD)/cuda-doctor tests/corpus/tune >tests/corpus/tune.lines
	python3 tools/lexicon.py --matched tests/corpus/tune.lines tests/corpus/tune >data/explain_lexicon.tsv

# explain's accuracy on the log corpus, per part and category (tests/corpus/README.md).
accuracy: all
	CD_BIN=$(abspath $(BUILD)/cuda-doctor) tests/corpus/accuracy.sh

# every side-by-side benchmark in one go, one table of ratios (bench/all.sh, docs/performance.md)
bench: all $(BUILD)/bench/timeit
	TIMEIT=$(abspath $(BUILD)/bench/timeit) bench/all.sh $(BUILD)/cuda-doctor

# diff of 10,000 and 100,000 generated node reports beside jq -s (bench/diff.sh).
$(BUILD)/bench/gen_reports: bench/gen_reports.c $(BUILD)/libcd.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) -O2 -std=c11 -Wall -o $@ $< $(BUILD)/libcd.a $(LDLIBS)

bench-diff: all $(BUILD)/bench/gen_reports
	GEN=$(abspath $(BUILD)/bench/gen_reports) bench/diff.sh $(BUILD)/cuda-doctor

clean:
	rm -rf $(BUILD)

-include $(LIB_OBJS:.o=.d) $(BUILD)/src/main.d
