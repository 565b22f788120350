# helper/build.mk: mount.fuse.ext4, the privileged mount helper, and `make install`
# of it (setuid root, for users' mounts; with the mount.fuse.ext2/ext3 names), the
# server and the systemd units (install a release build: a sanitizer build is not
# for setuid use):
#   make install [DESTDIR=...] [PREFIX=/usr]
HELPER_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(wildcard helper/*.c))
# libmount reads /etc/fstab as mount(8) does; libblkid encodes tags as udev does
CPPFLAGS_helper = $(call pkgconf,--cflags mount blkid) \
	-DMEDIA_HELPER=\"$(SBINDIR)/mount.fuse.ext4\"
$(BUILD)/mount.fuse.ext4: $(HELPER_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(call pkgconf,--libs mount blkid)
PROGRAMS += $(BUILD)/mount.fuse.ext4
# ext4cell-media: removable disks mounted for the seat's user (root, from
# ext4cell-media@.service; not setuid); the helper's config and messages
MEDIA_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(wildcard helper/media/*.c)) \
	$(addprefix $(BUILD)/helper/,config.o privs.o report.o)
$(BUILD)/ext4cell-media: $(MEDIA_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(call pkgconf,--libs libsystemd)
PROGRAMS += $(BUILD)/ext4cell-media

PREFIX     ?= /usr
SBINDIR    ?= $(PREFIX)/sbin
LIBEXECDIR ?= $(PREFIX)/libexec/ext4cell
UNITDIR    ?= $(PREFIX)/lib/systemd/system
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
MAN8DIR    ?= $(PREFIX)/share/man/man8
DOCDIR     ?= $(PREFIX)/share/doc/ext4cell

.PHONY: install
install: $(BUILD)/mount.fuse.ext4 $(BUILD)/ext4cell-server $(BUILD)/ext4cell-media
	install -D -m 4755 $(BUILD)/mount.fuse.ext4 $(DESTDIR)$(SBINDIR)/mount.fuse.ext4
	ln -sf mount.fuse.ext4 $(DESTDIR)$(SBINDIR)/mount.fuse.ext2
	ln -sf mount.fuse.ext4 $(DESTDIR)$(SBINDIR)/mount.fuse.ext3
	install -D -m 0755 $(BUILD)/ext4cell-server $(DESTDIR)$(LIBEXECDIR)/ext4cell-server
	install -D -m 0755 $(BUILD)/ext4cell-media $(DESTDIR)$(LIBEXECDIR)/ext4cell-media
	install -D -m 0644 units/ext4cell.socket $(DESTDIR)$(UNITDIR)/ext4cell.socket
	for u in ext4cell@.service ext4cell-media@.service; do \
		sed 's|/usr/libexec/ext4cell|$(LIBEXECDIR)|' units/$$u \
		| install -D -m 0644 /dev/stdin $(DESTDIR)$(UNITDIR)/$$u || exit 1; done
	install -D -m 0644 units/61-ext4cell-media.rules \
		$(DESTDIR)$(UDEVRULESDIR)/61-ext4cell-media.rules
	install -D -m 0644 helper/mount.fuse.ext4.8 $(DESTDIR)$(MAN8DIR)/mount.fuse.ext4.8
	install -D -m 0644 server/ext4cell-server.8 $(DESTDIR)$(MAN8DIR)/ext4cell-server.8
	install -D -m 0644 units/media-ext4.mount $(DESTDIR)$(DOCDIR)/media-ext4.mount.example
