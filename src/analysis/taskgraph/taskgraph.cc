#include "analysis/taskgraph/taskgraph.h"

#include <algorithm>
#include <map>
#include <set>

#include "analysis/waits/call_sites.h"
#include "model/trace_index.h"

namespace grainscope {
namespace {

// What one message end (its send or its receive event) is embedded in on its location: the
// index into nodes of the grain it belongs to by position (the communication call around it
// comes from FindCallSites).
struct MessageEnd {
  int32_t node = -1;
};

// One pass over a location: for each send/recv event the grain it belongs to by position: the
// enclosing grain, else for a send the last grain that finished before it, for a receive the
// next grain to start after it.
class EndScanner {
 public:
  EndScanner(const Trace& trace, const std::vector<int32_t>& node_of_enter)
      : trace_(trace), node_of_enter_(node_of_enter) {}

  void Scan(LocationId loc, std::vector<MessageEnd>& sends, std::vector<MessageEnd>& recvs) {
    const EventColumns& ev = trace_.events(loc);
    const CallNesting nesting = trace_.index().nesting(loc);
    std::vector<MessageEnd*> waiting_for_next_grain;
    std::vector<int32_t> open_grains;
    int32_t last_finished = -1;
    for (EventIndex i = 0; i < ev.size(); ++i) {
      switch (ev.kind[i]) {
        case EventKind::kEnter: {
          const int32_t node = node_of_enter_[EnterKey(loc, i)];
          if (node >= 0) {
            open_grains.push_back(node);
            for (MessageEnd* end : waiting_for_next_grain) end->node = node;
            waiting_for_next_grain.clear();
          }
          break;
        }
        case EventKind::kLeave: {
          const EventIndex enter = nesting.EnterOf(i);
          if (!open_grains.empty() && node_of_enter_[EnterKey(loc, enter)] == open_grains.back()) {
            last_finished = open_grains.back();
            open_grains.pop_back();
          }
          break;
        }
        case EventKind::kSend:
        case EventKind::kRecv: {
          const bool is_send = ev.kind[i] == EventKind::kSend;
          MessageEnd& end = (is_send ? sends : recvs)[ev.arg[i]];
          if (!open_grains.empty()) {
            end.node = open_grains.back();
          } else if (is_send) {
            end.node = last_finished;
          } else {
            waiting_for_next_grain.push_back(&end);
          }
          break;
        }
        default:
          break;
      }
    }
  }

  // Index into node_of_enter for an Enter event: locations' events laid end to end.
  size_t EnterKey(LocationId loc, EventIndex i) const { return trace_.flat_offset(loc) + i; }

 private:
  const Trace& trace_;
  const std::vector<int32_t>& node_of_enter_;
};

}  // namespace

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
  std::vector<GrainInstance> grains = CollectGrains(trace);
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
  std::vector<MessageEnd> sends(msgs.size()), recvs(msgs.size());
  EndScanner scanner(trace, node_of_enter);
  for (uint32_t l = 0; l < trace.locations().size(); ++l) scanner.Scan(LocationId(l), sends, recvs);
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
                                              : sends[m].node;
    int32_t to = msgs.recv_grain[m].valid() ? named_node(msgs.receiver[m], msgs.recv_grain[m], recv_t)
                                            : recvs[m].node;
    if (from < 0 || to < 0) {
      ++g.unattributed_messages;
      continue;
    }
    g.edges.push_back(TaskEdge{g.nodes[from].id, g.nodes[to].id, MessageCost(trace, m, calls), MessageId(m)});
    g.nodes[from].successors++;
    g.nodes[to].predecessors++;
  }
  std::stable_sort(g.edges.begin(), g.edges.end(), [](const TaskEdge& a, const TaskEdge& b) {
    if (a.from != b.from) return a.from < b.from;
    if (a.to != b.to) return a.to < b.to;
    return a.message < b.message;
  });
  return g;
}

}  // namespace grainscope
