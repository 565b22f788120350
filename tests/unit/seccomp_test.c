/*
 * tests/unit/seccomp_test.c: proves the server sandbox (seccomp/) in forked
 * children, TAP-style for tests/run (run by seccomp.suite):
 *   - every forbidden class of system call (the acts of seccomp/triggers.c) kills
 *     a sandboxed child with SIGSYS, in each mode that forbids it, while the same
 *     act without the sandbox does not (so each check can fail);
 *   - the calls the server needs work inside the sandbox, fds are closed by rule;
 *   - /proc/PID/status and /proc/PID/limits of a sandboxed child show no
 *     capabilities, no_new_privs, seccomp filter mode, the limits, and a
 *     64 GiB allocation fails there with ENOMEM (RLIMIT_AS) but not outside;
 *   - the printed allowlist matches the mode.
 * `seccomp_test --list-triggers` prints the names of the acts the classic-mode
 * sandbox kills, for tests/host/seccomp.suite.
 * The triggers are linked into test programs and test builds of the server only.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox.h"
#include "triggers.h"

#define NO_SANDBOX	(-1)

/* Fds set up before forking, as a server would hold them. */
static int image_fd = -1;	/* regular file: kept */
static int peer[2] = { -1, -1 };	/* AF_UNIX pair: kept */
static int dir_fd = -1;		/* directory: closed by the sandbox */
static int inet_fd = -1;	/* AF_INET socket: closed by the sandbox */
static int child_stderr = -1;	/* when >= 0, the next child's stderr */

static int failures;

static void report(bool ok, const char *name, const char *diag)
{
	printf("%s - seccomp: %s\n", ok ? "ok" : "not ok", name);
	if (!ok && diag && *diag)
		printf("# %s\n", diag);
	failures += !ok;
	fflush(stdout);
}

static void describe(int status, char *buf, size_t len)
{
	if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by %s", strsignal(WTERMSIG(status)));
	else if (WEXITSTATUS(status) == 100)
		snprintf(buf, len, "could not enter the sandbox (see above)");
	else
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
}

static bool killed_by_sigsys(int status)
{
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS;
}

/* Starts act in a child, sandboxed in mode (or not: NO_SANDBOX); its pid. */
static pid_t spawn_child(void (*act)(void), int mode)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(1);
	}
	if (pid == 0) {
		char err[256];

		if (child_stderr >= 0)
			dup2(child_stderr, 2);
		if (mode != NO_SANDBOX && ext4cell_sandbox_enter(mode, err, sizeof(err)) < 0) {
			printf("# ext4cell_sandbox_enter: %s\n", err);
			_exit(100);
		}
		act();
		_exit(0);
	}
	return pid;
}

static int wait_child(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

static int run_child(void (*act)(void), int mode)
{
	return wait_child(spawn_child(act, mode));
}

static void test_forbidden(const struct ext4cell_trigger *f)
{
	char name[128], diag[256], how[64];
	int status = run_child(f->act, NO_SANDBOX);

	describe(status, how, sizeof(how));
	snprintf(name, sizeof(name), "%s: %s in classic mode, %s in iomap mode", f->what,
		 f->kill_modes & (1u << EXT4CELL_SANDBOX_CLASSIC) ? "SIGSYS" : "not killed",
		 f->kill_modes & (1u << EXT4CELL_SANDBOX_IOMAP) ? "SIGSYS" : "not killed");
	if (WIFSIGNALED(status) || WEXITSTATUS(status) != 0) {
		snprintf(diag, sizeof(diag), "without the sandbox the act %s", how);
		report(false, name, diag);
		return;
	}
	for (int mode = EXT4CELL_SANDBOX_CLASSIC; mode <= EXT4CELL_SANDBOX_IOMAP; mode++) {
		bool must_kill = f->kill_modes & (1u << mode);

		status = run_child(f->act, mode);
		if (killed_by_sigsys(status) != must_kill || (!must_kill && status != 0)) {
			describe(status, how, sizeof(how));
			snprintf(diag, sizeof(diag), "mode %d: expected %s, child %s", mode,
				 must_kill ? "SIGSYS" : "exit 0", how);
			report(false, name, diag);
			return;
		}
	}
	report(true, name, NULL);
}

/* --- what the server needs must keep working --- */

static bool step_pread(void)
{
	char buf[8];

	return pread(image_fd, buf, sizeof(buf), 0) == sizeof(buf) && !memcmp(buf, "ext4cell", 8);
}

static bool step_socket_write(void)
{
	return write(peer[1], "x", 1) == 1;
}

static bool step_malloc(void)
{
	char *small = malloc(64), *big = malloc(4 << 20), *bigger;

	if (!small || !big)
		return false;
	memset(big, 1, 4 << 20);
	bigger = realloc(big, 64 << 20);
	free(small);
	free(bigger ? bigger : big);
	return bigger != NULL;
}

static bool step_mmap(void)
{
	char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return false;
	p[0] = 1;
	return munmap(p, 8192) == 0;
}

/* The system calls themselves: the vDSO falls back to them when it cannot read
 * the clock (an unstable TSC in a VM, a clocksource without vDSO support). */
static bool step_clock(void)
{
	struct timespec ts;
	struct timeval tv;

	return syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts) == 0 &&
	       syscall(SYS_gettimeofday, &tv, NULL) == 0 && syscall(SYS_time, NULL) > 0;
}

static bool step_fcntl(void)
{
	return (fcntl(image_fd, F_GETFL) & O_ACCMODE) == O_RDWR;
}

static bool step_fds_closed(void)
{
	return fcntl(dir_fd, F_GETFL) < 0 && errno == EBADF &&
	       fcntl(inet_fd, F_GETFL) < 0 && errno == EBADF;
}

static bool step_fsync(void)
{
	return fsync(image_fd) == 0;
}

static bool step_getrandom(void)
{
	unsigned int r;

	return getrandom(&r, sizeof(r), 0) == sizeof(r);
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* glibc's qsort() of more than 1 KiB asks for the memory size
 * (sysconf(_SC_PHYS_PAGES), the sysinfo system call) on its first call */
static bool step_qsort(void)
{
	static int v[4096];
	int n = (int)(sizeof(v) / sizeof(v[0]));

	for (int i = 0; i < n; i++)
		v[i] = n - i;
	qsort(v, (size_t)n, sizeof(v[0]), cmp_int);
	return v[0] == 1 && v[n - 1] == n;
}

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static bool step_signal(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	return sigaction(SIGUSR1, &sa, NULL) == 0 && raise(SIGUSR1) == 0 &&
	       got_signal == SIGUSR1 && signal(SIGUSR1, SIG_DFL) != SIG_ERR;
}

static const struct {
	const char *what;
	bool (*step)(void);
} steps[] = {
	{ "pread of the image fd", step_pread },
	{ "write to the AF_UNIX socket", step_socket_write },
	{ "malloc, realloc, free", step_malloc },
	{ "mmap, mprotect, munmap without PROT_EXEC", step_mmap },
	{ "clock_gettime, gettimeofday, time (system calls)", step_clock },
	{ "fcntl(F_GETFL)", step_fcntl },
	{ "directory and AF_INET fds closed", step_fds_closed },
	{ "fsync", step_fsync },
	{ "getrandom", step_getrandom },
	{ "qsort of a large array (sysinfo)", step_qsort },
	{ "signal handler, raise", step_signal },
};
#define NSTEPS ((int)(sizeof(steps) / sizeof(steps[0])))

/* Exits with the number of the first failing step; exit(), not _exit(), so the
 * libc and sanitizer exit paths run inside the sandbox too. */
static void act_allowed(void)
{
	for (int i = 0; i < NSTEPS; i++)
		if (!steps[i].step())
			exit(i + 1);
	exit(0);
}

static void test_allowed(int mode)
{
	char name[64], diag[256], how[64];
	int status = run_child(act_allowed, mode);
	char c;

	snprintf(name, sizeof(name), "allowed calls work in mode %d", mode);
	describe(status, how, sizeof(how));
	if (killed_by_sigsys(status))
		snprintf(diag, sizeof(diag), "%s: a needed system call is not allowed "
			 "(the kernel log has the audit record, type=1326 syscall=N)", how);
	else if (WIFEXITED(status) && WEXITSTATUS(status) >= 1 && WEXITSTATUS(status) <= NSTEPS)
		snprintf(diag, sizeof(diag), "step failed: %s",
			 steps[WEXITSTATUS(status) - 1].what);
	else
		snprintf(diag, sizeof(diag), "child %s", how);
	while (recv(peer[0], &c, 1, MSG_DONTWAIT) == 1)	/* what step_socket_write sent */
		;
	report(status == 0, name, diag);
}

static void act_abort(void)
{
	abort();
}

static void test_abort(void)
{
	int status = run_child(act_abort, EXT4CELL_SANDBOX_CLASSIC);
	char how[64];

	describe(status, how, sizeof(how));
	report(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
	       "abort() in the sandbox raises SIGABRT, not SIGSYS", how);
}

#ifdef __SANITIZE_ADDRESS__
static void act_heap_overflow(void)
{
	char *volatile p = malloc(8);
	volatile int i = 8;
	volatile char c = p[i];

	(void)c;
	free(p);
}

static void act_signed_overflow(void)
{
	volatile int big = INT_MAX;

	printf("# %d\n", big + 1);
}

/* A sanitizer report inside the sandbox must come out whole (the runtimes were
 * prepared, see seccomp/sanitizer.c) and end with the runtime's exit status, not
 * SIGSYS. SANITIZE=1 builds have both ASan and UBSan. */
static void test_sanitizer_report(const char *name, void (*act)(void), const char *error)
{
	char path[] = "/tmp/ext4cell-seccomp-report-XXXXXX", text[8192] = "", how[64], diag[320];
	int fd = mkstemp(path), status;
	ssize_t n;

	unlink(path);
	child_stderr = fd;
	status = run_child(act, EXT4CELL_SANDBOX_CLASSIC);
	child_stderr = -1;
	n = pread(fd, text, sizeof(text) - 1, 0);
	close(fd);
	text[n > 0 ? n : 0] = 0;
	describe(status, how, sizeof(how));
	snprintf(diag, sizeof(diag), "child %s; its stderr: %.200s", how, text);
	report(WIFEXITED(status) && WEXITSTATUS(status) != 0 && strstr(text, error), name, diag);
}

static void test_sanitizer_reports(void)
{
	test_sanitizer_report("an ASan report in the sandbox is complete, not SIGSYS",
			      act_heap_overflow, "ERROR: AddressSanitizer: heap-buffer-overflow");
	test_sanitizer_report("a UBSan report in the sandbox is complete, not SIGSYS",
			      act_signed_overflow, "runtime error: signed integer overflow");
}
#else
static void test_sanitizer_reports(void)
{
	printf("ok - seccomp: sanitizer reports in the sandbox # SKIP not a sanitizer build\n");
}
#endif

/* A compromised server asking for more memory than the machine has: 64 GiB of
 * address space (not reserved, so the host's overcommit policy allows it
 * outside the sandbox). Exit 0: refused with ENOMEM and small allocations
 * still work; 3: mapped; 4: another error; 5: malloc broken afterwards. */
static void act_huge_alloc(void)
{
	size_t len = 64ULL << 30;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	void *small;

	if (p != MAP_FAILED)
		_exit(3);
	if (errno != ENOMEM)
		_exit(4);
	small = malloc(4 << 20);
	if (!small)
		_exit(5);
	free(small);
	_exit(0);
}

static void test_huge_alloc(void)
{
	char how[64], diag[160];
	int free_status = run_child(act_huge_alloc, NO_SANDBOX);

	for (int mode = EXT4CELL_SANDBOX_CLASSIC; mode <= EXT4CELL_SANDBOX_IOMAP; mode++) {
		int status = run_child(act_huge_alloc, mode);

		describe(status, how, sizeof(how));
		snprintf(diag, sizeof(diag), "mode %d: child %s (0: ENOMEM; 3: mapped), unsandboxed %s",
			 mode, how, WIFEXITED(free_status) && WEXITSTATUS(free_status) == 3 ?
			 "mapped it" : "did not map it (no control)");
		report(WIFEXITED(free_status) && WEXITSTATUS(free_status) == 3 && status == 0,
		       mode == EXT4CELL_SANDBOX_CLASSIC ?
		       "a 64 GiB allocation fails with ENOMEM in the classic sandbox (RLIMIT_AS), works outside" :
		       "a 64 GiB allocation fails with ENOMEM in the iomap sandbox (RLIMIT_AS), works outside",
		       diag);
	}
}

static void act_bad_mode(void)
{
	char err[128] = "";

	if (ext4cell_sandbox_enter(7, err, sizeof(err)) != -EINVAL || !err[0])
		_exit(1);
	printf("# mode 7: %s\n", err);
}

static void test_bad_mode(void)
{
	char how[64];
	int status = run_child(act_bad_mode, NO_SANDBOX);

	describe(status, how, sizeof(how));
	report(status == 0, "an unknown mode is refused with EINVAL and a reason", how);
}

/* --- the state of a sandboxed process, as others see it in /proc --- */

static void act_wait(void)
{
	char c;

	if (write(peer[1], "r", 1) != 1 || read(peer[1], &c, 1) != 1)
		_exit(1);
}

/* Finds "key" at the start of a line of /proc/PID/name, copies the rest of the line
 * after the key into value. */
static bool proc_field(pid_t pid, const char *name, const char *key, char *value, size_t len)
{
	char path[64], line[256];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	if (!(f = fopen(path, "re")))
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key))) {
			snprintf(value, len, "%s", line + strlen(key) + strspn(line + strlen(key), " \t:"));
			value[strcspn(value, "\n")] = 0;
			found = true;
		}
	fclose(f);
	return found;
}

static bool has_setpcap(void)
{
	cap_t caps = cap_get_proc();
	cap_flag_value_t v = CAP_CLEAR;

	if (caps)
		cap_get_flag(caps, CAP_SETPCAP, CAP_EFFECTIVE, &v);
	cap_free(caps);
	return v == CAP_SET;
}

static void check_field(pid_t pid, const char *file, const char *key, const char *want,
			bool required)
{
	char value[160] = "(missing)", name[128], diag[256];
	bool ok = proc_field(pid, file, key, value, sizeof(value)) &&
		  !strncmp(value, want, strlen(want));

	printf("# %s %s: %s\n", file, key, value);
	snprintf(name, sizeof(name), "sandboxed process: %s %s is %s", file, key, want);
	snprintf(diag, sizeof(diag), "got %s", value);
	if (required || ok)
		report(ok, name, diag);
	else
		printf("ok - seccomp: %s # SKIP no CAP_SETPCAP to empty it\n", name);
}

static bool same_netns(pid_t pid)
{
	char path[64], mine[64] = "", theirs[64] = "";

	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	/* unreadable: not shown to differ */
	if (readlink("/proc/self/ns/net", mine, sizeof(mine) - 1) < 0 ||
	    readlink(path, theirs, sizeof(theirs) - 1) < 0)
		return true;
	return !strcmp(mine, theirs);
}

static void test_status(void)
{
	static const char *const zero_caps[] = { "CapInh", "CapPrm", "CapEff", "CapAmb" };
	pid_t pid = spawn_child(act_wait, EXT4CELL_SANDBOX_CLASSIC);
	char c = 0, limit[160];
	int status;

	if (read(peer[0], &c, 1) != 1 || c != 'r') {
		kill(pid, SIGKILL);
		report(false, "sandboxed process reports ready", "child did not write 'r'");
		wait_child(pid);
		return;
	}
	for (size_t i = 0; i < sizeof(zero_caps) / sizeof(zero_caps[0]); i++)
		check_field(pid, "status", zero_caps[i], "0000000000000000", true);
	check_field(pid, "status", "CapBnd", "0000000000000000", has_setpcap());
	check_field(pid, "status", "NoNewPrivs", "1", true);
	check_field(pid, "status", "Seccomp:", "2", true);
	check_field(pid, "limits", "Max core file size", "0", true);
	check_field(pid, "limits", "Max open files", "16", true);
	check_field(pid, "limits", "Max processes", "0", true);
	proc_field(pid, "limits", "Max address space", limit, sizeof(limit));
	printf("# limits Max address space: %s\n", limit);
	report(strncmp(limit, "unlimited", 9) != 0, "sandboxed process: address space bounded", limit);
	if (has_setpcap())
		report(!same_netns(pid), "sandboxed process: own network namespace", NULL);
	if (write(peer[0], "x", 1) != 1)
		kill(pid, SIGKILL);
	status = wait_child(pid);
	report(status == 0, "sandboxed process exits normally", NULL);
}

/* --- the printed allowlist --- */

static void test_print(void)
{
	char *text[2] = { NULL, NULL };
	const char *count;
	size_t len;

	for (int mode = EXT4CELL_SANDBOX_CLASSIC; mode <= EXT4CELL_SANDBOX_IOMAP; mode++) {
		FILE *f = open_memstream(&text[mode], &len);

		ext4cell_sandbox_print(f, mode);
		fclose(f);
		count = strstr(text[mode], "\n# ");	/* the count line */
		if (count)
			printf("# %s mode: %.*s\n", mode ? "iomap" : "classic",
			       (int)strcspn(count + 3, "\n"), count + 3);
	}
	report(!strstr(text[0], "FUSE_DEV_IOC") && strstr(text[1], "\nioctl ") &&
	       strstr(text[1], "FUSE_DEV_IOC_BACKING_OPEN") && !strstr(text[1], "\nopenat") &&
	       strstr(text[0], "\nread ") && strstr(text[0], "system calls allowed"),
	       "the printed allowlist: iomap ioctls in iomap mode only, no openat", NULL);
	free(text[0]);
	free(text[1]);
}

static void setup(void)
{
	char path[] = "/tmp/ext4cell-seccomp-XXXXXX";

	image_fd = mkstemp(path);
	if (image_fd < 0 || unlink(path) < 0 || write(image_fd, "ext4cell image", 14) != 14 ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, peer) < 0 ||
	    (dir_fd = open("/", O_RDONLY | O_DIRECTORY)) < 0 ||
	    (inet_fd = socket(AF_INET, SOCK_DGRAM, 0)) < 0) {
		perror("seccomp_test: setup");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--list-triggers")) {
		for (const struct ext4cell_trigger *t = ext4cell_triggers; t->name; t++)
			if (t->kill_modes & (1u << EXT4CELL_SANDBOX_CLASSIC))
				puts(t->name);
		return 0;
	}
	setup();
	test_bad_mode();
	test_print();
	test_allowed(EXT4CELL_SANDBOX_CLASSIC);
	test_allowed(EXT4CELL_SANDBOX_IOMAP);
	test_status();
	test_abort();
	test_huge_alloc();
	test_sanitizer_reports();
	for (const struct ext4cell_trigger *t = ext4cell_triggers; t->name; t++)
		test_forbidden(t);
	return failures ? 1 : 0;
}
