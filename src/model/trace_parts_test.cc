#include "model/trace_parts.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

// Rank `rank`'s part: a "work" region, one message end on channel "c" (a send on rank 0, a
// receive on rank 1) and its member of the first collective on communicator "w".
TracePart RankPart(int64_t rank, int64_t clock_base) {
  TraceBuilder b("test");
  const LocationId main = b.AddLocation("main", LocationKind::kThread, 0);
  const RegionId work = b.AddRegion("work", RegionRole::kGrain, 1);
  const RegionId call = b.AddRegion("MPI_Allreduce", RegionRole::kCollective, 2);
  MessageInfo info;
  info.name = "c";
  info.bytes = 64;
  const MessageId m = b.AddMessage(info);
  b.Enter(main, 100, work);
  if (rank == 0) {
    b.Send(main, 150, m);
  } else {
    b.Recv(main, 190, m);
  }
  b.Leave(main, 200, work);
  b.Enter(main, 300, call);
  const CommunicatorId own = b.AddCommunicator("w", {});
  const CollectiveId c = b.AddCollective(CollectiveOp::kAllreduce, own, LocationId());
  b.CollBegin(main, 300, c, 8, 8);
  b.CollEnd(main, 400, c);
  b.Leave(main, 400, call);
  b.SetDeriveThreadSync(false);
  Result<Trace> t = b.Finish();
  EXPECT_THAT(t, IsOk());
  TracePart part;
  part.name = "rank file " + std::to_string(rank);
  part.rank = rank;
  part.trace = std::move(*t);
  part.clock = ClockMap{clock_base};
  part.communicators.push_back({"w", "world", {0, 1}});
  part.collectives.push_back({"w", 0, -1});
  return part;
}

TEST(MergeParts, OneLocationPerRankOnOneClockWithMessagesAndCollectivesAcrossParts) {
  std::vector<TracePart> parts;
  parts.push_back(RankPart(0, 0));
  parts.push_back(RankPart(1, -50));  // rank 1's clock runs 50 ns ahead
  MergeOptions options;
  options.format = "merged";
  options.world_communicator = "w";
  Result<Trace> t = MergeParts(std::move(parts), options);
  ASSERT_THAT(t, IsOk());
  ASSERT_EQ(t->locations().size(), 2u);
  EXPECT_EQ(t->str(t->location(LocationId(1)).name), "rank 1");
  EXPECT_EQ(t->location(LocationId(1)).external_id, 1);
  // Regions merged by (name, role): two, not four.
  EXPECT_EQ(t->regions().size(), 2u);
  // Time zero is rank 1's aligned start (-50); every time moved onto the one clock.
  const EventColumns& r1 = t->events(LocationId(1));
  EXPECT_EQ(r1.time[0], 100);  // rank 1's 100 at -50 + 50
  EXPECT_EQ(t->events(LocationId(0)).time[0], 150);
  // The send of part 0 and the receive of part 1 are one message.
  ASSERT_EQ(t->messages().size(), 1u);
  EXPECT_TRUE(t->messages().matched(MessageId(0)));
  EXPECT_EQ(t->messages().bytes[0], 64u);
  EXPECT_EQ(t->diagnostics().Count(Diag::kSendsWithoutReceive), 0u);
  // The two members are one allreduce on the world communicator.
  ASSERT_EQ(t->collectives().size(), 1u);
  EXPECT_EQ(t->collectives().member_count(CollectiveId(0)), 2u);
  ASSERT_EQ(t->communicators().size(), 1u);
  EXPECT_EQ(t->str(t->communicators()[0].name), "world");
  EXPECT_EQ(t->communicators()[0].members.size(), 2u);
}

TEST(MergeParts, SaysWhatHasNoPartner) {
  std::vector<TracePart> parts;
  parts.push_back(RankPart(0, 0));
  parts.back().communicators.clear();  // no part defines "w"
  MergeOptions options;
  options.format = "merged";
  Result<Trace> t = MergeParts(std::move(parts), options);
  ASSERT_THAT(t, IsOk());
  EXPECT_EQ(t->diagnostics().Count(Diag::kSendsWithoutReceive), 1u);
  EXPECT_EQ(t->diagnostics().Count(Diag::kUnknownCommunicators), 1u);
  EXPECT_EQ(t->collectives().size(), 0u);
}

// Rank `rank`'s file "rank-R.json", its trace what `b` built.
TracePart RankFilePart(int64_t rank, TraceBuilder& b) {
  Result<Trace> t = b.Finish();
  EXPECT_THAT(t, IsOk());
  TracePart part;
  part.name = "rank-" + std::to_string(rank) + ".json";
  part.rank = rank;
  part.trace = std::move(*t);
  return part;
}

// Rank `rank`'s whole file (PartShape::kWholeFiles): a process with a thread and a GPU stream,
// a message and an allreduce within the process, two regions named "step" told apart by their
// category, and the file's own metadata.
TracePart WholeFilePart(int64_t rank, bool message_received) {
  TraceBuilder b("test");
  const LocationId cpu = b.AddLocation("python", LocationKind::kThread, 4000 + rank);
  const LocationId gpu = b.AddLocation("stream 7", LocationKind::kGpuStream, 7);
  b.SetLocationGroup(gpu, cpu.value);
  const RegionId step = b.AddRegion("step", RegionRole::kFunction, 0);
  const RegionId gpu_step = b.AddRegion("step", RegionRole::kFunction, 1);
  MessageInfo info;
  info.sender = cpu;
  info.receiver = gpu;
  info.bytes = 8;
  const MessageId m = b.AddMessage(info);
  const CommunicatorId comm = b.AddCommunicator("pair", {cpu, gpu});
  const CollectiveId c = b.AddCollective(CollectiveOp::kAllreduce, comm, LocationId());
  b.Enter(cpu, 1000, step);
  b.Send(cpu, 1010, m);
  b.CollBegin(cpu, 1020, c, 4, 4);
  b.CollEnd(cpu, 1030, c);
  b.Leave(cpu, 1100, step);
  b.Enter(gpu, 1005, gpu_step);
  if (message_received) b.Recv(gpu, 1015, m);
  b.CollBegin(gpu, 1020, c, 4, 4);
  b.CollEnd(gpu, 1030, c);
  b.Leave(gpu, 1050, gpu_step);
  b.AddMetadata("schemaVersion", "1");
  b.SetOrigin(1000);
  TracePart part = RankFilePart(rank, b);
  part.region_keys = {"user_annotation", "gpu_user_annotation"};
  return part;
}

TEST(MergeParts, WholeFilesKeepTheirLocationsAndTheirOwnRows) {
  std::vector<TracePart> parts;
  parts.push_back(WholeFilePart(0, true));
  parts.push_back(WholeFilePart(1, false));
  parts[1].region_keys = {"gpu_user_annotation", "user_annotation"};  // the same two, first used the other way round
  MergeOptions options{.format = "merged", .shape = PartShape::kWholeFiles};
  options.part_only_diagnostics = {Diag::kReceivesWithoutSend, Diag::kSendsWithoutReceive};
  options.metadata.emplace_back("distributed.world_size", "2");
  Result<Trace> t = MergeParts(std::move(parts), options);
  ASSERT_THAT(t, IsOk());
  const Trace& m = *t;
  ASSERT_EQ(m.locations().size(), 4u);
  EXPECT_EQ(m.str(m.location(LocationId(3)).name), "rank 1 stream 7");
  EXPECT_EQ(m.location(LocationId(3)).kind, LocationKind::kGpuStream);
  EXPECT_EQ(m.location(LocationId(3)).group, 2u);
  EXPECT_EQ(m.location(LocationId(2)).external_id, 4001);
  EXPECT_EQ(m.origin_ns(), 1000);
  // Regions by (name, role, category): two "step" regions, rank 1's mapped by category.
  ASSERT_EQ(m.regions().size(), 2u);
  EXPECT_EQ(m.events(LocationId(0)).arg[0], 0u);
  EXPECT_EQ(m.events(LocationId(2)).arg[0], 1u);  // rank 1's region 0 is the other category
  EXPECT_EQ(m.events(LocationId(3)).arg[0], 0u);
  // Each file's message and allreduce stay its own: one of each per file, never paired across.
  ASSERT_EQ(m.messages().size(), 2u);
  EXPECT_TRUE(m.messages().matched(MessageId(0)));
  EXPECT_FALSE(m.messages().matched(MessageId(1)));
  EXPECT_EQ(m.messages().sender[1], LocationId(2));
  EXPECT_EQ(m.diagnostics().Count(Diag::kSendsWithoutReceive), 1u);  // said once, by the merge
  ASSERT_EQ(m.collectives().size(), 2u);
  EXPECT_EQ(m.collectives().member_count(CollectiveId(1)), 2u);
  ASSERT_EQ(m.communicators().size(), 2u);
  EXPECT_THAT(m.communicators()[1].members, ::testing::ElementsAre(LocationId(2), LocationId(3)));
  // Each file's metadata under its rank, then the options'.
  std::vector<std::string> keys;
  for (const MetadataEntry& e : m.metadata()) keys.emplace_back(m.str(e.key));
  EXPECT_THAT(keys, ::testing::IsSupersetOf({"rank 0 schemaVersion", "rank 1 schemaVersion", "distributed.world_size"}));
}

// Rank `rank`'s file with one end of a message on channel "p2p 0->1" (NCCL's send and recv
// kernels): a send on rank 0's stream, a receive on any other rank's.
TracePart MessageEndPart(int64_t rank, std::string_view channel) {
  TraceBuilder b("test");
  const LocationId gpu = b.AddLocation("stream 7", LocationKind::kGpuStream, 7);
  const RegionId kernel = b.AddRegion("ncclDevKernel_SendRecv", RegionRole::kCommCollective, 0);
  MessageInfo info;
  (rank == 0 ? info.sender : info.receiver) = gpu;
  info.name = channel;
  info.bytes = 64;
  const MessageId m = b.AddMessage(info);
  b.Enter(gpu, 100, kernel);
  if (rank == 0) b.Send(gpu, 100, m);
  if (rank != 0) b.Recv(gpu, 300, m);
  b.Leave(gpu, 300, kernel);
  return RankFilePart(rank, b);
}

TEST(MergeParts, WholeFilesPairNamedMessageEndsAcrossFiles) {
  std::vector<TracePart> parts;
  parts.push_back(MessageEndPart(0, "p2p 0->1"));
  parts.push_back(MessageEndPart(1, "p2p 0->1"));
  parts.push_back(MessageEndPart(2, "p2p 3->2"));  // a receive from a rank whose file is missing
  parts.push_back(MessageEndPart(3, "other"));     // a channel the format does not pair across
  MergeOptions options{.format = "merged", .shape = PartShape::kWholeFiles};
  options.pairs_across_files = [](std::string_view channel) { return channel.starts_with("p2p "); };
  Result<Trace> t = MergeParts(std::move(parts), options);
  ASSERT_THAT(t, IsOk());
  const MessageTable& m = t->messages();
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(t->str(m.name[0]), "other");  // copied as its file's own row
  EXPECT_FALSE(m.matched(MessageId(0)));
  EXPECT_TRUE(m.matched(MessageId(1)));
  EXPECT_EQ(m.sender[1], LocationId(0));
  EXPECT_EQ(m.receiver[1], LocationId(1));
  EXPECT_EQ(t->str(m.name[1]), "p2p 0->1");
  EXPECT_FALSE(m.matched(MessageId(2)));
  // The unmatched receive from rank 3 is said by the merge; the "other" row's report is its part's.
  EXPECT_EQ(t->diagnostics().Count(Diag::kReceivesWithoutSend), 1u);
}

TEST(ClockMap, DriftsLinearlyBetweenItsAnchorsAndIsConstantOutside) {
  const ClockMap c{1000, 100, 300, 40};
  EXPECT_EQ(c(0), 1000);
  EXPECT_EQ(c(100), 1100);
  EXPECT_EQ(c(200), 1220);
  EXPECT_EQ(c(300), 1340);
  EXPECT_EQ(c(400), 1440);
}

}  // namespace
}  // namespace grainscope
