# seccomp/build.mk: the server sandbox (seccomp allowlist, capability drop, limits)
# as an object set linked into ext4cell-server and the sandbox tests:
#   objects: $(SECCOMP_OBJS)   link flags: $(SECCOMP_LIBS)   header: seccomp/sandbox.h
# Test builds (SANITIZE=1) add the forbidden acts of seccomp/triggers.h, armed by
# EXT4CELL_SANDBOX_TEST_TRIGGER; release builds contain none of them. Test
# programs that use the acts directly link $(SECCOMP_TEST_OBJS) as well.
SECCOMP_TEST_OBJS := $(BUILD)/seccomp/triggers.o
SECCOMP_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(filter-out seccomp/triggers.c,$(wildcard seccomp/*.c)))
SECCOMP_LIBS = $(call pkgconf,--libs libseccomp libcap)
CPPFLAGS_seccomp += $(call pkgconf,--cflags libseccomp libcap)
ifneq ($(SANITIZE),)
SECCOMP_OBJS += $(SECCOMP_TEST_OBJS)
CPPFLAGS_seccomp += -DEXT4CELL_TEST_TRIGGERS
endif
