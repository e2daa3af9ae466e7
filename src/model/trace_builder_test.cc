#include "model/trace_builder.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "model/trace_script.h"

namespace grainscope {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(StringPool, InternsOnceAndKeepsViewsStable) {
  StringPool pool;
  EXPECT_EQ(pool.Get(StringId(0)), "");
  StringId a = pool.Intern("MPI_Send");
  for (int i = 0; i < 10000; ++i) pool.Intern("region " + std::to_string(i));  // force growth
  EXPECT_EQ(pool.Intern("MPI_Send"), a);
  EXPECT_EQ(pool.Get(a), "MPI_Send");
  EXPECT_EQ(pool.Find("region 9999").valid(), true);
  EXPECT_EQ(pool.Find("absent").valid(), false);
  StringPool moved = std::move(pool);
  EXPECT_EQ(moved.Get(a), "MPI_Send");
}

// Two MPI ranks: rank 0 sends with MPI_Isend inside "solve", rank 1 receives with MPI_Recv,
// then both meet in a barrier. The model holds what an OTF2 or PMPI trace records.
Result<Trace> MpiLikeTrace() {
  TraceBuilder b("test");
  LocationId r0 = b.AddLocation("rank 0", LocationKind::kRank, 0);
  LocationId r1 = b.AddLocation("rank 1", LocationKind::kRank, 1);
  RegionId solve = b.AddRegion("solve", RegionRole::kFunction, 10);
  RegionId isend = b.AddRegion("MPI_Isend", RegionRole::kPointToPoint, 11);
  RegionId wait = b.AddRegion("MPI_Wait", RegionRole::kWait, 12);
  RegionId recv = b.AddRegion("MPI_Recv", RegionRole::kPointToPoint, 13);
  RegionId barrier = b.AddRegion("MPI_Barrier", RegionRole::kCollective, 14);
  CommunicatorId world = b.AddCommunicator("MPI_COMM_WORLD", {r0, r1});
  b.SetOrigin(1000);
  b.AddMetadata("clock", "tsc");

  MessageInfo info;
  info.sender = r0;
  info.receiver = r1;
  info.tag = 7;
  info.bytes = 4096;
  info.communicator = world;
  MessageId m = b.AddMessage(info);
  CollectiveId c = b.AddCollective(CollectiveOp::kBarrier, world, LocationId());

  b.Enter(r0, 1000, solve);
  b.Enter(r0, 1100, isend);
  b.Send(r0, 1101, m);
  b.Leave(r0, 1110, isend);
  b.Enter(r0, 1200, wait);
  b.SendComplete(r0, 1250, m);
  b.Leave(r0, 1251, wait);
  b.Leave(r0, 1300, solve);
  b.Enter(r0, 1400, barrier);
  b.CollBegin(r0, 1400, c, 0, 0);
  b.CollEnd(r0, 1500, c);
  b.Leave(r0, 1500, barrier);

  b.Enter(r1, 1050, recv);
  b.Recv(r1, 1120, m);
  b.Leave(r1, 1121, recv);
  b.Enter(r1, 1450, barrier);
  b.CollBegin(r1, 1450, c, 0, 0);
  b.CollEnd(r1, 1502, c);
  b.Leave(r1, 1502, barrier);
  return b.Finish();
}

TEST(TraceBuilder, HoldsAnMpiTraceColumnWise) {
  Result<Trace> r = MpiLikeTrace();
  ASSERT_THAT(r, IsOk());
  const Trace& t = *r;
  EXPECT_EQ(t.format(), "test");
  EXPECT_EQ(t.locations().size(), 2u);
  EXPECT_EQ(t.event_count(), 19u);
  EXPECT_EQ(t.origin_ns(), 1000);
  EXPECT_EQ(t.start_ns(), 1000);
  EXPECT_EQ(t.end_ns(), 1502);
  EXPECT_EQ(t.Metadata("clock"), "tsc");
  EXPECT_EQ(t.Metadata("absent"), "");

  const EventColumns& e0 = t.events(LocationId(0));
  EXPECT_THAT(e0.kind, ElementsAre(EventKind::kEnter, EventKind::kEnter, EventKind::kSend, EventKind::kLeave,
                                   EventKind::kEnter, EventKind::kSendComplete, EventKind::kLeave,
                                   EventKind::kLeave, EventKind::kEnter, EventKind::kCollBegin,
                                   EventKind::kCollEnd, EventKind::kLeave));
  EXPECT_EQ(t.str(t.region(RegionId(e0.arg[1])).name), "MPI_Isend");

  const MessageTable& m = t.messages();
  ASSERT_EQ(m.size(), 1u);
  EXPECT_TRUE(m.matched(MessageId(0)));
  EXPECT_EQ(m.send_event[0], 2u);
  EXPECT_EQ(m.recv_event[0], 1u);
  EXPECT_EQ(m.tag[0], 7);
  EXPECT_EQ(m.bytes[0], 4096u);
  EXPECT_EQ(t.str(t.communicators()[m.communicator[0].value].name), "MPI_COMM_WORLD");

  const CollectiveTable& c = t.collectives();
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c.member_count(CollectiveId(0)), 2u);
  EXPECT_THAT(c.member_location, ElementsAre(LocationId(0), LocationId(1)));
  EXPECT_THAT(c.member_begin, ElementsAre(9u, 4u));
  EXPECT_THAT(c.member_end, ElementsAre(10u, 5u));
  EXPECT_EQ(ShapeOf(c.op[0]), CollectiveShape::kAllToAll);
}

// A location with no event is named in a note (issue 33: BT-MZ's rank 4 was silently idle).
TEST(TraceBuilder, NamesEmptyLocations) {
  TraceBuilder b("test");
  const LocationId busy = b.AddLocation("rank 0", LocationKind::kRank, 0);
  b.AddLocation("rank 1", LocationKind::kRank, 1);
  const RegionId r = b.AddRegion("work", RegionRole::kFunction, 0);
  b.Enter(busy, 0, r);
  b.Leave(busy, 10, r);
  for (int i = 2; i < 9; ++i) b.AddLocation("rank " + std::to_string(i), LocationKind::kRank, i);
  Result<Trace> t = b.Finish();
  ASSERT_THAT(t, IsOk());
  EXPECT_EQ(t->diagnostics().Count(Diag::kEmptyLocations), 8u);
  for (const Diagnostic& d : t->diagnostics().entries()) {
    if (d.kind == Diag::kEmptyLocations) {
      EXPECT_EQ(d.example, "'rank 1', 'rank 2', 'rank 3', 'rank 4', 'rank 5' and 3 more");
    }
  }
}

TEST(TraceBuilder, RejectsTimeGoingBackwards) {
  TraceBuilder b("test");
  LocationId l = b.AddLocation("p", LocationKind::kProcessor, 0);
  RegionId r = b.AddRegion("g", RegionRole::kGrain, 0);
  b.Enter(l, 10, r);
  b.Leave(l, 9, r);
  EXPECT_THAT(b.Finish(), StatusIs(StatusCode::kDataLoss, HasSubstr("p: event 1 at 9 ns is earlier")));
}

// --strict: the builder refuses what it would otherwise repair, with the message it always had.
TEST(TraceBuilder, StrictRejectsImproperNesting) {
  TraceBuilder b("test");
  b.SetRepairNesting(false);
  LocationId l = b.AddLocation("p", LocationKind::kProcessor, 0);
  RegionId a = b.AddRegion("a", RegionRole::kFunction, 0);
  RegionId c = b.AddRegion("c", RegionRole::kFunction, 1);
  b.Enter(l, 1, a);
  b.Enter(l, 2, c);
  b.Leave(l, 3, a);
  b.Leave(l, 4, c);
  EXPECT_THAT(b.Finish(),
              StatusIs(StatusCode::kDataLoss, HasSubstr("p: event 2 at 3 ns leaves region 'a' which is not the innermost")));
}

// A region open at the end is a run that stopped inside it, not improper nesting: closed and
// counted, by the builder alone, also under --strict; a Leave of nothing is refused.
TEST(TraceBuilder, StrictClosesUnclosedRegionAndRejectsLeaveOfNothing) {
  {
    TraceBuilder b("test");
    b.SetRepairNesting(false);
    LocationId l = b.AddLocation("p", LocationKind::kProcessor, 0);
    b.Enter(l, 1, b.AddRegion("a", RegionRole::kFunction, 0));
    b.Marker(l, 5, b.Intern("last"));
    Result<Trace> t = b.Finish();
    ASSERT_THAT(t, IsOk());
    EXPECT_EQ(t->diagnostics().Count(Diag::kUnclosedRegions), 1u);
    EXPECT_EQ(t->events(l).size(), 3u);
    EXPECT_EQ(t->events(l).time[2], 5);
  }
  {
    TraceBuilder b("test");
    b.SetRepairNesting(false);
    LocationId l = b.AddLocation("p", LocationKind::kProcessor, 0);
    b.Leave(l, 1, b.AddRegion("a", RegionRole::kFunction, 0));
    EXPECT_THAT(b.Finish(), StatusIs(StatusCode::kDataLoss, HasSubstr("leaves region 'a' which is not the innermost")));
  }
}

// A location's events as "E a@1 L a@3 x 0@4" (Enter, Leave, anything else with its arg) for compact checks.
std::string Events(const Trace& t, LocationId l) {
  const EventColumns& e = t.events(l);
  std::string out;
  for (size_t i = 0; i < e.size(); ++i) {
    if (!out.empty()) out += ' ';
    const bool region = e.kind[i] == EventKind::kEnter || e.kind[i] == EventKind::kLeave;
    const char* kind = e.kind[i] == EventKind::kEnter ? "E" : e.kind[i] == EventKind::kLeave ? "L" : "x";
    const std::string arg = region ? std::string(t.str(t.regions()[e.arg[i]].name)) : std::to_string(e.arg[i]);
    out += std::string(kind) + " " + arg + "@" + std::to_string(e.time[i]);
  }
  return out;
}

// A Leave of an outer region closes the regions opened after it, at its time, counted per location.
TEST(TraceBuilder, RepairsLeaveOfOuterRegion) {
  TraceBuilder b("test");
  LocationId l = b.AddLocation("p", LocationKind::kProcessor, 0);
  LocationId q = b.AddLocation("q", LocationKind::kProcessor, 1);
  RegionId a = b.AddRegion("a", RegionRole::kFunction, 0);
  RegionId c = b.AddRegion("c", RegionRole::kFunction, 1);
  RegionId d = b.AddRegion("d", RegionRole::kFunction, 2);
  b.Enter(l, 1, a);
  b.Enter(l, 2, c);
  b.Enter(l, 3, d);
  b.Leave(l, 5, a);  // c and d still open
  b.Enter(q, 1, a);
  b.Enter(q, 2, c);
  b.Leave(q, 4, a);  // c still open
  Result<Trace> t = b.Finish();
  ASSERT_THAT(t, IsOk());
  EXPECT_EQ(Events(*t, l), "E a@1 E c@2 E d@3 L d@5 L c@5 L a@5");
  EXPECT_EQ(Events(*t, q), "E a@1 E c@2 L c@4 L a@4");
  EXPECT_EQ(t->diagnostics().Count(Diag::kImproperNestingRepaired), 3u);
  ASSERT_EQ(t->diagnostics().entries().size(), 1u);
  EXPECT_EQ(t->diagnostics().entries()[0].example, "p: 2 closed early (leaves 'a' at 5 ns while 'd' is open); q: 1");
}

// A Leave of a region that is not open is dropped; what referred to the events after it follows them.
TEST(TraceBuilder, DropsLeaveOfRegionNotOpenAndRenumbers) {
  TraceBuilder b("test");
  LocationId l = b.AddLocation("p", LocationKind::kRank, 0);
  LocationId r = b.AddLocation("r", LocationKind::kRank, 1);
  RegionId a = b.AddRegion("a", RegionRole::kFunction, 0);
  RegionId c = b.AddRegion("c", RegionRole::kFunction, 1);
  MessageInfo info;
  info.sender = l;
  info.receiver = r;
  const MessageId m = b.AddMessage(info);
  const CollectiveId coll = b.AddCollective(CollectiveOp::kBarrier, CommunicatorId(), LocationId());
  b.Enter(l, 1, a);
  b.Leave(l, 2, c);  // c is not open: dropped
  b.Send(l, 3, m);
  b.CollBegin(l, 4, coll, 0, 0);
  b.CollEnd(l, 5, coll);
  b.Leave(l, 6, a);
  b.Recv(r, 7, m);
  b.AddDependency(DependencyKind::kLockHandover, l, 2, r, 0);  // from the Send
  Result<Trace> t = b.Finish();
  ASSERT_THAT(t, IsOk());
  EXPECT_EQ(Events(*t, l), "E a@1 x 0@3 x 0@4 x 0@5 L a@6");
  EXPECT_EQ(t->messages().send_event[0], 1u);
  EXPECT_EQ(t->messages().recv_event[0], 0u);
  EXPECT_THAT(t->collectives().member_begin, ElementsAre(2u));
  EXPECT_THAT(t->collectives().member_end, ElementsAre(3u));
  EXPECT_EQ(t->dependencies().from_event[0], 1u);
  EXPECT_EQ(t->diagnostics().Count(Diag::kUnmatchedLeavesDropped), 1u);
  EXPECT_EQ(t->diagnostics().entries()[0].example, "p: 1 dropped (leaves 'c' at 2 ns, which is not open)");
}

// Regions still open at a location's end are closed at its last timestamp, innermost first.
TEST(TraceBuilder, ClosesRegionsOpenAtTheEnd) {
  TraceBuilder b("test");
  LocationId l = b.AddLocation("p", LocationKind::kProcessor, 0);
  RegionId a = b.AddRegion("a", RegionRole::kFunction, 0);
  RegionId c = b.AddRegion("c", RegionRole::kFunction, 1);
  b.Enter(l, 1, a);
  b.Enter(l, 2, c);
  b.Marker(l, 9, b.Intern("last"));
  Result<Trace> t = b.Finish();
  ASSERT_THAT(t, IsOk());
  const std::string events = Events(*t, l);
  EXPECT_EQ(events.substr(events.size() - 11), "L c@9 L a@9");
  EXPECT_EQ(t->diagnostics().Count(Diag::kUnclosedRegions), 2u);
  EXPECT_EQ(t->diagnostics().entries()[0].example, "p: 2 closed at the end ('c' open at the last event, 9 ns)");
}

TEST(TraceBuilder, RejectsHalfCollective) {
  {
    TraceBuilder b("test");
    LocationId l = b.AddLocation("p", LocationKind::kProcessor, 0);
    CollectiveId c = b.AddCollective(CollectiveOp::kBarrier, CommunicatorId(), LocationId());
    b.CollBegin(l, 1, c, 0, 0);
    EXPECT_THAT(b.Finish(), StatusIs(StatusCode::kDataLoss, HasSubstr("collective 0 has a begin but no end")));
  }
}

TEST(TraceBuilder, UnmatchedMessageKeepsOneSide) {
  TraceBuilder b("test");
  LocationId l = b.AddLocation("p", LocationKind::kProcessor, 0);
  MessageInfo info;
  info.sender = l;
  MessageId m = b.AddMessage(info);
  b.Send(l, 5, m);
  Result<Trace> t = b.Finish();
  ASSERT_THAT(t, IsOk());
  EXPECT_FALSE(t->messages().matched(m));
  EXPECT_EQ(t->messages().send_event[0], 0u);
  EXPECT_EQ(t->messages().recv_event[0], kNoEvent);
}

TEST(TraceBuilder, EmptyTraceSpansItsOrigin) {
  TraceBuilder b("test");
  b.SetOrigin(42);
  Result<Trace> t = b.Finish();
  ASSERT_THAT(t, IsOk());
  EXPECT_EQ(t->event_count(), 0u);
  EXPECT_EQ(t->start_ns(), 42);
  EXPECT_EQ(t->end_ns(), 42);
}

TEST(TraceBuilder, LocationIdsAreUniqueRanksFirst) {
  // Two ranks with a thread each, the threads numbered per rank as OTF2 readers number them: the
  // thread of rank 1 has id 1, like rank 1. Ranks keep their ids; threads that clash move above.
  TraceBuilder b("test");
  b.AddLocation("rank 0", LocationKind::kRank, 0);
  b.AddLocation("rank 0 thread 1", LocationKind::kThread, 1);
  b.AddLocation("rank 1", LocationKind::kRank, 1);
  b.AddLocation("rank 1 thread 1", LocationKind::kThread, 1);
  b.AddLocation("processor 7", LocationKind::kProcessor, 7);
  Result<Trace> t = b.Finish();
  ASSERT_THAT(t, IsOk());
  std::vector<int64_t> ids;
  for (const Location& l : t->locations()) ids.push_back(l.external_id);
  EXPECT_THAT(ids, ElementsAre(0, 8, 1, 9, 7));
}

TEST(TraceBuilder, DependencyEdgesAreCheckedAndKept) {
  auto two_threads = [] {
    TraceScript s(2, LocationKind::kThread);
    s.Work(0, "a", 0, 10);
    s.Work(1, "b", 5, 20);
    return s;
  };
  {
    TraceScript s = two_threads();
    s.builder().AddDependency(DependencyKind::kGpuSync, s.loc(0), 1, s.loc(1), 1);
    s.builder().AddDependency(DependencyKind::kLockHandover, s.loc(1), 0, s.loc(0), 1);
    Trace t = s.Finish();
    ASSERT_EQ(t.dependencies().size(), 2u);
    EXPECT_EQ(t.dependencies().kind[0], DependencyKind::kGpuSync);
    EXPECT_EQ(t.dependencies().to_location[1], LocationId(0));
    EXPECT_EQ(t.diagnostics().Count(Diag::kDependenciesBackInTime), 0u);
  }
  {  // the target stamped before the source: kept, and counted
    TraceScript s = two_threads();
    s.builder().AddDependency(DependencyKind::kFork, s.loc(0), 1, s.loc(1), 0);
    Trace t = s.Finish();
    EXPECT_EQ(t.dependencies().size(), 1u);
    EXPECT_EQ(t.diagnostics().Count(Diag::kDependenciesBackInTime), 1u);
  }
  {  // an event that does not exist
    TraceScript s = two_threads();
    s.builder().AddDependency(DependencyKind::kJoin, s.loc(0), 2, s.loc(1), 1);
    Result<Trace> t = s.builder().Finish();
    ASSERT_FALSE(t.ok());
    EXPECT_THAT(t.status().message(), HasSubstr("join dependency 0"));
  }
  {  // backwards on one location
    TraceScript s = two_threads();
    s.builder().AddDependency(DependencyKind::kOther, s.loc(1), 1, s.loc(1), 0);
    EXPECT_FALSE(s.builder().Finish().ok());
  }
}

TEST(DependencyEnds, GroupsEdgesByLocationAndEvent) {
  DependencyTable d;
  auto add = [&](uint32_t fl, EventIndex fe, uint32_t tl, EventIndex te) {
    d.kind.push_back(DependencyKind::kOther);
    d.from_location.push_back(LocationId(fl));
    d.from_event.push_back(fe);
    d.to_location.push_back(LocationId(tl));
    d.to_event.push_back(te);
  };
  add(0, 4, 2, 7);
  add(1, 3, 2, 1);
  add(0, 5, 2, 7);
  const DependencyEnds in(d, 3, true);
  EXPECT_EQ(in.first(LocationId(2)), 0u);
  ASSERT_EQ(in.last(LocationId(2)), 2u);
  EXPECT_EQ(in.event(0), 1u);
  EXPECT_EQ(in.event(1), 7u);
  EXPECT_THAT(in.edges(1), ::testing::ElementsAre(0u, 2u));
  EXPECT_EQ(in.Find(LocationId(2), 7), 1u);
  EXPECT_EQ(in.Find(LocationId(2), 5), DependencyEnds::kNone);
  const DependencyEnds out(d, 3, false);
  EXPECT_EQ(out.last(LocationId(0)) - out.first(LocationId(0)), 2u);
  EXPECT_EQ(out.first(LocationId(2)), out.last(LocationId(2)));
  EXPECT_TRUE(DependencyEnds(DependencyTable(), 3, true).empty());
  DependencyKind k;
  ASSERT_TRUE(ParseDependencyKind("gpu_launch", &k));
  EXPECT_EQ(k, DependencyKind::kGpuLaunch);
}

}  // namespace
}  // namespace grainscope
