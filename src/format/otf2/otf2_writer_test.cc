#include "format/otf2/otf2_writer.h"

#include <cstdlib>
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/file.h"
#include "base/status_matchers.h"
#include "format/otf2/otf2_reader.h"
#include "format/otf2/trace_dump_test_util.h"
#include "format/seedtext/seedtext_reader.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

namespace fs = std::filesystem;
using testing_util::DumpTrace;
using ::testing::HasSubstr;

std::string FreshDir(std::string_view name) {
  const fs::path dir = fs::path(::testing::TempDir()) / fmt::format("gs-otf2-{}-{}", name, getpid());
  fs::remove_all(dir);
  return dir.string();
}

// Writes `trace`, checks otf2-print accepts the archive, reads it back.
Result<Trace> RoundTrip(const Trace& trace, std::string_view name) {
  const std::string anchor = FreshDir(name) + "/trace.otf2";
  GS_RETURN_IF_ERROR(WriteOtf2(trace, anchor));
  if (std::string_view(OTF2_PRINT_EXECUTABLE).empty() || !fs::exists(OTF2_PRINT_EXECUTABLE)) {
    ADD_FAILURE() << "otf2-print not found: install otf2-tools (scripts/install-deps.sh)";
  } else {
    const std::string command = fmt::format("{} '{}' >/dev/null 2>&1", OTF2_PRINT_EXECUTABLE, anchor);
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
  }
  return ReadOtf2(anchor);
}

Trace ReadExample(std::string_view file) {
  const std::string path = std::string(GRAINSCOPE_EXAMPLES_DIR) + "/traces/" + std::string(file);
  Result<std::string> text = ReadFile(path);
  EXPECT_THAT(text, IsOk());
  Result<Trace> t = ReadSeedText(text.ok() ? *text : "", path);
  EXPECT_THAT(t, IsOk());
  return t.ok() ? std::move(t).value() : Trace();
}

TEST(Otf2Writer, SeedTextTraceRoundTrips) {
  const Trace original = ReadExample("fig4_5.txt");
  ASSERT_EQ(original.messages().size(), 11u);
  Result<Trace> back = RoundTrip(original, "fig45");
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(DumpTrace(*back), DumpTrace(original));
  EXPECT_EQ(back->communicators().size(), 0u);  // the invented one is dropped again
  EXPECT_EQ(back->diagnostics().Count("sends_without_receive"), 0u);
  EXPECT_EQ(back->diagnostics().Count("receives_without_send"), 0u);
}

TEST(Otf2Writer, CorpusTraceRoundTrips) {
  const std::string path = std::string(GRAINSCOPE_CORPUS_DIR) + "/pipit/ping-pong-otf2-papi/traces.otf2";
  if (!fs::exists(path)) GTEST_SKIP() << "corpus trace " << path << " is absent (../shared/corpus)";
  Result<Trace> original = ReadOtf2(path);
  ASSERT_THAT(original, IsOk());
  Result<Trace> back = RoundTrip(*original, "papi");
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(DumpTrace(*back), DumpTrace(*original));
}

// Every event kind: non-blocking messages completed out of order, an unmatched send, a
// collective with a root, two non-blocking collectives around it that end in the order they began
// (NonBlockingCollectiveRequest/Complete records: as a stack of MpiCollectiveBegin/End they would
// swap), markers, a thread of a process, negative times.
Trace EveryKind() {
  TraceBuilder b("test");
  const LocationId p0 = b.AddLocation("rank 0", LocationKind::kRank, 0);
  const LocationId th = b.AddLocation("rank 1 thread 1", LocationKind::kThread, 1);
  const LocationId p1 = b.AddLocation("rank 1", LocationKind::kRank, 1);  // defined after its thread
  b.SetLocationGroup(th, p1.value);
  const RegionId work = b.AddRegion("work", RegionRole::kFunction, 7);
  const RegionId isend = b.AddRegion("MPI_Isend", RegionRole::kPointToPoint, 8);
  const RegionId wait = b.AddRegion("my_waitall", RegionRole::kWait, 9);
  const RegionId bcast = b.AddRegion("MPI_Bcast", RegionRole::kCollective, 10);
  const RegionId task = b.AddRegion("task", RegionRole::kGrain, 11);
  const RegionId other = b.AddRegion("other", RegionRole::kOther, 12);
  const RegionId iallreduce = b.AddRegion("MPI_Iallreduce", RegionRole::kCollective, 13);
  const RegionId ibarrier = b.AddRegion("MPI_Ibarrier", RegionRole::kCollective, 14);
  const CommunicatorId world = b.AddCommunicator("world", {p1, p0});  // rank 0 is p1
  b.SetOrigin(-50);
  b.AddMetadata("time_unit", "ns");
  MessageInfo a{p0, p1, 5, "a", 100, world};
  MessageInfo c{p0, p1, 5, "", 200, world};
  MessageInfo lost{p1, p0, 9, "", 300, world};
  const MessageId ma = b.AddMessage(a), mc = b.AddMessage(c), ml = b.AddMessage(lost);
  const CollectiveId ia = b.AddCollective(CollectiveOp::kAllreduce, world, LocationId());
  const CollectiveId ib = b.AddCollective(CollectiveOp::kBarrier, world, LocationId());
  const CollectiveId bc = b.AddCollective(CollectiveOp::kBroadcast, world, p0);

  b.Enter(p0, -20, work);
  b.Marker(p0, -20, b.Intern("phase 1"));
  b.Enter(p0, 0, isend);
  b.Send(p0, 1, ma);
  b.Leave(p0, 2, isend);
  b.Enter(p0, 3, isend);
  b.Send(p0, 4, mc);
  b.Leave(p0, 5, isend);
  b.Enter(p0, 6, wait);
  b.SendComplete(p0, 7, mc);
  b.SendComplete(p0, 7, ma);
  b.Leave(p0, 8, wait);
  b.Enter(p0, 9, iallreduce);
  b.CollBegin(p0, 9, ia, 8, 8);
  b.Leave(p0, 9, iallreduce);
  b.Enter(p0, 9, ibarrier);
  b.CollBegin(p0, 9, ib, 0, 0);
  b.Leave(p0, 9, ibarrier);
  b.Enter(p0, 10, bcast);
  b.CollBegin(p0, 10, bc, 64, 0);
  b.CollEnd(p0, 15, bc);
  b.Leave(p0, 15, bcast);
  b.Enter(p0, 16, wait);
  b.CollEnd(p0, 17, ia);
  b.CollEnd(p0, 17, ib);
  b.Leave(p0, 18, wait);
  b.Leave(p0, 20, work);

  b.Enter(p1, 0, task);
  b.RecvPost(p1, 1, ma);
  b.RecvPost(p1, 2, mc);
  b.Recv(p1, 9, mc);  // completes first, but was posted second
  b.Recv(p1, 9, ma);
  b.Send(p1, 10, ml);
  b.Enter(p1, 10, iallreduce);
  b.CollBegin(p1, 10, ia, 8, 8);
  b.Leave(p1, 10, iallreduce);
  b.Enter(p1, 10, ibarrier);
  b.CollBegin(p1, 10, ib, 0, 0);
  b.Leave(p1, 10, ibarrier);
  b.Enter(p1, 11, bcast);
  b.CollBegin(p1, 11, bc, 0, 64);
  b.CollEnd(p1, 16, bc);
  b.Leave(p1, 16, bcast);
  b.Enter(p1, 17, wait);
  b.CollEnd(p1, 18, ia);
  b.CollEnd(p1, 18, ib);
  b.Leave(p1, 19, wait);
  b.Leave(p1, 30, task);

  b.Enter(th, 5, other);
  b.Marker(th, 6, b.Intern("thread fork"));
  b.Leave(th, 7, other);
  Result<Trace> t = b.Finish();
  EXPECT_THAT(t, IsOk());
  return std::move(t).value();
}

TEST(Otf2Writer, EveryEventKindRoundTrips) {
  const Trace original = EveryKind();
  Result<Trace> back = RoundTrip(original, "every");
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(DumpTrace(*back), DumpTrace(original));
  EXPECT_EQ(back->diagnostics().Count("sends_without_receive"), 1u);  // the message sent last
  EXPECT_EQ(back->diagnostics().Count("receives_without_send"), 0u);
  const Location& thread = back->location(LocationId(1));
  EXPECT_EQ(thread.kind, LocationKind::kThread);
  EXPECT_EQ(thread.group, 2u);
}

TEST(Otf2Writer, DirectoryTargetGetsTracesOtf2) {
  const std::string dir = FreshDir("dir");
  ASSERT_THAT(WriteOtf2(EveryKind(), dir), IsOk());
  EXPECT_TRUE(fs::exists(dir + "/traces.otf2"));
  EXPECT_TRUE(fs::exists(dir + "/traces.def"));
  // Writing again replaces the archive only with force, and no partial files are left behind.
  EXPECT_THAT(WriteOtf2(EveryKind(), dir), StatusIs(StatusCode::kIoError, HasSubstr("traces.otf2: exists; --force")));
  ASSERT_THAT(WriteOtf2(EveryKind(), dir, {.force = true}), IsOk());
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 3);
  // An archive directory holding anything else is not ours: never replaced.
  ASSERT_THAT(WriteNewFile(dir + "/traces/notes.txt", "keep"), IsOk());
  EXPECT_THAT(WriteOtf2(EveryKind(), dir, {.force = true}),
              StatusIs(StatusCode::kIoError, HasSubstr("holding 'notes.txt', which is not part of an OTF2 archive")));
  EXPECT_EQ(*ReadFile(dir + "/traces/notes.txt"), "keep");
  ASSERT_THAT(ReadOtf2(dir), IsOk());
}

}  // namespace
}  // namespace grainscope
