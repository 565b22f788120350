# ext4cell top-level Makefile.
#   make            build all user-space programs into build/ (-Wall -Wextra -Werror)
#   make deps       install the Debian packages everything needs (apt only)
#   make kernel     build the guest kernel (KCONFIG=test|bench, default test)
#   make kernel-bisect  build every prefix of the patch series (bisectability),
#                       then fs/fuse of every prefix in five more build flavours
#   make fuzz       build the libFuzzer targets (fuzz/, clang, ASan/UBSan) into
#                   build/fuzz and run each for FUZZ_SECONDS (default 60) on its corpus
#   make check      build with ASan/UBSan into build/test and run every test layer
#   make check-fresh  `make deps all` from a git archive of HEAD in a fresh Debian 12 chroot
#   make demo       the product demo (boots a QEMU guest)
#   make security-report  the security suite in full, one report (tests/images):
#                   crafted images on the host and through mount.fuse.ext4 in the
#                   guest (both modes), containment, a fuzzing server vs the kernel
#   make bench      kernel ext4, fuse2fs, ext4cell classic and iomap side by side
#                   in one guest on the bench kernel (bench/bench.sh; never a test)
#   make fstests    fstests (FSTESTS_GROUP, default quick, or FSTESTS_LIST=FILE) on
#                   FSTESTS_TARGETS (ext4 fuse2fs ext4cell-classic ext4cell-iomap),
#                   one guest each on the bench kernel; table in build/fstests
# Each component directory has a build.mk that adds its programs to PROGRAMS.

BUILD     ?= build
KCONFIG   ?= test
CC        ?= gcc
CFLAGS    ?= -O2 -g
CFLAGS    += -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64
SANITIZE  ?=
ifneq ($(SANITIZE),)
CFLAGS    += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS   += -fsanitize=address,undefined
endif
PKG_CONFIG ?= pkg-config
# $(call pkgconf,ARGS): pkg-config's answer, asked when a recipe first needs it,
# not when make reads this file: `make deps all` installs pkg-config's packages
# before anything is compiled. Use it only in recursively expanded (=) variables.
pkgconf = $(shell $(PKG_CONFIG) $(1) || echo pkg-config-failed: $(1))
# Debian's hardening flags (stack protector, FORTIFY, RELRO, BIND_NOW, PIE) for
# every program, the setuid helper first of all; asked once, when first used.
hardening = $(if $(hardening_$(1)),,$(eval hardening_$(1) := $$(shell \
	DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get $(1))))$(hardening_$(1))
CFLAGS    += $(call hardening,CPPFLAGS) $(filter-out -g -O2,$(call hardening,CFLAGS))
LDFLAGS   += $(call hardening,LDFLAGS)
# With `deps` among the goals, every build step waits for it (also under -j).
AFTER_DEPS := $(filter deps,$(MAKECMDGOALS))

PROGRAMS :=
-include $(wildcard */build.mk tests/*/build.mk)

.PHONY: all deps kernel kernel-bisect check check-fresh demo bench fuzz fuzz-build clean \
	security-report fstests
all: $(PROGRAMS)

$(BUILD)/%.o: %.c | $(AFTER_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CPPFLAGS_$(firstword $(subst /, ,$<))) -MMD -MP -c -o $@ $<

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

deps:
	bash tests/deps.sh

kernel: | $(AFTER_DEPS)
	bash kernel/build.sh $(KCONFIG)

kernel-bisect: | $(AFTER_DEPS)
	bash kernel/bisect-build.sh $(KCONFIG) $(or $(FIRST),0)
	bash kernel/bisect-flavours.sh $(FLAVOURS)

check: | $(AFTER_DEPS)
	bash tests/check.sh

check-fresh: | $(AFTER_DEPS)
	bash tests/fresh-machine.sh

demo: all
	bash kernel/build.sh test
	bash tests/demo.sh

FUZZ_SECONDS ?= 60
fuzz-build: | $(AFTER_DEPS)
	$(MAKE) -s FUZZ=1 BUILD=build/fuzz CC=clang-14 SANITIZE=1 fuzz-targets

fuzz: fuzz-build
	bash fuzz/run.sh $(FUZZ_SECONDS)

SECURITY_SEEDS ?= 100
SECURITY_GUEST_SEEDS ?= 5
SECURITY_FUZZ_SEEDS ?= 24
security-report: | $(AFTER_DEPS)
	$(MAKE) -s BUILD=build/test SANITIZE=1 all
	$(MAKE) -s all
	bash kernel/build.sh test
	bash tests/images/security-report.sh $(SECURITY_SEEDS) $(SECURITY_GUEST_SEEDS) $(SECURITY_FUZZ_SEEDS)

fstests: | $(AFTER_DEPS)
	$(MAKE) -s all
	bash kernel/build.sh bench
	bash tests/fstests/run.sh

bench: | $(AFTER_DEPS)
	bash bench/bench.sh

clean:
	rm -rf $(BUILD)
