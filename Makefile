# kreg: one binary, built from the rooms of DESIGN.md.
#
#   make            ./kreg (optimised)
#   make check      the whole test suite, under ASan + UBSan
#   make bench      benchmarks that print figures
#   make bench-noise     the real-noise corpus (docs/noise.md; an hour)
#   make bench-noise-ab  the quiet-host settings, interleaved (docs/noise.md)
#   make bench-capacity  two qemu guests at once, pinned or not (docs/hosts.md)
#   make fuzz       the libFuzzer targets, for longer
#   make deps       install the Debian packages that are missing
#   make install    PREFIX=/usr/local DESTDIR=

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SHAREDIR ?= $(PREFIX)/share/kreg
MANDIR ?= $(PREFIX)/share/man
SYSCONFDIR ?= /etc
UNITDIR ?= $(PREFIX)/lib/systemd/system

VERSION := $(shell git describe --always --dirty 2>/dev/null || echo 0.1)

# libcurl is not linked: mail/smtp.c loads it when it first sends.
PKGS := libgit2 sqlite3 libcurl yaml-0.1 jansson
LINK_PKGS := libgit2 sqlite3 yaml-0.1 jansson
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(LINK_PKGS) 2>/dev/null)

CC ?= cc
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral \
	-Wmissing-prototypes -Wstrict-prototypes -Wvla \
	-Wno-missing-field-initializers
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -I. $(WARN) -DKREG_VERSION='"$(VERSION)"' \
	-DKREG_SHAREDIR='"$(SHAREDIR)"'
LDLIBS := $(PKG_LIBS) -lm -ldl

# The release kreg (and the benchmarks) take libgit2, SQLite, libyaml,
# jansson and what libgit2 needs from their static archives (Debian's -dev
# packages ship them), not linked non-PIE: each daemon worker and poll is
# a `kreg` process, and loading and relocating some twenty shared
# libraries cost each one more than its work (README: performance).
# STATIC=0 links them as shared libraries.
STATIC ?= 1
ifeq ($(STATIC),1)
REL_LDFLAGS := -no-pie
REL_LDLIBS := -Wl,-Bstatic -lgit2 -lmbedtls -lmbedx509 -lmbedcrypto -lhttp_parser -lssh2 \
	-lcrypto -lpcre2-8 -lz -lsqlite3 -lyaml -ljansson -Wl,-Bdynamic \
	-Wl,--as-needed -l:libgssapi_krb5.so.2 -Wl,--no-as-needed -lm -ldl
else
REL_LDFLAGS :=
REL_LDLIBS := $(LDLIBS)
endif

SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer -O1 -g

# The rooms are docs/DESIGN.md's table, not a list here: every top folder of
# C sources but cmd/ and tests/ goes into libkreg.a, and the layering check
# (tests/check-layers.py) refuses a folder the table does not name.
LIB_SRCS := $(sort $(filter-out cmd/% tests/%,$(wildcard */*.c)))
CMD_SRCS := $(sort $(wildcard cmd/*.c))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
BENCH_SRCS := $(sort $(wildcard tests/bench/bench_*.c))
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
TEST_HELPER_SRCS := $(sort $(wildcard tests/unit/helper_*.c))
# test-only code the unit tests and the benches share (E-Divisive)
TEST_LIB_SRCS := $(sort $(wildcard tests/lib/*.c))

# Two builds side by side: release (./kreg, benchmarks) and san (tests).
REL := build/release
SAN := build/san
FUZ := build/fuzz

rel_objs = $(patsubst %.c,$(REL)/%.o,$(1))
san_objs = $(patsubst %.c,$(SAN)/%.o,$(1))

UNIT_BINS := $(patsubst tests/unit/%.c,$(SAN)/tests/%,$(UNIT_SRCS))
BENCH_BINS := $(patsubst tests/bench/%.c,$(REL)/tests/%,$(BENCH_SRCS))
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(FUZ)/%,$(FUZZ_SRCS))

.PHONY: all check check-unit check-integration check-fuzz bench bench-noise bench-noise-ab bench-capacity fuzz deps \
	install clean tests
.DELETE_ON_ERROR:
.SECONDARY:

all: kreg

kreg: $(REL)/kreg
	cp $< $@

$(REL)/kreg: $(call rel_objs,$(CMD_SRCS)) $(REL)/libkreg.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(REL_LDFLAGS) -o $@ $^ $(REL_LDLIBS)

$(SAN)/kreg: $(call san_objs,$(CMD_SRCS)) $(SAN)/libkreg.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(SAN_FLAGS) -o $@ $^ $(LDLIBS)

$(REL)/libkreg.a: $(call rel_objs,$(LIB_SRCS))
	$(Q)rm -f $@ && ar rcs $@ $^

$(SAN)/libkreg.a: $(call san_objs,$(LIB_SRCS))
	$(Q)rm -f $@ && ar rcs $@ $^

V ?= 0
Q := $(if $(filter 1,$(V)),,@)
$(REL)/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) $(PKG_CFLAGS) -MMD -MP -c -o $@ $<

$(SAN)/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(BASE_CFLAGS) $(SAN_FLAGS) $(PKG_CFLAGS) -MMD -MP -c -o $@ $<

# Unit tests: one cmocka program per module, linked against the san library.
$(SAN)/tests/%: $(SAN)/tests/unit/%.o $(call san_objs,$(TEST_HELPER_SRCS) $(TEST_LIB_SRCS)) \
		 $(SAN)/libkreg.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(SAN_FLAGS) -o $@ $^ $(LDLIBS) -lcmocka

$(REL)/tests/%: $(REL)/tests/bench/%.o $(call rel_objs,$(TEST_LIB_SRCS)) $(REL)/libkreg.a
	@mkdir -p $(@D)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(CFLAGS) $(REL_LDFLAGS) -o $@ $^ $(REL_LDLIBS)

# Fuzz targets: clang's libFuzzer.
FUZZ_CC ?= clang
$(FUZ)/%.o: %.c
	@mkdir -p $(@D)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(FUZZ_CC) $(BASE_CFLAGS) -Wno-unused-command-line-argument -g -O1 \
		-fsanitize=fuzzer-no-link,address,undefined $(PKG_CFLAGS) -MMD -MP -c -o $@ $<

# Not over the whole library: over what the fuzzed code reaches, the lower
# rooms whole and the few files above them it calls: 61 files compiled with
# clang, not 133 (`ls build/fuzz/*/*.o | wc -l`), 37 s of CPU, not 80
# (user+sys of `/usr/bin/time make -j2 build/fuzz/fuzz_...`, every target,
# from scratch). A fuzzed function that comes to call into a file not named here
# fails to link, naming the symbol: add its file. Each target takes from the
# archive only what it calls.
FUZZ_LIB_SRCS := $(filter lib/% config/% jobs/% stats/% bisect/% db/%,$(LIB_SRCS)) \
	kernel/repo.c kernel/apply.c usecase/judge_opts.c report/report.c report/life.c \
	mail/reply.c mail/header.c
FUZZ_LIB_OBJS := $(patsubst %.c,$(FUZ)/%.o,$(FUZZ_LIB_SRCS))

$(FUZ)/libkreg.a: $(FUZZ_LIB_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

$(FUZ)/fuzz_%: $(FUZ)/tests/fuzz/fuzz_%.o $(FUZ)/libkreg.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $^ $(LDLIBS)

tests: $(SAN)/kreg $(UNIT_BINS)

SAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0

# Everything runs under TAP::Harness (prove's engine): unit programs speak
# TAP through cmocka, integration tests are TAP shell scripts.
# tests/run-suite.sh runs the kernel tests' lanes (`# suite: lane NAME`)
# from the start, the others KREG_TEST_JOBS (2) at a time beside
# them, a test marked `# suite: alone` by itself at the end, then prints the
# ten slowest; the harness's summary closes the output.
check: tests $(REL)/kreg $(if $(FUZZ_SRCS),$(FUZZ_BINS))
	@$(SAN_ENV) KREG="$(CURDIR)/$(SAN)/kreg" KREG_SRC="$(CURDIR)" KREG_RELEASE="$(CURDIR)/$(REL)/kreg" \
	CMOCKA_MESSAGE_OUTPUT=TAP KREG_FUZZ_DIR="$(CURDIR)/$(FUZ)" PROVE_FLAGS="$(PROVE_FLAGS)" \
	tests/run-suite.sh $(UNIT_BINS) $(sort $(wildcard tests/integration/*.t))

# Subsets while working: make check-unit T=test_db, make check-integration T=10-db
check-unit: $(UNIT_BINS)
	@$(SAN_ENV) CMOCKA_MESSAGE_OUTPUT=TAP KREG_SRC="$(CURDIR)" \
	prove --exec '' $(PROVE_FLAGS) $(if $(T),$(SAN)/tests/$(T),$(UNIT_BINS))

check-integration: $(SAN)/kreg $(REL)/kreg $(if $(FUZZ_SRCS),$(FUZZ_BINS))
	@$(SAN_ENV) KREG="$(CURDIR)/$(SAN)/kreg" KREG_SRC="$(CURDIR)" KREG_RELEASE="$(CURDIR)/$(REL)/kreg" KREG_FUZZ_DIR="$(CURDIR)/$(FUZ)" \
	prove --exec '' $(PROVE_FLAGS) $(if $(T),$(wildcard tests/integration/$(T)*.t),$(sort $(wildcard tests/integration/*.t)))

bench: kreg $(BENCH_BINS)
	@for b in $(BENCH_BINS); do echo "== $$b"; KREG_SRC="$(CURDIR)" $$b || exit 1; done
	@for s in $(filter-out tests/bench/noise%,$(sort $(wildcard tests/bench/*.sh))); do echo "== $$s"; \
		KREG="$(CURDIR)/kreg" KREG_SRC="$(CURDIR)" bash $$s || exit 1; done

# The real-noise corpus and the quiet-host settings (docs/noise.md): an hour
# of qemu and local runs each, not part of `make bench`.
bench-noise: kreg
	KREG="$(CURDIR)/kreg" KREG_SRC="$(CURDIR)" bash tests/bench/noise.sh

bench-noise-ab: kreg
	KREG="$(CURDIR)/kreg" KREG_SRC="$(CURDIR)" bash tests/bench/noise-ab.sh

bench-capacity: kreg
	KREG="$(CURDIR)/kreg" KREG_SRC="$(CURDIR)" bash tests/bench/noise-capacity.sh

FUZZ_SECONDS ?= 300
# One target at a time; a crash does not stop the campaign: its input is kept
# in build/fuzz-crashes/TARGET/ and make fails at the end naming the targets.
fuzz: $(FUZZ_BINS)
	@fail=; for f in $(FUZZ_BINS); do n=$$(basename $$f); \
		mkdir -p build/fuzz-corpus/$$n build/fuzz-crashes/$$n; \
		echo "== $$n ($(FUZZ_SECONDS) s)"; \
		$$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
			-artifact_prefix=build/fuzz-crashes/$$n/ \
			build/fuzz-corpus/$$n tests/fuzz/corpus/$${n#fuzz_} || fail="$$fail $$n"; done; \
	if [ -n "$$fail" ]; then echo "fuzz: crashes in$$fail (inputs in build/fuzz-crashes/)"; exit 1; fi

# Debian packages kreg needs to build, test and run; only missing ones are installed.
DEB_BUILD := build-essential pkg-config libgit2-dev libsqlite3-dev libcurl4-openssl-dev \
	libyaml-dev libjansson-dev libcmocka-dev clang libclang-rt-14-dev
DEB_RUN := libcurl4 curl git sqlite3 fio dbench qemu-system-x86 busybox-static cpio openssh-client \
	e2fsprogs xfsprogs btrfs-progs f2fs-tools python3-aiosmtpd
DEB_KERNEL := linux-source flex bison bc libelf-dev libssl-dev xz-utils kmod
DEB_TEST := python3 perl dropbear-bin kexec-tools openssl python3-html5lib chromium \
	openssh-server python3-jsonschema dovecot-imapd
# A real LAVA on loopback for the LAVA host's tests (64, 65): installing it
# takes about 1 min 45 s (docs/hosts.md).
DEB_LAVA := lava-server lava-dispatcher
DEBS := $(DEB_BUILD) $(DEB_RUN) $(DEB_KERNEL) $(DEB_TEST) $(DEB_LAVA)
deps:
	@missing=$$(for p in $(DEBS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q '^install ok installed' || echo $$p; done); \
	if [ -z "$$missing" ]; then echo "deps: all installed"; else \
		echo "deps: installing $$missing"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; fi

install: kreg
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SHAREDIR)/jobs $(DESTDIR)$(SHAREDIR)/kernel \
		$(DESTDIR)$(SHAREDIR)/demo \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(SYSCONFDIR)/kreg $(DESTDIR)$(UNITDIR)
	install -m 755 kreg $(DESTDIR)$(BINDIR)/kreg
	install -m 644 config/kreg.example.yaml $(DESTDIR)$(SHAREDIR)/kreg.example.yaml
	[ -e $(DESTDIR)$(SYSCONFDIR)/kreg/kreg.yaml ] || \
		install -m 644 config/kreg.example.yaml $(DESTDIR)$(SYSCONFDIR)/kreg/kreg.yaml
	for f in $(wildcard jobs/*.yaml); do install -m 644 $$f $(DESTDIR)$(SHAREDIR)/jobs/; done
	for f in $(wildcard config/kernel/*); do install -m 644 $$f $(DESTDIR)$(SHAREDIR)/kernel/; done
	install -m 755 demo/kernel-demo.sh demo/series.sh demo/sim-demo.sh $(DESTDIR)$(SHAREDIR)/demo/
	install -m 755 tests/helpers/smtp-server.py $(DESTDIR)$(SHAREDIR)/demo/smtp-server.py
	install -m 644 docs/kreg.1 $(DESTDIR)$(MANDIR)/man1/kreg.1
	sed 's|@BINDIR@|$(BINDIR)|g; s|@SYSCONFDIR@|$(SYSCONFDIR)|g' docs/kreg.service.in > \
		$(DESTDIR)$(UNITDIR)/kreg.service

clean:
	rm -rf build kreg

-include $(shell find $(REL) $(SAN) $(FUZ) -name '*.d' 2>/dev/null)
