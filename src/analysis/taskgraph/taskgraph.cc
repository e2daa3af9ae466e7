#include "analysis/taskgraph/taskgraph.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "analysis/waits/call_sites.h"
#include "analysis/replay/measured_waits.h"
#include "model/hb_graph.h"
#include "model/trace_index.h"

namespace grainscope {
namespace {

// What one message end (its send or its receive event) is embedded in on its location: the
// index into nodes of the grain it belongs to by position (the communication call around it
// comes from FindCallSites).
struct MessageEnd {
  int32_t node = -1;
};

// One pass over a location: for each end of a point edge on it (a send or receive event, the
// source or target of a dependency edge: hb_graph.h) the grain it belongs to by position: the
// enclosing grain, else for a source the last grain that finished before it, for a target the
// next grain to start after it.
class EndScanner {
 public:
  // Per message its send and receive end, per dependency row its source and target end.
  struct Ends {
    std::vector<MessageEnd> send, recv, from, to;
  };

  EndScanner(const HbGraph& g, const std::vector<int32_t>& node_of_enter)
      : g_(g), trace_(g.trace()), node_of_enter_(node_of_enter) {}

  void Scan(LocationId loc, Ends& ends) {
    const EventColumns& ev = trace_.events(loc);
    const CallNesting nesting = trace_.index().nesting(loc);
    const DependencyEnds& out = g_.outgoing();
    const DependencyEnds& in = g_.incoming();
    uint32_t next_out = out.first(loc), next_in = in.first(loc);
    waiting_for_next_grain_.clear();
    open_grains_.clear();
    last_finished_ = -1;
    for (EventIndex i = 0; i < ev.size(); ++i) {
      switch (ev.kind[i]) {
        case EventKind::kEnter: {
          const int32_t node = node_of_enter_[EnterKey(loc, i)];
          if (node >= 0) {
            open_grains_.push_back(node);
            for (MessageEnd* end : waiting_for_next_grain_) end->node = node;
            waiting_for_next_grain_.clear();
          }
          break;
        }
        case EventKind::kLeave: {
          const EventIndex enter = nesting.EnterOf(i);
          if (!open_grains_.empty() && node_of_enter_[EnterKey(loc, enter)] == open_grains_.back()) {
            last_finished_ = open_grains_.back();
            open_grains_.pop_back();
          }
          break;
        }
        case EventKind::kSend: Attribute(/*source=*/true, ends.send[ev.arg[i]]); break;
        case EventKind::kRecv: Attribute(/*source=*/false, ends.recv[ev.arg[i]]); break;
        default: break;
      }
      for (; next_out < out.last(loc) && out.event(next_out) <= i; ++next_out)
        for (uint32_t r : out.edges(next_out)) Attribute(/*source=*/true, ends.from[r]);
      for (; next_in < in.last(loc) && in.event(next_in) <= i; ++next_in)
        for (uint32_t r : in.edges(next_in)) Attribute(/*source=*/false, ends.to[r]);
    }
  }

  // Index into node_of_enter for an Enter event: locations' events laid end to end.
  size_t EnterKey(LocationId loc, EventIndex i) const { return trace_.flat_offset(loc) + i; }

 private:
  void Attribute(bool source, MessageEnd& end) {
    if (!open_grains_.empty()) {
      end.node = open_grains_.back();
    } else if (source) {
      end.node = last_finished_;
    } else {
      waiting_for_next_grain_.push_back(&end);
    }
  }

  const HbGraph& g_;
  const Trace& trace_;
  const std::vector<int32_t>& node_of_enter_;
  std::vector<MessageEnd*> waiting_for_next_grain_;
  std::vector<int32_t> open_grains_;
  int32_t last_finished_ = -1;
};

}  // namespace

std::string TaskEdgeLabel(const Trace& trace, const TaskEdge& e) {
  if (e.dependency.valid()) return fmt::format("({})", DependencyKindName(trace.dependencies().kind[e.dependency.value]));
  return std::string(trace.str(trace.messages().name[e.message.value]));
}

TimeNs MessageCost(const Trace& trace, uint32_t m, const CallSites& calls) {
  const MessageTable& msgs = trace.messages();
  const EventColumns& s = trace.events(msgs.sender[m]);
  const EventColumns& r = trace.events(msgs.receiver[m]);
  const CallSite& sc = calls.send[m];
  const CallSite& rc = calls.recv[m];
  const TimeNs send_enter = s.time[sc.enter], send_leave = s.time[sc.leave];
  const TimeNs recv_enter = r.time[rc.enter], recv_leave = r.time[rc.leave];
  // A receive entered after the send had ended found the data waiting: the time between is
  // neither side's cost.
  const TimeNs idle_between = std::max<TimeNs>(0, recv_enter - send_leave);
  return std::max<TimeNs>(0, recv_leave - send_enter - idle_between);
}

namespace {

// The grains as the graph's nodes, ordered by grain id, then start, then location. A node's id is
// its grain's id + 1 when every grain ran once and has an id, else its position + 1
// (TaskGraph::ids_from_grain_ids).
void AddGrainNodes(std::vector<GrainInstance> grains, TaskGraph& g) {
  std::stable_sort(grains.begin(), grains.end(), [&](const GrainInstance& a, const GrainInstance& b) {
    const int64_t ga = a.id, gb = b.id;
    if (ga != gb) return ga < gb;
    if (a.start != b.start) return a.start < b.start;
    return a.location < b.location;
  });
  std::set<int64_t> seen;
  for (const GrainInstance& gi : grains) {
    const int64_t id = gi.id;
    if (id < 0 || !seen.insert(id).second) g.ids_from_grain_ids = false;
  }
  for (size_t n = 0; n < grains.size(); ++n) {
    const uint32_t id = g.ids_from_grain_ids
                            ? static_cast<uint32_t>(grains[n].id + 1)
                            : static_cast<uint32_t>(n + 1);
    g.nodes.push_back(TaskNode{id, grains[n]});
  }
}

// The grain of every message end and dependency end by position (EndScanner).
EndScanner::Ends FindEnds(const HbGraph& hb, const TaskGraph& g) {
  const Trace& trace = hb.trace();
  // Node of each grain Enter event; -1 for other events.
  std::vector<int32_t> node_of_enter(trace.event_count(), -1);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const GrainInstance& gi = g.nodes[n].grain;
    node_of_enter[trace.flat_offset(gi.location) + gi.enter] = static_cast<int32_t>(n);
  }
  const size_t messages = trace.messages().size(), dependencies = trace.dependencies().size();
  EndScanner::Ends ends{std::vector<MessageEnd>(messages), std::vector<MessageEnd>(messages),
                        std::vector<MessageEnd>(dependencies), std::vector<MessageEnd>(dependencies)};
  EndScanner scanner(hb, node_of_enter);
  for (uint32_t l = 0; l < trace.locations().size(); ++l) scanner.Scan(LocationId(l), ends);
  return ends;
}

// A grain named by the format wins over position: the instance of that grain on that location
// that started last at or before the event (or the first one, if all start after it).
class NamedGrainNodes {
 public:
  explicit NamedGrainNodes(const TaskGraph& g) : g_(g) {
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      const GrainInstance& gi = g.nodes[n].grain;
      instances_[{gi.location.value, gi.region.value}].push_back(static_cast<int32_t>(n));
    }
  }
  // The node, or -1 when the grain has no instance on the location.
  int32_t Find(LocationId loc, RegionId grain, TimeNs t) const {
    auto it = instances_.find({loc.value, grain.value});
    if (it == instances_.end()) return -1;
    int32_t best = it->second.front();
    for (int32_t n : it->second)
      if (g_.nodes[n].grain.start <= t) best = n;
    return best;
  }

 private:
  const TaskGraph& g_;
  std::map<std::pair<uint32_t, uint32_t>, std::vector<int32_t>> instances_;  // (loc, region) -> nodes
};

void AddEdge(TaskGraph& g, int32_t from, int32_t to, TimeNs cost, MessageId message, DependencyId dependency) {
  g.edges.push_back(TaskEdge{g.nodes[from].id, g.nodes[to].id, cost, message, dependency});
  g.nodes[from].successors++;
  g.nodes[to].predecessors++;
}

// An arc per matched message between the grains of its ends (named by the format, else by
// position), weighted with the cost of its calls (MessageCost).
void AddMessageEdges(const Trace& trace, const EndScanner::Ends& ends, TaskGraph& g) {
  const MessageTable& msgs = trace.messages();
  const CallSites calls = FindCallSites(trace);
  const NamedGrainNodes named(g);
  for (uint32_t m = 0; m < msgs.size(); ++m) {
    if (!msgs.matched(MessageId(m))) {
      ++g.unmatched_messages;
      continue;
    }
    const TimeNs send_t = trace.events(msgs.sender[m]).time[msgs.send_event[m]];
    const TimeNs recv_t = trace.events(msgs.receiver[m]).time[msgs.recv_event[m]];
    int32_t from = msgs.send_grain[m].valid() ? named.Find(msgs.sender[m], msgs.send_grain[m], send_t)
                                              : ends.send[m].node;
    int32_t to = msgs.recv_grain[m].valid() ? named.Find(msgs.receiver[m], msgs.recv_grain[m], recv_t)
                                            : ends.recv[m].node;
    if (from < 0 || to < 0) {
      ++g.unattributed_messages;
      continue;
    }
    AddEdge(g, from, to, MessageCost(trace, m, calls), MessageId(m), DependencyId());
  }
}

// Dependency edges of every kind between grains of different instances: arcs weighted with the
// edge's measured latency (measured_waits.h), the rule the replay uses.
void AddDependencyEdges(const HbGraph& hb, const EndScanner::Ends& ends, TaskGraph& g) {
  const MeasuredWaits measured(hb);
  for (uint32_t r = 0; r < hb.trace().dependencies().size(); ++r) {
    const int32_t from = ends.from[r].node, to = ends.to[r].node;
    if (from < 0 || to < 0) {
      ++g.unattributed_dependencies;
      continue;
    }
    if (from == to) continue;  // within one grain: program order
    AddEdge(g, from, to, measured.DependencyLatency(DependencyId(r)), MessageId(), DependencyId(r));
  }
}

}  // namespace

Result<TaskGraph> BuildTaskGraph(const Trace& trace) {
  TaskGraph g;
  std::vector<GrainInstance> grains = CollectGrains(trace, GrainFallback::kOutermostCalls);
  if (grains.empty()) {
    return FailedPrecondition("the trace has no grains (no regions with enter and leave events)");
  }
  AddGrainNodes(std::move(grains), g);
  const HbGraph hb(trace);
  const EndScanner::Ends ends = FindEnds(hb, g);
  AddMessageEdges(trace, ends, g);
  AddDependencyEdges(hb, ends, g);
  std::stable_sort(g.edges.begin(), g.edges.end(), [](const TaskEdge& a, const TaskEdge& b) {
    if (a.from != b.from) return a.from < b.from;
    if (a.to != b.to) return a.to < b.to;
    if (a.message != b.message) return a.message < b.message;
    return a.dependency < b.dependency;
  });
  return g;
}

}  // namespace grainscope
