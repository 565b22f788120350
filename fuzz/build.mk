# fuzz/build.mk: the libFuzzer targets (fuzz/*.c), built by clang with
# ASan/UBSan into build/fuzz by `make fuzz-build` (the top-level Makefile
# calls make again with FUZZ=1 and these settings), and their seed corpora
# (fuzz/seeds.sh). Outside that build this file adds nothing. Targets land in
# build/fuzz/bin/. Read before the server's and the sandbox's build.mk: their
# object lists are expanded a second time, when the rules are used.
ifeq ($(FUZZ),1)
.SECONDEXPANSION:
FUZZ_TARGETS := image journal proto
CFLAGS += -fsanitize=fuzzer-no-link
CPPFLAGS_fuzz = $(CPPFLAGS_server)
# the server as a mount runs it, less its main() and its log (fuzz/quietlog.c)
FUZZ_SERVER_OBJS = $(filter-out $(BUILD)/server/main.o $(BUILD)/server/log.o,$(SERVER_OBJS)) \
		   $(PROTO_OBJS) $(BUILD)/fuzz/quietlog.o $(BUILD)/fuzz/fsrun.o \
		   $(BUILD)/fuzz/fsck.o
FUZZ_SERVER_LIBS = $(call pkgconf,--libs fuse3 ext2fs com_err libsystemd)

$(BUILD)/bin/image $(BUILD)/bin/journal: $(BUILD)/bin/%: $(BUILD)/fuzz/%.o $$(FUZZ_SERVER_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(FUZZ_SERVER_LIBS)
$(BUILD)/bin/proto: $(BUILD)/fuzz/proto.o $$(PROTO_OBJS) $(BUILD)/server/options.o \
		    $(BUILD)/server/printable.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^

$(BUILD)/seeds/done: fuzz/seeds.sh $(BUILD)/tests/images/mkbad
	bash fuzz/seeds.sh $(BUILD)/seeds $(BUILD)/tests/images/mkbad
	touch $@

.PHONY: fuzz-targets
fuzz-targets: $(patsubst %,$(BUILD)/bin/%,$(FUZZ_TARGETS)) $(BUILD)/seeds/done
endif
