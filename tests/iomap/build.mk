# tests/iomap/build.mk: the FUSE iomap test server and its guest-side checker.
$(BUILD)/tests/iomap-test-server: $(BUILD)/tests/iomap/iomap-test-server.o
	$(CC) $(LDFLAGS) -o $@ $^
$(BUILD)/tests/iomap-check: $(BUILD)/tests/iomap/iomap-check.o
	$(CC) $(LDFLAGS) -o $@ $^
PROGRAMS += $(BUILD)/tests/iomap-test-server $(BUILD)/tests/iomap-check
