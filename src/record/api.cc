// The public C API (include/grainscope/trace.h). Every entry point is a thin wrapper around the
// inline hot path in emit.h; the slow paths (registration, a full block, lazy start) live in the
// other files of this folder.
#include "grainscope/trace.h"

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

GS_EXPORT void gs_send_begin(uint32_t message, uint64_t bytes, int32_t peer) {
  EmitSendBegin(message, bytes, peer, gst::kNoRegion);
}

GS_EXPORT void gs_send_end(uint32_t message) { Emit<ClockAt::kFirst>(gst::kRecordSendEnd, message); }

GS_EXPORT void gs_recv_begin(uint32_t message) { EmitRecvBegin(message); }

GS_EXPORT void gs_recv_end(uint32_t message, uint64_t bytes, int32_t peer) {
  EmitRecvEnd(message, bytes, peer, gst::kNoRegion);
}

GS_EXPORT void gs_marker(uint32_t label) { Emit<ClockAt::kFirst>(gst::kRecordMarker, label); }

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
