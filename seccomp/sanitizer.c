/*
 * seccomp/sanitizer.c: prepares the AddressSanitizer/LeakSanitizer runtime of
 * sanitizer builds (SANITIZE=1) for the sandbox; empty in release builds.
 * - LeakSanitizer checks at exit by cloning a tracer process that ptrace()s the
 *   threads and reads /proc: all forbidden inside the sandbox. The leak check runs
 *   here instead, once, before the sandbox (setup-phase leaks are reported); LSan
 *   then skips the at-exit check. Leaks made while serving are not detected.
 * - A report symbolizes its stacks: the first symbolization reads /proc/self/maps
 *   and opens every loaded object and its debug file (libbacktrace). One
 *   symbolization here does all of that while open() is still allowed; and
 *   __sanitizer_sandbox_on_notify() caches the memory map for later use.
 *   GCC's UBSan runtime (libubsan) is a separate copy of the same code, whose
 *   symbols the ASan runtime's shadow: it is reached through dlsym on its handle.
 * What the runtimes still do at their first report: read /proc/self/environ and
 * /proc/self/maps with the legacy open(2), and cope when it fails. policy.c lets
 * open(2) fail with EACCES in sanitizer builds (glibc itself only uses openat,
 * which still kills), and lists the other calls they make, marked "sanitizer".
 */
#include "internal.h"

#ifdef __SANITIZE_ADDRESS__
#include <dlfcn.h>
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/lsan_interface.h>

typedef void symbolize_fn(void *pc, const char *fmt, char *out, size_t len);
typedef void notify_fn(__sanitizer_sandbox_arguments *args);

/* Symbolizes once and caches the memory map, with the given runtime's copies. */
static void prepare_runtime(symbolize_fn *symbolize, notify_fn *notify)
{
	__sanitizer_sandbox_arguments args = { 0 };
	char where[256];

	if (symbolize)
		symbolize(__builtin_return_address(0), "%p %F %L", where, sizeof(where));
	if (notify)
		notify(&args);
}

void sandbox_prepare_sanitizer(void)
{
	void *ubsan = dlopen("libubsan.so.1", RTLD_NOW | RTLD_NOLOAD);

	__lsan_do_leak_check();
	prepare_runtime(__sanitizer_symbolize_pc, __sanitizer_sandbox_on_notify);
	if (ubsan) {
		prepare_runtime((symbolize_fn *)dlsym(ubsan, "__sanitizer_symbolize_pc"),
				(notify_fn *)dlsym(ubsan, "__sanitizer_sandbox_on_notify"));
		dlclose(ubsan);
	}
}
#else
void sandbox_prepare_sanitizer(void)
{
}
#endif
