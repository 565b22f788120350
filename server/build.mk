# server/build.mk: ext4cell-server (FUSE ext2/3/4 server on libext2fs + libfuse3;
# libsystemd for socket activation, sd_listen_fds).
# The top-level Makefile includes this before its 'all' rule: keep 'all' the default.
.DEFAULT_GOAL := all
SERVER_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(wildcard server/*.c))
CPPFLAGS_server = $(call pkgconf,--cflags fuse3 ext2fs libsystemd)
$(BUILD)/ext4cell-server: $(SERVER_OBJS) $(SECCOMP_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(call pkgconf,--libs fuse3 ext2fs com_err libsystemd) $(SECCOMP_LIBS)
PROGRAMS += $(BUILD)/ext4cell-server
# Test builds: the simulated power cut of server/powercut.h.
ifneq ($(SANITIZE),)
CPPFLAGS_server += -DEXT4CELL_TEST_TRIGGERS
endif
