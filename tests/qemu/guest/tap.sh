# tests/qemu/guest/tap.sh: TAP lines for the systemd-mode guest scripts (sourced;
# set tap_prefix first): ok NAME, notok NAME [DIAGNOSTIC...], check NAME CMD...
ok() { echo "ok - $tap_prefix/$1"; }
notok() { echo "not ok - $tap_prefix/$1"; shift; for d in "$@"; do echo "$d" | sed 's/^/# /'; done; }
check() { # check NAME CMD...: one TAP line from CMD's status (output as diagnostics)
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then ok "$name"; else notok "$name" "$out"; fi
}
instances() { systemctl list-units --no-legend --plain --state=active 'ext4cell@*.service' | wc -l; }
wait_instances() { # wait_instances N: until N instances are active (30 s)
	for _ in $(seq 60); do [ "$(instances)" = "$1" ] && return 0; sleep 0.5; done
	echo "$(instances) ext4cell@ instances active, want $1"
	systemctl list-units --no-legend --plain 'ext4cell@*'
	return 1
}
# a user (ext4user, uid 1000, from mkrootfs) with the setuid helper. LeakSanitizer
# cannot run in a setuid process (SECURITY.md): off for the user's commands.
as_user() { setpriv --reuid=1000 --regid=1000 --clear-groups env ASAN_OPTIONS=detect_leaks=0 "$@"; }
