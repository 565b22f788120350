# tests/images/build.mk: the crafted-image generator used by the host suites.
PROGRAMS += $(BUILD)/tests/images/mkbad
$(BUILD)/tests/images/mkbad: $(BUILD)/tests/images/mkbad.o
	$(CC) $(LDFLAGS) -o $@ $^ $(call pkgconf,--libs ext2fs com_err)
PROGRAMS += $(BUILD)/tests/images/craft
$(BUILD)/tests/images/craft: $(BUILD)/tests/images/craft.o $(BUILD)/tests/images/craft_journal.o
	$(CC) $(LDFLAGS) -o $@ $^ $(call pkgconf,--libs ext2fs com_err)
