# SPDX-License-Identifier: GPL-2.0
# clocktrace: make [V=1] [SANITIZE=1] | make check | make test | make demo |
# make bench | make soak

VERSION		:= 0.1.0
HOST_ARCH	:= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
ARCH		:= $(HOST_ARCH)
OUT		:= build
CLANG		?= clang
BPFTOOL		?= bpftool
CC		?= gcc
PREFIX		?= /usr/local
DESTDIR		?=

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

CFLAGS		?= -O2 -g
CFLAGS		+= -Wall -Wextra -std=gnu11 -D_GNU_SOURCE -DCLOCKTRACE_VERSION='"$(VERSION)"'
# user/: core (pure logic and parsers), report (views of the model), trace
# (BPF loading and the session), libc (libc and script probes, symbols),
# cmd (main and the subcommands).  Pure is what lives in core/ and report/:
# the unit tests and fuzzers link only those.
USER_DIRS	:= core report trace libc cmd
CPPFLAGS	+= -I$(OUT) -Ibpf $(patsubst %,-Iuser/%,$(USER_DIRS))
# The binary carries its BPF objects and links libbpf, libdw, libelf and zlib
# statically, so a production host needs nothing but the C library.
LIBS_STATIC	:= -lbpf -ldw -lelf -lz -llzma -lbz2
LDLIBS		:= -Wl,-Bstatic $(LIBS_STATIC) -Wl,-Bdynamic -lm
# libbpf's reads of the kernel BTF go through user/trace/btf_vmlinux.c.
WRAP_LDFLAGS	:= -Wl,--wrap=btf__load_vmlinux_btf

# make ARCH=arm64: Debian's cross compiler and the arm64 multiarch libraries
# (make deps-arm64), everything under build-arm64/: build-arm64/clocktrace
# and build-arm64/tools/*.  The native build is left alone.
CROSS_COMPILE_arm64 := aarch64-linux-gnu-
ifneq ($(ARCH),$(HOST_ARCH))
CROSS		:= 1
CROSS_COMPILE	?= $(CROSS_COMPILE_$(ARCH))
CC		:= $(CROSS_COMPILE)gcc
OUT		:= build-$(ARCH)
endif

ifeq ($(SANITIZE),1)
CFLAGS		+= -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS		+= -fsanitize=address,undefined
OUT		:= build-san
endif

# usdt.bpf.h includes <linux/errno.h>, whose asm/errno.h is the generic
# one on every architecture: the build host's serves.
HOST_MULTIARCH	:= $(shell gcc -dumpmachine)
BPF_CFLAGS	:= -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) \
		   -Ivmlinux/$(ARCH) -Ibpf -Wall -Wno-unused-function \
		   -idirafter /usr/include/$(HOST_MULTIARCH)

# One BPF object, clocktrace.bpf.o, linked from a compile unit per
# concern (bpf/*.bpf.c, sharing bpf/shared.bpf.h) by bpftool gen object.
# shared.bpf.c, which defines what the others declare extern, goes first:
# libbpf 1.1's linker misplaces a map that an object before its
# definition declared (offset 0 in the linked .maps).
BPF_SRCS	:= bpf/shared.bpf.c $(filter-out bpf/shared.bpf.c,$(sort $(wildcard bpf/*.bpf.c)))
BPF_UNITS	:= $(patsubst bpf/%.bpf.c,$(OUT)/bpf/%.o,$(BPF_SRCS))
BPF_HDRS	:= $(wildcard bpf/*.h)
SKELS		:= $(OUT)/clocktrace.skel.h
CORE_ROOTS	:= $(OUT)/clocktrace.core_roots.h
USER_SRCS	:= $(wildcard $(patsubst %,user/%/*.c,$(USER_DIRS)))
USER_HDRS	:= $(wildcard $(patsubst %,user/%/*.h,$(USER_DIRS)))
USER_OBJS	:= $(patsubst user/%.c,$(OUT)/%.o,$(USER_SRCS))
PURE_OBJS	:= $(filter $(OUT)/core/% $(OUT)/report/%,$(USER_OBJS))

UNIT_SRCS	:= $(wildcard tests/unit/*_test.c)
UNIT_BINS	:= $(patsubst tests/unit/%.c,$(OUT)/unit/%,$(UNIT_SRCS))

.PHONY: all clean deps deps-arm64 test check unit-test integration-test demo bench \
	perf-test soak \
	vmlinux vmlinux-image workloads vmtest vmtest-readme vmtest-cost

include tools/Makefile.workloads

ifeq ($(CROSS),1)
# The packages first: a fresh machine has no arm64 libbpf yet.
all: deps-$(ARCH)
	$(Q)$(MAKE) --no-print-directory cross-build

.PHONY: cross-build
cross-build: $(OUT)/clocktrace $(CROSS_WORKLOADS)
else
all: clocktrace workloads
endif

# A rename, so a running clocktrace never blocks the copy (text file busy).
clocktrace: $(OUT)/clocktrace
	$(Q)cp $< $@.tmp && mv -f $@.tmp $@

$(OUT):
	$(Q)mkdir -p $@ $@/unit

$(OUT)/bpf/%.o: bpf/%.bpf.c $(BPF_HDRS) | $(OUT)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/clocktrace.bpf.o: $(BPF_UNITS) Makefile
	$(call msg,BPF-LINK,$@)
	$(Q)$(BPFTOOL) gen object $@ $(BPF_UNITS)

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

$(OUT)/%.core_roots.h: $(OUT)/%.bpf.o tools/core-roots.sh
	$(call msg,GEN-ROOTS,$@)
	$(Q)tools/core-roots.sh $(BPFTOOL) $< > $@.tmp && mv $@.tmp $@

# Each object depends on the headers it includes, as the compiler found
# them (-MMD writes build/DIR/FILE.d; -MP keeps a deleted header from
# breaking the build).  The generated headers must exist before the first
# compile finds them: order-only, then tracked like the rest.  A change
# of this Makefile (its flags) rebuilds them all.
$(OUT)/%.o: user/%.c Makefile | $(SKELS) $(CORE_ROOTS) $(OUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

-include $(USER_OBJS:.o=.d)

$(OUT)/clocktrace: $(USER_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $(WRAP_LDFLAGS) $^ $(LDLIBS) -o $@

# Proves user/trace/core_btf.c's CO-RE target relocates as the whole BTF does.
$(OUT)/core_btf_equal: tests/core_btf_equal.c \
			 $(filter-out $(OUT)/cmd/main.o,$(USER_OBJS))
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(WRAP_LDFLAGS) $^ \
		$(LDLIBS) -o $@

# Checks user/core/pyframe.c's offsets against CPython 3.11's own headers.
$(OUT)/unit/pyframe_test: CPPFLAGS += -I/usr/include/python3.11 \
	-I/usr/include/$(shell $(CC) -dumpmachine)/python3.11

# Reads Debian's libruby-3.1 of this machine's multiarch directory, and
# on x86_64 stand-ins for Debian 13's libruby-3.3 (tests/unit/libruby33.S):
# one as it is, one whose code is not the one known.
$(OUT)/unit/rbframe_test: CPPFLAGS += -DMULTIARCH='"$(shell $(CC) -dumpmachine)"'
ifeq ($(ARCH),x86)
RB33_FIXTURES	:= $(OUT)/unit/libruby33.so $(OUT)/unit/libruby33-other.so
$(OUT)/unit/rbframe_test: CPPFLAGS += -DLIBRUBY33='"$(abspath $(OUT))/unit/libruby33.so"' \
	-DLIBRUBY33_OTHER='"$(abspath $(OUT))/unit/libruby33-other.so"'
$(OUT)/unit/rbframe_test: | $(RB33_FIXTURES)

$(OUT)/unit/libruby33.so: tests/unit/libruby33.S tests/unit/libruby33.map
	$(call msg,AS,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -shared -nostdlib -s -Wl,--version-script=tests/unit/libruby33.map $< -o $@

$(OUT)/unit/libruby33-other.so: tests/unit/libruby33.S tests/unit/libruby33.map
	$(call msg,AS,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -shared -nostdlib -s -DEC_THREAD=0x28 \
		-Wl,--version-script=tests/unit/libruby33.map $< -o $@
endif

$(OUT)/unit/%_test: tests/unit/%_test.c tests/unit/unit_test.h $(PURE_OBJS) | $(OUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(filter-out %.h,$^) -lcmocka \
		$(LDLIBS) -o $@

vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > vmlinux/$(ARCH)/vmlinux.h

# vmlinux/arm64/vmlinux.h is Debian 12's arm64 cloud kernel's BTF (6.1.0-50):
#   make vmlinux-image ARCH=arm64 IMAGE=.../boot/vmlinuz-6.1.0-50-cloud-arm64
vmlinux-image:
	$(Q)mkdir -p $(OUT)
	$(Q)tools/kernel-btf.py $(IMAGE) > $(OUT)/vmlinux.btf
	$(BPFTOOL) btf dump file $(OUT)/vmlinux.btf format c > vmlinux/$(ARCH)/vmlinux.h

# make test cross-builds arm64 (make deb, the kernel matrix's arm64 guest).
deps:
	$(Q)tools/install-deps.sh $(if $(filter x86,$(HOST_ARCH)),arm64)

deps-arm64:
	$(Q)tools/install-deps.sh arm64

unit-test: $(UNIT_BINS)
	$(Q)tools/run-tests.sh unit $(UNIT_BINS)

integration-test: clocktrace workloads
	$(Q)tools/run-tests.sh bats tests/*.bats

# The quick first check: no root, no BPF loaded, under a minute on a
# built tree.  Unit tests, the fuzzers' smoke run, lint, and the docs held
# to the code (tests/docs.bats reads the tree and --help).
check: all $(UNIT_BINS)
	$(Q)tools/run-tests.sh all $(UNIT_BINS) -- tests/docs.bats -- fuzz-smoke lint

# Performance claims (wall and CPU times, ratios, peak RSS): part of make
# bench, which fails when one is missed; make test counts instead.
perf-test: all
	$(Q)tools/run-tests.sh bats tests/perf/*.bats

# In CI (CI=true) the sanitizer pass runs the whole suite again under
# ASan and UBSan, and the package is tried in a minimal Debian root (about
# 80 s the first time: it downloads a base system); locally, make
# test-sanitize and make chroot-test do that on their own.
TEST_STEPS	:= fuzz-smoke lint vmtest $(if $(filter true,$(CI)),test-sanitize chroot-test)

# A static glibc and a static musl build: programs with no libc to probe;
# a dynamic musl build: a second C library, whose loader is its libc.
TEST_WORKLOADS	:= tools/tzloop-static tools/tzloop-musl tools/tzloop-musl-dyn

test: deps
	$(Q)$(MAKE) --no-print-directory all $(TEST_WORKLOADS) $(UNIT_BINS) \
		$(OUT)/core_btf_equal
	$(Q)tools/run-tests.sh all $(UNIT_BINS) -- tests/*.bats -- $(TEST_STEPS)

# The kernel matrix: each kernel booted under qemu (TCG) runs an integration
# subset inside (tools/vmtest/run.sh).  One kernel a line,
# ARCH:SUITE:PACKAGE:SUBSET; apt takes the newest package of that name in
# Debian's SUITE.  SUBSET: full, or small where TCG is slow.
VMTEST_KERNELS	:= \
	x86_64:bullseye:linux-image-5.10.0-*-cloud-amd64-unsigned:full \
	x86_64:bookworm:linux-image-6.1.0-*-cloud-amd64-unsigned:full \
	x86_64:trixie:linux-image-6.12.*-cloud-amd64-unsigned:full \
	arm64:bookworm:linux-image-6.1.0-*-cloud-arm64-unsigned:small

# An x86 machine cross-builds the arm64 guests' binaries first
# (build-arm64/clocktrace and build-arm64/tools/, what run.sh packs).
VMTEST_ARCHS	:= $(sort $(foreach k,$(VMTEST_KERNELS),$(firstword $(subst :, ,$(k)))))
VMTEST_CROSS	:= $(if $(filter x86,$(HOST_ARCH)),$(filter arm64,$(VMTEST_ARCHS)))

vmtest: all
	$(Q)$(foreach a,$(VMTEST_CROSS),$(MAKE) --no-print-directory ARCH=$(a) all &&) true
	$(Q)tools/vmtest/run.sh $(foreach k,$(VMTEST_KERNELS),'$(k)')

# The README's table of tested kernels, from the last make vmtest.
vmtest-readme:
	$(Q)tools/vmtest/table.sh README.md

# What each --attach mode adds to untraced syscalls, from the last make vmtest.
vmtest-cost:
	$(Q)tools/vmtest/cost.sh

# The seeds' reproducer as it is and with the fix, compared; the report
# also as a web page.
demo: deps
	$(Q)$(MAKE) --no-print-directory all
	env -u TZ ./clocktrace run --compare --html $(OUT)/demo.html -- \
		tools/tzloop -q -n 20000 -c 2
	@echo; echo "The same report as a web page: $(OUT)/demo.html"

bench: deps
	$(Q)$(MAKE) --no-print-directory all
	tools/bench.sh
	tools/soak.sh
	$(Q)$(MAKE) --no-print-directory perf-test

# Weeks of a server recycling its workers, compressed: process churn
# through attach --max-procs 256 --listen for SOAK_SECONDS (default 180),
# counts exact, nothing lost, RSS and map entries before and after.
soak: deps
	$(Q)$(MAKE) --no-print-directory all
	tools/soak.sh

clean:
	rm -rf build build-san build-arm64 clocktrace $(WORKLOADS) tools/tzloop-static tools/tzloop-musl \
		tools/tzloop-musl-dyn

include tests/fuzz/Makefile.fuzz
include packaging/Makefile.pkg

# Keep intermediate skeletons and objects.
.SECONDARY:
