// Symbol visibility for the recording library: it is built with hidden visibility, and only the
// public C API (include/grainscope/*.h) and the few internal entry points that tests and the
// benchmark use are exported.
#pragma once

#define GS_EXPORT __attribute__((visibility("default")))
#define GS_HIDDEN __attribute__((visibility("hidden")))
#define GS_LIKELY(x) __builtin_expect(!!(x), 1)
#define GS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define GS_NOINLINE __attribute__((noinline))
#define GS_ALWAYS_INLINE inline __attribute__((always_inline))
