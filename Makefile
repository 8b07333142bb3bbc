# ktrace — build, test and install.
#
# `make demo` and `make check` work on a fresh Debian 12 machine as root:
# they install what is missing with apt-get first (scripts/deps.sh).

VERSION    := 0.1.0
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/vendor-completions
# systemd reads /usr/local/lib/systemd/system as well as /lib/systemd/system.
SYSTEMDDIR ?= $(PREFIX)/lib/systemd/system

BUILD      ?= build
CC         ?= cc
PKGS       := libtracefs libtraceevent libelf sqlite3 libedit libcurl libxxhash libprotobuf-c libsodium
# pkg-config is evaluated lazily so `make deps` can install it first.
PKG_CFLAGS  = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# libcurl, sqlite3, libedit, libsodium, libxxhash, libelf and ncurses
# are not linked: push, sql, the agent's token, a trace's id, ELF files
# and top's screen load them when they need them (base/dlfns.h:
# lib/push/curlfns.h, lib/sql/sqlitefns.h, lib/sql/editfns.h,
# lib/net/auth.c, lib/push/xxhfns.h, lib/decode/elffns.h,
# lib/base/cursesfns.h).
PKG_LIBS    = $(shell pkg-config --libs $(filter-out libcurl sqlite3 libedit libsodium libxxhash libelf,$(PKGS)) 2>/dev/null)

CFLAGS     ?= -O2 -g
KT_CFLAGS   = -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE \
              -DKTRACE_VERSION='"$(VERSION)"' -Ilib -Icmd -Ikernel -I$(BUILD)/gen \
              $(PKG_CFLAGS) $(EXTRA_CFLAGS)
LDLIBS_ALL  = $(PKG_LIBS) -lzstd -ldeflate -lz -lm $(EXTRA_LDFLAGS)

LIB_SRCS   := $(sort $(wildcard lib/*/*.c lib/live/*/*.c))
CMD_SRCS   := $(sort $(wildcard cmd/*.c))
SRCS       := ktrace.c $(CMD_SRCS) $(LIB_SRCS)
# Perfetto's trace messages (lib/views/perfetto_trace.proto, the part of
# upstream's protos report --format perfetto writes): protoc-c makes their
# C in $(BUILD)/gen, compiled with lib (PROTO_OBJ) and packed by libprotobuf-c.
PROTOS     := $(wildcard lib/views/*.proto)
PROTO_HDRS  = $(PROTOS:lib/%.proto=$(BUILD)/gen/%.pb-c.h)
PROTO_OBJS  = $(PROTOS:lib/%.proto=$(BUILD)/gen/%.pb-c.o)
OBJS        = $(SRCS:%.c=$(BUILD)/%.o) $(PROTO_OBJS)
LIB_OBJS    = $(LIB_SRCS:%.c=$(BUILD)/%.o) $(PROTO_OBJS)
DEPS        = $(OBJS:.o=.d)

ASAN_BUILD := build/asan
ASAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

.PHONY: all deps check-deps demo check test test-asan asan vm-test bench install clean module

all: ktrace

ktrace: $(BUILD)/ktrace
	cp $< $@

$(BUILD)/ktrace: $(OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS_ALL)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(KT_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/gen/%.pb-c.c $(BUILD)/gen/%.pb-c.h: lib/%.proto
	@mkdir -p $(BUILD)/gen
	protoc-c --proto_path=lib --c_out=$(BUILD)/gen $*.proto

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	$(CC) $(CFLAGS) $(KT_CFLAGS) -MMD -MP -c -o $@ $<

# Made before any lib object, which may include them.
$(LIB_SRCS:%.c=$(BUILD)/%.o): | $(PROTO_HDRS)

-include $(DEPS)

# The same sources with AddressSanitizer and UndefinedBehaviorSanitizer.
asan:
	$(MAKE) BUILD=$(ASAN_BUILD) EXTRA_CFLAGS='$(ASAN_FLAGS)' EXTRA_LDFLAGS='$(ASAN_FLAGS)' $(ASAN_BUILD)/ktrace

# record, report, list, stat, reset and stream's tests with ktrace under valgrind
# memcheck (tests/valgrind/run.sh; FILES="stat reset" for fewer).
.PHONY: valgrind
valgrind: all
	scripts/deps.sh valgrind
	tests/valgrind/run.sh $(FILES)

# Public trace.dat files kept outside the tree (tests/data/PROVENANCE.md):
# make corpus-check KT_CORPUS_DIR=DIR compares each with trace-cmd report.
.PHONY: corpus-check
corpus-check: all
	@test -n "$(KT_CORPUS_DIR)" || { echo "make corpus-check: set KT_CORPUS_DIR=DIR, a directory of *.dat files" >&2; exit 64; }
	tests/corpus-dir.sh "$(KT_CORPUS_DIR)"

# Fuzz targets (tests/fuzz): make check replays their corpus and every
# regression input through the ASan build with gcc (tests/bats/fuzz.bats);
# make fuzz FUZZ_SECONDS=N fuzzes each with clang's libFuzzer for N CPU
# seconds (tests/fuzz/run.sh, which says how to run one target longer:
# tests/fuzz/run.sh 1800 file);
# make fuzz-merge then makes tests/fuzz/corpus/* anew from themselves, the
# seeds of tests/data and what the fuzzers found: what adds coverage.
# The targets link the lib objects through an archive (only the ones they
# need) and $(LDLIBS_ALL), the libraries of ktrace itself, so a new lib
# room with a new library cannot leave them unlinked; make check links
# them too (make fuzz-link, against the normal build's objects: seconds,
# where instrumenting lib for libFuzzer takes a minute).
FUZZ_TARGETS := file page format filter
FUZZ_COMMON  := tests/fuzz/fuzz_common.c
FUZZ_BUILD   := build/fuzz
FUZZ_SECONDS ?= 60
FUZZ_SAN     := -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer
# $(call fuzz_link,SANITIZERS,ARCHIVE): target $@ of tests/fuzz/$<.
fuzz_link = clang -g -O1 $(KT_CFLAGS) -Wno-error $(1) -o $@ $< $(FUZZ_COMMON) $(2) $(LDLIBS_ALL) $(1)
.PHONY: fuzz fuzz-replay fuzz-objs fuzz-build fuzz-link fuzz-merge
fuzz-replay: asan
	$(MAKE) $(FUZZ_TARGETS:%=build/replay/fuzz_%)

build/replay/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_COMMON) tests/fuzz/replay.c $(LIB_SRCS:%.c=$(ASAN_BUILD)/%.o)
	@mkdir -p $(dir $@)
	$(CC) -O1 -g $(KT_CFLAGS) $(ASAN_FLAGS) -o $@ $< $(FUZZ_COMMON) tests/fuzz/replay.c \
		$(LIB_SRCS:%.c=$(ASAN_BUILD)/%.o) $(PROTOS:lib/%.proto=$(ASAN_BUILD)/gen/%.pb-c.o) \
		$(LDLIBS_ALL) $(ASAN_FLAGS)

fuzz-objs:
	scripts/deps.sh fuzz
	$(MAKE) CC=clang BUILD=$(FUZZ_BUILD) \
		EXTRA_CFLAGS='-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -Wno-error' \
		$(FUZZ_BUILD)/libktrace.a

# The targets, linked against what fuzz-objs instrumented: tests/fuzz/run.sh
# runs them.
fuzz-build: fuzz-objs
	$(MAKE) CC=clang BUILD=$(FUZZ_BUILD) \
		EXTRA_CFLAGS='-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -Wno-error' \
		$(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_COMMON) $(FUZZ_BUILD)/libktrace.a
	$(call fuzz_link,$(FUZZ_SAN),$(FUZZ_BUILD)/libktrace.a)

# make check's link test (scripts/check.sh, suite fuzz-link): each target
# with libFuzzer against the normal build's lib objects.
FUZZ_LINK_BUILD := build/fuzz-link
fuzz-link: $(BUILD)/libktrace.a
	scripts/deps.sh fuzz
	$(MAKE) $(FUZZ_TARGETS:%=$(FUZZ_LINK_BUILD)/fuzz_%)

$(FUZZ_LINK_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_COMMON) $(BUILD)/libktrace.a
	@mkdir -p $(dir $@)
	$(call fuzz_link,-fsanitize=fuzzer,$(BUILD)/libktrace.a)

fuzz: fuzz-build
	tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-merge: fuzz-build
	tests/fuzz/run.sh merge $(FUZZ_TARGETS)

# The drivers of lib code (tests/unit/NAME.c, each checks a lib file
# against an oracle), with ASan+UBSan against the ASan build's lib
# objects, into build/asan/unit/NAME; the bats files run them from there.
# The objects go in an archive, so that a driver which includes a lib .c
# itself (pages-merge) does not meet its symbols twice.
UNIT_SRCS := $(filter-out %/fastfmt-capture.c,$(sort $(wildcard tests/unit/*.c)))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(ASAN_BUILD)/unit/%)
UNIT_OBJS := $(sort $(wildcard tests/unit/*.c))
UNIT_OBJS := $(UNIT_OBJS:%.c=$(BUILD)/%.o)
.PHONY: unit
.SECONDARY: $(UNIT_OBJS)
unit: asan
	$(MAKE) BUILD=$(ASAN_BUILD) EXTRA_CFLAGS='$(ASAN_FLAGS)' EXTRA_LDFLAGS='$(ASAN_FLAGS)' $(UNIT_BINS)

$(BUILD)/libktrace.a: $(LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/unit/%: $(BUILD)/tests/unit/%.o $(BUILD)/libktrace.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(BUILD)/libktrace.a $(LDLIBS_ALL)

$(BUILD)/unit/fastfmt-check: $(BUILD)/tests/unit/fastfmt-capture.o

-include $(UNIT_OBJS:.o=.d)

# The fault injector tests/bats/faults.bats preloads.
build/faultinj.so: tests/faultinj.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -std=gnu11 -Wall -Wextra -Werror -fPIC -shared -o $@ $< -ldl

deps:
	scripts/deps.sh build

check-deps:
	scripts/deps.sh check

demo: deps
	$(MAKE) all
	scripts/demo.sh

check: check-deps
	$(MAKE) all
	$(MAKE) asan
	$(MAKE) build/faultinj.so
	$(MAKE) fuzz-replay
	$(MAKE) unit
	scripts/check.sh

# The suite once, against the normal build (no dependency install).
test: all unit
	KTRACE=$(CURDIR)/ktrace bats tests/bats

test-asan: asan unit
	KTRACE=$(CURDIR)/$(ASAN_BUILD)/ktrace bats tests/bats

# Every bench on this host (bench/run-all.sh -n lists them and says what
# it skips); KT_BENCH_VM=1 adds the ones that boot kernels in qemu.
bench: all
	scripts/deps.sh bench
	bench/run-all.sh

# The kernel module against the running kernel (KDIR=... for another).
module:
	$(MAKE) -C kernel

# The module's tests in qemu, Debian 6.1, 6.12 and 6.1-rt kernels (TAP).
vm-test:
	tests/vm/run.sh

install: all
	install -D -m 0755 ktrace $(DESTDIR)$(BINDIR)/ktrace
	install -d $(DESTDIR)$(MANDIR)/man1
	install -m 0644 man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -D -m 0644 completions/ktrace.bash $(DESTDIR)$(BASHCOMPDIR)/ktrace
	install -D -m 0644 completions/_ktrace $(DESTDIR)$(ZSHCOMPDIR)/_ktrace
	install -d $(DESTDIR)$(SYSTEMDDIR)
	sed 's|@BINDIR@|$(BINDIR)|g' contrib/ktrace.service.in >$(DESTDIR)$(SYSTEMDDIR)/ktrace.service
	chmod 0644 $(DESTDIR)$(SYSTEMDDIR)/ktrace.service
	sed 's|@BINDIR@|$(BINDIR)|g' contrib/ktrace-agent.service.in >$(DESTDIR)$(SYSTEMDDIR)/ktrace-agent.service
	chmod 0644 $(DESTDIR)$(SYSTEMDDIR)/ktrace-agent.service

clean:
	rm -rf build ktrace

# The report formatter's speed benchmark (lib/decode/fastfmt*.c); its
# identity check against libtraceevent is a unit (tests/unit/fastfmt-check.c).
FF_SRCS      := $(sort $(wildcard lib/decode/fastfmt*.c))
FFSPEED_SRCS := bench/fastfmt-speed.c tests/unit/fastfmt-capture.c $(FF_SRCS) \
		lib/live/tracefs/localtep.c lib/base/fileio.c
FF_HDRS      := lib/decode/fastfmt.h lib/decode/fastfmt-int.h tests/unit/fastfmt-capture.h \
		lib/live/tracefs/localtep.h

$(BUILD)/fastfmt-speed: $(FFSPEED_SRCS) $(FF_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(KT_CFLAGS) -Itests/unit -o $@ $(FFSPEED_SRCS) $(LDLIBS_ALL)

# The packing levels' speed (bench/pack-levels): lib/file/pack.c and libzstd.
$(BUILD)/pack-levels-speed: bench/pack-levels.c lib/file/pack.c lib/file/pack.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(KT_CFLAGS) -o $@ bench/pack-levels.c lib/file/pack.c $(LDLIBS_ALL)
