#include "model/gpu_tracker.h"

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "model/diagnostics.h"
#include "model/region_roles.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

bool OneOf(std::string_view name, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Rows of a table sorted by a correlation id, for lookups by id.
class ByCorrelation {
 public:
  void Add(int64_t correlation, uint32_t row) { rows_.emplace_back(correlation, row); }
  void Sort() { std::sort(rows_.begin(), rows_.end()); }
  // The rows of `correlation`, in row order.
  std::pair<const std::pair<int64_t, uint32_t>*, const std::pair<int64_t, uint32_t>*> Find(int64_t correlation) const {
    auto lo = std::lower_bound(rows_.begin(), rows_.end(), std::make_pair(correlation, uint32_t{0}));
    auto hi = std::upper_bound(lo, rows_.end(), std::make_pair(correlation, UINT32_MAX));  // no correlation + 1: INT64_MAX
    return {rows_.data() + (lo - rows_.begin()), rows_.data() + (hi - rows_.begin())};
  }
  uint32_t First(int64_t correlation) const {
    auto [lo, hi] = Find(correlation);
    return lo == hi ? GpuTracker::kNone : lo->second;
  }

 private:
  std::vector<std::pair<int64_t, uint32_t>> rows_;
};

}  // namespace

GpuCall GpuCallOf(std::string_view name) {
  if (OneOf(name, {"cudaStreamSynchronize", "cuStreamSynchronize", "hipStreamSynchronize"})) return GpuCall::kStreamSync;
  if (OneOf(name, {"cudaDeviceSynchronize", "cuCtxSynchronize", "hipDeviceSynchronize"})) return GpuCall::kDeviceSync;
  if (OneOf(name, {"cudaEventSynchronize", "cuEventSynchronize", "hipEventSynchronize"})) return GpuCall::kEventSync;
  if (OneOf(name, {"cudaEventRecord", "cudaEventRecordWithFlags", "cuEventRecord", "cuEventRecordWithFlags",
                   "hipEventRecord", "hipEventRecordWithFlags"})) {
    return GpuCall::kEventRecord;
  }
  if (OneOf(name, {"cudaStreamWaitEvent", "cuStreamWaitEvent", "hipStreamWaitEvent"})) return GpuCall::kStreamWaitEvent;
  // Copies that return once the data has arrived (a memset and a device-to-device copy may return
  // earlier; the edge then only says the call did not end before its copy, as measured).
  if (OneOf(name, {"cudaMemcpy", "cudaMemcpy2D", "cudaMemcpy3D", "cudaMemcpyToSymbol", "cudaMemcpyFromSymbol",
                   "cuMemcpy", "cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2", "hipMemcpy", "hipMemcpyWithStream",
                   "hipMemcpyToSymbol", "hipMemcpyFromSymbol", "hipMemcpyHtoD", "hipMemcpyDtoH"})) {
    return GpuCall::kBlockingCopy;
  }
  const std::optional<CallRole> role = KnownCallRole(name);
  return role && role->role == RegionRole::kGpuLaunch ? GpuCall::kLaunch : GpuCall::kOther;
}

uint32_t GpuTracker::AddCall(LocationId thread, GpuCall kind, int64_t correlation) {
  calls_.push_back(Call{thread, kind, correlation, {}, {}});
  return static_cast<uint32_t>(calls_.size() - 1);
}

uint32_t GpuTracker::AddWork(LocationId stream_location, int64_t device, int64_t stream, int64_t correlation,
                             bool pageable) {
  work_.push_back(Work{stream_location, device, stream, correlation, pageable, {}, {}});
  return static_cast<uint32_t>(work_.size() - 1);
}

void GpuTracker::AddSyncRecord(int64_t correlation, const GpuSyncRecord& record) {
  sync_.push_back(Sync{correlation, record});
}

// The derivation: launches first (they say when each piece of work was enqueued), then each
// stream's work in its order, then the synchronisations.
class GpuTracker::Edges {
 public:
  Edges(GpuTracker& t, TraceBuilder& b, std::string_view file) : t_(t), b_(b), file_(file) {}

  void Run() {
    for (uint32_t c = 0; c < t_.calls_.size(); ++c) calls_by_corr_.Add(t_.calls_[c].correlation, c);
    for (uint32_t w = 0; w < t_.work_.size(); ++w) work_by_corr_.Add(t_.work_[w].correlation, w);
    for (uint32_t s = 0; s < t_.sync_.size(); ++s) sync_by_corr_.Add(t_.sync_[s].correlation, s);
    calls_by_corr_.Sort();
    work_by_corr_.Sort();
    sync_by_corr_.Sort();
    AddLaunches();
    IndexStreams();
    IndexThreads();
    for (uint32_t c = 0; c < t_.calls_.size(); ++c) AddSync(c);
    Diagnostics& d = b_.diagnostics();
    d.AddCount(Diag::kGpuWorkWithoutLaunch, without_launch_, first_without_launch_);
    d.AddCount(Diag::kGpuSyncGuessed, guessed_, first_guessed_);
  }

 private:
  struct Stream {
    LocationId location;
    int64_t device;
    std::vector<uint32_t> rows;        // its work in stream order
    std::vector<TimeNs> suffix_min;    // of the rows' enqueue times, from each row on
    std::vector<TimeNs> prefix_max;    // up to each row
  };

  bool Has(const End& e) const { return e.event != kNoEvent; }

  void AddLaunches() {
    for (uint32_t w = 0; w < t_.work_.size(); ++w) {
      Work& work = t_.work_[w];
      if (!Has(work.enter)) continue;
      work.enqueued = work.enter.time;
      const uint32_t c = calls_by_corr_.First(work.correlation);
      if (c == kNone || !Has(t_.calls_[c].enter)) {
        if (without_launch_++ == 0)
          first_without_launch_ = fmt::format("{}: work at {} ns on a stream names correlation id {}", file_,
                                              b_.SinceOrigin(work.enter.time), work.correlation);
        continue;
      }
      const Call& call = t_.calls_[c];
      if (hosted_.insert(work.location.value).second)
        b_.SetLocationGroup(work.location, b_.LocationGroup(call.thread));  // the first launcher's process
      work.enqueued = std::min(work.enqueued, call.enter.time);
      b_.AddDependency(DependencyKind::kGpuLaunch, call.thread, call.enter.event, work.location, work.enter.event);
      const bool waited = call.kind == GpuCall::kBlockingCopy || (work.pageable && work.leave.time <= call.leave.time);
      if (waited && Has(call.leave) && Has(work.leave)) FromWork(w, call.thread, call.leave.event);
    }
  }

  void IndexStreams() {
    for (uint32_t w = 0; w < t_.work_.size(); ++w) {
      const Work& work = t_.work_[w];
      if (!Has(work.enter) || !Has(work.leave)) continue;
      auto [it, added] = slot_of_.try_emplace({work.device, work.stream}, static_cast<uint32_t>(streams_.size()));
      if (added) streams_.push_back(Stream{work.location, work.device, {}, {}, {}});
      streams_[it->second].rows.push_back(w);
    }
    for (Stream& s : streams_) {
      std::sort(s.rows.begin(), s.rows.end(),
                [&](uint32_t a, uint32_t b) { return t_.work_[a].enter.event < t_.work_[b].enter.event; });
      const size_t n = s.rows.size();
      s.suffix_min.resize(n);
      s.prefix_max.resize(n);
      for (size_t i = n; i-- > 0;)
        s.suffix_min[i] = std::min(t_.work_[s.rows[i]].enqueued, i + 1 < n ? s.suffix_min[i + 1] : kMaxTime);
      for (size_t i = 0; i < n; ++i)
        s.prefix_max[i] = std::max(t_.work_[s.rows[i]].enqueued, i > 0 ? s.prefix_max[i - 1] : kMinTime);
    }
  }

  // Per call, the stream its thread last launched work to before it (kNone: none).
  void IndexThreads() {
    std::vector<uint32_t> order;
    for (uint32_t c = 0; c < t_.calls_.size(); ++c)
      if (Has(t_.calls_[c].enter)) order.push_back(c);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const Call &x = t_.calls_[a], &y = t_.calls_[b];
      return x.thread != y.thread ? x.thread < y.thread : x.enter.event < y.enter.event;
    });
    last_stream_.assign(t_.calls_.size(), kNone);
    uint32_t current = kNone;
    for (size_t i = 0; i < order.size(); ++i) {
      const Call& call = t_.calls_[order[i]];
      if (i > 0 && t_.calls_[order[i - 1]].thread != call.thread) current = kNone;
      last_stream_[order[i]] = current;
      auto [lo, hi] = work_by_corr_.Find(call.correlation);
      for (auto* p = lo; p != hi; ++p) {
        const Work& w = t_.work_[p->second];
        if (auto s = slot_of_.find({w.device, w.stream}); s != slot_of_.end()) current = s->second;
      }
    }
  }

  // The last work of stream slot `s` enqueued at or before t, or kNone.
  uint32_t LastEnqueuedBefore(uint32_t s, TimeNs t) const {
    const Stream& st = streams_[s];
    auto it = std::upper_bound(st.suffix_min.begin(), st.suffix_min.end(), t);
    return it == st.suffix_min.begin() ? kNone : st.rows[(it - st.suffix_min.begin()) - 1];
  }
  // The first work of stream slot `s` enqueued after t, or kNone.
  uint32_t FirstEnqueuedAfter(uint32_t s, TimeNs t) const {
    const Stream& st = streams_[s];
    auto it = std::upper_bound(st.prefix_max.begin(), st.prefix_max.end(), t);
    return it == st.prefix_max.end() ? kNone : st.rows[it - st.prefix_max.begin()];
  }

  uint32_t SlotOf(int64_t device, int64_t stream) const {
    auto it = slot_of_.find({device, stream});
    if (it != slot_of_.end() || device >= 0) return it == slot_of_.end() ? kNone : it->second;
    for (const auto& [key, slot] : slot_of_)  // the device not said: the one stream of that number
      if (key.second == stream) return slot;
    return kNone;
  }

  void Guessed(const Call& call, std::string_view what) {
    if (&call == last_guessed_) return;  // one count per call
    last_guessed_ = &call;
    if (guessed_++ == 0)
      first_guessed_ = fmt::format("{}: {} at {} ns: {}", file_, b_.LocationName(call.thread),
                                   b_.SinceOrigin(call.enter.time), what);
  }

  // An edge from the Leave of work row w (if any) to `to` on `loc`.
  void FromWork(uint32_t w, LocationId loc, EventIndex to) {
    if (w == kNone) return;
    const Work& work = t_.work_[w];
    b_.AddDependency(DependencyKind::kGpuSync, work.location, work.leave.event, loc, to);
  }

  void AddSync(uint32_t c) {
    const Call& call = t_.calls_[c];
    if (!Has(call.enter) || !Has(call.leave)) return;
    if (call.kind != GpuCall::kStreamSync && call.kind != GpuCall::kDeviceSync && call.kind != GpuCall::kEventSync &&
        call.kind != GpuCall::kStreamWaitEvent) {
      return;
    }
    const uint32_t s = sync_by_corr_.First(call.correlation);
    GpuSyncRecord r = s == kNone ? GpuSyncRecord{call.kind} : t_.sync_[s].record;
    if (r.kind == GpuCall::kOther) r.kind = call.kind;
    const uint32_t own = last_stream_[c];  // the thread's last launched stream
    switch (r.kind) {
      case GpuCall::kStreamSync: {
        uint32_t slot = r.stream >= 0 ? SlotOf(r.device, r.stream) : kNone;
        if (r.stream < 0 && own != kNone) {
          slot = own;
          Guessed(call, "the stream synchronised is not named; taken as the thread's last launched stream");
        }
        if (slot != kNone) FromWork(LastEnqueuedBefore(slot, call.enter.time), call.thread, call.leave.event);
        break;
      }
      case GpuCall::kDeviceSync: {
        int64_t device = r.device;
        if (device < 0 && own != kNone) {
          device = streams_[own].device;
          Guessed(call, "the device synchronised is not named; taken as the thread's last launched device");
        }
        for (uint32_t slot = 0; slot < streams_.size(); ++slot)
          if (device >= 0 && streams_[slot].device == device)
            FromWork(LastEnqueuedBefore(slot, call.enter.time), call.thread, call.leave.event);
        break;
      }
      case GpuCall::kEventSync:
      case GpuCall::kStreamWaitEvent: AddEventWait(call, r, own); break;
      default: break;
    }
  }

  // An event synchronise or a stream's wait for an event: the work the event's stream had
  // enqueued when the event was recorded.
  void AddEventWait(const Call& call, const GpuSyncRecord& r, uint32_t own) {
    uint32_t from = r.wait_on_stream >= 0 ? SlotOf(r.device, r.wait_on_stream) : kNone;
    if (r.wait_on_stream < 0) {
      from = own;
      Guessed(call, "the event's stream is not named; taken as the thread's last launched stream");
    }
    TimeNs recorded = call.enter.time;
    const uint32_t record = r.record_correlation >= 0 ? calls_by_corr_.First(r.record_correlation) : kNone;
    if (record != kNone && Has(t_.calls_[record].enter)) {
      recorded = t_.calls_[record].enter.time;
    } else if (from != kNone) {
      Guessed(call, "the event's record is not in the trace; taken as the work its stream had enqueued by the wait");
    }
    if (from == kNone) return;
    const uint32_t source = LastEnqueuedBefore(from, recorded);
    if (r.kind == GpuCall::kEventSync) return FromWork(source, call.thread, call.leave.event);
    const uint32_t waiter = r.stream >= 0 ? SlotOf(r.device, r.stream) : kNone;
    if (waiter == kNone) {
      if (r.stream < 0) Guessed(call, "the waiting stream is not named; no edge");
      return;
    }
    const uint32_t next = FirstEnqueuedAfter(waiter, call.enter.time);
    if (next != kNone && source != kNone && waiter != from) {
      FromWork(source, t_.work_[next].location, t_.work_[next].enter.event);
    }
  }

  static constexpr TimeNs kMaxTime = std::numeric_limits<TimeNs>::max();
  static constexpr TimeNs kMinTime = std::numeric_limits<TimeNs>::min();
  GpuTracker& t_;
  TraceBuilder& b_;
  std::string_view file_;
  ByCorrelation calls_by_corr_, work_by_corr_, sync_by_corr_;
  std::map<std::pair<int64_t, int64_t>, uint32_t> slot_of_;  // (device, stream) -> streams_
  std::vector<Stream> streams_;
  std::vector<uint32_t> last_stream_;
  std::set<uint32_t> hosted_;  // stream locations given their host's process
  uint64_t without_launch_ = 0, guessed_ = 0;
  const Call* last_guessed_ = nullptr;
  std::string first_without_launch_, first_guessed_;
};

void GpuTracker::AddEdges(TraceBuilder& builder, std::string_view file) {
  if (empty()) return;
  Edges(*this, builder, file).Run();
}

}  // namespace grainscope
