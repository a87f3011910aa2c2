/*
 * Force-included into every cgo compile of the Linux shared library
 * (CGO_CFLAGS="-include .../glibc217.h"), runtime/cgo included, so that
 * libshellport.so binds the glibc symbols it uses to their oldest versions
 * and loads on glibc 2.17 (manylinux2014) although it is built on a newer
 * Debian.
 *
 * Why this is needed: glibc 2.32 and 2.34 gave new default versions to the
 * pthread functions Go's runtime calls (2.34 moved libpthread into libc), so
 * a plain build requires GLIBC_2.34. The old versions are still exported as
 * compatibility symbols, and their behaviour is what Go expects: runtime/cgo
 * calls pthread_attr_init itself before pthread_getattr_np for exactly the
 * pre-2.32 semantics.
 *
 * This only works for symbols that have an old version. A symbol that is
 * new-only would still bind to its new version; build.py's ELF check fails
 * the build when any symbol needs a glibc newer than 2.17.
 */
#ifndef __ASSEMBLER__ /* runtime/cgo also compiles .S files */
#if defined(__x86_64__)
#define SHELLPORT_GLIBC_BASE "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define SHELLPORT_GLIBC_BASE "GLIBC_2.17"
#endif
#ifdef SHELLPORT_GLIBC_BASE
#define SHELLPORT_PIN(sym) __asm__(".symver " #sym "," #sym "@" SHELLPORT_GLIBC_BASE)
SHELLPORT_PIN(pthread_attr_getstack);
SHELLPORT_PIN(pthread_attr_getstacksize);
SHELLPORT_PIN(pthread_create);
SHELLPORT_PIN(pthread_detach);
SHELLPORT_PIN(pthread_getattr_np);
SHELLPORT_PIN(pthread_join);
SHELLPORT_PIN(pthread_key_create);
SHELLPORT_PIN(pthread_setspecific);
SHELLPORT_PIN(pthread_sigmask);
#undef SHELLPORT_PIN
#endif
#endif
