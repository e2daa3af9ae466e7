#include "format/gst/gst_writer.h"

#include <unistd.h>

#include <filesystem>
#include <optional>
#include <algorithm>
#include <sstream>
#include <tuple>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/file.h"
#include "base/status_matchers.h"
#include "format/otf2/trace_dump_test_util.h"
#include "format/trace_reader.h"
#include "format/trace_writer.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string Fresh(std::string_view name) {
  const fs::path p = fs::path(::testing::TempDir()) / fmt::format("gs-gstw-{}-{}", name, getpid());
  fs::remove_all(p);
  return p.string();
}

// DumpTrace without the metadata lines (the readers add their own keys: gst_version, end, ...).
std::string Events(const Trace& t) {
  std::istringstream in(testing_util::DumpTrace(t));
  std::string out, line;
  while (std::getline(in, line)) {
    if (!line.starts_with("meta ")) out += line + "\n";
  }
  return out;
}

Result<Trace> RoundTrip(const Trace& t, std::string_view name) {
  const std::string path = Fresh(name) + ".gst";
  fs::remove_all(path);
  GS_RETURN_IF_ERROR(WriteTrace(t, path));  // by extension
  return ReadTrace(path);
}

TEST(GstWriter, SeedTextTraceRoundTripsAsOneFile) {
  const std::string path = std::string(GRAINSCOPE_EXAMPLES_DIR) + "/traces/fig4_5.txt";
  Result<Trace> original = ReadTrace(path);
  ASSERT_THAT(original, IsOk());
  EXPECT_FALSE(GstNeedsRankDirectory(*original));
  Result<Trace> back = RoundTrip(*original, "fig45");
  ASSERT_THAT(back, IsOk());
  EXPECT_TRUE(fs::is_regular_file(Fresh("fig45") + ".gst"));
  EXPECT_EQ(Events(*back), Events(*original));
  // Time zero is initialize_clock(), 290 ms before the first grain: kept, not moved to the
  // first event (where a reader puts it when a file has no origin record).
  EXPECT_EQ(back->origin_ns(), original->origin_ns());
  EXPECT_EQ(back->start_ns(), original->start_ns());
  EXPECT_EQ(back->Metadata("gst_omitted_events"), "");
}

TEST(GstWriter, MpiDirectoryRoundTrips) {
  const std::string path = std::string(GRAINSCOPE_EXAMPLES_DIR) + "/traces/mpi_barrier_imbalance";
  Result<Trace> original = ReadTrace(path);
  ASSERT_THAT(original, IsOk());
  ASSERT_GT(original->collectives().size(), 0u);
  Result<Trace> back = RoundTrip(*original, "imbalance");
  ASSERT_THAT(back, IsOk());
  EXPECT_TRUE(fs::is_directory(Fresh("imbalance") + ".gst"));
  EXPECT_EQ(Events(*back), Events(*original));
  EXPECT_EQ(back->Metadata("mpi_ranks"), original->Metadata("mpi_ranks"));
  EXPECT_EQ(back->Metadata("program"), original->Metadata("program"));
}

TEST(GstWriter, CorpusOtf2RoundTrips) {
  const std::string path = std::string(GRAINSCOPE_CORPUS_DIR) + "/pipit/ping-pong-otf2/traces.otf2";
  if (!fs::exists(path)) GTEST_SKIP() << "corpus trace " << path << " is absent (../shared/corpus)";
  Result<Trace> original = ReadTrace(path);
  ASSERT_THAT(original, IsOk());
  Result<Trace> back = RoundTrip(*original, "pingpong");
  ASSERT_THAT(back, IsOk());
  // The directory shape renames the locations ("rank <r>") and takes MPI_* call roles from their
  // names (docs/formats/gst.md): compare what the analyses use.
  EXPECT_EQ(back->diagnostics().Count(Diag::kSendsWithoutReceive), 0u);
  EXPECT_EQ(back->diagnostics().Count(Diag::kReceivesWithoutSend), 0u);
  ASSERT_EQ(back->locations().size(), original->locations().size());
  for (uint32_t l = 0; l < original->locations().size(); ++l) {
    const EventColumns& a = original->events(LocationId(l));
    const EventColumns& b = back->events(LocationId(l));
    ASSERT_EQ(a.size(), b.size()) << "location " << l;
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a.time[i], b.time[i]) << "location " << l << " event " << i;
      ASSERT_EQ(a.kind[i], b.kind[i]) << "location " << l << " event " << i;
      if (a.kind[i] == EventKind::kEnter || a.kind[i] == EventKind::kLeave) {
        EXPECT_EQ(original->str(original->region(RegionId(a.arg[i])).name), back->str(back->region(RegionId(b.arg[i])).name));
      }
    }
  }
  // The same messages (the directory reader numbers them by matching key).
  auto rows = [](const Trace& t) {
    const MessageTable& m = t.messages();
    std::vector<std::tuple<uint32_t, uint32_t, EventIndex, EventIndex, int32_t, uint64_t>> out;
    for (uint32_t i = 0; i < m.size(); ++i) {
      out.emplace_back(m.sender[i].value, m.receiver[i].value, m.send_event[i], m.recv_event[i], m.tag[i], m.bytes[i]);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(rows(*back), rows(*original));
}

// What .gst 1.0 cannot hold: request events are left out and counted; everything else stays.
TEST(GstWriter, RequestEventsAreCountedNotWritten) {
  TraceBuilder b("test");
  const LocationId p0 = b.AddLocation("rank 0", LocationKind::kRank, 0);
  const LocationId p1 = b.AddLocation("rank 1", LocationKind::kRank, 1);
  const RegionId isend = b.AddRegion("MPI_Isend", RegionRole::kPointToPoint, 1);
  const RegionId wait = b.AddRegion("MPI_Wait", RegionRole::kWait, 2);
  const CommunicatorId world = b.AddCommunicator("MPI_COMM_WORLD", {p0, p1});
  const MessageId m = b.AddMessage(MessageInfo{p0, p1, 3, "", 8, world});
  b.Enter(p0, 10, isend);
  b.Send(p0, 11, m);
  b.Leave(p0, 12, isend);
  b.Enter(p0, 20, wait);
  b.SendComplete(p0, 21, m);
  b.Leave(p0, 22, wait);
  b.RecvPost(p1, 5, m);
  b.Enter(p1, 30, wait);
  b.Recv(p1, 31, m);
  b.Leave(p1, 32, wait);
  Result<Trace> t = b.Finish();
  ASSERT_THAT(t, IsOk());
  Result<Trace> back = RoundTrip(*t, "requests");
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(back->Metadata("gst_omitted_events"), "2");
  EXPECT_EQ(back->event_count(), t->event_count() - 2);
  ASSERT_EQ(back->messages().size(), 1u);
  EXPECT_TRUE(back->messages().matched(MessageId(0)));
  EXPECT_EQ(back->messages().tag[0], 3);
  EXPECT_EQ(back->messages().bytes[0], 8u);
}

// Non-blocking collectives: two begun back to back, a blocking one between their begins and
// their ends, both ended in one MPI_Waitall in the order they began ("mpi.icoll" / "mpi.icoll_end"
// markers with slots 1 and 2). A third, begun with no end (the rank stopped), is left out and
// counted, and the other rank's membership of that instance stays.
TEST(GstWriter, NonBlockingCollectivesRoundTrip) {
  TraceBuilder b("test");
  const LocationId p0 = b.AddLocation("rank 0", LocationKind::kRank, 0);
  const LocationId p1 = b.AddLocation("rank 1", LocationKind::kRank, 1);
  const RegionId ibarrier = b.AddRegion("MPI_Ibarrier", RegionRole::kCollective, 1);
  const RegionId iallreduce = b.AddRegion("MPI_Iallreduce", RegionRole::kCollective, 2);
  const RegionId bcast = b.AddRegion("MPI_Bcast", RegionRole::kCollective, 3);
  const RegionId waitall = b.AddRegion("MPI_Waitall", RegionRole::kWait, 4);
  const CommunicatorId world = b.AddCommunicator("MPI_COMM_WORLD", {p0, p1});
  const CollectiveId ib = b.AddCollective(CollectiveOp::kBarrier, world, LocationId());
  const CollectiveId ia = b.AddCollective(CollectiveOp::kAllreduce, world, LocationId());
  const CollectiveId bc = b.AddCollective(CollectiveOp::kBroadcast, world, p1);
  for (const LocationId p : {p0, p1}) {
    const TimeNs d = p == p0 ? 0 : 3;
    b.Enter(p, 10 + d, ibarrier);
    b.CollBegin(p, 11 + d, ib, 0, 0);
    b.Leave(p, 12 + d, ibarrier);
    b.Enter(p, 13 + d, iallreduce);
    b.CollBegin(p, 14 + d, ia, 8, 8);
    b.Leave(p, 15 + d, iallreduce);
    b.Enter(p, 20 + d, bcast);
    b.CollBegin(p, 21 + d, bc, p == p1 ? 64 : 0, p == p1 ? 0 : 64);
    b.CollEnd(p, 25 + d, bc);
    b.Leave(p, 25 + d, bcast);
    b.Enter(p, 30 + d, waitall);
    b.CollEnd(p, 31 + d, ib);
    b.CollEnd(p, 32 + d, ia);
    b.Leave(p, 33 + d, waitall);
  }
  // Rank 1 begins one more that never ends: written as the wrapper would, a bare begin marker.
  b.Enter(p1, 40, ibarrier);
  b.Marker(p1, 41, b.Intern("mpi.icoll barrier w -1 0 0 1"));
  b.Leave(p1, 42, ibarrier);
  Result<Trace> t = b.Finish();
  ASSERT_THAT(t, IsOk());
  Result<Trace> back = RoundTrip(*t, "nonblocking");
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(back->diagnostics().Count(Diag::kUnfinishedCollectives), 1u);
  // Everything but the unfinished collective's marker (not an event of the model) is back.
  EXPECT_EQ(back->event_count(), t->event_count() - 1);
  const CollectiveTable& c = back->collectives();
  ASSERT_EQ(c.size(), 3u);
  for (uint32_t i = 0; i < 3; ++i) {
    ASSERT_EQ(c.member_count(CollectiveId(i)), 2u);
    for (uint32_t k = c.first_member[i]; k < c.first_member[i + 1]; ++k) {
      const EventColumns& ev = back->events(c.member_location[k]);
      const TimeNs d = c.member_location[k] == LocationId(0) ? 0 : 3;
      const TimeNs begin = ev.time[c.member_begin[k]] - d, end = ev.time[c.member_end[k]] - d;
      std::pair<TimeNs, TimeNs> want{-1, -1};  // no other operation was written
      if (c.op[i] == CollectiveOp::kBroadcast) want = {21, 25};
      if (c.op[i] == CollectiveOp::kBarrier) want = {11, 31};
      if (c.op[i] == CollectiveOp::kAllreduce) want = {14, 32};
      EXPECT_EQ(std::make_pair(begin, end), want) << CollectiveOpName(c.op[i]);
    }
  }
}

TEST(GstWriter, NegativeTimesAndOriginSurvive) {
  TraceBuilder b("test");
  const LocationId p = b.AddLocation("processor 3", LocationKind::kProcessor, 3);
  const RegionId g = b.AddRegion("grain", RegionRole::kGrain, 42);
  b.SetOrigin(-70);
  b.Enter(p, -50, g);
  b.Marker(p, -40, b.Intern("mark"));
  b.Leave(p, 5, g);
  Result<Trace> t = b.Finish();
  ASSERT_THAT(t, IsOk());
  Result<Trace> back = RoundTrip(*t, "negative");
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(Events(*back), Events(*t));
  EXPECT_EQ(back->region(RegionId(0)).external_id, 42);
}

// Issue 33: a call site's executions are one region with an id per instance; the .gst keeps each
// id (packed, and in a GrainSlot when it does not fit 32 bits), nested or not.
TEST(GstWriter, InstanceIdsSurvive) {
  TraceBuilder b("test");
  const LocationId p = b.AddLocation("processor 0", LocationKind::kProcessor, 0);
  const RegionId site = b.AddRegion("block", RegionRole::kGrain, 7);
  const RegionId inner = b.AddRegion("inner", RegionRole::kFunction, 8);
  const std::vector<int64_t> ids = {0, 41, int64_t{1} << 40, -3};
  TimeNs t = 0;
  for (int64_t id : ids) {
    b.EnterInstance(p, t++, site, id);
    b.Enter(p, t++, inner);
    b.Leave(p, t++, inner);
    b.Leave(p, t++, site);
  }
  Result<Trace> trace = b.Finish();
  ASSERT_THAT(trace, IsOk());
  Result<Trace> back = RoundTrip(*trace, "instances");
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(Events(*back), Events(*trace));
  ASSERT_EQ(back->instances().size(), ids.size());
  for (size_t k = 0; k < ids.size(); ++k) {
    EXPECT_EQ(back->InstanceId(LocationId(0), static_cast<EventIndex>(4 * k)), std::optional<int64_t>(ids[k]));
    EXPECT_EQ(back->InstanceId(LocationId(0), static_cast<EventIndex>(4 * k + 1)), std::nullopt);
  }
  size_t blocks = 0;
  for (const Region& r : back->regions()) blocks += back->str(r.name) == "block";
  EXPECT_EQ(blocks, 1u);
}

// A rank's grain instances survive a rank directory, whose merge moves each rank's events in
// whole (model/part_events.cc) and registers their instances on the way.
TEST(GstWriter, InstanceIdsSurviveARankDirectory) {
  TraceBuilder b("test");
  const LocationId r0 = b.AddLocation("rank 0", LocationKind::kRank, 0);
  const LocationId r1 = b.AddLocation("rank 1", LocationKind::kRank, 1);
  b.AddCommunicator("MPI_COMM_WORLD", {r0, r1});
  const RegionId site = b.AddRegion("block", RegionRole::kGrain, 7);
  const std::vector<int64_t> ids = {5, 41, int64_t{1} << 40};
  for (const LocationId l : {r0, r1}) {
    TimeNs t = 0;
    for (int64_t id : ids) {
      b.EnterInstance(l, t++, site, id + l.value);
      b.Leave(l, t++, site);
    }
  }
  Result<Trace> trace = b.Finish();
  ASSERT_THAT(trace, IsOk());
  ASSERT_TRUE(GstNeedsRankDirectory(*trace));
  Result<Trace> back = RoundTrip(*trace, "rank-instances");
  ASSERT_THAT(back, IsOk());
  ASSERT_EQ(back->instances().size(), 2 * ids.size());
  for (uint32_t l = 0; l < 2; ++l) {
    for (size_t k = 0; k < ids.size(); ++k) {
      EXPECT_EQ(back->InstanceId(LocationId(l), static_cast<EventIndex>(2 * k)), std::optional<int64_t>(ids[k] + l));
    }
  }
}

TEST(GstWriter, ReplacesAnExistingOutput) {
  const std::string path = std::string(GRAINSCOPE_EXAMPLES_DIR) + "/traces/mpi_barrier_imbalance";
  Result<Trace> original = ReadTrace(path);
  ASSERT_THAT(original, IsOk());
  const std::string out = Fresh("replace");
  ASSERT_THAT(WriteGst(*original, out), IsOk());
  EXPECT_THAT(WriteGst(*original, out), StatusIs(StatusCode::kIoError, HasSubstr("exists; --force replaces it")));
  ASSERT_THAT(WriteGst(*original, out, {.force = true}), IsOk());
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(out)) entries += e.path().filename().string().starts_with("rank-");
  EXPECT_EQ(entries, 4u);
  for (const auto& e : fs::directory_iterator(fs::path(out).parent_path()))
    EXPECT_FALSE(e.path().filename().string().starts_with("." + fs::path(out).filename().string())) << e.path();
  // A directory holding anything but rank files is not a .gst trace: never replaced.
  ASSERT_THAT(WriteNewFile(out + "/notes.txt", "keep"), IsOk());
  EXPECT_THAT(WriteGst(*original, out, {.force = true}),
              StatusIs(StatusCode::kIoError, HasSubstr("holding 'notes.txt', which is not part of a .gst trace")));
  EXPECT_EQ(*ReadFile(out + "/notes.txt"), "keep");
}

}  // namespace
}  // namespace grainscope
