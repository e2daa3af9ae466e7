// Records for message layers that carry the on-the-fly state themselves (libgrainscope-mpi): the
// MPI records of gst_format.h, with the on-the-fly bookkeeping of the .gst directory reader's
// view, which makes ONE event of each MPI record and consumes the wrapper's "mpi.rank/comm/clock"
// labels. See onthefly.h, "carried messages".
#include <algorithm>
#include <cstring>

#include "grainscope/trace.h"
#include "record/emit.h"
#include "record/onthefly.h"
#include "record/registry.h"
#include "record/runtime.h"
#include "record/stream.h"

namespace grainscope::record {
namespace {

// Time of the calling location's last record (0: none yet): the first slot of a record with
// continuation slots when one ends the stream, else the last slot; at the start of a block, the
// previous block's (its records stay in memory: only the owner refills blocks, and it is filling
// this one).
uint64_t PreviousRecordTime(const ThreadStream& s) {
  const gst::Record* data = s.blocks[s.current].data;
  const gst::Record* cur = s.cur.load(std::memory_order_relaxed);
  if (cur == data) {
    if (s.analysis.slots_before == 0) return 0;
    const Block& prev = s.blocks[(s.current + s.block_count - 1) % s.block_count];
    const uint32_t last = s.analysis.published_wide_slots;
    if (prev.count < last) return 0;
    return prev.data[prev.count - last].time;
  }
  if (cur <= data) return 0;
  return AnalysisLastRecord(s.analysis, data, cur)->time;
}

uint64_t PreviousOrNow() {
  const uint64_t before = t_stream == &g_null_stream ? 0 : PreviousRecordTime(*t_stream);
  return before != 0 ? before : ReadClock();
}

// An MPI record of `slots` slots at `p`, one event of the reader's model.
void CommitMpiRecord(gst::Record* p, uint32_t slots) {
  Commit(p, slots);
  LocationAnalysis& a = t_stream->analysis;
  a.non_events += slots - 1;
  AnalysisWideRecord(a, p, slots);
}

template <typename Slot>
void StoreSlot(gst::Record* p, const Slot& slot) {
  static_assert(sizeof(Slot) == sizeof(gst::Record));
  std::memcpy(static_cast<void*>(p), &slot, sizeof slot);
}

// kRecordMpiSend or kRecordMpiRecv now; returns its time, or 0.
uint64_t MpiMessage(uint8_t kind, uint32_t comm, uint64_t bytes, int32_t peer, int32_t tag) {
  gst::Record* p = Reserve(2);
  if (p == nullptr) return 0;
  const uint64_t t = ReadClock();
  StoreRecord(p, t, gst::PackKindId(kind, 1, comm));
  StoreSlot(p + 1, gst::MpiMessageSlot{bytes, peer, tag});
  CommitMpiRecord(p, 2);
  return t;
}

// kRecordMpiCollective at `time`, or now when `now`.
uint64_t MpiCollective(const MpiCollectiveBegin& c, uint64_t time, bool now) {
  if (!now && t_stream != &g_null_stream) time = std::max(time, PreviousRecordTime(*t_stream));
  gst::Record* p = Reserve(3);
  if (p == nullptr) return 0;
  if (now) time = ReadClock();
  StoreRecord(p, time, gst::PackKindId(gst::kRecordMpiCollective, 2, c.comm) | (uint64_t{c.op} << 16));
  StoreSlot(p + 1, gst::MpiCollSizes{c.sent, c.received});
  StoreSlot(p + 2, gst::MpiCollRoot{c.root, c.slot, 0});
  CommitMpiRecord(p, 3);
  return time;
}

uint64_t WriteAt(uint64_t kind_id, uint64_t time) {
  if (t_stream != &g_null_stream) time = std::max(time, PreviousRecordTime(*t_stream));
  gst::Record* p = Reserve(1);
  if (p == nullptr) return 0;
  StoreRecord(p, time, kind_id);
  Commit(p, 1);
  return time;
}

}  // namespace

uint64_t CarriedMpiSend(uint32_t comm, uint64_t bytes, int32_t peer, int32_t tag) {
  return MpiMessage(gst::kRecordMpiSend, comm, bytes, peer, tag);
}

CarriedTimes CarriedMpiReceive(uint32_t comm, uint64_t bytes, int32_t peer, int32_t tag) {
  const uint64_t before = t_stream == &g_null_stream ? 0 : PreviousRecordTime(*t_stream);
  const uint64_t t = MpiMessage(gst::kRecordMpiRecv, comm, bytes, peer, tag);
  if (t == 0) return {};
  return {before != 0 ? before : t, t};
}

uint64_t MpiCollectiveTimed(const MpiCollectiveBegin& c) { return MpiCollective(c, 0, true); }

uint64_t MpiCollectiveAt(const MpiCollectiveBegin& c, uint64_t time) { return MpiCollective(c, time, false); }

void MpiCollectiveEnd(uint32_t slot) {
  gst::Record* p = Reserve(1);
  if (p == nullptr) return;
  StoreRecord(p, ReadClock(), gst::PackKindId(gst::kRecordMpiCollectiveEnd, 0, slot));
  Commit(p, 1);
}

void CarriedLabel(uint32_t label) {
  const uint64_t time = PreviousOrNow();
  gst::Record* p = Reserve(1);
  if (p == nullptr) return;
  // Stamped with the previous record's time, so that it is neither a later "last event" nor a
  // different "previous event" for the analyses above.
  StoreRecord(p, time, gst::PackKindId(gst::kRecordMarker, 0, label));
  Commit(p, 1);
  AnalysisSkipRecord(t_stream->analysis, p);
}

uint64_t RegionEndTimed(gs_region* region) {
  uint32_t id = __atomic_load_n(&region->id, __ATOMIC_ACQUIRE);
  if (id == 0) id = RegisterRegion(region);
  if (id == 0) return 0;
  const uint64_t t = ReadClock();
  gst::Record* p = Reserve(1);
  if (p == nullptr) return 0;
  StoreRecord(p, t, gst::PackKindId(gst::kRecordRegionEnd, 0, id));
  Commit(p, 1);
  return t;
}

uint64_t RawClockAt(int64_t monotonic_ns) {
  if (!ClockReadsTsc()) return static_cast<uint64_t>(monotonic_ns);
  // Back from a fresh sample at the start-up rate: the reader's fit over the run differs from it
  // by parts per million, well under a microsecond over an MPI_Init.
  const gst::ClockSample now = SampleClock(g_nominal_ticks_per_ns);
  const double ticks = static_cast<double>(now.monotonic_ns - monotonic_ns) * g_nominal_ticks_per_ns;
  const auto back = static_cast<uint64_t>(ticks > 0 ? ticks : 0);
  return back < now.raw ? now.raw - back : 0;
}

uint64_t RegionBeginAt(gs_region* region, uint64_t time) {
  uint32_t id = __atomic_load_n(&region->id, __ATOMIC_ACQUIRE);
  if (id == 0) id = RegisterRegion(region);
  if (id == 0) return 0;
  return WriteAt(gst::PackKindId(gst::kRecordRegionBegin, 0, id), time);
}

}  // namespace grainscope::record
