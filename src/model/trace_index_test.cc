#include "model/trace_index.h"

#include <random>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

constexpr EventIndex kNone = kNoEvent;

std::vector<EventIndex> Column(const CallNesting& n, EventIndex (CallNesting::*f)(EventIndex) const) {
  std::vector<EventIndex> out;
  for (EventIndex e = 0; e < n.size(); ++e) out.push_back((n.*f)(e));
  return out;
}

// Location 0: a { b { marker } marker c { } } marker; location 1: no events; location 2: d { }.
Result<Trace> NestedTrace() {
  TraceBuilder b("test");
  LocationId l0 = b.AddLocation("0", LocationKind::kThread, 0);
  b.AddLocation("1", LocationKind::kThread, 1);
  LocationId l2 = b.AddLocation("2", LocationKind::kThread, 2);
  RegionId a = b.AddRegion("a", RegionRole::kFunction, 0), bb = b.AddRegion("b", RegionRole::kFunction, 1);
  RegionId c = b.AddRegion("c", RegionRole::kFunction, 2), d = b.AddRegion("d", RegionRole::kFunction, 3);
  const StringId label = b.Intern("mark");
  b.Enter(l0, 0, a);    // 0
  b.Enter(l0, 1, bb);   // 1
  b.Marker(l0, 2, label);  // 2
  b.Leave(l0, 3, bb);   // 3
  b.Marker(l0, 4, label);  // 4
  b.Enter(l0, 5, c);    // 5
  b.Leave(l0, 6, c);    // 6
  b.Leave(l0, 7, a);    // 7
  b.Marker(l0, 8, label);  // 8
  b.Enter(l2, 0, d);
  b.Leave(l2, 1, d);
  return b.Finish();
}

TEST(TraceIndex, EnclosingCallOfEveryEvent) {
  Trace t = NestedTrace().value();
  const CallNesting n = t.index().nesting(LocationId(0));
  // Enters: their parent; leaves: their own enter; other events: the innermost open call.
  EXPECT_THAT(Column(n, &CallNesting::Enclosing), ElementsAre(kNone, 0, 1, 1, 0, 0, 5, 0, kNone));
  EXPECT_EQ(n.EnterOf(3), 1u);
  EXPECT_EQ(n.EnterOf(7), 0u);
  EXPECT_EQ(n.Parent(5), 0u);
  EXPECT_EQ(n.Parent(0), kNone);
  EXPECT_EQ(t.index().nesting(LocationId(1)).size(), 0u);
  EXPECT_THAT(Column(t.index().nesting(LocationId(2)), &CallNesting::Enclosing), ElementsAre(kNone, 0));
}

TEST(TraceIndex, InnermostCallAndRegionOfEachSegment) {
  Trace t = NestedTrace().value();
  const CallNesting n = t.index().nesting(LocationId(0));
  EXPECT_THAT(Column(n, &CallNesting::OpenAfter), ElementsAre(0, 1, 1, 0, 0, 5, 0, kNone, kNone));
  std::vector<std::string_view> names;
  for (EventIndex e = 0; e < n.size(); ++e) {
    const RegionId r = n.RegionAfter(e);
    names.push_back(r.valid() ? t.str(t.region(r).name) : "-");
  }
  EXPECT_THAT(names, ElementsAre("a", "b", "b", "a", "a", "c", "a", "-", "-"));
}

// The column against the region stack every analysis used to keep, on random nestings.
TEST(TraceIndex, MatchesARegionStackWalk) {
  std::mt19937 rng(7);
  TraceBuilder b("random");
  RegionId r = b.AddRegion("r", RegionRole::kFunction, 0);
  const StringId label = b.Intern("m");
  for (int l = 0; l < 4; ++l) {
    LocationId loc = b.AddLocation("l", LocationKind::kThread, l);
    int depth = 0;
    for (TimeNs time = 0; time < 2000; ++time) {
      const unsigned roll = rng() % 3;
      if (roll == 0) b.Enter(loc, time, r), ++depth;
      else if (roll == 1 && depth > 0) b.Leave(loc, time, r), --depth;
      else b.Marker(loc, time, label);
    }
    for (; depth > 0; --depth) b.Leave(loc, 2000, r);
  }
  Trace t = b.Finish().value();
  for (uint32_t l = 0; l < 4; ++l) {
    const EventColumns& ev = t.events(LocationId(l));
    std::vector<EventIndex> stack, enclosing, after;
    for (EventIndex i = 0; i < ev.size(); ++i) {
      enclosing.push_back(stack.empty() ? kNone : stack.back());
      if (ev.kind[i] == EventKind::kEnter) stack.push_back(i);
      if (ev.kind[i] == EventKind::kLeave) stack.pop_back();
      after.push_back(stack.empty() ? kNone : stack.back());
    }
    const CallNesting n = t.index().nesting(LocationId(l));
    EXPECT_THAT(Column(n, &CallNesting::Enclosing), ElementsAreArray(enclosing));
    EXPECT_THAT(Column(n, &CallNesting::OpenAfter), ElementsAreArray(after));
    // A scan from anywhere follows the same nesting as the lookups.
    for (EventIndex from : {EventIndex{0}, EventIndex{1}, static_cast<EventIndex>(n.size() / 3)}) {
      std::vector<EventIndex> scanned, looked_up;
      n.ForEachSegment(from, static_cast<EventIndex>(n.size() - 1), [&](EventIndex e, RegionId region) {
        scanned.push_back(e);
        EXPECT_EQ(region, n.RegionAfter(e)) << "segment " << e << " of location " << l;
      });
      for (EventIndex e = from; e + 1 < n.size(); ++e) looked_up.push_back(e);
      EXPECT_EQ(scanned, looked_up);
    }
  }
  EXPECT_GE(t.index().bytes(), t.event_count() * sizeof(EventIndex));
  EXPECT_LE(t.index().bytes(), t.event_count() * sizeof(EventIndex) + 4 * 2 * sizeof(std::span<const uint32_t>));
}

TEST(TraceIndex, BuiltOnceAndSharedWithRetimedViews) {
  Trace t = NestedTrace().value();
  std::vector<std::vector<TimeNs>> later;
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    later.emplace_back();
    for (TimeNs x : t.events(LocationId(l)).time) later.back().push_back(x + 100);
  }
  Timeline timeline = Timeline::FromLocations(std::move(later)).value();
  Trace retimed = t.Retimed(std::move(timeline), "+later").value();
  // First use from the retimed view, from two threads at once: one index for all three.
  const TraceIndex* seen[2] = {nullptr, nullptr};
  std::thread a([&] { seen[0] = &retimed.index(); });
  std::thread b([&] { seen[1] = &retimed.index(); });
  a.join();
  b.join();
  EXPECT_EQ(seen[0], seen[1]);
  EXPECT_EQ(&t.index(), seen[0]);
}

// The index's contract rests on the builder: no trace with improper nesting is ever handed out.
// The index relies on proper nesting: the builder repairs what would break it (and counts it).
TEST(TraceIndex, BuilderRepairsWhatTheIndexCannotNest) {
  // The count of `diagnostic` after Finish on one location whose events `add` appends.
  auto repairs = [](Diag diagnostic, auto add) -> uint64_t {
    TraceBuilder b("improper");
    const LocationId l = b.AddLocation("0", LocationKind::kThread, 0);
    add(b, l, b.AddRegion("x", RegionRole::kFunction, 0), b.AddRegion("y", RegionRole::kFunction, 1));
    Result<Trace> t = b.Finish();
    EXPECT_THAT(t, IsOk());
    return t.ok() ? t->diagnostics().Count(diagnostic) : 0;
  };
  EXPECT_EQ(repairs(Diag::kImproperNestingRepaired,
                    [](TraceBuilder& b, LocationId l, RegionId x, RegionId y) {
                      b.Enter(l, 0, x), b.Enter(l, 1, y), b.Leave(l, 2, x), b.Leave(l, 3, y);  // crossed
                    }),
            1u);
  EXPECT_EQ(repairs(Diag::kUnclosedRegions, [](TraceBuilder& b, LocationId l, RegionId x, RegionId) { b.Enter(l, 0, x); }),
            1u);
  EXPECT_EQ(repairs(Diag::kUnmatchedLeavesDropped,
                    [](TraceBuilder& b, LocationId l, RegionId x, RegionId) { b.Leave(l, 0, x); }),
            1u);
}

}  // namespace
}  // namespace grainscope
