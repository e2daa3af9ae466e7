/* The test programs' stand-in for computation: sleeping `ms` milliseconds (under 1000). */
#pragma once

#include <time.h>

static inline void compute_ms(int ms) {
  struct timespec ts = {0, ms * 1000000L};
  nanosleep(&ts, NULL);
}
