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

Result<TaskGraph> BuildTaskGraph(const Trace& trace) {
  TaskGraph g;
  std::vector<GrainInstance> grains = CollectGrains(trace, GrainFallback::kOutermostCalls);
  if (grains.empty()) {
    return FailedPrecondition("the trace has no grains (no regions with enter and leave events)");
  }
  std::stable_sort(grains.begin(), grains.end(), [&](const GrainInstance& a, const GrainInstance& b) {
    const int64_t ga = trace.region(a.region).external_id, gb = trace.region(b.region).external_id;
    if (ga != gb) return ga < gb;
    if (a.start != b.start) return a.start < b.start;
    return a.location < b.location;
  });
  std::set<int64_t> seen;
  for (const GrainInstance& gi : grains) {
    const int64_t id = trace.region(gi.region).external_id;
    if (id < 0 || !seen.insert(id).second) g.ids_from_grain_ids = false;
  }
  for (size_t n = 0; n < grains.size(); ++n) {
    const uint32_t id = g.ids_from_grain_ids
                            ? static_cast<uint32_t>(trace.region(grains[n].region).external_id + 1)
                            : static_cast<uint32_t>(n + 1);
    g.nodes.push_back(TaskNode{id, grains[n]});
  }

  // Node of each grain Enter event; -1 for other events.
  std::vector<int32_t> node_of_enter(trace.event_count(), -1);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const GrainInstance& gi = g.nodes[n].grain;
    node_of_enter[trace.flat_offset(gi.location) + gi.enter] = static_cast<int32_t>(n);
  }
  const MessageTable& msgs = trace.messages();
  const DependencyTable& deps = trace.dependencies();
  const HbGraph hb(trace);
  EndScanner::Ends ends{std::vector<MessageEnd>(msgs.size()), std::vector<MessageEnd>(msgs.size()),
                        std::vector<MessageEnd>(deps.size()), std::vector<MessageEnd>(deps.size())};
  EndScanner scanner(hb, node_of_enter);
  for (uint32_t l = 0; l < trace.locations().size(); ++l) scanner.Scan(LocationId(l), ends);
  const CallSites calls = FindCallSites(trace);

  // A grain named by the format wins over position: the instance of that grain on that location
  // that started last at or before the event (or the first one, if all start after it).
  std::map<std::pair<uint32_t, uint32_t>, std::vector<int32_t>> instances;  // (loc, region) -> nodes
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const GrainInstance& gi = g.nodes[n].grain;
    instances[{gi.location.value, gi.region.value}].push_back(static_cast<int32_t>(n));
  }
  auto named_node = [&](LocationId loc, RegionId grain, TimeNs t) -> int32_t {
    auto it = instances.find({loc.value, grain.value});
    if (it == instances.end()) return -1;
    int32_t best = it->second.front();
    for (int32_t n : it->second)
      if (g.nodes[n].grain.start <= t) best = n;
    return best;
  };

  for (uint32_t m = 0; m < msgs.size(); ++m) {
    if (!msgs.matched(MessageId(m))) {
      ++g.unmatched_messages;
      continue;
    }
    const TimeNs send_t = trace.events(msgs.sender[m]).time[msgs.send_event[m]];
    const TimeNs recv_t = trace.events(msgs.receiver[m]).time[msgs.recv_event[m]];
    int32_t from = msgs.send_grain[m].valid() ? named_node(msgs.sender[m], msgs.send_grain[m], send_t)
                                              : ends.send[m].node;
    int32_t to = msgs.recv_grain[m].valid() ? named_node(msgs.receiver[m], msgs.recv_grain[m], recv_t)
                                            : ends.recv[m].node;
    if (from < 0 || to < 0) {
      ++g.unattributed_messages;
      continue;
    }
    g.edges.push_back(TaskEdge{g.nodes[from].id, g.nodes[to].id, MessageCost(trace, m, calls), MessageId(m)});
    g.nodes[from].successors++;
    g.nodes[to].predecessors++;
  }
  // Dependency edges of every kind between grains of different instances: arcs weighted with the
  // edge's measured latency (measured_waits.h), the rule the replay uses.
  const MeasuredWaits measured(hb);
  for (uint32_t r = 0; r < deps.size(); ++r) {
    const int32_t from = ends.from[r].node, to = ends.to[r].node;
    if (from < 0 || to < 0) {
      ++g.unattributed_dependencies;
      continue;
    }
    if (from == to) continue;  // within one grain: program order
    g.edges.push_back(TaskEdge{g.nodes[from].id, g.nodes[to].id, measured.DependencyLatency(DependencyId(r)),
                               MessageId(), DependencyId(r)});
    g.nodes[from].successors++;
    g.nodes[to].predecessors++;
  }
  std::stable_sort(g.edges.begin(), g.edges.end(), [](const TaskEdge& a, const TaskEdge& b) {
    if (a.from != b.from) return a.from < b.from;
    if (a.to != b.to) return a.to < b.to;
    if (a.message != b.message) return a.message < b.message;
    return a.dependency < b.dependency;
  });
  return g;
}

}  // namespace grainscope
