// Records for message layers that carry the on-the-fly state themselves (libgrainscope-mpi): the
// same records as the thread API writes, with the on-the-fly bookkeeping of the .gst directory
// reader's view, which makes ONE event of a send (begin + end) and of a receive (begin + end) and
// consumes the wrapper's "mpi.rank/comm/clock" labels. See onthefly.h, "carried messages".
#include <algorithm>

#include "grainscope/trace.h"
#include "record/emit.h"
#include "record/onthefly.h"
#include "record/registry.h"
#include "record/runtime.h"
#include "record/stream.h"

namespace grainscope::record {
namespace {

// Time of the calling location's last record (0: none yet): a two-slot message record when one
// ends the stream, else the last slot; at the start of a block, the previous block's (its records
// stay in memory: only the owner refills blocks, and it is filling this one).
uint64_t PreviousRecordTime(const ThreadStream& s) {
  const gst::Record* data = s.blocks[s.current].data;
  const gst::Record* cur = s.cur.load(std::memory_order_relaxed);
  if (cur == data) {
    if (s.analysis.slots_before == 0) return 0;
    const Block& prev = s.blocks[(s.current + s.block_count - 1) % s.block_count];
    if (prev.count == 0) return 0;
    data = prev.data;
    cur = prev.data + prev.count;
  }
  if (cur <= data) return 0;
  const gst::Record* last = cur == s.analysis.pair_end && cur - 2 >= data ? cur - 2 : cur - 1;
  return last->time;
}

}  // namespace

uint64_t CarriedSend(uint32_t name, uint64_t bytes, int32_t peer) {
  gst::Record* p = Reserve(3);
  if (p == nullptr) return 0;
  const uint64_t t = ReadClock();
  StoreMessageRecord(p, t, gst::kRecordSendBegin, name, bytes, peer, gst::kNoRegion);
  StoreRecord(p + 2, t, gst::PackKindId(gst::kRecordSendEnd, 0, name));
  Commit(p, 3);
  t_stream->analysis.non_events += 2;  // three slots, one kSend event
  return t;
}

CarriedTimes CarriedReceive(uint32_t name, uint64_t bytes, int32_t peer) {
  const uint64_t before = t_stream == &g_null_stream ? 0 : PreviousRecordTime(*t_stream);
  gst::Record* p = Reserve(3);
  if (p == nullptr) return {};
  const uint64_t t = ReadClock();
  StoreRecord(p, t, gst::PackKindId(gst::kRecordRecvBegin, 0, name));
  StoreMessageRecord(p + 1, t, gst::kRecordRecvEnd, name, bytes, peer, gst::kNoRegion);
  Commit(p, 3);
  LocationAnalysis& a = t_stream->analysis;
  a.non_events += 2;  // three slots, one kRecv event
  a.pair_end = p + 3;
  return {before != 0 ? before : t, t};
}

void CarriedLabel(uint32_t label) {
  const uint64_t before = t_stream == &g_null_stream ? 0 : PreviousRecordTime(*t_stream);
  gst::Record* p = Reserve(1);
  if (p == nullptr) return;
  // Stamped with the previous record's time, so that it is neither a later "last event" nor a
  // different "previous event" for the analyses above.
  StoreRecord(p, before != 0 ? before : ReadClock(), gst::PackKindId(gst::kRecordMarker, 0, label));
  Commit(p, 1);
  AnalysisSkipRecord(t_stream->analysis, p);
}

uint64_t MarkerTimed(uint32_t label) {
  gst::Record* p = Reserve(1);
  if (p == nullptr) return 0;
  const uint64_t t = ReadClock();
  StoreRecord(p, t, gst::PackKindId(gst::kRecordMarker, 0, label));
  Commit(p, 1);
  return t;
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

namespace {

uint64_t WriteAt(uint64_t kind_id, uint64_t time) {
  if (t_stream != &g_null_stream) time = std::max(time, PreviousRecordTime(*t_stream));
  gst::Record* p = Reserve(1);
  if (p == nullptr) return 0;
  StoreRecord(p, time, kind_id);
  Commit(p, 1);
  return time;
}

}  // namespace

uint64_t RegionBeginAt(gs_region* region, uint64_t time) {
  uint32_t id = __atomic_load_n(&region->id, __ATOMIC_ACQUIRE);
  if (id == 0) id = RegisterRegion(region);
  if (id == 0) return 0;
  return WriteAt(gst::PackKindId(gst::kRecordRegionBegin, 0, id), time);
}

uint64_t MarkerAt(uint32_t label, uint64_t time) { return WriteAt(gst::PackKindId(gst::kRecordMarker, 0, label), time); }

}  // namespace grainscope::record
