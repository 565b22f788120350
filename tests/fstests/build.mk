# tests/fstests/build.mk: umount.fuse.ext4 for the fstests guest (an unmount
# that waits until the server has let go of the device).
$(BUILD)/tests/umount-wait: $(BUILD)/tests/fstests/umount-wait.o
	$(CC) $(LDFLAGS) -o $@ $^
PROGRAMS += $(BUILD)/tests/umount-wait
