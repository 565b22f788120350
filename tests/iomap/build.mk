# tests/iomap/build.mk: the FUSE iomap test server, its guest-side checker, the
# random-operation exerciser and the concurrency cases.
$(BUILD)/tests/iomap-test-server: $(BUILD)/tests/iomap/iomap-test-server.o \
		$(BUILD)/tests/iomap/wfile.o $(BUILD)/tests/iomap/wdefer.o \
		$(BUILD)/tests/iomap/wfuzz.o
	$(CC) $(LDFLAGS) -pthread -o $@ $^
$(BUILD)/tests/iomap-check: $(BUILD)/tests/iomap/iomap-check.o \
		$(BUILD)/tests/iomap/whostile.o $(BUILD)/tests/iomap/wmodify.o \
		$(BUILD)/tests/iomap/wshadow.o $(BUILD)/tests/iomap/wdurable.o \
		$(BUILD)/tests/iomap/wtimes.o $(BUILD)/tests/iomap/wblocks.o
	$(CC) $(LDFLAGS) -o $@ $^
$(BUILD)/tests/iomap-fsx: $(BUILD)/tests/iomap/iomap-fsx.o $(BUILD)/tests/iomap/wshadow.o
	$(CC) $(LDFLAGS) -o $@ $^
$(BUILD)/tests/iomap-race: $(BUILD)/tests/iomap/iomap-race.o $(BUILD)/tests/iomap/wshadow.o
	$(CC) $(LDFLAGS) -pthread -o $@ $^
PROGRAMS += $(BUILD)/tests/iomap-test-server $(BUILD)/tests/iomap-check \
	$(BUILD)/tests/iomap-fsx $(BUILD)/tests/iomap-race
$(BUILD)/tests/iomap-chaos: $(BUILD)/tests/iomap/iomap-chaos.o
	$(CC) $(LDFLAGS) -o $@ $^
PROGRAMS += $(BUILD)/tests/iomap-chaos
