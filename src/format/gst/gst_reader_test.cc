#include "format/gst/gst_reader.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <zstd.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "format/gst/gst_block_codec.h"
#include "format/gst/gst_format.h"
#include "format/gst/gst_test_image.h"

namespace grainscope {
namespace {

using gst_test::Bytes;
using gst_test::GstImage;
using gst_test::R;
using gst_test::Slot;

// Two threads: thread 0 runs grain 1 and sends "x" (64 bytes); thread 1 receives it inside grain 2.
GstImage TwoThreads(uint32_t coding = 0) {
  GstImage g;
  g.Clock();
  g.Region(1, "producer", gst::kRoleGrain, 1);
  g.Region(2, "consumer", gst::kRoleGrain, 2);
  g.String(1, "x");
  g.Block(0, 0, {R(1100, gst::kRecordRegionBegin, 1), R(1200, gst::kRecordRegionEnd, 1),
                 R(1210, gst::kRecordSendBegin, 1, 1), Slot(64, 1, 1), R(1220, gst::kRecordSendEnd, 1)}, coding);
  g.Block(1, 0, {R(1050, gst::kRecordRegionBegin, 2), R(1060, gst::kRecordRecvBegin, 1),
                 R(1230, gst::kRecordRecvEnd, 1, 1), Slot(64, 0, 0), R(1300, gst::kRecordRegionEnd, 2)}, coding);
  g.End();
  return g;
}

Result<Trace> Read(const Bytes& b) { return ReadGst(b, "t.gst"); }

// The first message of the diagnostic `name`, or "" when there is none.
std::string Example(const Trace& t, std::string_view name) {
  for (const auto& d : t.diagnostics().entries())
    if (d.name == name) return d.example;
  return "";
}

std::string ErrorOf(const Bytes& b) {
  Result<Trace> r = Read(b);
  return r.ok() ? std::string("(no error)") : r.status().message();
}

TEST(GstReader, ReadsTwoThreadsWithAMessage) {
  for (uint32_t coding : {0u, uint32_t{gst::kChunkZstd}, uint32_t{gst::kChunkDelta}, uint32_t{gst::kChunkCoded}}) {
    SCOPED_TRACE(coding);
    GstImage g = TwoThreads(coding);
    Result<Trace> r = Read(g.bytes());
    ASSERT_TRUE(r.ok()) << r.status().message();
    const Trace& t = *r;
    EXPECT_EQ(t.format(), "gst");
    ASSERT_EQ(t.locations().size(), 2u);
    EXPECT_EQ(t.str(t.location(LocationId(0)).name), "thread 0");
    const EventColumns& e0 = t.events(LocationId(0));
    ASSERT_EQ(e0.size(), 5u);  // enter, leave, enter(send), send, leave(send)
    EXPECT_EQ(e0.kind[2], EventKind::kEnter);
    EXPECT_EQ(e0.kind[3], EventKind::kSend);
    EXPECT_EQ(e0.time[0], 100);  // ns since the first clock sample
    const EventColumns& e1 = t.events(LocationId(1));
    ASSERT_EQ(e1.size(), 5u);  // enter grain, enter(recv), recv, leave(recv), leave grain
    EXPECT_EQ(e1.kind[2], EventKind::kRecv);
    EXPECT_EQ(e1.kind[3], EventKind::kLeave);
    ASSERT_EQ(t.messages().size(), 1u);
    EXPECT_TRUE(t.messages().matched(MessageId(0)));
    EXPECT_EQ(t.messages().bytes[0], 64u);
    EXPECT_EQ(t.str(t.messages().name[0]), "x");
    EXPECT_EQ(t.region(t.messages().send_grain[0]).external_id, 1);
    EXPECT_EQ(t.Metadata("dropped_events"), "0");
    EXPECT_EQ(t.Metadata("end"), "exit");
    EXPECT_TRUE(t.diagnostics().empty());
  }
}

TEST(GstReader, TscTimesUseTheFitBetweenFirstAndLastSample) {
  GstImage g;
  g.Clock(gst::kClockTsc, 1'000'000, 5'000'000, 3.0);     // 3 ticks per ns nominally
  g.Region(1, "r", gst::kRoleFunction);
  g.Block(0, 0, {R(1'000'000 + 3'000, gst::kRecordRegionBegin, 1), R(1'000'000 + 6'000'000, gst::kRecordRegionEnd, 1)});
  g.Clock(gst::kClockTsc, 1'000'000 + 7'000'000, 5'000'000 + 2'000'000, 3.0);  // measured: 3.5 ticks/ns
  g.End();
  Result<Trace> r = Read(g.bytes());
  ASSERT_TRUE(r.ok()) << r.status().message();
  const EventColumns& e = r->events(LocationId(0));
  EXPECT_EQ(e.time[0], 857);  // 3000 / 3.5
  EXPECT_EQ(e.time[1], 1'714'285);
}

TEST(GstReader, RejectsWhatIsNotAGstFile) {
  EXPECT_EQ(ErrorOf(Bytes{'h', 'e', 'l', 'l', 'o', '\n'}), "t.gst: not a .gst trace (no .gst magic number at byte 0)");
  Bytes header = TwoThreads().bytes();
  header.resize(20);
  EXPECT_EQ(ErrorOf(header), "t.gst: byte 20: file ends inside the 32-byte .gst header (the file is 20 bytes long)");
  Bytes v3 = TwoThreads().bytes();
  v3[8] = 3;
  v3[10] = 0;  // version_minor
  EXPECT_EQ(ErrorOf(v3), "t.gst: byte 8: format version 3.0 is not supported (this reader reads versions 1.x to 2.x)");
}

TEST(GstReader, TruncatedChunkIsAWarningNamingOffsetAndSizes) {
  Bytes b = TwoThreads().bytes();
  b.resize(b.size() - 10);  // into the end chunk's payload
  Result<Trace> r = Read(b);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->diagnostics().Count(Diag::kFileTruncated), 1u);
  const std::string w = Example(*r, "file_truncated");
  EXPECT_NE(w.find("the file ends inside this end of trace chunk: it needs 24 payload bytes, only 14 remain"),
            std::string::npos) << w;
  EXPECT_EQ(w.rfind("t.gst: byte ", 0), 0u) << w;
  EXPECT_EQ(r->Metadata("end"), "missing");
  EXPECT_EQ(r->events(LocationId(0)).size(), 5u);  // every event is before the cut
}

// Issue 33: a cut inside an event block says whose events it held: the location by its name, or
// its stream when the location's definition is lost with the rest of the file.
TEST(GstReader, ATruncatedEventBlockNamesItsLocation) {
  GstImage g;  // one thread, two blocks: a cut in the second leaves the first's events
  g.Clock();
  g.Region(1, "work", gst::kRoleGrain, 1);
  g.Block(0, 0, {R(1100, gst::kRecordRegionBegin, 1), R(1200, gst::kRecordRegionEnd, 1)});
  g.Block(0, 1, {R(1300, gst::kRecordRegionBegin, 1), R(1400, gst::kRecordRegionEnd, 1)});
  g.End();
  const Bytes full = g.bytes();
  size_t named = 0;
  for (size_t n = full.size(); n-- > sizeof(gst::FileHeader);) {
    Result<Trace> r = Read(Bytes(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n)));
    if (!r.ok() || r->diagnostics().Count(Diag::kFileTruncated) == 0) continue;
    const std::string w = Example(*r, "file_truncated");
    if (w.find("event block chunk") == std::string::npos) continue;
    EXPECT_NE(w.find("; it held "), std::string::npos) << w;
    named += w.find("of location '") != std::string::npos;
  }
  EXPECT_GT(named, 0u) << "no cut inside an event block named its location";
}

TEST(GstReader, EveryTruncationIsAnErrorOrAnUnfinishedTrace) {
  for (bool zstd : {false, true}) {
    const Bytes full = TwoThreads(zstd).bytes();
    for (size_t n = 0; n < full.size(); ++n) {
      Bytes cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
      Result<Trace> r = Read(cut);
      if (r.ok()) {
        // A prefix: readable, and it says it is incomplete.
        EXPECT_EQ(r->Metadata("end"), "missing") << n;
        EXPECT_EQ(r->diagnostics().Count(Diag::kTraceNotFinished), 1u) << n;
      } else {
        EXPECT_NE(r.status().message().find("t.gst"), std::string::npos) << r.status().message();
      }
    }
  }
}

// Version 1 files (24-byte chunk headers, no checksums) are still read.
TEST(GstReader, ReadsVersion1Files) {
  const Bytes v2 = TwoThreads().bytes();
  Bytes v1(v2.begin(), v2.begin() + sizeof(gst::FileHeader));
  v1[8] = 1;
  v1[10] = 0;  // version_minor
  for (size_t at = sizeof(gst::FileHeader); at < v2.size();) {
    const auto h = gst::Load<gst::ChunkHeader>(v2.data() + at);
    v1.insert(v1.end(), v2.begin() + static_cast<std::ptrdiff_t>(at),
              v2.begin() + static_cast<std::ptrdiff_t>(at + gst::kChunkHeaderSizeV1));
    v1.insert(v1.end(), v2.begin() + static_cast<std::ptrdiff_t>(at + sizeof h),
              v2.begin() + static_cast<std::ptrdiff_t>(at + sizeof h + h.stored_size));
    at += sizeof h + h.stored_size;
  }
  Result<Trace> r = Read(v1);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->Metadata("gst_version"), "1.0");
  EXPECT_EQ(r->messages().size(), 1u);
  EXPECT_TRUE(r->diagnostics().empty());
}

TEST(GstReader, Crc32cKnownAnswer) {
  EXPECT_EQ(gst::Crc32c("123456789", 9), 0xE3069283u);
  EXPECT_EQ(gst::Crc32c("", 0), 0u);
  std::string long_text(1000, 'x');
  EXPECT_EQ(gst::Crc32c(long_text.data(), long_text.size()),
            ~gst::crc32c_detail::Portable(~0u, reinterpret_cast<const unsigned char*>(long_text.data()), long_text.size()));
}

// Two blocks of one stream; the second one's payload has a flipped bit.
TEST(GstReader, FlippedBitInABlockEndsItsStreamWithAWarning) {
  GstImage g;
  g.Clock();
  g.Region(1, "a", gst::kRoleFunction);
  g.Block(0, 0, {R(1100, gst::kRecordRegionBegin, 1), R(1150, gst::kRecordRegionBegin, 1)});
  g.Block(0, 1, {R(1200, gst::kRecordRegionEnd, 1), R(1300, gst::kRecordRegionEnd, 1)});
  const size_t damaged = g.last_chunk();
  g.Block(1, 0, {R(1100, gst::kRecordRegionBegin, 1), R(1400, gst::kRecordRegionEnd, 1)});
  g.End();
  Bytes b = g.bytes();
  b[damaged + sizeof(gst::ChunkHeader) + 3] ^= 0x10;
  Result<Trace> r = Read(b);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->diagnostics().Count(Diag::kDamagedBlocks), 1u);
  EXPECT_EQ(r->diagnostics().Count(Diag::kRecordsNotAnalysed), 2u);
  EXPECT_EQ(r->diagnostics().Count(Diag::kUnclosedRegions), 2u);
  std::string all;
  for (const auto& d : r->diagnostics().entries()) all += d.example + "\n";
  EXPECT_NE(all.find(fmt::format("event block 1 of stream 0 is damaged (byte {}: event block chunk payload fails its "
                                 "checksum", damaged)), std::string::npos) << all;
  EXPECT_EQ(r->events(LocationId(0)).size(), 4u);  // two begins, two ends added at the last event
  EXPECT_EQ(r->events(LocationId(1)).size(), 2u);  // the other stream is whole
}

TEST(GstReader, FlippedBitInADefinitionIsAnError) {
  GstImage g;
  g.Clock();
  g.Region(1, "a", gst::kRoleFunction);
  const size_t def = g.last_chunk();
  g.End();
  Bytes b = g.bytes();
  b[def + sizeof(gst::ChunkHeader) + sizeof(gst::RegionDef)] ^= 0x01;  // the name
  const std::string e = ErrorOf(b);
  EXPECT_NE(e.find(fmt::format("t.gst: byte {}: region definition chunk payload fails its checksum", def)),
            std::string::npos) << e;
}

TEST(GstReader, FlippedBitInAChunkHeaderSkipsToTheNextIntactChunk) {
  GstImage g = TwoThreads();
  Bytes b = g.bytes();
  const size_t end = g.last_chunk();
  b[end + 8] ^= 0x80;  // the end chunk's stored size
  Result<Trace> r = Read(b);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->diagnostics().Count(Diag::kDamagedChunks), 1u);
  EXPECT_EQ(r->Metadata("end"), "missing");
  EXPECT_EQ(Example(*r, "damaged_chunks"),
            fmt::format("t.gst: byte {}: chunk header fails its checksum (the file is damaged); {} bytes skipped to "
                        "the end of the file", end, b.size() - end));
}

TEST(GstReader, RandomCorruptionNeverCrashes) {
  std::mt19937 rng(42);
  const Bytes full = TwoThreads(gst::kChunkZstd).bytes();
  for (int trial = 0; trial < 2000; ++trial) {
    Bytes b = full;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) b[rng() % b.size()] ^= static_cast<unsigned char>(1u << (rng() % 8));
    (void)Read(b);  // any outcome but a crash or a sanitizer report
  }
}

// A chunk whose space was reserved but never written (the writer was killed) leaves zeros in the
// middle of the file: the reader skips them and reads on from the next intact chunk.
TEST(GstReader, ZeroFilledChunkIsSkipped) {
  GstImage g;
  g.Clock();
  g.Region(1, "a", gst::kRoleFunction);
  g.Block(0, 0, {R(1100, gst::kRecordRegionBegin, 1)});
  const size_t hole = g.bytes().size();
  g.bytes().resize(hole + 100, 0);
  g.Block(0, 1, {R(1200, gst::kRecordRegionEnd, 1)});
  Result<Trace> r = Read(g.bytes());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->diagnostics().Count(Diag::kDamagedChunks), 1u);
  EXPECT_EQ(Example(*r, "damaged_chunks"),
            fmt::format("t.gst: byte {}: zero-filled chunk header (a write the recording process never finished); "
                        "100 bytes skipped to the next intact chunk at byte {}", hole, hole + 100));
  EXPECT_EQ(r->events(LocationId(0)).size(), 2u);
}

TEST(GstReader, RecordWhoseContinuationLeavesItsBlock) {
  GstImage g;
  g.Clock();
  g.String(1, "x");
  g.Block(0, 0, {R(1100, gst::kRecordSendBegin, 1, 1)});
  const std::string e = ErrorOf(g.bytes());
  EXPECT_NE(e.find("record of kind 3 claims 1 continuation slots, only 0 remain in its block"), std::string::npos) << e;
  EXPECT_NE(e.find("(stream 0)"), std::string::npos) << e;
}

TEST(GstReader, BlockThatIsNotWholeRecords) {
  GstImage g;
  g.Clock();
  g.Chunk(gst::kChunkEventBlock, Bytes(20, 1));
  EXPECT_NE(ErrorOf(g.bytes()).find("event block of 20 bytes is not a whole number of 16-byte records"), std::string::npos);
}

TEST(GstReader, UndefinedRegionIsAnErrorWithItsOffset) {
  GstImage g;
  g.Clock();
  g.Block(0, 0, {R(1100, gst::kRecordRegionBegin, 7)});
  // Header 32 + clock chunk (32 + 32) + block header 32 = record at byte 128.
  EXPECT_EQ(ErrorOf(g.bytes()), "t.gst: byte 128 (stream 0): region begin of region 7, which has no definition");
}

TEST(GstReader, EndsMustNestWithTheirBegins) {
  GstImage g;
  g.Clock();
  g.Region(1, "a", gst::kRoleFunction);
  g.Region(2, "b", gst::kRoleFunction);
  g.Block(0, 0, {R(1100, gst::kRecordRegionBegin, 1), R(1110, gst::kRecordRegionBegin, 2), R(1120, gst::kRecordRegionEnd, 1)});
  const std::string e = ErrorOf(g.bytes());
  EXPECT_NE(e.find("region end of region 'a' but the innermost open one is the region begin of region 'b'"),
            std::string::npos) << e;
}

TEST(GstReader, UnknownRecordKindsAndChunksAreSkippedAndCounted) {
  GstImage g;
  g.Clock();
  g.Region(1, "a", gst::kRoleFunction);
  g.Chunk(99, Bytes{1, 2, 3});
  g.Block(0, 0, {R(1100, gst::kRecordRegionBegin, 1), R(1105, 200, 0, 2), R(0, 0, 0), R(0, 0, 0),
                 R(1120, gst::kRecordRegionEnd, 1)});
  g.End();
  Result<Trace> r = Read(g.bytes());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->events(LocationId(0)).size(), 2u);
  EXPECT_EQ(r->diagnostics().Count(Diag::kSkippedRecords), 1u);
  EXPECT_EQ(r->diagnostics().Count(Diag::kSkippedChunks), 1u);
}

TEST(GstReader, CorruptZstdBlock) {
  GstImage g;
  g.Clock();
  g.Chunk(gst::kChunkEventBlock, Bytes(40, 7), 0, 0, gst::kChunkZstd, 32);
  const std::string e = ErrorOf(g.bytes());
  EXPECT_NE(e.find("zstd frame of an event block: expected 32 decompressed bytes, the frame says it is not a zstd frame"),
            std::string::npos) << e;
}

TEST(GstReader, CorruptDeltaBlock) {
  GstImage g;
  g.Clock();
  g.Region(1, "r");
  Bytes coded(gst::DeltaBlockBound(2));
  const std::vector<gst::Record> records = {R(1100, gst::kRecordRegionBegin, 1), R(1200, gst::kRecordRegionEnd, 1)};
  coded.resize(gst::EncodeDeltaBlock(records.data(), records.size(), coded.data()));
  coded.resize(coded.size() - 3);  // the second record's key cut short
  g.Chunk(gst::kChunkEventBlock, coded, 0, 0, gst::kChunkDelta, 32);
  const std::string e = ErrorOf(g.bytes());
  EXPECT_NE(e.find("corrupt delta-coded event block: record 1 at byte 12: needs 12 bytes, 9 remain"), std::string::npos) << e;
  // The offset named is the payload's: the chunk header's end.
  EXPECT_NE(e.find(fmt::format("byte {}", g.last_chunk() + sizeof(gst::ChunkHeader))), std::string::npos) << e;
}

TEST(GstReader, MissingClockAndDuplicateBlocks) {
  GstImage no_clock;
  no_clock.Region(1, "a");
  EXPECT_NE(ErrorOf(no_clock.bytes()).find("no clock chunk"), std::string::npos);

  GstImage twice;
  twice.Clock();
  twice.Region(1, "a");
  twice.Block(0, 0, {R(1100, gst::kRecordRegionBegin, 1)});
  twice.Block(0, 0, {R(1200, gst::kRecordRegionEnd, 1)});
  EXPECT_NE(ErrorOf(twice.bytes()).find("stream 0 has two event blocks with sequence number 0"), std::string::npos);
}

TEST(GstReader, MissingBlocksAndOpenRegionsAreDiagnosed) {
  GstImage g;
  g.Clock();
  g.Region(1, "a");
  g.Block(0, 0, {R(1100, gst::kRecordRegionBegin, 1)});
  g.Block(0, 2, {R(1300, gst::kRecordMarker, 1)});
  g.String(1, "m");
  Result<Trace> r = Read(g.bytes());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->diagnostics().Count(Diag::kMissingBlocks), 1u);
  EXPECT_EQ(r->diagnostics().Count(Diag::kRecordsNotAnalysed), 1u);  // the stream ends before the gap
  EXPECT_EQ(r->diagnostics().Count(Diag::kUnclosedRegions), 1u);
  EXPECT_EQ(r->diagnostics().Count(Diag::kTraceNotFinished), 1u);
  const EventColumns& e = r->events(LocationId(0));
  ASSERT_EQ(e.size(), 2u);  // enter, leave added at the last event
  EXPECT_EQ(e.kind[1], EventKind::kLeave);
  EXPECT_EQ(e.time[1], 100);
}

TEST(GstReader, SeedProcessorIdsNameLocations) {
  GstImage g;
  g.Clock();
  g.Region(1, "grain 0", gst::kRoleGrain, 0);
  g.Block(0, 0, {R(1000, gst::kRecordOrigin, 0), R(1100, gst::kRecordProcessor, 2), R(1100, gst::kRecordRegionBegin, 1),
                 R(1200, gst::kRecordRegionEnd, 1)});
  g.Region(2, "grain 1", gst::kRoleGrain, 1);
  g.Block(1, 0, {R(1100, gst::kRecordProcessor, 1), R(1100, gst::kRecordRegionBegin, 2), R(1150, gst::kRecordRegionEnd, 2)});
  g.Block(2, 0, {R(999, gst::kRecordOrigin, 0)});  // only the origin: not a location
  g.End();
  Result<Trace> r = Read(g.bytes());
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->locations().size(), 2u);
  EXPECT_EQ(r->str(r->location(LocationId(0)).name), "processor 1");  // processors ordered by id
  EXPECT_EQ(r->location(LocationId(1)).external_id, 2);
  EXPECT_EQ(r->origin_ns(), -1);  // the earliest origin record, 1 ns before the first clock sample
}

TEST(GstReader, LooksLikeGst) {
  EXPECT_TRUE(LooksLikeGst(std::string_view(reinterpret_cast<const char*>(gst::kMagic), 8)));
  EXPECT_FALSE(LooksLikeGst(" start 1 0 290"));
  EXPECT_FALSE(LooksLikeGst(""));
}

}  // namespace
}  // namespace grainscope
