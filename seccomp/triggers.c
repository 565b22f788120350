/*
 * seccomp/triggers.c: test builds only (see triggers.h): one act per class of
 * system call the sandbox forbids, and SIGUSR1 arming for the server. ioctls use
 * fd -1: seccomp decides before the kernel looks at the fd, and without the
 * sandbox they fail harmlessly (EBADF), which the tests use as the control.
 * (fstat uses stderr: glibc answers fstat(-1) itself, without a system call.)
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox.h"
#include "triggers.h"

#define BOTH_MODES	((1u << EXT4CELL_SANDBOX_CLASSIC) | (1u << EXT4CELL_SANDBOX_IOMAP))
#define CLASSIC_ONLY	(1u << EXT4CELL_SANDBOX_CLASSIC)
#include "../proto/fuse_iomap.h"

/* Sanitizer builds let the legacy open(2) fail instead of killing (policy.c). */
#ifdef __SANITIZE_ADDRESS__
#define OPEN_KILL_MODES	0u
#else
#define OPEN_KILL_MODES	BOTH_MODES
#endif

static void act_openat(void)
{
	syscall(SYS_openat, AT_FDCWD, "/etc/hostname", O_RDONLY);
}

static void act_open(void)
{
	syscall(SYS_open, "/etc/hostname", O_RDONLY);
}

static void act_socket_unix(void)
{
	socket(AF_UNIX, SOCK_SEQPACKET, 0);
}

static void act_socket_inet(void)
{
	socket(AF_INET, SOCK_DGRAM, 0);
}

static void act_execve(void)
{
	char *const argv[] = { "true", NULL };

	execve("/bin/true", argv, environ);
}

static void act_fork(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static void act_ptrace(void)
{
	ptrace(PTRACE_TRACEME, 0, NULL, NULL);
}

static void act_mount(void)
{
	mount("none", "/nonexistent-ext4cell", "tmpfs", 0, NULL);
}

static void act_umount(void)
{
	umount2("/nonexistent-ext4cell", 0);
}

static void act_mmap_wx(void)
{
	mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

static void act_mprotect_x(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED)
		mprotect(p, 4096, PROT_READ | PROT_EXEC);
}

static void act_ioctl_unlisted(void)
{
	ioctl(-1, BLKRRPART);
}

static void act_ioctl_discard(void)
{
	uint64_t range[2] = { 0, 1 << 20 };

	ioctl(-1, BLKDISCARD, range);
}

static void act_ioctl_iomap(void)
{
	char map[16] = { 0 };

	ioctl(-1, FUSE_DEV_IOC_BACKING_OPEN, map);
}

static void act_bpf(void)
{
	syscall(SYS_bpf, -1, NULL, 0);
}

static void act_keyctl(void)
{
	syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3 /* session */, 0);
}

static void act_userfaultfd(void)
{
	long fd = syscall(SYS_userfaultfd, O_CLOEXEC);

	if (fd >= 0)
		close(fd);
}

static void act_unshare(void)
{
	unshare(0);
}

static void act_kill_other(void)
{
	kill(getppid(), 0);
}

static void *thread_main(void *arg)
{
	return arg;
}

static void act_thread(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, thread_main, NULL) == 0)
		pthread_join(t, NULL);
}

static void act_fstat(void)
{
	struct stat st;

	fstat(STDERR_FILENO, &st);
}

static void act_x32_abi(void)
{
	syscall(0x40000000 /* __X32_SYSCALL_BIT */ | SYS_getpid);
}

const struct ext4cell_trigger ext4cell_triggers[] = {
	{ "openat", "openat of a path", act_openat, BOTH_MODES },
	{ "open", "open(2) of a path", act_open, OPEN_KILL_MODES },
	{ "socket-unix", "socket(AF_UNIX)", act_socket_unix, BOTH_MODES },
	{ "socket-inet", "socket(AF_INET)", act_socket_inet, BOTH_MODES },
	{ "execve", "execve", act_execve, BOTH_MODES },
	{ "fork", "fork", act_fork, BOTH_MODES },
	{ "thread", "thread creation", act_thread, BOTH_MODES },
	{ "ptrace", "ptrace", act_ptrace, BOTH_MODES },
	{ "mount", "mount", act_mount, BOTH_MODES },
	{ "umount", "umount2", act_umount, BOTH_MODES },
	{ "mmap-wx", "mmap with PROT_WRITE|PROT_EXEC", act_mmap_wx, BOTH_MODES },
	{ "mprotect-x", "mprotect to PROT_EXEC", act_mprotect_x, BOTH_MODES },
	{ "ioctl", "ioctl not on the list (BLKRRPART)", act_ioctl_unlisted, BOTH_MODES },
	{ "ioctl-discard", "raw block ioctl BLKDISCARD", act_ioctl_discard, BOTH_MODES },
	{ "ioctl-iomap", "iomap ioctl in classic mode", act_ioctl_iomap, CLASSIC_ONLY },
	{ "fstat", "fstat (no metadata lookups)", act_fstat, BOTH_MODES },
	{ "bpf", "bpf", act_bpf, BOTH_MODES },
	{ "keyctl", "keyctl", act_keyctl, BOTH_MODES },
	{ "userfaultfd", "userfaultfd", act_userfaultfd, BOTH_MODES },
	{ "unshare", "unshare", act_unshare, BOTH_MODES },
	{ "kill", "kill of another process", act_kill_other, BOTH_MODES },
	{ "x32", "x32 ABI system call", act_x32_abi, BOTH_MODES },
	{ NULL, NULL, NULL, 0 }
};

static const struct ext4cell_trigger *armed;

static void run_armed(int sig)
{
	(void)sig;
	armed->act();
}

int ext4cell_trigger_arm(const char *name, char *err, size_t errlen)
{
	struct sigaction sa = { .sa_handler = run_armed };

	for (armed = ext4cell_triggers; armed->name; armed++)
		if (!strcmp(armed->name, name))
			break;
	if (!armed->name) {
		snprintf(err, errlen, "unknown sandbox test trigger '%s'", name);
		return -1;
	}
	if (sigaction(SIGUSR1, &sa, NULL) < 0) {
		snprintf(err, errlen, "sigaction(SIGUSR1): %s", strerror(errno));
		return -1;
	}
	return 0;
}
