/*
 * seccomp/namespaces.c: when the server may (CAP_SYS_ADMIN, i.e. run by root by
 * hand or by a fuzzer), it moves into a new, empty network namespace and a new IPC
 * namespace: should the seccomp filter ever let a socket or SysV/POSIX IPC call
 * through, there is nothing to reach. Under systemd the unit's PrivateNetwork=
 * and PrivateIPC= do this and the server, without capabilities, gets EPERM, which
 * is not an error; nor is EINVAL (a kernel without these namespaces). A mount
 * namespace would not add anything (open() of any path
 * is already forbidden), nor a PID namespace (the server cannot create processes).
 */
#include <errno.h>
#include <sched.h>

#include "internal.h"

int sandbox_unshare(char *err, size_t errlen)
{
	if (unshare(CLONE_NEWNET | CLONE_NEWIPC) < 0 && errno != EPERM && errno != EINVAL)
		return sandbox_error(err, errlen, errno, "unshare(CLONE_NEWNET|CLONE_NEWIPC)");
	return 0;
}
