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
 * The system calls the runtime still makes are in policy.c, marked "sanitizer".
 * Not covered: GCC's UBSan runtime (libubsan, separate from libasan) reads
 * /proc/self/environ at its first report, which kills a sandboxed process before
 * the report is printed; nothing it exports initializes it earlier without a
 * report. SECURITY.md says so.
 */
#include "internal.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/lsan_interface.h>

void sandbox_prepare_sanitizer(void)
{
	__sanitizer_sandbox_arguments args = { 0 };
	char where[256];

	__lsan_do_leak_check();
	__sanitizer_symbolize_pc(__builtin_return_address(0), "%p %F %L", where, sizeof(where));
	__sanitizer_sandbox_on_notify(&args);
}
#else
void sandbox_prepare_sanitizer(void)
{
}
#endif
