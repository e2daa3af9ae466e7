// Reproducible synthetic traces: the input of every benchmark (and of `bench/gen`, which writes
// them to files).
//
// Each location runs `rounds` iterations of: an "iteration" region holding a "solve" region with
// `leaves` short compute regions nested inside, then an MPI_Send to its right neighbour and an
// MPI_Recv from its left neighbour (a ring), and every `barrier_every` rounds a barrier. Durations
// are drawn from a seeded generator; with probability `late_fraction` a location's compute in a
// round is 4x longer, so its right neighbour waits for it (a Late Sender). Clocks are consistent:
// every receive completes after its send, every barrier ends after its last arrival.
#pragma once

#include <cstdint>

#include "base/status.h"
#include "model/trace.h"

namespace grainscope {

struct SyntheticOptions {
  uint32_t locations = 64;
  uint64_t events = 1'000'000;     // approximate total; rounds are derived from it
  double message_fraction = 0.05;  // share of kSend + kRecv events among all events
  double late_fraction = 0.1;
  uint32_t barrier_every = 16;     // 0: no barriers
  uint64_t seed = 1;
};

Result<Trace> GenerateSyntheticTrace(const SyntheticOptions& options);

}  // namespace grainscope
