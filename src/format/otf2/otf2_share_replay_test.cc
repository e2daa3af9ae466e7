// The what-if replay of a trace read in shares (analysis/replay/replay_shares.h), each share on
// its own thread talking to the others only through a LocalShareExchange: share 0 gets Replay's
// figures for the whole trace, location by location, and the replayed run's critical path.
#include <filesystem>
#include <optional>
#include <span>
#include <thread>
#include <tuple>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "analysis/critpath/critpath.h"
#include "analysis/regions/straggler.h"
#include "analysis/replay/clc.h"
#include "analysis/replay/replay.h"
#include "analysis/replay/replay_shares.h"
#include "format/otf2/otf2_reader.h"
#include "format/otf2/otf2_share_testing.h"
#include "format/otf2/otf2_writer.h"
#include "model/share_exchange.h"

namespace grainscope {
namespace {

namespace fs = std::filesystem;

// The replay of `w` over `count` shares is, on share 0, the whole trace's replay.
void ExpectSharedReplayIsTheWholes(const std::string& path, uint32_t count, const WhatIf& w) {
  SCOPED_TRACE(fmt::format("{}: replay in {} shares", path, count));
  Result<Trace> whole = ReadOtf2(path);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  Result<ReplayResult> want = Replay(*whole, w);
  ASSERT_TRUE(want.ok()) << want.status().message();
  Result<Trace> replayed = whole->Retimed(std::move(want->times), "+replay");
  ASSERT_TRUE(replayed.ok()) << replayed.status().message();
  Result<CriticalPath> want_path = ComputeCriticalPath(*replayed);
  ASSERT_TRUE(want_path.ok()) << want_path.status().message();

  const std::vector<TraceShare> shares = ReadCompleted(path, count);
  ASSERT_EQ(shares.size(), count);
  auto got = OnShares<std::optional<SharedReplay>>(
      shares, [&](const TraceShare& share, ShareExchange& exchange) { return ReplayShare(share, exchange, w); });
  for (uint32_t k = 0; k < count; ++k) {
    ASSERT_TRUE(got[k].ok()) << "share " << k << ": " << got[k].status().message();
    EXPECT_EQ(got[k]->has_value(), k == 0) << "share " << k;
  }
  ASSERT_TRUE(got[0]->has_value());
  const ReplayResult& r = (*got[0])->result;
  EXPECT_EQ(r.measured_ns, want->measured_ns);
  EXPECT_EQ(r.predicted_ns, want->predicted_ns);
  EXPECT_EQ(r.max_deviation_ns, want->max_deviation_ns);
  EXPECT_EQ(r.events, want->events);
  EXPECT_EQ(r.clock_violations.messages, want->clock_violations.messages);
  EXPECT_EQ(r.clock_violations.collectives, want->clock_violations.collectives);
  EXPECT_EQ(r.clock_violations.dependencies, want->clock_violations.dependencies);
  auto location = [](const LocationReplay& l) { return std::tuple(l.location, l.measured_ns, l.predicted_ns); };
  ASSERT_EQ(r.locations.size(), want->locations.size());
  for (size_t i = 0; i < r.locations.size(); ++i) EXPECT_EQ(location(r.locations[i]), location(want->locations[i])) << i;
  const CriticalPath& cp = (*got[0])->replayed_path;
  EXPECT_EQ(cp.length_ns, want_path->length_ns);
  EXPECT_EQ(cp.end_location, want_path->end_location);
  EXPECT_EQ(cp.compute_ns, want_path->compute_ns);
  auto region = [](const RegionPathTime& p) { return std::tuple(p.region, p.time_ns, p.fraction); };
  ASSERT_EQ(cp.profile.size(), want_path->profile.size());
  for (size_t i = 0; i < cp.profile.size(); ++i) EXPECT_EQ(region(cp.profile[i]), region(want_path->profile[i])) << i;
  // A what-if that changes something changes the run (the comparison is not of two identities).
  if (!w.identity()) {
    EXPECT_NE(r.predicted_ns, r.measured_ns);
  }
}

// The hybrid run with process 2's clock (its 3 locations) 400 ns behind: its receives come before
// their sends.
Trace SkewedHybridRun() {
  Trace t = HybridRun(6, 3);
  std::vector<std::vector<TimeNs>> times;
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    const std::span<const TimeNs> at = t.events(LocationId(l)).time;
    times.emplace_back(at.begin(), at.end());
    if (t.location(LocationId(l)).group == t.location(LocationId(6)).group)
      for (TimeNs& time : times.back()) time -= 400;
  }
  Result<Timeline> skewed = Timeline::FromLocations(std::move(times));
  EXPECT_TRUE(skewed.ok()) << skewed.status().message();
  Result<Trace> out = t.Retimed(std::move(*skewed), "");
  EXPECT_TRUE(out.ok()) << out.status().message();
  return std::move(*out);
}

// The clock correction over shares corrects every share's events, own and ghost, as the whole
// trace's: then the replay of the corrected shares is the whole corrected trace's.
void ExpectSharedClcIsTheWholes(const std::string& path, uint32_t count, TimeNs min_latency) {
  SCOPED_TRACE(fmt::format("{}: clock correction in {} shares, min latency {}", path, count, min_latency));
  Result<Trace> whole = ReadOtf2(path);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  Result<ClcResult> want = ControlledLogicalClock(*whole, {min_latency});
  ASSERT_TRUE(want.ok()) << want.status().message();
  ASSERT_GT(want->violations.messages, 0u);
  ASSERT_GT(want->moved_events, 0u);
  const std::vector<TraceShare> shares = ReadCompleted(path, count);
  std::vector<ClockViolations> before(count);
  auto got = OnShares<TraceShare>(shares, [&](const TraceShare& share, ShareExchange& exchange) {
    return CorrectClocksOfShare(share, exchange, {min_latency}, before[exchange.index()]);
  });
  uint64_t compared = 0;
  for (uint32_t k = 0; k < count; ++k) {
    ASSERT_TRUE(got[k].ok()) << "share " << k << ": " << got[k].status().message();
    EXPECT_EQ(std::tuple(before[k].messages, before[k].collectives, before[k].dependencies),
              std::tuple(want->violations.messages, want->violations.collectives, want->violations.dependencies));
    // Own locations are the whole's; a ghost event is its owner's event at its corrected time.
    const Trace& t = got[k]->trace;
    for (uint32_t l = 0; l < t.locations().size(); ++l) {
      const std::span<const TimeNs> at = t.events(LocationId(l)).time;
      if (shares[k].locations.Holds(l)) {
        ASSERT_EQ(at.size(), want->times.at(LocationId(l)).size());
        for (EventIndex e = 0; e < at.size(); ++e) ASSERT_EQ(at[e], want->times.at(LocationId(l), e)) << l << " " << e;
        compared += at.size();
        continue;
      }
      const std::span<const TimeNs> measured = shares[k].trace.events(LocationId(l)).time;
      const std::span<const TimeNs> whole_measured = whole->events(LocationId(l)).time;
      size_t w = 0;
      for (EventIndex e = 0; e < at.size(); ++e, ++w) {
        while (w < whole_measured.size() && whole_measured[w] != measured[e]) ++w;
        ASSERT_LT(w, whole_measured.size()) << "ghost event " << e << " of location " << l;
        ASSERT_EQ(at[e], want->times.at(LocationId(l), static_cast<EventIndex>(w))) << "ghost " << l << " " << e;
      }
    }
  }
  EXPECT_EQ(compared, whole->event_count());
}

WhatIf LatencyBandwidth(TimeNs latency, double bytes_per_ns) {
  WhatIf w;
  w.network.kind = NetworkKind::kLatencyBandwidth;
  w.network.latency_ns = latency;
  w.network.bytes_per_ns = bytes_per_ns;
  return w;
}

class Otf2ShareReplay : public HybridArchiveTest {};

TEST_F(Otf2ShareReplay, TheIdentityReplayOverSharesIsTheWholes) {
  for (uint32_t count : {1u, 2u, 3u, 6u}) ExpectSharedReplayIsTheWholes(Hybrid(), count, WhatIf{});
}

TEST_F(Otf2ShareReplay, EveryModelOverSharesIsTheWholes) {
  ExpectSharedReplayIsTheWholes(Hybrid(), 4, LatencyBandwidth(5000, 0.5));
  WhatIf zero;
  zero.network.kind = NetworkKind::kZero;
  zero.collective.measured = false;
  zero.collective.fan_in = zero.collective.fan_out = CollectivePhase::kZero;
  ExpectSharedReplayIsTheWholes(Hybrid(), 3, zero);
  WhatIf modelled;
  modelled.network.kind = NetworkKind::kLogGP;
  modelled.collective.measured = false;
  modelled.collective.fan_in = modelled.collective.fan_out = CollectivePhase::kLog;
  modelled.collective.latency_ns = 300;
  ExpectSharedReplayIsTheWholes(Hybrid(), 2, modelled);
  WhatIf faster;
  faster.collective.speed = 2;
  faster.location_speed.push_back({"rank 2", 2.0, LocationId()});
  faster.region_speed.push_back({"work", 1.25, LocationId()});
  ExpectSharedReplayIsTheWholes(Hybrid(), 5, faster);
  WhatIf removed;
  removed.removed_regions.push_back("work");
  ExpectSharedReplayIsTheWholes(Hybrid(), 3, removed);
}

// latbw without parameters fits them to the trace's messages: every share gets the whole's fit.
TEST_F(Otf2ShareReplay, TheNetworkFitOverSharesIsTheWholes) {
  Result<Trace> whole = ReadOtf2(Hybrid());
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  const NetworkFit want = FitLatencyBandwidth(*whole);
  ASSERT_GT(want.messages, 0u);
  ASSERT_EQ(want.sizes, 2u);
  for (uint32_t count : {1u, 3u, 6u}) {
    const std::vector<TraceShare> shares = ReadCompleted(Hybrid(), count);
    auto got = OnShares<NetworkFit>(
        shares, [](const TraceShare& share, ShareExchange& exchange) { return FitLatencyBandwidthOfShare(share, exchange); });
    for (uint32_t k = 0; k < count; ++k) {
      ASSERT_TRUE(got[k].ok()) << got[k].status().message();
      EXPECT_EQ(std::tuple(got[k]->latency_ns, got[k]->bytes_per_ns, got[k]->messages, got[k]->sizes),
                std::tuple(want.latency_ns, want.bytes_per_ns, want.messages, want.sizes))
          << count << " shares, share " << k;
    }
  }
}

// --unstraggle compares processes' computation: every share gets the whole trace's, process by
// process, so the plan is the whole's.
TEST_F(Otf2ShareReplay, TheProcessesComputationOverSharesIsTheWholes) {
  Result<Trace> whole = ReadOtf2(Hybrid());
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  const ProcessComputation want = ComputeProcessComputation(*whole, LocationSet{});
  ASSERT_EQ(want.size(), 6u);
  for (uint32_t count : {1u, 2u, 4u}) {
    const std::vector<TraceShare> shares = ReadCompleted(Hybrid(), count);
    auto got = OnShares<ProcessComputation>(shares, [](const TraceShare& share, ShareExchange& exchange) {
      return ComputeProcessComputationOfShare(share, exchange);
    });
    for (uint32_t k = 0; k < count; ++k) {
      ASSERT_TRUE(got[k].ok()) << got[k].status().message();
      EXPECT_EQ(*got[k], want) << count << " shares, share " << k;
    }
  }
}

TEST_F(Otf2ShareReplay, TheClockCorrectionOverSharesIsTheWholes) {
  const std::string skewed = Path("skewed");
  ASSERT_TRUE(WriteOtf2(SkewedHybridRun(), skewed).ok());
  for (uint32_t count : {1u, 2u, 3u, 6u}) ExpectSharedClcIsTheWholes(skewed, count, 0);
  ExpectSharedClcIsTheWholes(skewed, 4, 50);
}

// An unknown region name is an error on every share, not a hang.
TEST_F(Otf2ShareReplay, AnUnknownNameFailsOnEveryShare) {
  const std::vector<TraceShare> shares = ReadCompleted(Hybrid(), 3);
  WhatIf w;
  w.removed_regions.push_back("no such region");
  auto got = OnShares<std::optional<SharedReplay>>(
      shares, [&](const TraceShare& share, ShareExchange& exchange) { return ReplayShare(share, exchange, w); });
  for (uint32_t k = 0; k < 3; ++k) {
    ASSERT_FALSE(got[k].ok()) << "share " << k;
    EXPECT_NE(got[k].status().message().find("no region named 'no such region'"), std::string::npos)
        << got[k].status().message();
  }
}

// Real data: the hybrid BT-MZ run (8 ranks x 4 threads) in 3 shares on a modelled network.
TEST(Otf2ShareReplayCorpus, BtMzOverSharesIsTheWholes) {
  const std::string path = std::string(GRAINSCOPE_CORPUS_DIR) + "/otf2-real/npb-btmz-B-8x4/traces.otf2";
  if (!fs::exists(path)) GTEST_SKIP() << "corpus trace " << path << " is absent (../shared/corpus)";
  ExpectSharedReplayIsTheWholes(path, 3, LatencyBandwidth(20000, 1.0));
}

}  // namespace
}  // namespace grainscope
