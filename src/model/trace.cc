#include "model/trace.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace grainscope {

std::string_view EventKindName(EventKind kind) {
  switch (kind) {
    case EventKind::kEnter: return "enter";
    case EventKind::kLeave: return "leave";
    case EventKind::kSend: return "send";
    case EventKind::kSendComplete: return "send_complete";
    case EventKind::kRecvPost: return "recv_post";
    case EventKind::kRecv: return "recv";
    case EventKind::kCollBegin: return "collective_begin";
    case EventKind::kCollEnd: return "collective_end";
    case EventKind::kMarker: return "marker";
    case EventKind::kSync: return "sync";
  }
  return "unknown";
}

std::string_view LocationKindName(LocationKind kind) {
  switch (kind) {
    case LocationKind::kProcessor: return "processor";
    case LocationKind::kProcess: return "process";
    case LocationKind::kThread: return "thread";
    case LocationKind::kRank: return "rank";
    case LocationKind::kOpenMpThread: return "openmp thread";
    case LocationKind::kGpuStream: return "gpu stream";
  }
  return "unknown";
}

bool ParseLocationKind(std::string_view name, LocationKind* kind) {
  for (LocationKind k : kLocationKinds) {
    if (LocationKindName(k) == name) {
      *kind = k;
      return true;
    }
  }
  return false;
}

std::optional<int64_t> Trace::InstanceId(LocationId loc, EventIndex enter) const {
  const InstanceTable& t = body_->instances;
  if (t.size() == 0) return std::nullopt;
  // Rows are ordered by (location, event): a binary search over the row numbers.
  size_t lo = 0, hi = t.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    const bool before = t.location[mid] < loc || (t.location[mid] == loc && t.enter[mid] < enter);
    if (before) lo = mid + 1; else hi = mid;
  }
  if (lo < t.size() && t.location[lo] == loc && t.enter[lo] == enter) return t.id[lo];
  return std::nullopt;
}

std::vector<uint32_t> FirstRegionOfName(const Trace& trace) {
  std::map<std::pair<uint32_t, RegionRole>, uint32_t> first;
  std::vector<uint32_t> out(trace.regions().size());
  for (uint32_t r = 0; r < out.size(); ++r) {
    const Region& region = trace.regions()[r];
    out[r] = first.emplace(std::make_pair(region.name.value, region.role), r).first->second;
  }
  return out;
}

std::optional<LocationId> FindLocationNamed(const Trace& trace, std::string_view name) {
  for (uint32_t l = 0; l < trace.locations().size(); ++l) {
    const Location& loc = trace.location(LocationId(l));
    if (trace.str(loc.name) == name || std::to_string(loc.external_id) == name) return LocationId(l);
  }
  return std::nullopt;
}

std::string_view CollectiveOpName(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kBarrier: return "barrier";
    case CollectiveOp::kBroadcast: return "broadcast";
    case CollectiveOp::kReduce: return "reduce";
    case CollectiveOp::kAllreduce: return "allreduce";
    case CollectiveOp::kGather: return "gather";
    case CollectiveOp::kScatter: return "scatter";
    case CollectiveOp::kAllgather: return "allgather";
    case CollectiveOp::kAlltoall: return "alltoall";
    case CollectiveOp::kScan: return "scan";
    case CollectiveOp::kReduceScatter: return "reduce_scatter";
    case CollectiveOp::kOther: return "other";
  }
  return "unknown";
}

uint32_t CollectiveTable::member_row(CollectiveId c, LocationId l) const {
  auto first = member_location.begin() + first_member[c.value];
  auto last = member_location.begin() + first_member[c.value + 1];
  auto it = std::lower_bound(first, last, l);
  return it != last && *it == l ? static_cast<uint32_t>(it - member_location.begin()) : UINT32_MAX;
}

bool EndsWithItsCall(const EventColumns& ev, EventIndex begin, EventIndex end) {
  if (begin == kNoEvent || end == kNoEvent || end <= begin || end + 1 >= ev.size()) return false;
  int64_t depth = 0;  // regions entered since the begin and still open
  for (EventIndex i = begin + 1; i < end; ++i) {
    if (ev.kind[i] == EventKind::kEnter) ++depth;
    if (ev.kind[i] == EventKind::kLeave && --depth < 0) return false;  // its call ended before it
  }
  return depth == 0 && ev.kind[end + 1] == EventKind::kLeave;
}

CollectiveShape ShapeOf(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kBarrier:
    case CollectiveOp::kAllreduce:
    case CollectiveOp::kAllgather:
    case CollectiveOp::kAlltoall:
    case CollectiveOp::kReduceScatter:
      return CollectiveShape::kAllToAll;
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kScatter:
      return CollectiveShape::kOneToAll;
    case CollectiveOp::kReduce:
    case CollectiveOp::kGather:
      return CollectiveShape::kAllToOne;
    case CollectiveOp::kScan:
      return CollectiveShape::kPrefix;
    case CollectiveOp::kOther:
      return CollectiveShape::kOther;
  }
  return CollectiveShape::kOther;
}

std::string_view Trace::Metadata(std::string_view key) const {
  for (const MetadataEntry& e : body_->metadata)
    if (str(e.key) == key) return str(e.value);
  return {};
}

Trace::Trace(std::string format, std::shared_ptr<const TraceBody> body, Timeline times)
    : format_(std::move(format)), body_(std::move(body)), timeline_(std::move(times)) {
  const bool any = timeline_.event_count() > 0;
  start_ns_ = any ? timeline_.start() : body_->origin_ns;
  end_ns_ = any ? timeline_.end() : body_->origin_ns;
  columns_.reserve(body_->locations.size());
  for (uint32_t l = 0; l < body_->locations.size(); ++l)
    columns_.push_back(EventColumns{timeline_.at(LocationId(l)), body_->kinds[l], body_->args[l]});
}

Result<Trace> Trace::Retimed(Timeline times, std::string_view format_suffix) const {
  bool same_shape = times.location_count() == locations().size();
  for (uint32_t l = 0; same_shape && l < locations().size(); ++l)
    same_shape = times.at(LocationId(l)).size() == events(LocationId(l)).size();
  if (!same_shape) return Internal("retimed: the timeline is not one of this trace's events");
  return Trace(fmt::format("{}{}", format_, format_suffix), body_, std::move(times));
}

Trace Trace::Copy() const {
  std::vector<std::vector<TimeNs>> times;
  times.reserve(locations().size());
  for (uint32_t l = 0; l < locations().size(); ++l) {
    const std::span<const TimeNs> at = timeline_.at(LocationId(l));
    times.emplace_back(at.begin(), at.end());
  }
  // Neither can fail: the times are this trace's own, in its order.
  Result<Timeline> timeline = Timeline::FromLocations(std::move(times));
  return Trace(format_, body_, std::move(*timeline));
}

}  // namespace grainscope
