# tests/iomap/build.mk: the FUSE iomap test server and its guest-side checker.
$(BUILD)/tests/iomap-test-server: $(BUILD)/tests/iomap/iomap-test-server.o \
		$(BUILD)/tests/iomap/wfile.o
	$(CC) $(LDFLAGS) -o $@ $^
$(BUILD)/tests/iomap-check: $(BUILD)/tests/iomap/iomap-check.o \
		$(BUILD)/tests/iomap/whostile.o $(BUILD)/tests/iomap/wmodify.o \
		$(BUILD)/tests/iomap/wshadow.o
	$(CC) $(LDFLAGS) -o $@ $^
PROGRAMS += $(BUILD)/tests/iomap-test-server $(BUILD)/tests/iomap-check
