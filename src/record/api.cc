// The public C API (include/grainscope/trace.h). Every entry point is a thin wrapper around the
// inline hot path in emit.h; the slow paths (registration, a full block, lazy start) live in the
// other files of this folder.
#include "grainscope/trace.h"

#include <atomic>
#include <cstring>

#include "record/emit.h"
#include "record/emit_message.h"
#include "record/registry.h"
#include "record/runtime.h"
#include "record/stream.h"

using namespace grainscope::record;
namespace gst = grainscope::gst;

namespace {

// A region's first event: registers it, then records the event. Out of line, so that the entry
// points below stay leaf functions on the fast path (record/emit.h).
template <ClockAt kAt>
GS_NOINLINE void RegisterAndEmit(gs_region* region, uint8_t kind) {
  const uint32_t id = RegisterRegion(region);
  if (id != 0) Emit<kAt>(kind, id);
}

// A grain record with its id that is not one packed slot: the site's first event (registers
// it), a site beyond the first 65535 regions, or an id outside 0 .. 2^32-1 (then the record
// carries a GrainSlot). Out of line, as above.
template <ClockAt kAt>
GS_NOINLINE void EmitGrainSlow(gs_region* site, uint8_t kind, int64_t grain_id) {
  uint32_t id = __atomic_load_n(&site->id, __ATOMIC_ACQUIRE);
  if (id == 0 && (id = RegisterRegion(site)) == 0) return;
  if (gst::FitsPackedGrain(id, grain_id)) return EmitRecord<kAt>(gst::PackGrain(kind, id, grain_id));
  uint64_t t = 0;
  if constexpr (kAt == ClockAt::kFirst) t = ReadClock();
  gst::Record* p = Reserve(2);
  if (GS_UNLIKELY(p == nullptr)) return;
  if constexpr (kAt == ClockAt::kLast) t = ReadClock();
  StoreRecord(p, t, gst::PackKindId(kind, 1, id));
  const gst::GrainSlot slot{grain_id, 0};
  std::memcpy(static_cast<void*>(p + 1), &slot, sizeof slot);
  Commit(p, 2);
  // One event in two slots: the on-the-fly analyses count events by slots (record/onthefly.h).
  LocationAnalysis& a = t_stream->analysis;
  ++a.non_events;
  AnalysisWideRecord(a, p, 2);
}

template <ClockAt kAt>
GS_ALWAYS_INLINE void EmitGrain(gs_region* site, uint8_t kind, int64_t grain_id) {
  const uint32_t id = __atomic_load_n(&site->id, __ATOMIC_ACQUIRE);
  if (GS_LIKELY(id != 0 && gst::FitsPackedGrain(id, grain_id))) return EmitRecord<kAt>(gst::PackGrain(kind, id, grain_id));
  EmitGrainSlow<kAt>(site, kind, grain_id);
}

// A sync record (gst::kRecordSync and its SyncSlot): one event in two slots, as EmitGrainSlow's.
// `kind` is a gst::SyncRecordKind.
template <ClockAt kAt>
GS_ALWAYS_INLINE void EmitSync(uint16_t kind, uint64_t object, uint32_t arg = 0) {
  uint64_t t = 0;
  if constexpr (kAt == ClockAt::kFirst) t = ReadClock();
  gst::Record* p = Reserve(2);
  if (GS_UNLIKELY(p == nullptr)) return;
  if constexpr (kAt == ClockAt::kLast) t = ReadClock();
  StoreRecord(p, t, gst::PackSync(kind, arg));
  const gst::SyncSlot slot{object, 0};
  std::memcpy(static_cast<void*>(p + 1), &slot, sizeof slot);
  Commit(p, 2);
  LocationAnalysis& a = t_stream->analysis;
  ++a.non_events;
  AnalysisWideRecord(a, p, 2);
}

uint64_t Object(const void* p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); }

// Thread ids gs_thread_create hands out: unique in the process, so in its trace.
std::atomic<uint64_t> g_next_thread_id{1};

}  // namespace

extern "C" {

GS_EXPORT void gs_region_begin(gs_region* region) {
  const uint32_t id = __atomic_load_n(&region->id, __ATOMIC_ACQUIRE);
  if (GS_UNLIKELY(id == 0)) return RegisterAndEmit<ClockAt::kLast>(region, gst::kRecordRegionBegin);
  Emit<ClockAt::kLast>(gst::kRecordRegionBegin, id);
}

GS_EXPORT void gs_region_end(gs_region* region) {
  const uint32_t id = __atomic_load_n(&region->id, __ATOMIC_ACQUIRE);
  if (GS_UNLIKELY(id == 0)) return RegisterAndEmit<ClockAt::kFirst>(region, gst::kRecordRegionEnd);
  Emit<ClockAt::kFirst>(gst::kRecordRegionEnd, id);
}

GS_EXPORT void gs_grain_begin_id(gs_region* site, int64_t grain_id) {
  EmitGrain<ClockAt::kLast>(site, gst::kRecordGrainBegin, grain_id);
}

GS_EXPORT void gs_grain_end_id(gs_region* site, int64_t grain_id) {
  EmitGrain<ClockAt::kFirst>(site, gst::kRecordGrainEnd, grain_id);
}

GS_EXPORT void gs_send_begin(uint32_t message, uint64_t bytes, int32_t peer) {
  EmitSendBegin(message, bytes, peer, gst::kNoRegion);
}

GS_EXPORT void gs_send_end(uint32_t message) { Emit<ClockAt::kFirst>(gst::kRecordSendEnd, message); }

GS_EXPORT void gs_recv_begin(uint32_t message) { EmitRecvBegin(message); }

GS_EXPORT void gs_recv_end(uint32_t message, uint64_t bytes, int32_t peer) {
  EmitRecvEnd(message, bytes, peer, gst::kNoRegion);
}

GS_EXPORT void gs_marker(uint32_t label) { Emit<ClockAt::kFirst>(gst::kRecordMarker, label); }

// Sync events (the format's SyncRecordKind numbers, gst_format.h). Waiting-type events read the
// clock as late as possible at their begin and as early as possible at their end, as regions do.
GS_EXPORT void gs_lock_request(const void* lock) { EmitSync<ClockAt::kLast>(gst::kSyncLockRequest, Object(lock)); }
GS_EXPORT void gs_lock_acquired(const void* lock) { EmitSync<ClockAt::kFirst>(gst::kSyncLockAcquired, Object(lock)); }
GS_EXPORT void gs_lock_release(const void* lock) { EmitSync<ClockAt::kLast>(gst::kSyncLockRelease, Object(lock)); }
GS_EXPORT void gs_barrier_enter(const void* barrier, uint32_t participants) {
  EmitSync<ClockAt::kLast>(gst::kSyncBarrierEnter, Object(barrier), participants);
}
GS_EXPORT void gs_barrier_leave(const void* barrier) { EmitSync<ClockAt::kFirst>(gst::kSyncBarrierLeave, Object(barrier)); }
GS_EXPORT void gs_cond_wait_begin(const void* cond) { EmitSync<ClockAt::kLast>(gst::kSyncCondWaitBegin, Object(cond)); }
GS_EXPORT void gs_cond_wait_end(const void* cond) { EmitSync<ClockAt::kFirst>(gst::kSyncCondWaitEnd, Object(cond)); }
GS_EXPORT void gs_cond_signal(const void* cond) { EmitSync<ClockAt::kLast>(gst::kSyncCondSignal, Object(cond)); }
GS_EXPORT void gs_cond_broadcast(const void* cond) { EmitSync<ClockAt::kLast>(gst::kSyncCondBroadcast, Object(cond)); }
GS_EXPORT uint64_t gs_thread_create(void) {
  const uint64_t id = g_next_thread_id.fetch_add(1, std::memory_order_relaxed);
  EmitSync<ClockAt::kLast>(gst::kSyncThreadCreate, id);
  return id;
}
GS_EXPORT void gs_thread_create_id(uint64_t thread) { EmitSync<ClockAt::kLast>(gst::kSyncThreadCreate, thread); }
GS_EXPORT void gs_thread_begin(uint64_t thread) { EmitSync<ClockAt::kFirst>(gst::kSyncThreadBegin, thread); }
GS_EXPORT void gs_thread_end(uint64_t thread) { EmitSync<ClockAt::kLast>(gst::kSyncThreadEnd, thread); }
GS_EXPORT void gs_thread_join_begin(uint64_t thread) { EmitSync<ClockAt::kLast>(gst::kSyncThreadJoinBegin, thread); }
GS_EXPORT void gs_thread_join_end(uint64_t thread) { EmitSync<ClockAt::kFirst>(gst::kSyncThreadJoinEnd, thread); }
GS_EXPORT void gs_task_create(uint64_t task) { EmitSync<ClockAt::kLast>(gst::kSyncTaskCreate, task); }
GS_EXPORT void gs_task_begin(uint64_t task) { EmitSync<ClockAt::kFirst>(gst::kSyncTaskBegin, task); }
GS_EXPORT void gs_task_end(uint64_t task) { EmitSync<ClockAt::kFirst>(gst::kSyncTaskEnd, task); }

GS_EXPORT uint32_t gs_intern(const char* text) {
  if (text == nullptr) text = "";
  return InternString(text, std::strlen(text));
}

GS_EXPORT uint32_t gs_name_register(gs_name* name) {
  uint32_t id = __atomic_load_n(&name->id, __ATOMIC_ACQUIRE);
  if (id != 0) return id;
  id = gs_intern(name->text);
  if (id != 0) __atomic_store_n(&name->id, id, __ATOMIC_RELEASE);  // same text, same id: races are benign
  return id;
}

GS_EXPORT void gs_thread_name(const char* name) {
  if (name == nullptr) return;
  // Make sure the thread has a stream (registering it records nothing by itself).
  if (t_stream == &g_null_stream && AcquireSlow(1) == nullptr) return;
  if (g_state.load(std::memory_order_acquire) != kRecording) return;
  LockDefinitions();
  WriteLocationDef(*t_stream, name);
  UnlockDefinitions();
}

GS_EXPORT void gs_thread_processor(int32_t processor_id) { RecordProcessor(processor_id); }

GS_EXPORT int gs_trace_open(const char* path) {
  Options o = OptionsFromEnvironment();
  if (path != nullptr) o.path = path;
  // GRAINSCOPE_ENABLE=0 still wins: scripts rely on it to switch recording off.
  return Open(o) ? 0 : -1;
}

GS_EXPORT void gs_trace_close(void) { Close(); }

GS_EXPORT int gs_trace_enabled(void) {
  EnsureStarted();
  return g_state.load(std::memory_order_acquire) == kRecording ? 1 : 0;
}

}  // extern "C"
