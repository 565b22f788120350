# seccomp/build.mk: the server sandbox (seccomp allowlist, capability drop, limits)
# as an object set linked into ext4cell-server and the sandbox tests:
#   objects: $(SECCOMP_OBJS)   link flags: $(SECCOMP_LIBS)   header: seccomp/sandbox.h
# $(SECCOMP_TEST_OBJS) are the forbidden acts of seccomp/triggers.h: test
# programs and test builds of the server (SANITIZE=1) only, never release builds.
SECCOMP_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(filter-out seccomp/triggers.c,$(wildcard seccomp/*.c)))
SECCOMP_TEST_OBJS := $(BUILD)/seccomp/triggers.o
SECCOMP_LIBS := $(shell $(PKG_CONFIG) --libs libseccomp libcap)
CPPFLAGS_seccomp += $(shell $(PKG_CONFIG) --cflags libseccomp libcap)
