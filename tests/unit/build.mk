# tests/unit/build.mk: unit test programs, built into $(BUILD)/tests/unit/ and run
# by the tests/unit/*.suite scripts.

# seccomp_test: the server sandbox (seccomp/), run by seccomp.suite.
PROGRAMS += $(BUILD)/tests/unit/seccomp_test
CPPFLAGS_tests += -Iseccomp

$(BUILD)/tests/unit/seccomp_test: $(BUILD)/tests/unit/seccomp_test.o \
				  $(sort $(SECCOMP_OBJS) $(SECCOMP_TEST_OBJS))
	$(CC) $(LDFLAGS) -o $@ $^ $(SECCOMP_LIBS) -lpthread

# fdio_unit: the server's io_manager and its write-back cache (server/fdio.c),
# run by fdio.suite.
PROGRAMS += $(BUILD)/tests/unit/fdio_unit
FDIO_OBJS := $(addprefix $(BUILD)/server/,fdio.o txn.o jlog.o journal.o log.o powercut.o)
$(BUILD)/tests/unit/fdio_unit: $(BUILD)/tests/unit/fdio_unit.o $(FDIO_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(call pkgconf,--libs ext2fs com_err fuse3)
