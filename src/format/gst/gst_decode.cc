// The .gst reader's first half: each stream's event blocks in sequence order, their records
// decoded into events with every id checked against its definition, damage and gaps counted, and
// begins and ends checked to nest (gst_trace_builder.h).
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "base/progress.h"
#include "format/gst/gst_format.h"
#include "format/gst/gst_model_numbers.h"
#include "format/gst/gst_trace_builder.h"
#include "format/limits.h"

namespace grainscope::gst_reader {

// Orders the stream's blocks, decodes their records and checks that every id is defined.
Status GstTraceBuilder::Decode(Stream& s) {
  auto& blocks = s.chunks->blocks;
  std::stable_sort(blocks.begin(), blocks.end(),
                   [](const gst::EventBlock& a, const gst::EventBlock& b) { return a.sequence < b.sequence; });
  // At most one event per record: sized once instead of doubling through tens of millions.
  size_t records = 0;
  for (const gst::EventBlock& block : blocks) records += block.records.size() / sizeof(gst::Record);
  s.events.reserve(s.events.size() + records);
  for (size_t b = 0; b < blocks.size(); ++b) {
    if (b > 0 && blocks[b].sequence == blocks[b - 1].sequence) {
      return DataLoss(fmt::format("{}: byte {}: stream {} has two event blocks with sequence number {} (the "
                                  "other at byte {})", file_, blocks[b].chunk_offset, s.id, blocks[b].sequence,
                                  blocks[b - 1].chunk_offset));
    }
    const uint32_t expected = b == 0 ? 0 : blocks[b - 1].sequence + 1;
    if (blocks[b].sequence != expected || blocks[b].damaged) {
      EndStreamAt(s, b, expected);
      break;
    }
    GS_RETURN_IF_ERROR(DecodeBlock(s, static_cast<uint32_t>(b)));
    progress::Advance(blocks[b].chunk_offset);
  }
  return OkStatus();
}

// A stream's block `b` is damaged, or blocks before it are missing: the events after the gap
// cannot be trusted to nest with those before it, so the stream ends at its last intact block
// (what was open then is closed at its last event, see CheckNesting) and what follows is counted.
void GstTraceBuilder::EndStreamAt(Stream& s, size_t b, uint32_t expected) {
  auto& blocks = s.chunks->blocks;
  const gst::EventBlock& first = blocks[b];
  uint64_t records = 0;
  for (size_t k = b; k < blocks.size(); ++k) records += blocks[k].raw_size / sizeof(gst::Record);
  std::string why;
  if (first.sequence != expected) {
    missing_blocks_ += first.sequence - expected;
    why = first.sequence - expected > 1
              ? fmt::format("event blocks {} to {} of stream {} are missing", expected, first.sequence - 1, s.id)
              : fmt::format("event block {} of stream {} is missing", expected, s.id);
    if (first_missing_.empty()) first_missing_ = fmt::format("{}: {}", file_, why);
  } else {
    ++damaged_blocks_;
    why = fmt::format("event block {} of stream {} is damaged ({})", first.sequence, s.id, first.damage);
    if (first_damaged_block_.empty()) first_damaged_block_ = fmt::format("{}: {}", file_, why);
  }
  lost_blocks_ += blocks.size() - b;
  lost_records_ += records;
  if (first_lost_.empty()) {
    first_lost_ = fmt::format("{}: {}; {} block(s) of the stream from byte {} ({} records) are not analysed: the "
                              "stream ends at its last intact block before them", file_, why, blocks.size() - b,
                              first.chunk_offset, records);
  }
}

Status GstTraceBuilder::DecodeBlock(Stream& s, uint32_t b) {
  const gst::EventBlock& block = s.chunks->blocks[b];
  const size_t count = block.records.size() / sizeof(gst::Record);
  const unsigned char* base = block.records.data();
  uint32_t last_region = UINT32_MAX;  // regions repeat: look each up once per run of them
  for (size_t i = 0; i < count; ++i) {
    const auto r = gst::Load<gst::Record>(base + i * sizeof(gst::Record));
    Event e{0, r.kind, 0, r.id, 0, gst::kNoPeer, gst::kNoRegion, b, static_cast<uint32_t>(i)};
    if (r.extra >= count - i) {
      return ErrorAt(s, e, "record of kind {} claims {} continuation slots, only {} remain in its block", r.kind,
                     r.extra, count - i - 1);
    }
    const size_t first_extra = i + 1;
    i += r.extra;
    if (r.kind == 0 || r.kind > gst::kLastKnownRecordKind) {
      if (skipped_records_++ == 0)
        first_skipped_record_ = fmt::format("{}: {}: record of unknown kind {} skipped", file_, block.Where(e.index), r.kind);
      continue;
    }
    e.time = clock_.ToNs(r.time);
    if (e.time > limits::kMaxTimeNs || e.time < -limits::kMaxTimeNs) {
      return ErrorAt(s, e, "record time {} ns from the start of recording exceeds the limit kMaxTimeNs = {}", e.time,
                     limits::kMaxTimeNs);
    }
    if (!s.events.empty() && e.time < s.events.back().time) {
      if (backwards_++ == 0) {
        first_backwards_ = fmt::format("{}: {}: stream {}: time goes back by {} ns; clamped", file_,
                                       block.Where(e.index), s.id, s.events.back().time - e.time);
      }
      e.time = s.events.back().time;
    }
    const bool has_message_slot = r.kind == gst::kRecordSendBegin || r.kind == gst::kRecordRecvEnd;
    if (has_message_slot) {
      if (r.extra < 1) return ErrorAt(s, e, "{} record without its message slot", KindName(r.kind));
      const auto m = gst::Load<gst::MessageSlot>(base + first_extra * sizeof(gst::Record));
      e.bytes = m.bytes;
      e.peer = m.peer;
      e.grain = m.grain;
      if (e.grain != gst::kNoRegion && !chunks_.regions.count(e.grain))
        return ErrorAt(s, e, "message names grain region {}, which has no definition", e.grain);
    }
    if (r.kind == gst::kRecordSync) {
      if (r.extra < 1) return ErrorAt(s, e, "sync record without its sync slot");
      SyncKind kind;
      if (!gst::ModelSyncKind(r.reserved, &kind)) {  // a later version's kind of sync
        if (skipped_records_++ == 0)
          first_skipped_record_ = fmt::format("{}: {}: sync record of unknown kind {} skipped", file_, block.Where(e.index), r.reserved);
        continue;
      }
      e.bytes = gst::Load<gst::SyncSlot>(base + first_extra * sizeof(gst::Record)).object;  // the object
      e.peer = static_cast<int32_t>(kind);                                                   // the model's SyncKind
    }
    if (r.kind >= gst::kRecordMpiSend && r.kind <= gst::kRecordMpiCollective) {
      GS_RETURN_IF_ERROR(DecodeMpiSlots(s, e, r, base + first_extra * sizeof(gst::Record)));
    }
    if (r.kind == gst::kRecordGrainBegin || r.kind == gst::kRecordGrainEnd) {
      if (r.extra == 0) {  // packed: the site in `reserved`, the grain id in `id`
        e.id = r.reserved;
        e.grain_id = r.id;
      } else {
        e.grain_id = gst::Load<gst::GrainSlot>(base + first_extra * sizeof(gst::Record)).grain;
      }
    }
    switch (r.kind) {
      case gst::kRecordRegionBegin:
      case gst::kRecordRegionEnd:
        if (r.id == last_region) break;
        if (!chunks_.regions.count(r.id)) return ErrorAt(s, e, "{} of region {}, which has no definition", KindName(r.kind), r.id);
        last_region = r.id;
        break;
      case gst::kRecordGrainBegin:
      case gst::kRecordGrainEnd:
        if (!chunks_.regions.count(e.id))
          return ErrorAt(s, e, "{} of grain {} at site region {}, which has no definition", KindName(r.kind), e.grain_id, e.id);
        break;
      case gst::kRecordSendBegin:
      case gst::kRecordSendEnd:
      case gst::kRecordRecvBegin:
      case gst::kRecordRecvEnd:
      case gst::kRecordMarker:
        if (!chunks_.strings.count(r.id)) return ErrorAt(s, e, "{} names string {}, which has no definition", KindName(r.kind), r.id);
        break;
      case gst::kRecordMpiSend:
      case gst::kRecordMpiRecv:
      case gst::kRecordMpiCollective:
        if (!chunks_.strings.count(r.id))
          return ErrorAt(s, e, "{} names communicator string {}, which has no definition", KindName(r.kind), r.id);
        break;
      case gst::kRecordProcessor:
        s.processors.insert(static_cast<int32_t>(r.id));
        break;
      case gst::kRecordOrigin:
        if (!origin_ || e.time < *origin_) origin_ = e.time;
        break;
      default:
        break;
    }
    s.events.push_back(e);
  }
  return OkStatus();
}

// The continuation slots of an MPI message or collective record (`slots`: its first one) into `e`.
Status GstTraceBuilder::DecodeMpiSlots(const Stream& s, Event& e, const gst::Record& r, const unsigned char* slots) {
  if (r.kind == gst::kRecordMpiCollective) {
    if (r.extra < 2) return ErrorAt(s, e, "MPI collective record with {} of its 2 slots", r.extra);
    const auto sizes = gst::Load<gst::MpiCollSizes>(slots);
    const auto root = gst::Load<gst::MpiCollRoot>(slots + sizeof(gst::Record));
    e.sub = r.reserved <= gst::kLastMpiCollOp ? r.reserved : uint16_t{gst::kMpiOpOther};
    e.bytes = sizes.sent;
    e.grain_id = static_cast<int64_t>(sizes.received);
    e.peer = root.root;
    e.grain = root.slot;
    return OkStatus();
  }
  if (r.extra < 1) return ErrorAt(s, e, "{} record without its message slot", KindName(r.kind));
  const auto m = gst::Load<gst::MpiMessageSlot>(slots);
  e.bytes = m.bytes;
  e.peer = m.peer;
  e.grain_id = m.tag;
  return OkStatus();
}

// Time zero without an origin record: the program's first event (over all threads), not the
// first clock sample. The runtime samples the clock when it opens the trace, before its
// start-up work (clock choice, overhead calibration, the first thread's buffer), which took
// 2.5-20 ms and was counted as idle time of every processor: a serial program reported speedup
// 0.73. Processor and origin records are not events; a trace without events starts at 0.
std::optional<TimeNs> GstTraceBuilder::FirstEventTime() const {
  std::optional<TimeNs> first;
  for (const Stream& s : streams_) {
    for (const Event& e : s.events) {
      if (e.kind == gst::kRecordProcessor || e.kind == gst::kRecordOrigin) continue;
      if (!first || e.time < *first) first = e.time;
      break;  // a stream's times never decrease
    }
  }
  return first;
}

std::string_view GstTraceBuilder::KindName(uint8_t kind) {
  switch (kind) {
    case gst::kRecordRegionBegin: return "region begin";
    case gst::kRecordRegionEnd: return "region end";
    case gst::kRecordGrainBegin: return "grain begin";
    case gst::kRecordGrainEnd: return "grain end";
    case gst::kRecordSendBegin: return "send begin";
    case gst::kRecordSendEnd: return "send end";
    case gst::kRecordRecvBegin: return "receive begin";
    case gst::kRecordRecvEnd: return "receive end";
    case gst::kRecordMarker: return "marker";
    case gst::kRecordSync: return "sync";
    case gst::kRecordMpiSend: return "MPI send";
    case gst::kRecordMpiRecv: return "MPI receive";
    case gst::kRecordMpiCollective: return "MPI collective";
    case gst::kRecordMpiCollectiveEnd: return "MPI collective end";
    default: return "record";
  }
}

// "region 'merge'", "grain 'task' 17", "message 'result'": what a begin or end names.
std::string GstTraceBuilder::What(const Event& e) const {
  if (e.kind == gst::kRecordGrainBegin || e.kind == gst::kRecordGrainEnd)
    return fmt::format("grain '{}' {}", RegionName(e.id), e.grain_id);
  if (e.kind == gst::kRecordRegionBegin || e.kind == gst::kRecordRegionEnd) return fmt::format("region '{}'", RegionName(e.id));
  return fmt::format("message '{}'", StringText(e.id));
}

// Regions, sends and receives must nest on each stream. What is still open at the end of a
// stream (the run died inside it) is closed at the stream's last event, and counted. A region
// or grain begin is closed by the next end of the same region (site), of either kind: the end
// takes the begin's kind and grain id, and a grain end naming another id is counted.
Status GstTraceBuilder::CheckNesting(Stream& s) {
  std::vector<uint32_t> open;  // events
  for (uint32_t i = 0; i < s.events.size(); ++i) {
    Event& e = s.events[i];
    uint8_t opener = 0;
    switch (e.kind) {
      case gst::kRecordRegionBegin:
      case gst::kRecordGrainBegin:
      case gst::kRecordSendBegin:
      case gst::kRecordRecvBegin:
        open.push_back(i);
        continue;
      case gst::kRecordRegionEnd:
      case gst::kRecordGrainEnd: opener = gst::kRecordRegionBegin; break;
      case gst::kRecordSendEnd: opener = gst::kRecordSendBegin; break;
      case gst::kRecordRecvEnd: opener = gst::kRecordRecvBegin; break;
      default: continue;
    }
    if (open.empty())
      return ErrorAt(s, e, "{} of {} but nothing is open on this thread", KindName(e.kind), What(e));
    const Event& top = s.events[open.back()];
    const bool kind_matches = opener == gst::kRecordRegionBegin ? IsRegionBegin(top.kind) : top.kind == opener;
    if (!kind_matches || top.id != e.id) {
      return ErrorAt(s, e, "{} of {} but the innermost open one is the {} of {} at {}: begins and ends must nest",
                     KindName(e.kind), What(e), KindName(top.kind), What(top), s.chunks->blocks[top.block].Where(top.index));
    }
    if (opener == gst::kRecordRegionBegin) {
      if (e.kind == gst::kRecordGrainEnd && top.kind == gst::kRecordGrainBegin && e.grain_id != top.grain_id &&
          grain_end_mismatches_++ == 0) {
        first_grain_end_mismatch_ = fmt::format("{}: {} (stream {}): grain end of '{}' {} closes grain {} (begun at {}); "
                                                "the begin's id is kept", file_, s.chunks->blocks[e.block].Where(e.index),
                                                s.id, RegionName(e.id), e.grain_id, top.grain_id,
                                                s.chunks->blocks[top.block].Where(top.index));
      }
      e.kind = top.kind == gst::kRecordGrainBegin ? gst::kRecordGrainEnd : gst::kRecordRegionEnd;
      e.grain_id = top.grain_id;
    }
    if (e.kind == gst::kRecordSendEnd) s.events[open.back()].end_time = e.time;
    open.pop_back();
  }
  CloseUnended(s, open);
  return OkStatus();
}

// What is still open at the end of a stream (the run died inside it) is closed at the stream's
// last event, and counted.
void GstTraceBuilder::CloseUnended(Stream& s, std::vector<uint32_t>& open) {
  const TimeNs last = s.events.empty() ? 0 : s.events.back().time;
  while (!open.empty()) {
    const uint32_t o = open.back();
    open.pop_back();
    const Event begin = s.events[o];
    if (unclosed_++ == 0) {
      first_unclosed_ = fmt::format("{}: {}: stream {}: the {} of {} is never ended (the run stopped inside it); "
                                    "closed at the stream's last event", file_, s.chunks->blocks[begin.block].Where(begin.index),
                                    s.id, KindName(begin.kind), What(begin));
    }
    Event end{last, 0, 0, begin.id, 0, gst::kNoPeer, gst::kNoRegion, 0, 0};
    end.grain_id = begin.grain_id;
    if (begin.kind == gst::kRecordRegionBegin) end.kind = gst::kRecordRegionEnd;
    if (begin.kind == gst::kRecordGrainBegin) end.kind = gst::kRecordGrainEnd;
    if (begin.kind == gst::kRecordSendBegin) {
      end.kind = gst::kRecordSendEnd;
      s.events[o].end_time = last;
    }
    if (begin.kind == gst::kRecordRecvBegin) end.kind = kSyntheticRecvClose;
    s.events.push_back(end);
  }
}

}  // namespace grainscope::gst_reader
