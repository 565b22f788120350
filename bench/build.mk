# bench/build.mk: helper programs of the benchmarks (not tests).
PROGRAMS += $(BUILD)/bench/smallfiles
$(BUILD)/bench/smallfiles: $(BUILD)/bench/smallfiles.o
	$(CC) $(LDFLAGS) -o $@ $^
