// The program's task graph as it actually ran (the seed's EPA "ELGDF report", SPEC.md §1):
// one node per grain instance with its measured time, one edge per received message ("arc")
// between the grain that produced it and the grain that consumed it (and one per dependency edge
// of the happens-before graph between two grains: a lock hand-over, a task's creation, a GPU
// launch, weighted with the edge's measured latency), weighted with the time the
// message needed (MessageCost): from the send call's begin to the data's arrival at the receiver,
// never the receiver's waiting for the send to begin. When the receive began after the send had
// ended (as in every arc of the seed's figure 4.5) that is the seed's delay,
// (sendEnd - sendBegin) + (recvEnd - recvBegin).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/profile/grains.h"
#include "base/status.h"
#include "analysis/waits/call_sites.h"
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
  MessageId message;        // the message it carries, or invalid for a dependency edge
  DependencyId dependency;  // the dependency row (a lock hand-over, a GPU launch, ...), or invalid
};
// The message's name, or "(kind)" for a dependency edge ("(lock_handover)").
std::string TaskEdgeLabel(const Trace& trace, const TaskEdge& e);

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
  // Dependency edges (hb_graph.h) with an end outside any grain: not edges, counted here.
  uint64_t unattributed_dependencies = 0;
};

Result<TaskGraph> BuildTaskGraph(const Trace& trace);

// The cost of matched message `m` (calls: FindCallSites(trace)), with the calls around its send
// [send_enter, send_leave] and its receive [recv_enter, recv_leave] (the events themselves when
// not in a call):
//   recv_leave - send_enter - max(0, recv_enter - send_leave), at least 0.
// A receiver that waited from before the send began is charged from the send's begin to its
// receive's return (the transfer), not its waiting; one that came after the send had ended, the
// two calls' durations (the data was there). A self-message or a message between grains of one
// processor costs the same way: what its calls took.
TimeNs MessageCost(const Trace& trace, uint32_t m, const CallSites& calls);

}  // namespace grainscope
