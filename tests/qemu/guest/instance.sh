#!/bin/bash
# tests/qemu/guest/instance.sh: one socket-activated server instance, as
# systemd-socket-activate --accept starts one per connection in the guest
# scripts: runs COMMAND... as the instance (LISTEN_PID naming it, as
# sd_listen_fds wants) and, when it ends, logs "instance exit status N" to
# stderr (N >= 128: killed by signal N - 128), which systemd would journal.
# Usage: instance.sh COMMAND...
(
	export LISTEN_PID=$BASHPID
	exec "$@"
) &
wait $!
echo "instance exit status $?" >&2
