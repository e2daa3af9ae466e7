// The seed's timing routines (include/grainscope/seed_compat.h) on the recording runtime.
//
// Each routine records one event, and with GRAINSCOPE_SEED_TEXT also prints the seed's line. The
// text path writes each line with one stdio call, which locks stdout as the 1989 routines did;
// the recording path does not lock (structure names are interned through the lock-free table
// after their first use).
#include "grainscope/seed_compat.h"

#include <cstdio>
#include <cstring>
#include <string>

#include "record/clock.h"
#include "record/emit.h"
#include "record/emit_message.h"
#include "record/registry.h"
#include "record/runtime.h"

using namespace grainscope::record;
namespace gst = grainscope::gst;

namespace {

// The time field of a text line: integer milliseconds since initialize_clock() as in 1989, or
// with six decimals in precise mode.
void FormatTime(char* out, size_t size) {
  const int64_t origin = SeedTextOriginNs();  // first: the first line sets it
  const int64_t ns = MonotonicNs() - origin;
  if (g_options.seed_text == SeedText::kPrecise) {
    std::snprintf(out, size, "%lld.%06lld", static_cast<long long>(ns / 1'000'000),
                  static_cast<long long>(ns % 1'000'000));
  } else {
    std::snprintf(out, size, "%lld", static_cast<long long>(ns / 1'000'000));
  }
}

// " start \t1\t0\t\t290", the format of the seed's Table 3.1.
void PrintGrainLine(const char* keyword, int processor_id, int grain_id) {
  if (g_options.seed_text == SeedText::kOff) return;
  char time[32];
  FormatTime(time, sizeof time);
  std::printf(" %s \t%d\t%d\t\t%s\n", keyword, processor_id, grain_id, time);
}

// A structure name as the seed text reader reads it back (docs/formats/seedtext.md): the name is
// everything between the keyword and the last two fields, so inner spaces stay as they are; what
// a line cannot hold is escaped: "\\" "\t" "\n" "\r", other control bytes and a leading or
// trailing space as "\xHH", the empty name as `""` (and a name that is `""` as "\x22\x22").
std::string EscapedStructureName(const char* name) {
  const size_t n = std::strlen(name);
  if (n == 0) return "\"\"";
  if (std::strcmp(name, "\"\"") == 0) return "\\x22\\x22";
  std::string out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\t' || c == '\n' || c == '\r') {
      out += c == '\t' ? "\\t" : c == '\n' ? "\\n" : "\\r";
    } else if (c < 0x20 || c == 0x7f || (c == ' ' && (i == 0 || i + 1 == n))) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// " sendBegin superGlue06 0 290". One printf, so the line arrives whole between other threads'
// lines (stdio locks the stream for each call).
void PrintArcLine(const char* keyword, const char* structure_name, int grain_id) {
  if (g_options.seed_text == SeedText::kOff) return;
  char time[32];
  FormatTime(time, sizeof time);
  const std::string name = EscapedStructureName(structure_name != nullptr ? structure_name : "");
  std::printf(" %s %s %d %s\n", keyword, name.c_str(), grain_id, time);
}

uint32_t StructureId(const char* structure_name) {
  if (structure_name == nullptr) structure_name = "";
  return InternString(structure_name, std::strlen(structure_name));
}

bool Recording() {
  EnsureStarted();
  return g_state.load(std::memory_order_relaxed) == kRecording;
}

}  // namespace

extern "C" {

GS_EXPORT void initialize_clock(void) {
  SetSeedTextOrigin(MonotonicNs());
  if (!Recording()) return;
  Emit<ClockAt::kLast>(gst::kRecordOrigin, 0);
  // Not an event of the model. (Registration, if this was the thread's first record, happened
  // in Emit: the record then sits at the start of the fresh block.)
  if (t_stream != &g_null_stream) {
    const gst::Record* p = t_stream->cur.load(std::memory_order_relaxed) - 1;
    AnalysisSkipRecord(t_stream->analysis, p);
  }
}

GS_EXPORT void get_grain_start_time(int processor_id, int grain_id) {
  if (Recording()) {
    RecordProcessor(processor_id);
    if (uint32_t region = SeedGrainRegion(grain_id); region != 0) Emit<ClockAt::kLast>(gst::kRecordRegionBegin, region);
  }
  PrintGrainLine("start", processor_id, grain_id);
}

GS_EXPORT void get_grain_stop_time(int processor_id, int grain_id) {
  if (Recording()) {
    if (uint32_t region = SeedGrainRegion(grain_id); region != 0) Emit<ClockAt::kFirst>(gst::kRecordRegionEnd, region);
  }
  PrintGrainLine("stop", processor_id, grain_id);
}

GS_EXPORT void get_send_begin_time(int grain_id, const char* structure_name) {
  if (Recording()) {
    const uint32_t grain = SeedGrainRegion(grain_id);
    if (uint32_t name = StructureId(structure_name); name != 0)
      EmitSendBegin(name, 0, gst::kNoPeer, grain);
  }
  PrintArcLine("sendBegin", structure_name, grain_id);
}

GS_EXPORT void get_send_end_time(int grain_id, const char* structure_name) {
  if (Recording()) {
    if (uint32_t name = StructureId(structure_name); name != 0) Emit<ClockAt::kFirst>(gst::kRecordSendEnd, name);
  }
  PrintArcLine("sendEnd", structure_name, grain_id);
}

GS_EXPORT void get_recv_begin_time(int grain_id, const char* structure_name) {
  if (Recording()) {
    if (uint32_t name = StructureId(structure_name); name != 0) EmitRecvBegin(name);
  }
  PrintArcLine("recvBegin", structure_name, grain_id);
}

GS_EXPORT void get_recv_end_time(int grain_id, const char* structure_name) {
  if (Recording()) {
    const uint32_t grain = SeedGrainRegion(grain_id);
    if (uint32_t name = StructureId(structure_name); name != 0)
      EmitRecvEnd(name, 0, gst::kNoPeer, grain);
  }
  PrintArcLine("recvEnd", structure_name, grain_id);
}

}  // extern "C"
