#include "format/csv/csv_reader.h"

#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "base/test_files.h"
#include "format/csv/csv_writer.h"
#include "format/format_names.h"
#include "format/trace_reader.h"
#include "model/metadata_keys.h"

namespace grainscope {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> LocationNames(const Trace& t) {
  std::vector<std::string> names;
  for (const Location& l : t.locations()) names.emplace_back(t.str(l.name));
  return names;
}

std::string ExampleOf(const Trace& t, Diag kind) {
  for (const Diagnostic& d : t.diagnostics().entries())
    if (d.kind == kind) return d.example;
  return "";
}

// Pipit's test file foo-bar.csv: two processes, seconds, blanks after the commas.
TEST(PipitCsv, ReadsPipitsFooBarExample) {
  const std::string path = std::string(GRAINSCOPE_CORPUS_DIR) + "/other-formats/pipit-foo-bar.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "corpus trace " << path << " is absent (../shared/corpus)";
  Result<Trace> r = ReadTrace(path);
  ASSERT_THAT(r, IsOk());
  const Trace& t = *r;
  EXPECT_EQ(t.format(), kCsvFormat);
  EXPECT_THAT(LocationNames(t), ElementsAre("process 0", "process 1"));
  EXPECT_EQ(t.events(LocationId(0)).size(), 8u);
  EXPECT_EQ(t.events(LocationId(1)).size(), 12u);
  EXPECT_EQ(t.regions().size(), 8u);  // main() foo() MPI_Send baz() bar() Idle MPI_Recv grault()
  EXPECT_EQ(t.events(LocationId(1)).time.back(), 100'000'000'000);  // "100" seconds
  EXPECT_TRUE(t.diagnostics().entries().empty());
}

// Pipit's own ping-pong layout: Thread before Process, float nanoseconds, quoted fields holding
// commas, MpiSend/MpiRecv instants whose attributes make the messages.
constexpr char kPingPong[] =
    "Timestamp (ns),Event Type,Name,Thread,Process,Attributes\n"
    "0.0,Instant,ProgramBegin,0,1,\"{'program_name': 'ping-pong', 'program_arguments': []}\"\n"
    "30083.086937435106,Enter,\"int main(int, char**)\",0,1,{'region': 'Region 3'}\n"
    "30100.5,Enter,\"int main(int, char**)\",0,0,{'region': 'Region 3'}\n"
    "40000,Enter,MPI_Send,0,0,{'region': 'Region 193'}\n"
    "40010,Instant,MpiSend,0,0,\"{'receiver': 1, 'communicator': 'Comm 1', 'msg_tag': 10, 'msg_length': 16384}\"\n"
    "40020,Enter,MPI_Recv,0,1,{'region': 'Region 176'}\n"
    "40100,Leave,MPI_Send,0,0,\n"
    "40200,Instant,MpiRecv,0,1,\"{'sender': 0, 'communicator': 'Comm 1', 'msg_tag': 10, 'msg_length': 16384}\"\n"
    "40300,Leave,MPI_Recv,0,1,\n"
    "50000,Leave,\"int main(int, char**)\",0,0,\n"
    "50001,Leave,\"int main(int, char**)\",0,1,\n";

TEST(PipitCsv, MakesMessagesFromMpiInstants) {
  Result<Trace> r = ReadPipitCsv(kPingPong, "ping-pong.csv");
  ASSERT_THAT(r, IsOk());
  const Trace& t = *r;
  EXPECT_THAT(LocationNames(t), ElementsAre("process 0 thread 0", "process 1 thread 0"));
  EXPECT_EQ(t.str(t.region(RegionId(0)).name), "int main(int, char**)");
  EXPECT_EQ(t.region(RegionId(1)).role, RegionRole::kPointToPoint);  // MPI_Send, by its name
  ASSERT_EQ(t.messages().size(), 1u);
  EXPECT_TRUE(t.messages().matched(MessageId(0)));
  EXPECT_EQ(t.messages().sender[0], LocationId(0));
  EXPECT_EQ(t.messages().tag[0], 10);
  EXPECT_EQ(t.messages().bytes[0], 16384u);
  // Times truncated to the nanosecond; each location's rows in time order.
  EXPECT_EQ(t.events(LocationId(1)).time[1], 30083);
  EXPECT_EQ(t.events(LocationId(0)).time[0], 30100);
  EXPECT_EQ(t.events(LocationId(1)).kind[0], EventKind::kMarker);
  EXPECT_TRUE(t.diagnostics().entries().empty());
  // MPI's messages: rendezvous above the assumed eager limit, as for an OTF2 trace of MPI.
  std::string eager_limit;
  for (const MetadataEntry& m : t.metadata())
    if (t.str(m.key) == metadata::kEagerLimitBytes) eager_limit = t.str(m.value);
  EXPECT_EQ(eager_limit, "65536");
  // Content detection takes it without a flag.
  TempDir dir("pipit_csv");
  ASSERT_TRUE(WriteTestFile(dir / "trace.csv", kPingPong));
  Result<Trace> detected = ReadTrace(dir / "trace.csv");
  ASSERT_THAT(detected, IsOk());
  EXPECT_EQ(detected->format(), kCsvFormat);
}

// A row that cannot be read is skipped and counted with its line; the others are analysed.
TEST(PipitCsv, SkipsAndNamesTheRowsItCannotRead) {
  const std::string csv =
      "Timestamp (us), Event Type, Name, Process\n"
      "1, Enter, work, 0\n"
      "x, Enter, work, 0\n"
      "2, Begin, work, 0\n"
      "3, Instant, MpiSend, 0\n"
      "4, Instant, MpiRecv, 1, {'sender': 0, 'msg_tag': 3}\n"
      "\n"
      "5, Leave, work, 0\n";
  Result<Trace> r = ReadPipitCsv(csv, "damaged.csv");
  ASSERT_THAT(r, IsOk());
  const Trace& t = *r;
  // Lines 3 and 4, and the MPI instants: without an Attributes column they name no peer.
  EXPECT_EQ(t.diagnostics().Count(Diag::kInvalidRecords), 4u);
  EXPECT_EQ(ExampleOf(t, Diag::kInvalidRecords), "damaged.csv:3: expected a time, got x");
  EXPECT_THAT(LocationNames(t), ElementsAre("process 0"));  // process 1 has no row that could be read
  EXPECT_EQ(t.events(LocationId(0)).size(), 2u);
  EXPECT_EQ(t.events(LocationId(0)).time[1], 5000);
  EXPECT_EQ(t.messages().size(), 0u);
}

// fuzz_csv's first crash: a time that is only a dot (read past the end of an empty string).
TEST(PipitCsv, TimesWithoutDigitsAreInvalidRows) {
  for (const char* unit : {"ns", "s"}) {
    const std::string csv = fmt::format("Timestamp ({}),Event Type,Name,Process\n.,Enter,a,0\n5.,Enter,b,0\n.5,Leave,b,0\n"
                                        "6,Leave,a,0\n", unit);
    Result<Trace> r = ReadPipitCsv(csv, "dots.csv");
    ASSERT_THAT(r, IsOk()) << unit;
    EXPECT_EQ(r->diagnostics().Count(Diag::kInvalidRecords), 2u) << unit;  // "." and ".5"
    EXPECT_EQ(ExampleOf(*r, Diag::kInvalidRecords), "dots.csv:2: expected a time, got .") << unit;
  }
}

TEST(PipitCsv, CountsMessagesWithoutAPartner) {
  const std::string csv =
      "Timestamp (ns),Event Type,Name,Process,Attributes\n"
      "10,Instant,MpiRecv,1,\"{'sender': 0, 'msg_tag': 3, 'msg_length': 8}\"\n"
      "20,Instant,MpiSend,0,\"{'receiver': 1, 'msg_tag': 4}\"\n";
  Result<Trace> r = ReadPipitCsv(csv, "lost.csv");
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->messages().size(), 2u);
  EXPECT_EQ(ExampleOf(*r, Diag::kReceivesWithoutSend), "lost.csv:2: MpiRecv is never sent");
  EXPECT_EQ(ExampleOf(*r, Diag::kSendsWithoutReceive), "lost.csv:3: MpiSend is never received");
}

TEST(PipitCsv, RefusesAFileWithoutItsHeaderAndImproperNestingUnderStrict) {
  EXPECT_THAT(ReadPipitCsv("1,Enter,a,0\n", "t.csv").status().message(),
              HasSubstr("t.csv:1: expected a CSV header naming the columns \"Timestamp (s|ms|us|ns)\""));
  EXPECT_THAT(ReadPipitCsv("Timestamp (h),Event Type,Name,Process\n", "t.csv").status().message(),
              HasSubstr("t.csv:1: expected a CSV header"));
  const std::string crossed =
      "Timestamp (ns),Event Type,Name,Process\n0,Enter,a,0\n1,Enter,b,0\n2,Leave,a,0\n3,Leave,b,0\n";
  Result<Trace> repaired = ReadPipitCsv(crossed, "t.csv");
  ASSERT_THAT(repaired, IsOk());
  EXPECT_GT(repaired->diagnostics().entries().size(), 0u);
  EXPECT_FALSE(ReadPipitCsv(crossed, "t.csv", ReadOptions{.strict = true}).ok());
  EXPECT_FALSE(LooksLikePipitCsv("time,kind,name\n"));
  EXPECT_TRUE(LooksLikePipitCsv("Timestamp (s), Event Type, Name, Process\n"));
}

// The writer is the reader's inverse: what it writes reads back as the same events and messages.
TEST(PipitCsv, WhatTheWriterWritesReadsBackTheSame) {
  Result<Trace> first = ReadPipitCsv(kPingPong, "pingpong.csv");
  ASSERT_THAT(first, IsOk());
  std::string text;
  TextSink sink(text);
  WritePipitCsv(*first, sink);
  Result<Trace> second = ReadPipitCsv(text, "written.csv");
  ASSERT_THAT(second, IsOk());
  ASSERT_EQ(second->locations().size(), first->locations().size());
  for (uint32_t l = 0; l < first->locations().size(); ++l) {
    const auto a = first->events(LocationId(l)), b = second->events(LocationId(l));
    EXPECT_THAT(std::vector<TimeNs>(b.time.begin(), b.time.end()), ::testing::ElementsAreArray(a.time));
    EXPECT_THAT(std::vector<EventKind>(b.kind.begin(), b.kind.end()), ::testing::ElementsAreArray(a.kind));
  }
  EXPECT_EQ(second->messages().size(), first->messages().size());
  EXPECT_EQ(second->messages().bytes, first->messages().bytes);
  EXPECT_THAT(text, HasSubstr("\"int main(int, char**)\""));  // a name with commas, quoted
}

}  // namespace
}  // namespace grainscope
