// Message events with the on-the-fly analyses (record/onthefly.h): the record is stored as on the
// ordinary path, then the sender's state is posted to the message name's mailbox, or the
// receiver's state is updated from it. Only message events pay for this; region events use
// emit.h alone.
#pragma once

#include "record/emit.h"
#include "record/mailbox.h"
#include "record/onthefly.h"

namespace grainscope::record {

// Stores a two-slot message record; returns its time, or 0 when nothing was recorded.
template <ClockAt kAt>
GS_ALWAYS_INLINE uint64_t EmitMessageTimed(uint8_t kind, uint32_t name, uint64_t bytes, int32_t peer,
                                           uint32_t grain) {
  uint64_t t = 0;
  if constexpr (kAt == ClockAt::kFirst) t = ReadClock();
  gst::Record* p = Reserve(2);
  if (GS_UNLIKELY(p == nullptr)) return 0;
  if constexpr (kAt == ClockAt::kLast) t = ReadClock();
  StoreMessageRecord(p, t, kind, name, bytes, peer, grain);
  Commit(p, 2);
  LocationAnalysis& a = t_stream->analysis;
  AnalysisWideRecord(a, p, 2);
  ++a.zero_segments;  // the reader makes two events of it at one time
  return t;
}

inline void EmitSendBegin(uint32_t name, uint64_t bytes, int32_t peer, uint32_t grain) {
  const uint64_t t = EmitMessageTimed<ClockAt::kLast>(gst::kRecordSendBegin, name, bytes, peer, grain);
  if (t != 0) MailboxPost(name, PiggybackForSend(t));
}

inline void EmitRecvBegin(uint32_t name) {
  uint64_t t = 0;
  gst::Record* p = Reserve(1);
  if (GS_UNLIKELY(p == nullptr)) return;
  t = ReadClock();
  StoreRecord(p, t, gst::PackKindId(gst::kRecordRecvBegin, 0, name));
  Commit(p, 1);
  NoteReceiveBegin(t);
}

inline void EmitRecvEnd(uint32_t name, uint64_t bytes, int32_t peer, uint32_t grain) {
  const uint64_t t = EmitMessageTimed<ClockAt::kFirst>(gst::kRecordRecvEnd, name, bytes, peer, grain);
  if (t == 0) return;
  Piggyback m;
  const bool found = MailboxTake(name, &m);
  ApplyReceivedPiggyback(found ? &m : nullptr, t);
}

}  // namespace grainscope::record
