/*
 * seccomp/policy.c: the seccomp allowlist of ext4cell-server, one table per mode
 * that both builds the filter and prints it (`ext4cell-server --print-seccomp`),
 * so reviewers and tests read one source of truth.
 *
 * Every entry is a system call the server makes after entering the sandbox, found
 * by tracing it (strace -f; SECURITY.md says how) through mount, file operations,
 * unmount and SIGTERM, in release and sanitizer builds; each says why. Argument
 * checks where they are cheap: ioctl and fcntl commands from a list (no ioctl at
 * all in classic mode), no PROT_EXEC mapping at all (stronger than "never write and
 * execute together": no new code can be mapped, and there is no mprotect), signals
 * only to itself. Anything else kills the process (SECCOMP_RET_KILL_PROCESS,
 * logged by the kernel), as does a system call of another ABI (x32, i386).
 */
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sandbox.h"
#include "internal.h"

/* FUSE_DEV_IOC_BACKING_OPEN/CLOSE: the iomap UAPI's one definition */
#include "../proto/fuse_iomap.h"

#ifdef __SANITIZE_ADDRESS__
#define SANITIZER_BUILD true
#else
#define SANITIZER_BUILD false
#endif

#define M_CLASSIC	(1u << EXT4CELL_SANDBOX_CLASSIC)
#define M_IOMAP		(1u << EXT4CELL_SANDBOX_IOMAP)
#define M_ALL		(M_CLASSIC | M_IOMAP)

/* A value an argument may take, in the modes that allow it. */
struct value {
	uint64_t value;
	const char *name;
	unsigned modes;
	bool sanitizer;		/* only in sanitizer builds (SANITIZE=1) */
};
#define VALUE(v, modes) { (v), #v, (modes), false }

static const struct value ioctl_cmds[] = {
	VALUE(FUSE_DEV_IOC_BACKING_OPEN, M_IOMAP),	/* register the device with the kernel */
	VALUE(FUSE_DEV_IOC_BACKING_CLOSE, M_IOMAP),
	{ TCGETS, "TCGETS", M_ALL, true },		/* ASan: isatty(2), colour reports or not */
	{ 0 }
};

static const struct value fcntl_cmds[] = {
	VALUE(F_GETFL, M_ALL),	/* access mode of the device fd (read-only or not) */
	{ 0 }
};

enum check {
	ANY,		/* any arguments */
	ONE_OF,		/* argument `arg`, as 32 bits like the kernel reads it, is in `values` */
	MASKED,		/* (argument `arg` & mask) == equals */
	OWN_PID,	/* argument `arg` is the server's own pid */
	FAIL_EACCES,	/* not allowed, but fails with EACCES instead of killing */
};

struct rule {
	const char *syscall;
	unsigned modes;
	bool sanitizer;		/* only in sanitizer builds (SANITIZE=1) */
	enum check check;
	unsigned arg;
	const struct value *values;
	uint64_t mask, equals;
	const char *condition;	/* the check, for people */
	const char *why;
};

/* The server is single-threaded (libext2fs is not thread-safe): no clone, futex,
 * set_robust_list. No fstat/newfstatat, no lseek: the io_manager uses pread/pwrite. */
static const struct rule rules[] = {
	{ "read", M_ALL, .why = "FUSE requests from /dev/fuse" },
	{ "writev", M_ALL, .why = "FUSE replies (libfuse)" },
	{ "write", M_ALL, .why = "diagnostics on stderr" },
	{ "pread64", M_ALL, .why = "reading the image through the device fd" },
	{ "pwrite64", M_ALL, .why = "writing the image through the device fd" },
	{ "fsync", M_ALL, .why = "flushing the image (FUSE FSYNC, unmount)" },
	{ "sendmsg", M_ALL, .why = "socket mode: the verdict to mount.fuse.ext4 (proto/); "
	  "sd_notify to systemd, on a socket connected before the sandbox" },
	{ "recvmsg", M_ALL, .why = "socket mode: the helper's go-ahead; fds stuffed in are closed" },
	{ "ioctl", M_ALL, .check = ONE_OF, .arg = 1, .values = ioctl_cmds, .condition = "cmd",
	  .why = "iomap: device registration (sanitizer: isatty)" },
	{ "fcntl", M_ALL, .check = ONE_OF, .arg = 1, .values = fcntl_cmds, .condition = "cmd",
	  .why = "opening the image: is the device fd writable" },
	{ "close", M_ALL, .why = "closing the FUSE and device fds at exit" },
	{ "mmap", M_ALL, .check = MASKED, .arg = 2, .mask = PROT_EXEC, .equals = 0,
	  .condition = "prot without PROT_EXEC", .why = "malloc of large blocks" },
	{ "munmap", M_ALL, .why = "free of large blocks" },
	{ "mremap", M_ALL, .why = "realloc of large blocks" },
	{ "brk", M_ALL, .why = "malloc" },
	{ "getrandom", M_ALL, .why = "inode generation numbers" },
	{ "sysinfo", M_ALL, .why = "glibc's qsort() sizes its buffer by the machine's memory "
	  "(sysconf(_SC_PHYS_PAGES)): journal replay sorts its revoke records; only counters" },
	{ "clock_gettime", M_ALL, .why = "timestamps (server), when the vDSO cannot read the clock" },
	{ "gettimeofday", M_ALL, .why = "libext2fs bitmap statistics, likewise (e.g. TSC unstable)" },
	{ "time", M_ALL, .why = "time(), likewise (no vDSO)" },
	{ "rt_sigaction", M_ALL, .why = "libfuse installs and removes its SIGTERM/SIGINT/SIGHUP handlers" },
	{ "rt_sigreturn", M_ALL, .why = "return from those handlers" },
	{ "rt_sigprocmask", M_ALL, .why = "abort(): an assertion failure stays SIGABRT" },
	{ "getpid", M_ALL, .why = "abort()" },
	{ "gettid", M_ALL, .why = "abort()" },
	{ "tgkill", M_ALL, .check = OWN_PID, .arg = 0, .condition = "tgid is its own pid",
	  .why = "abort(), raise()" },
	{ "exit_group", M_ALL, .why = "exit" },
	{ "madvise", M_ALL, .sanitizer = true, .why = "ASan allocator" },
	{ "sigaltstack", M_ALL, .sanitizer = true, .why = "ASan at exit" },
	{ "futex", M_ALL, .sanitizer = true, .why = "ASan report: symbolizer set-up (pthread_once)" },
	{ "open", M_ALL, .sanitizer = true, .check = FAIL_EACCES, .condition = "fails with EACCES",
	  .why = "first report: /proc/self/environ, maps (copes)" },
	{ NULL }
};

static bool in_mode(unsigned modes, int mode)
{
	return modes & (1u << mode);
}

static bool value_applies(const struct value *v, int mode)
{
	return in_mode(v->modes, mode) && (!v->sanitizer || SANITIZER_BUILD);
}

static bool rule_applies(const struct rule *r, int mode)
{
	bool any_value = r->check != ONE_OF;

	for (const struct value *v = r->values; !any_value && v->name; v++)
		any_value = value_applies(v, mode);
	return any_value && in_mode(r->modes, mode) && (!r->sanitizer || SANITIZER_BUILD);
}

static int add_check(scmp_filter_ctx ctx, uint32_t action, int nr, const struct rule *r,
		     enum scmp_compare op, uint64_t a, uint64_t b)
{
	struct scmp_arg_cmp cmp = { .arg = r->arg, .op = op, .datum_a = a, .datum_b = b };

	return seccomp_rule_add_array(ctx, action, nr, 1, &cmp);
}

static int add_rule(scmp_filter_ctx ctx, const struct rule *r, int mode)
{
	int nr = seccomp_syscall_resolve_name(r->syscall);
	int rc = 0;

	if (nr == __NR_SCMP_ERROR)
		return -ENOSYS;
	switch (r->check) {
	case ANY:
		return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
	case FAIL_EACCES:
		return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), nr, 0);
	case MASKED:
		return add_check(ctx, SCMP_ACT_ALLOW, nr, r, SCMP_CMP_MASKED_EQ, r->mask,
				 r->equals);
	case OWN_PID:
		return add_check(ctx, SCMP_ACT_ALLOW, nr, r, SCMP_CMP_MASKED_EQ, UINT32_MAX,
				 (uint32_t)getpid());
	case ONE_OF:
		for (const struct value *v = r->values; !rc && v->name; v++)
			if (value_applies(v, mode))
				rc = add_check(ctx, SCMP_ACT_ALLOW, nr, r, SCMP_CMP_MASKED_EQ,
					       UINT32_MAX, v->value);
		return rc;
	}
	return -EINVAL;
}

int sandbox_load_policy(int mode, char *err, size_t errlen)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	int rc;

	if (!ctx)
		return sandbox_error(err, errlen, ENOMEM, "seccomp_init");
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (!rc)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_LOG, 1);
	if (!rc)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	if (rc)
		rc = sandbox_error(err, errlen, -rc, "seccomp filter attributes");
	for (const struct rule *r = rules; !rc && r->syscall; r++)
		if (rule_applies(r, mode) && (rc = add_rule(ctx, r, mode)))
			rc = sandbox_error(err, errlen, -rc, "seccomp rule for %s", r->syscall);
	if (!rc && (rc = seccomp_load(ctx)))
		rc = sandbox_error(err, errlen, -rc, "loading the seccomp filter");
	seccomp_release(ctx);
	return rc;
}

/* Prints a rule's argument check; returns the number of characters written. */
static int print_condition(FILE *out, const struct rule *r, int mode)
{
	const char *sep = " in {";
	int n;

	if (!r->condition)
		return fprintf(out, "any");
	n = fprintf(out, "%s", r->condition);
	if (r->check != ONE_OF)
		return n;
	for (const struct value *v = r->values; v->name; v++)
		if (value_applies(v, mode)) {
			n += fprintf(out, "%s%s%s", sep, v->name, v->sanitizer ? " [sanitizer]" : "");
			sep = ", ";
		}
	return n + fprintf(out, "}");
}

void ext4cell_sandbox_print(FILE *out, int mode)
{
	static const char *const names[] = { "classic", "iomap" };
	const int width = 42;
	unsigned allowed = 0;

	if (mode != EXT4CELL_SANDBOX_CLASSIC && mode != EXT4CELL_SANDBOX_IOMAP) {
		fprintf(out, "# no seccomp policy for mode %d\n", mode);
		return;
	}
	fprintf(out, "# ext4cell-server seccomp allowlist, %s mode%s\n", names[mode],
		SANITIZER_BUILD ? ", sanitizer build" : "");
	for (const struct rule *r = rules; r->syscall; r++) {
		int n;

		if (!rule_applies(r, mode))
			continue;
		allowed += r->check != FAIL_EACCES;
		fprintf(out, "%-16s ", r->syscall);
		n = print_condition(out, r, mode);
		fprintf(out, "%*s  %s%s\n", n < width ? width - n : 0, "", r->why,
			r->sanitizer ? " [sanitizer runtime]" : "");
	}
	fprintf(out, "# %u system calls allowed; any other kills the process (SIGSYS, logged)\n\n",
		allowed);
}
