#include "format/otf2/otf2_writer.h"

#include <cstdlib>
#include <filesystem>

#include <otf2/otf2.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/file.h"
#include "base/status_matchers.h"
#include "format/otf2/otf2_reader.h"
#include "format/otf2/trace_dump_test_util.h"
#include "format/seedtext/seedtext_reader.h"
#include "model/thread_sync.h"
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
  EXPECT_EQ(back->diagnostics().Count(Diag::kSendsWithoutReceive), 0u);
  EXPECT_EQ(back->diagnostics().Count(Diag::kReceivesWithoutSend), 0u);
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
  EXPECT_EQ(back->diagnostics().Count(Diag::kSendsWithoutReceive), 1u);  // the message sent last
  EXPECT_EQ(back->diagnostics().Count(Diag::kReceivesWithoutSend), 0u);
  const Location& thread = back->location(LocationId(1));
  EXPECT_EQ(thread.kind, LocationKind::kThread);
  EXPECT_EQ(thread.group, 2u);
}

// Threads 0..2: thread 0 creates 1 and 2; `instances` rounds of work and a barrier, each round's
// barrier its own object (the OMPT tool names a barrier after its team), every other round under
// a lock; thread 0 joins the others.
Trace ThreadBarrierTrace(int instances) {
  TraceBuilder b("test");
  std::vector<LocationId> l;
  for (int i = 0; i < 3; ++i) l.push_back(b.AddLocation(fmt::format("thread {}", i), LocationKind::kThread, i));
  const RegionId work = b.AddRegion("work", RegionRole::kFunction, 0);
  for (int i = 1; i < 3; ++i) {
    b.Sync(l[0], 0, SyncKind::kThreadCreate, i);
    b.Sync(l[i], 1, SyncKind::kThreadBegin, i);
  }
  TimeNs now = 10;
  for (int k = 0; k < instances; ++k) {
    for (int i = 0; i < 3; ++i) {
      b.Enter(l[i], now, work);
      b.Leave(l[i], now + 5 * (i + 1), work);
      b.Sync(l[i], now + 5 * (i + 1), SyncKind::kBarrierEnter, 0x1000 + k, 3);
      b.Sync(l[i], now + 20, SyncKind::kBarrierLeave, 0x1000 + k);
    }
    if (k % 2 == 0) {
      b.Sync(l[1], now + 21, SyncKind::kLockRequest, 0xbeef);
      b.Sync(l[1], now + 21, SyncKind::kLockAcquired, 0xbeef);
      b.Sync(l[2], now + 22, SyncKind::kLockRequest, 0xbeef);
      b.Sync(l[1], now + 24, SyncKind::kLockRelease, 0xbeef);
      b.Sync(l[2], now + 24, SyncKind::kLockAcquired, 0xbeef);
      b.Sync(l[2], now + 25, SyncKind::kLockRelease, 0xbeef);
    }
    now += 30;
  }
  for (int i = 1; i < 3; ++i) {
    b.Sync(l[i], now + i, SyncKind::kThreadEnd, i);
    b.Sync(l[0], now + i, SyncKind::kThreadJoinBegin, i);
    b.Sync(l[0], now + i + 1, SyncKind::kThreadJoinEnd, i);
  }
  Result<Trace> t = b.Finish();
  EXPECT_THAT(t, IsOk());
  return t.ok() ? std::move(t).value() : Trace();
}

struct CommAndGroupCount {
  uint64_t comms = 0;
  uint64_t groups = 0;
};

// The COMM and GROUP definitions of an archive, through libotf2's reader.
CommAndGroupCount CountCommsAndGroups(const std::string& anchor) {
  CommAndGroupCount n;
  OTF2_Reader* reader = OTF2_Reader_Open(anchor.c_str());
  EXPECT_NE(reader, nullptr) << anchor;
  if (reader == nullptr) return n;
  OTF2_Reader_SetSerialCollectiveCallbacks(reader);
  OTF2_GlobalDefReader* defs = OTF2_Reader_GetGlobalDefReader(reader);
  OTF2_GlobalDefReaderCallbacks* cb = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(
      cb, [](void* user, OTF2_CommRef, OTF2_StringRef, OTF2_GroupRef, OTF2_CommRef, OTF2_CommFlag) {
        ++static_cast<CommAndGroupCount*>(user)->comms;
        return OTF2_CALLBACK_SUCCESS;
      });
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback(
      cb, [](void* user, OTF2_GroupRef, OTF2_StringRef, OTF2_GroupType, OTF2_Paradigm, OTF2_GroupFlag, uint32_t,
             const uint64_t*) {
        ++static_cast<CommAndGroupCount*>(user)->groups;
        return OTF2_CALLBACK_SUCCESS;
      });
  OTF2_Reader_RegisterGlobalDefCallbacks(reader, defs, cb, &n);
  uint64_t read = 0;
  EXPECT_EQ(OTF2_Reader_ReadAllGlobalDefinitions(reader, defs, &read), OTF2_SUCCESS);
  OTF2_GlobalDefReaderCallbacks_Delete(cb);
  OTF2_Reader_CloseGlobalDefReader(reader, defs);
  OTF2_Reader_Close(reader);
  return n;
}

TEST(Otf2Writer, ThreadBarrierDefinitionsDoNotGrowWithInstances) {
  CommAndGroupCount counts[2];
  const int instances[2] = {1, 100};
  for (int k = 0; k < 2; ++k) {
    const Trace original = ThreadBarrierTrace(instances[k]);
    ASSERT_EQ(original.collectives().size(), static_cast<size_t>(instances[k]));
    ASSERT_EQ(original.communicators().size(), static_cast<size_t>(instances[k]));  // one per barrier object
    const std::string anchor = FreshDir(fmt::format("barriers{}", instances[k])) + "/trace.otf2";
    ASSERT_THAT(WriteOtf2(original, anchor), IsOk());
    counts[k] = CountCommsAndGroups(anchor);
    // Read back: the same sync events, barrier instances, communicators and edges.
    Result<Trace> back = ReadOtf2(anchor);
    ASSERT_THAT(back, IsOk());
    EXPECT_EQ(DumpTrace(*back), DumpTrace(original));
    EXPECT_EQ(back->dependencies().kind, original.dependencies().kind);
    EXPECT_EQ(back->dependencies().from_event, original.dependencies().from_event);
    EXPECT_EQ(back->dependencies().to_event, original.dependencies().to_event);
  }
  // One thread team (the three threads: barriers and the threads' contingent): 1 COMM, and its
  // GROUP besides group 0 of all locations, whether there is 1 barrier instance or 100.
  EXPECT_EQ(counts[0].comms, 1u);
  EXPECT_EQ(counts[0].groups, 2u);
  EXPECT_EQ(counts[1].comms, counts[0].comms);
  EXPECT_EQ(counts[1].groups, counts[0].groups);
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
