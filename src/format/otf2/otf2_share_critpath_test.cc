// The critical path of a trace read in shares (analysis/critpath/critpath_shares.h), each share
// on its own thread talking to the others only through a LocalShareExchange: every figure is the
// whole trace's; a damaged trace (a happens-before cycle, shares that disagree) is an error on
// every share, never a hang.
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <tuple>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "analysis/critpath/critpath.h"
#include "analysis/critpath/critpath_shares.h"
#include "format/otf2/otf2_reader.h"
#include "format/otf2/otf2_share_testing.h"
#include "format/otf2/otf2_writer.h"
#include "model/share_exchange.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

namespace fs = std::filesystem;

// `processes` ranks in a ring that each receive from the one before, then send to the next: the
// receives wait for sends that follow them, a cycle of the happens-before graph (a damaged trace).
Trace CrossingRing(int processes) {
  TraceBuilder b("test");
  std::vector<LocationId> ranks;
  for (int p = 0; p < processes; ++p) ranks.push_back(b.AddLocation(fmt::format("rank {}", p), LocationKind::kRank, p));
  const CommunicatorId world = b.AddCommunicator("MPI_COMM_WORLD", ranks);
  const RegionId work = b.AddRegion("work", RegionRole::kFunction, 1);
  std::vector<MessageId> msg;
  for (int p = 0; p < processes; ++p)
    msg.push_back(b.AddMessage({ranks[p], ranks[(p + 1) % processes], 0, "", 8, world, {}, {}}));
  for (int p = 0; p < processes; ++p) {
    b.Enter(ranks[p], 0, work);
    b.Leave(ranks[p], 10, work);
    b.Recv(ranks[p], 20, msg[(p + processes - 1) % processes]);
    b.Send(ranks[p], 30, msg[p]);
  }
  Result<Trace> t = b.Finish();
  EXPECT_TRUE(t.ok()) << t.status().message();
  return std::move(*t);
}

// Ranks (one location each) exchanging Isend/Irecv with requests (every other iteration above
// the eager limit: rendezvous), then a reduce rooted on the last rank, a broadcast rooted on rank
// 1, a scan, a gather rooted on rank 2 and an allreduce; with `equal`, every rank's work the same
// length: ties everywhere.
Trace CollectiveRing(int processes, int iterations, bool equal) {
  TraceBuilder b("test");
  std::vector<LocationId> ranks;
  for (int p = 0; p < processes; ++p) ranks.push_back(b.AddLocation(fmt::format("rank {}", p), LocationKind::kRank, p));
  const CommunicatorId world = b.AddCommunicator("MPI_COMM_WORLD", ranks);
  const RegionId work = b.AddRegion("work", RegionRole::kFunction, 1);
  const RegionId isend = b.AddRegion("MPI_Isend", RegionRole::kPointToPoint, 3);
  const RegionId irecv = b.AddRegion("MPI_Irecv", RegionRole::kPointToPoint, 4);
  const RegionId wait = b.AddRegion("MPI_Waitall", RegionRole::kPointToPoint, 5);
  const RegionId coll = b.AddRegion("MPI_Reduce", RegionRole::kCollective, 6);
  b.SetEagerLimit(4096, "test");
  std::vector<TimeNs> now(processes, 0);
  for (int i = 0; i < iterations; ++i) {
    std::vector<MessageId> right, left;
    const uint64_t bytes = i % 2 ? 10000 : 16;
    for (int p = 0; p < processes; ++p) {
      right.push_back(b.AddMessage({ranks[p], ranks[(p + 1) % processes], 1, "", bytes, world, {}, {}}));
      left.push_back(b.AddMessage({ranks[p], ranks[(p + processes - 1) % processes], 2, "", bytes, world, {}, {}}));
    }
    for (int p = 0; p < processes; ++p) {
      const LocationId l = ranks[p];
      TimeNs& t = now[p];
      b.Enter(l, t, work);
      t += equal ? 100 : 100 + 17 * ((p * 7 + i) % 5);
      b.Leave(l, t, work);
      for (const auto& [region, kind, msg] : {std::tuple(irecv, 0, left[(p + 1) % processes]),
                                              std::tuple(irecv, 0, right[(p + processes - 1) % processes]),
                                              std::tuple(isend, 1, right[p]), std::tuple(isend, 1, left[p])}) {
        b.Enter(l, t, region);
        if (kind == 0) {
          b.RecvPost(l, t + 1, msg);
        } else {
          b.Send(l, t + 1, msg);
        }
        b.Leave(l, t + 2, region);
        t += 2;
      }
    }
    TimeNs last = 0;
    for (TimeNs t : now) last = std::max(last, t);
    for (int p = 0; p < processes; ++p) {
      const LocationId l = ranks[p];
      TimeNs& t = now[p];
      b.Enter(l, t, wait);
      t = last + 20;
      b.SendComplete(l, t, right[p]);
      b.SendComplete(l, t, left[p]);
      b.Recv(l, t + 1, left[(p + 1) % processes]);
      b.Recv(l, t + 1, right[(p + processes - 1) % processes]);
      b.Leave(l, t + 2, wait);
      t += 2;
    }
    for (const auto& [op, root] : {std::pair(CollectiveOp::kReduce, processes - 1), std::pair(CollectiveOp::kBroadcast, 1),
                                   std::pair(CollectiveOp::kScan, -1), std::pair(CollectiveOp::kGather, 2),
                                   std::pair(CollectiveOp::kAllreduce, -1)}) {
      const CollectiveId id = b.AddCollective(op, world, root < 0 ? LocationId() : ranks[root % processes]);
      TimeNs latest = 0;
      for (TimeNs t : now) latest = std::max(latest, t);
      for (int p = 0; p < processes; ++p) {
        const LocationId l = ranks[p];
        TimeNs& t = now[p];
        b.Enter(l, t, coll);
        b.CollBegin(l, t + 1, id, 8, 8);
        t = (equal ? latest : latest + 3 * ((p + i) % 3)) + 10;
        b.CollEnd(l, t, id);
        b.Leave(l, t + 1, coll);
        t += 1;
        b.Enter(l, t, work);
        t += equal ? 50 : 50 + 11 * ((p + i + static_cast<int>(op)) % 4);
        b.Leave(l, t, work);
      }
    }
  }
  Result<Trace> t = b.Finish();
  EXPECT_TRUE(t.ok()) << t.status().message();
  return std::move(*t);
}

// A share's exchange whose received blobs `tamper` may change (shares that read a trace
// differently, or a damaged transport).
class Tampering : public ShareExchange {
 public:
  Tampering(LocalShareExchange& all, uint32_t k, std::function<void(std::string&)> tamper)
      : member_(all, k), tamper_(std::move(tamper)) {}
  uint32_t index() const override { return member_.index(); }
  uint32_t count() const override { return member_.count(); }
  Result<std::vector<std::string>> AllToAll(std::vector<std::string> out) override {
    return member_.AllToAll(std::move(out));
  }
  Status Send(uint32_t to, std::string blob) override { return member_.Send(to, std::move(blob)); }
  Result<std::pair<uint32_t, std::string>> Receive() override {
    Result<std::pair<uint32_t, std::string>> r = member_.Receive();
    if (r.ok() && tamper_) tamper_(r->second);
    return r;
  }

 private:
  LocalShareExchange::Member member_;
  std::function<void(std::string&)> tamper_;
};

// Every share's status when share `victim`'s received blobs go through `tamper`.
std::vector<Status> RunTampered(const std::vector<TraceShare>& shares, uint32_t victim,
                                const std::function<void(std::string&)>& tamper) {
  const uint32_t count = static_cast<uint32_t>(shares.size());
  LocalShareExchange exchange(count);
  std::vector<Status> got(count);
  std::vector<std::thread> threads;
  for (uint32_t k = 0; k < count; ++k)
    threads.emplace_back([&, k] {
      Tampering me(exchange, k, k == victim ? tamper : nullptr);
      got[k] = ComputeCriticalPathOfShare(shares[k], me).status();
    });
  for (std::thread& t : threads) t.join();
  return got;
}

// A sweep's blob of values: an 8-byte header of kind 0, then 24-byte values (location, reserved,
// value, time); `change(location, time, at)` sees each and returns whether it changed the blob.
void EachValue(std::string& blob, const std::function<bool(uint32_t, int64_t, size_t)>& change) {
  uint32_t kind = 1;
  if (blob.size() < 8) return;
  std::memcpy(&kind, blob.data(), 4);
  if (kind != 0) return;
  for (size_t at = 8; at + 24 <= blob.size(); at += 24) {
    uint32_t location = 0;
    int64_t time = 0;
    std::memcpy(&location, blob.data() + at, 4);
    std::memcpy(&time, blob.data() + at + 16, 8);
    if (change(location, time, at)) return;
  }
}


// The critical path of completed shares, each on its own thread (ComputeCriticalPathOfShare),
// is on share 0 the whole trace's, figure by figure; the other shares get none.
void ExpectSharedCriticalPathIsTheWholes(const std::string& path, uint32_t count, TimeNs latency = 0) {
  SCOPED_TRACE(fmt::format("{}: critical path in {} shares", path, count));
  Result<Trace> whole = ReadOtf2(path);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  Result<CriticalPath> want = ComputeCriticalPath(*whole, {latency});
  ASSERT_TRUE(want.ok()) << want.status().message();
  const std::vector<TraceShare> shares = ReadCompleted(path, count);
  ASSERT_EQ(shares.size(), count);
  LocalShareExchange exchange(count);
  std::vector<Result<std::optional<CriticalPath>>> got;
  for (uint32_t k = 0; k < count; ++k) got.emplace_back(InvalidArgument("not computed"));
  std::vector<std::thread> threads;
  for (uint32_t k = 0; k < count; ++k)
    threads.emplace_back([&, k] {
      LocalShareExchange::Member me(exchange, k);
      got[k] = ComputeCriticalPathOfShare(shares[k], me, {latency});
    });
  for (std::thread& t : threads) t.join();
  for (uint32_t k = 0; k < count; ++k) {
    ASSERT_TRUE(got[k].ok()) << "share " << k << ": " << got[k].status().message();
    EXPECT_EQ(got[k]->has_value(), k == 0) << "share " << k;
  }
  ASSERT_TRUE(got[0]->has_value());
  const CriticalPath& cp = **got[0];
  EXPECT_EQ(cp.length_ns, want->length_ns);
  EXPECT_EQ(cp.measured_ns, want->measured_ns);
  EXPECT_EQ(cp.transfer_ns, want->transfer_ns);
  EXPECT_EQ(cp.end_location, want->end_location);
  EXPECT_EQ(cp.message_count, want->message_count);
  EXPECT_EQ(cp.rendezvous_sends, want->rendezvous_sends);
  EXPECT_EQ(cp.compute_ns, want->compute_ns);
  EXPECT_EQ(cp.load_balance, want->load_balance);
  EXPECT_EQ(cp.transfer_efficiency, want->transfer_efficiency);
  EXPECT_EQ(cp.serialization_efficiency, want->serialization_efficiency);
  auto segment = [](const PathSegment& s) { return std::tuple(s.location, s.region, s.start_ns, s.end_ns, s.time_ns); };
  ASSERT_EQ(cp.path.size(), want->path.size());
  for (size_t i = 0; i < cp.path.size(); ++i) ASSERT_EQ(segment(cp.path[i]), segment(want->path[i])) << "stretch " << i;
  auto region = [](const RegionPathTime& r) { return std::tuple(r.region, r.time_ns, r.fraction); };
  ASSERT_EQ(cp.profile.size(), want->profile.size());
  for (size_t i = 0; i < cp.profile.size(); ++i) EXPECT_EQ(region(cp.profile[i]), region(want->profile[i])) << i;
  auto imbalance = [](const RegionImbalance& r) { return std::tuple(r.region, r.on_path_ns, r.mean_ns, r.imbalance_ns); };
  ASSERT_EQ(cp.imbalance.size(), want->imbalance.size());
  for (size_t i = 0; i < cp.imbalance.size(); ++i) EXPECT_EQ(imbalance(cp.imbalance[i]), imbalance(want->imbalance[i])) << i;
  auto slack = [](const GrainSlack& g) {
    return std::tuple(g.grain.location, g.grain.region, g.grain.start, g.grain.enter, g.earliest_ns, g.slack_ns);
  };
  ASSERT_EQ(cp.slack.size(), want->slack.size());
  for (size_t i = 0; i < cp.slack.size(); ++i) ASSERT_EQ(slack(cp.slack[i]), slack(want->slack[i])) << "grain " << i;
  EXPECT_GT(cp.path.size(), 0u);
}

class Otf2ShareCritPath : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / fmt::format("gs_otf2_share_critpath_{}", getpid()));
    fs::create_directories(*dir_);
    ASSERT_TRUE(WriteOtf2(HybridRun(6, 3), Path("hybrid")).ok());
    ASSERT_TRUE(WriteOtf2(CrossingRing(4), Path("crossing")).ok());
    ASSERT_TRUE(WriteOtf2(CollectiveRing(5, 6, false), Path("collectives")).ok());
    ASSERT_TRUE(WriteOtf2(CollectiveRing(7, 6, true), Path("collectives_tied")).ok());
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  static std::string Path(const char* name) { return (*dir_ / name).string(); }
  static fs::path* dir_;
};
fs::path* Otf2ShareCritPath::dir_ = nullptr;

TEST_F(Otf2ShareCritPath, TheCriticalPathOverSharesIsTheWholeTracesPath) {
  for (uint32_t count : {1u, 2u, 3u, 4u, 6u, 8u}) ExpectSharedCriticalPathIsTheWholes(Path("hybrid"), count);
  ExpectSharedCriticalPathIsTheWholes(Path("hybrid"), 3, /*latency=*/25);
}

// A cycle of the happens-before graph across shares leaves every share waiting for another: the
// sweep's end is detected and every share gets the serial sweep's error instead of a hang.
TEST_F(Otf2ShareCritPath, ACycleAcrossSharesIsAnErrorOnEveryShare) {
  const std::string path = Path("crossing");
  ASSERT_FALSE(ComputeCriticalPath(*ReadOtf2(path)).ok());
  for (uint32_t count : {2u, 4u}) {
    const std::vector<TraceShare> shares = ReadCompleted(path, count);
    ASSERT_EQ(shares.size(), count);
    LocalShareExchange exchange(count);
    std::vector<Status> got(count);
    std::vector<std::thread> threads;
    for (uint32_t k = 0; k < count; ++k)
      threads.emplace_back([&, k] {
        LocalShareExchange::Member me(exchange, k);
        got[k] = ComputeCriticalPathOfShare(shares[k], me).status();
      });
    for (std::thread& t : threads) t.join();
    for (uint32_t k = 0; k < count; ++k)
      EXPECT_NE(got[k].message().find("happens-before graph has a cycle"), std::string::npos)
          << count << " shares, share " << k << ": " << got[k].message();
  }
}


// Point-to-point requests, rendezvous, every collective shape (one-to-all, all-to-one, prefix,
// all-to-all), with ties and with latencies that make a broadcast's member wait for its root.
TEST_F(Otf2ShareCritPath, EveryCollectiveShapeOverSharesIsTheWholeTraces) {
  for (const char* name : {"collectives", "collectives_tied"})
    for (uint32_t count : {2u, 3u, 5u})
      for (TimeNs latency : {0, 7, 25}) ExpectSharedCriticalPathIsTheWholes(Path(name), count, latency);
}

// A share that receives a value for another event than its ghost event there (shares that read the
// trace differently) fails, and so does every other share, with its reason: none waits forever.
TEST_F(Otf2ShareCritPath, SharesThatDisagreeFailTogether) {
  const std::vector<TraceShare> shares = ReadCompleted(Path("collectives"), 4);
  for (uint32_t victim : {0u, 1u}) {
    bool once = false;
    const std::vector<Status> got = RunTampered(shares, victim, [&](std::string& blob) {
      EachValue(blob, [&](uint32_t, int64_t time, size_t at) {
        if (once) return true;
        const int64_t later = time + 1;
        std::memcpy(blob.data() + at + 16, &later, 8);
        return once = true;
      });
    });
    for (uint32_t k = 0; k < got.size(); ++k)
      EXPECT_NE(got[k].message().find("the shares disagree about the trace"), std::string::npos)
          << "victim " << victim << ", share " << k << ": " << got[k].message();
  }
}

// A value that never comes leaves a ghost event unfilled when the sweep ends: an error on every share.
TEST_F(Otf2ShareCritPath, AValueThatNeverComesIsAnErrorOnEveryShare) {
  const std::vector<TraceShare> shares = ReadCompleted(Path("collectives"), 4);
  uint32_t other = 0;  // share 0's first ghost location: its last value is dropped
  while (shares[0].locations.Holds(other) || shares[0].trace.events(LocationId(other)).size() == 0) ++other;
  const int64_t last = shares[0].trace.events(LocationId(other)).time.back();
  bool once = false;
  const std::vector<Status> got = RunTampered(shares, 0, [&](std::string& blob) {
    EachValue(blob, [&](uint32_t location, int64_t time, size_t at) {
      if (once || location != other || time != last) return false;
      blob.erase(at, 24);
      return once = true;
    });
  });
  ASSERT_TRUE(once);
  for (uint32_t k = 0; k < got.size(); ++k)
    EXPECT_NE(got[k].message().find("without every value"), std::string::npos) << "share " << k << ": " << got[k].message();
}

// Real data: the hybrid BT-MZ run (8 ranks x 4 threads, rendezvous halo messages) in 3 shares.
TEST(Otf2ShareCritPathCorpus, BtMzOverSharesIsTheWholeTraces) {
  const std::string path = std::string(GRAINSCOPE_CORPUS_DIR) + "/otf2-real/npb-btmz-B-8x4/traces.otf2";
  if (!fs::exists(path)) GTEST_SKIP() << "corpus trace " << path << " is absent (../shared/corpus)";
  ExpectSharedCriticalPathIsTheWholes(path, 3);
}

}  // namespace
}  // namespace grainscope
