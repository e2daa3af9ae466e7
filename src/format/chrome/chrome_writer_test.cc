#include "format/chrome/chrome_writer.h"

#include <cstdio>
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/file.h"
#include "base/status_matchers.h"
#include "format/chrome/chrome_reader.h"
#include "format/otf2/otf2_reader.h"
#include "format/otf2/trace_dump_test_util.h"
#include "format/seedtext/seedtext_reader.h"
#include "format/trace_reader.h"
#include "format/trace_writer.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

using ::testing::HasSubstr;
using testing_util::DumpTrace;

Trace ReadExample(std::string_view file) {
  const std::string path = std::string(GRAINSCOPE_EXAMPLES_DIR) + "/traces/" + std::string(file);
  Result<std::string> text = ReadFile(path);
  EXPECT_THAT(text, IsOk());
  Result<Trace> t = ReadSeedText(text.ok() ? *text : "", path);
  EXPECT_THAT(t, IsOk());
  return t.ok() ? std::move(t).value() : Trace();
}

TEST(ChromeWriter, WritesTracksSlicesFlowsInMicroseconds) {
  const Trace t = ReadExample("fig4_5.txt");
  const std::string text = ChromeJson(t);
  nlohmann::json doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["displayTimeUnit"], "ns");
  EXPECT_EQ(doc["otherData"]["time_unit"], "ms");
  const nlohmann::json& events = doc["traceEvents"];
  ASSERT_TRUE(events.is_array());
  // processor 1: grain 1 runs [290, 310] ms.
  EXPECT_THAT(text, HasSubstr(R"({"ph":"X","name":"grain 1","cat":"grain","ts":290000.000,"pid":1,"tid":1,"dur":20000.000})"));
  EXPECT_THAT(text, HasSubstr(R"({"ph":"M","name":"thread_name","pid":2,"tid":2,"args":{"name":"processor 2")"));
  size_t slices = 0, starts = 0, finishes = 0;
  for (const nlohmann::json& e : events) {
    slices += e["ph"] == "X";
    starts += e["ph"] == "s";
    finishes += e["ph"] == "f";
    if (e["ph"] == "f") {
      EXPECT_EQ(e["bp"], "e");
    }
  }
  EXPECT_EQ(slices, 7u + 11u + 11u);  // grains, send and receive regions
  EXPECT_EQ(starts, 11u);
  EXPECT_EQ(finishes, 11u);
}

TEST(ChromeWriter, SeedTextTraceRoundTrips) {
  const Trace original = ReadExample("fig4_5.txt");
  Result<Trace> back = ReadChromeJson(ChromeJson(original), "fig4_5.json");
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(back->format(), "chrome");
  EXPECT_EQ(DumpTrace(*back), DumpTrace(original));
  EXPECT_EQ(back->messages().size(), 11u);
  EXPECT_TRUE(back->diagnostics().empty());
}

// Names that are not UTF-8 (a seed trace's message names are bytes) are written with U+FFFD in
// place of each bad byte, so the file is JSON every reader takes back whole.
TEST(ChromeWriter, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  const std::string path = std::string(GRAINSCOPE_EXAMPLES_DIR) + "/traces/fig4_5.txt";
  Result<std::string> text = ReadFile(path);
  ASSERT_THAT(text, IsOk());
  std::string bad = *text;
  for (size_t at = bad.find("arc12"); at != std::string::npos; at = bad.find("arc12", at + 1))
    bad.replace(at, 5, "arc\xff" "12");
  const std::string file = ::testing::TempDir() + "/gs_bad_utf8.txt";
  ASSERT_THAT(WriteNewFile(file, bad), IsOk());
  Result<Trace> original = ReadTrace(file, "auto", {});
  std::filesystem::remove(file);
  ASSERT_THAT(original, IsOk());
  const std::string json = ChromeJson(*original);
  EXPECT_THAT(json, HasSubstr("\"arc\xEF\xBF\xBD" "12\""));  // U+FFFD in UTF-8
  EXPECT_EQ(json.find('\xff'), std::string::npos);
  Result<Trace> back = ReadChromeJson(json, "bad.json");
  ASSERT_THAT(back, IsOk());
  EXPECT_TRUE(back->diagnostics().empty()) << "nothing skipped";
  EXPECT_EQ(back->messages().size(), 11u);
}

// Zero-length regions at the end of another and points at region ends: times alone cannot
// place them, the depth hint does.
TEST(ChromeWriter, AmbiguousNestingRoundTrips) {
  TraceBuilder b("test");
  const LocationId p = b.AddLocation("p", LocationKind::kProcessor, 0);
  const RegionId outer = b.AddRegion("outer", RegionRole::kGrain, 0);
  const RegionId inner = b.AddRegion("inner", RegionRole::kFunction, 1);
  b.Enter(p, 10, outer);
  b.Enter(p, 10, inner);  // zero-length at the start of outer
  b.Leave(p, 10, inner);
  b.Enter(p, 20, inner);  // zero-length at the end of outer, inside it
  b.Leave(p, 20, inner);
  b.Marker(p, 20, b.Intern("inside at the end"));
  b.Leave(p, 20, outer);
  b.Marker(p, 20, b.Intern("after the end"));
  b.Enter(p, 20, inner);  // zero-length sibling after outer
  b.Leave(p, 20, inner);
  b.Enter(p, 20, outer);
  b.Enter(p, 20, inner);
  b.Leave(p, 20, inner);
  b.Leave(p, 20, outer);
  Result<Trace> t = b.Finish();
  ASSERT_THAT(t, IsOk());
  Result<Trace> back = ReadChromeJson(ChromeJson(*t), "nest.json");
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(DumpTrace(*back), DumpTrace(*t));
}

// Non-blocking messages, an unmatched one, a collective with a root, a thread, negative times.
TEST(ChromeWriter, EveryEventKindRoundTrips) {
  TraceBuilder b("test");
  const LocationId p0 = b.AddLocation("rank 0", LocationKind::kRank, 0);
  const LocationId th = b.AddLocation("rank 1 thread 1", LocationKind::kThread, 1);
  const LocationId p1 = b.AddLocation("rank 1", LocationKind::kRank, 1);
  b.SetLocationGroup(th, p1.value);  // grouped with a location defined after it
  const RegionId isend = b.AddRegion("MPI_Isend", RegionRole::kPointToPoint, 8);
  const RegionId wait = b.AddRegion("MPI_Waitall", RegionRole::kWait, 9);
  const RegionId bcast = b.AddRegion("MPI_Bcast", RegionRole::kCollective, 10);
  const CommunicatorId world = b.AddCommunicator("world", {p1, p0});
  b.SetOrigin(-50);
  const MessageId ma = b.AddMessage(MessageInfo{p0, p1, 5, "a", 100, world});
  const MessageId lost = b.AddMessage(MessageInfo{p1, p0, 9, "", 300, world});
  const CollectiveId bc = b.AddCollective(CollectiveOp::kBroadcast, world, p0);
  b.Enter(p0, -20, isend);
  b.Send(p0, -19, ma);
  b.Leave(p0, -18, isend);
  b.Enter(p0, 6, wait);
  b.SendComplete(p0, 7, ma);
  b.Leave(p0, 8, wait);
  b.Enter(p0, 10, bcast);
  b.CollBegin(p0, 10, bc, 64, 0);
  b.CollEnd(p0, 15, bc);
  b.Leave(p0, 15, bcast);
  b.RecvPost(p1, 1, ma);
  b.Recv(p1, 9, ma);
  b.Send(p1, 10, lost);
  b.Enter(p1, 11, bcast);
  b.CollBegin(p1, 11, bc, 0, 64);
  b.CollEnd(p1, 16, bc);
  b.Leave(p1, 16, bcast);
  b.Marker(th, 6, b.Intern("thread fork"));
  Result<Trace> t = b.Finish();
  ASSERT_THAT(t, IsOk());
  Result<Trace> back = ReadChromeJson(ChromeJson(*t), "every.json");
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(DumpTrace(*back), DumpTrace(*t));
  EXPECT_EQ(back->diagnostics().Count(Diag::kSendsWithoutReceive), 1u);  // the message sent last
  EXPECT_EQ(back->diagnostics().Count(Diag::kReceivesWithoutSend), 0u);
}

TEST(ChromeWriter, CorpusOtf2TraceRoundTrips) {
  const std::string path = std::string(GRAINSCOPE_CORPUS_DIR) + "/pipit/ping-pong-otf2/traces.otf2";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "corpus trace " << path << " is absent (../shared/corpus)";
  Result<Trace> original = ReadOtf2(path);
  ASSERT_THAT(original, IsOk());
  Result<Trace> back = ReadChromeJson(ChromeJson(*original), "pp.json");
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(DumpTrace(*back), DumpTrace(*original));
}

TEST(ChromeWriter, WriteTraceByExtensionAndReadTraceBySniffing) {
  const std::string path = ::testing::TempDir() + "/gs-chrome-roundtrip.json";
  const Trace original = ReadExample("fig4_5.txt");
  std::remove(path.c_str());
  ASSERT_THAT(WriteTrace(original, path), IsOk());
  Result<Trace> back = ReadTrace(path);
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(back->format(), "chrome");
  EXPECT_EQ(DumpTrace(*back), DumpTrace(original));
  EXPECT_THAT(WriteTrace(original, ::testing::TempDir() + "/x.txt"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("extension '.txt'")));
}

}  // namespace
}  // namespace grainscope
