# seccomp/build.mk: the server sandbox (seccomp allowlist, capability drop, limits)
# as an object set linked into ext4cell-server and the sandbox tests:
#   objects: $(SECCOMP_OBJS)   link flags: $(SECCOMP_LIBS)   header: seccomp/sandbox.h
SECCOMP_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(wildcard seccomp/*.c))
SECCOMP_LIBS := $(shell $(PKG_CONFIG) --libs libseccomp libcap)
CPPFLAGS_seccomp += $(shell $(PKG_CONFIG) --cflags libseccomp libcap)
