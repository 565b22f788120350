# proto/build.mk: the helper <-> server protocol, linked into mount.fuse.ext4,
# ext4cell-server and the protocol unit test:   objects: $(PROTO_OBJS)
PROTO_OBJS := $(BUILD)/proto/proto.o $(BUILD)/proto/io.o

# the helper and the server (socket mode) speak it: added to their link lines
# here, since this file is read after theirs
$(BUILD)/ext4cell-server $(BUILD)/mount.fuse.ext4: $(PROTO_OBJS)

# unit test of the decoder and the socket I/O (tests/unit/proto.suite)
PROGRAMS += $(BUILD)/tests/unit/proto_test
$(BUILD)/tests/unit/proto_test: $(BUILD)/tests/unit/proto_test.o $(PROTO_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^
