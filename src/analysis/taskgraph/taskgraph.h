// The program's task graph as it actually ran (the seed's EPA "ELGDF report", SPEC.md §1):
// one node per grain instance with its measured time, one edge per received message ("arc")
// between the grain that produced it and the grain that consumed it, weighted with the measured
// communication delay = (duration of the send call) + (duration of the receive call); for the
// seed format that is (sendEnd - sendBegin) + (recvEnd - recvBegin).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/profile/grains.h"
#include "base/status.h"
#include "model/trace.h"

namespace grainscope {

struct TaskNode {
  uint32_t id = 0;  // grain id + 1 (the seed's numbering) when grain ids are unique, else 1..N
  GrainInstance grain;
  uint32_t successors = 0;
  uint32_t predecessors = 0;
};

struct TaskEdge {
  uint32_t from = 0;  // node ids
  uint32_t to = 0;
  TimeNs delay_ns = 0;
  MessageId message;
};

struct TaskGraph {
  std::vector<TaskNode> nodes;  // ordered by grain id, then start time
  std::vector<TaskEdge> edges;  // ordered by sender node, receiver node, then message
  // True when node ids are the seed's grain_id + 1; false when some grain ran more than once
  // (or grains are not numbered), and nodes are numbered 1..N in node order instead.
  bool ids_from_grain_ids = true;
  // Matched messages that could not be tied to a grain at one of their ends (sent before any
  // grain ran, received after the last one): not edges, counted here.
  uint64_t unattributed_messages = 0;
  uint64_t unmatched_messages = 0;  // never received (or never sent): not edges either
};

Result<TaskGraph> BuildTaskGraph(const Trace& trace);

}  // namespace grainscope
