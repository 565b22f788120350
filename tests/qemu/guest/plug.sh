# tests/qemu/guest/plug.sh: disks hot-plugged into a systemd-mode guest (sourced
# by media.sh and demo.sh): the host (tests/qemu/vm --spare FILE...) plugs
# spare N in as a removable SCSI disk with serial spareN when the guest appends
# 'plug N' to the output share's file 'plug', and pulls it out on 'unplug N';
# and the seat session a desktop login would make, whose user gets the disks.
plug=/run/ext4cell-harness/plug

until_true() { # until_true SECONDS CMD...: poll CMD every 0.5 s
	local n=$(($1 * 2))
	shift
	while [ $n -gt 0 ]; do "$@" && return 0; sleep 0.5; n=$((n - 1)); done
	return 1
}
# the kernel's name of spare N (sda, sdb ...)
disk_of() { lsblk -ndo NAME,SERIAL | awk -v s="spare$1" '$2 == s {print $1; exit}'; }
plug_in() { # plug_in N: the host plugs spare N in; prints its name once udev is done
	local d
	echo "plug $1" >>"$plug"
	until_true 60 bash -c "lsblk -ndo SERIAL | grep -qx spare$1" || return 1
	udevadm settle --timeout=60
	d=$(disk_of "$1")
	[ -n "$d" ] && echo "$d"
}
pull_out() { # pull_out N DEV: the host pulls spare N out; until DEV is gone
	echo "unplug $1" >>"$plug"
	until_true 60 bash -c "[ ! -e /dev/$2 ]" && udevadm settle --timeout=60
}
# seat_login USER: a session of USER on seat0 (VT 1) through PAM and pam_systemd,
# as a console or display-manager login makes one; true once it is the seat's
# active session
seat_login() {
	systemd-run -q --unit="seat-login-$1" -p PAMName=login -p User="$1" \
		-p Environment=XDG_SEAT=seat0 -p Environment=XDG_VTNR=1 \
		-p Environment=XDG_SESSION_TYPE=tty sleep infinity || return 1
	until_true 30 bash -c 's=$(loginctl show-seat seat0 -p ActiveSession --value) &&
		[ -n "$s" ] && [ "$(loginctl show-session "$s" -p Name --value)" = '"$1"' ]'
}
