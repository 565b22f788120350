# tests/host/build.mk: host test programs (POSIX suite, differential test, fd
# helper, fake protocol peer, systemd's notification socket, power-cut
# workload) and the server's unit tests, built into $(BUILD)/tests/.
CPPFLAGS_tests += $(call pkgconf,--cflags ext2fs)
HOST_TESTS := posix difftest withfd helperpeer notifylisten powercut
PROGRAMS += $(patsubst %,$(BUILD)/tests/host/%,$(HOST_TESTS)) $(BUILD)/tests/unit/server_unit
$(patsubst %,$(BUILD)/tests/host/%,$(HOST_TESTS)): $(BUILD)/tests/host/%: $(BUILD)/tests/host/%.o
	$(CC) $(LDFLAGS) -o $@ $^
$(BUILD)/tests/unit/server_unit: $(BUILD)/tests/unit/server_unit.o $(BUILD)/server/options.o \
		$(BUILD)/server/features.o $(BUILD)/server/nodes.o $(BUILD)/server/printable.o \
		$(BUILD)/server/dcache.o
	$(CC) $(LDFLAGS) -o $@ $^
