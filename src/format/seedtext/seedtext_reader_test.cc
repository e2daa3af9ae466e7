#include "format/seedtext/seedtext_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"

namespace grainscope {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr std::string_view kPingPong =
    " start 1 0 0\n"
    " stop 1 0 10\n"
    " sendBegin ball 0 10\n"
    " sendEnd ball 0 12\n"
    " recvBegin ball 1 5\n"
    " recvEnd ball 1 14\n"
    " start 2 1 15\n"
    " stop 2 1 20\n";

TEST(SeedTextReader, MapsGrainsAndArcsOntoTheModel) {
  Result<Trace> r = ReadSeedText(kPingPong, "pp.txt");
  ASSERT_THAT(r, IsOk());
  const Trace& t = *r;
  EXPECT_EQ(t.format(), "seedtext");
  ASSERT_EQ(t.locations().size(), 2u);
  EXPECT_EQ(t.str(t.location(LocationId(0)).name), "processor 1");
  EXPECT_EQ(t.location(LocationId(1)).external_id, 2);
  // grains by id, then the two communication regions
  ASSERT_EQ(t.regions().size(), 4u);
  EXPECT_EQ(t.region(RegionId(0)).role, RegionRole::kGrain);
  EXPECT_EQ(t.str(t.region(RegionId(1)).name), "grain 1");
  EXPECT_EQ(t.str(t.region(RegionId(2)).name), "send");
  EXPECT_EQ(t.str(t.region(RegionId(3)).name), "receive");

  const EventColumns& p1 = t.events(LocationId(0));
  EXPECT_THAT(p1.kind, ElementsAre(EventKind::kEnter, EventKind::kLeave, EventKind::kEnter, EventKind::kSend,
                                   EventKind::kLeave));
  EXPECT_THAT(p1.time, ElementsAre(0, 10'000'000, 10'000'000, 10'000'000, 12'000'000));
  const EventColumns& p2 = t.events(LocationId(1));
  EXPECT_THAT(p2.kind, ElementsAre(EventKind::kEnter, EventKind::kRecv, EventKind::kLeave, EventKind::kEnter,
                                   EventKind::kLeave));
  EXPECT_THAT(p2.time, ElementsAre(5'000'000, 14'000'000, 14'000'000, 15'000'000, 20'000'000));

  const MessageTable& m = t.messages();
  ASSERT_EQ(m.size(), 1u);
  EXPECT_TRUE(m.matched(MessageId(0)));
  EXPECT_EQ(t.str(m.name[0]), "ball");
  EXPECT_EQ(m.sender[0], LocationId(0));
  EXPECT_EQ(m.receiver[0], LocationId(1));
  EXPECT_EQ(m.send_grain[0], RegionId(0));
  EXPECT_EQ(m.recv_grain[0], RegionId(1));
  EXPECT_EQ(t.Metadata("time_unit"), "ms");
  EXPECT_TRUE(t.diagnostics().empty());
}

TEST(SeedTextReader, SkipsAndCountsProgramOutput) {
  std::string text = "Hello\n\t start\t0\t0\t1\r\n\nresult = 42\n   stop 0 0 2\nstarting up\n";
  Result<Trace> r = ReadSeedText(text, "t.txt");
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->diagnostics().Count(Diag::kSkippedLines), 3u);  // blank lines are not counted
  EXPECT_EQ(r->diagnostics().entries()[0].example, "t.txt:1: not a trace record: 'Hello'");
  EXPECT_EQ(r->event_count(), 2u);
}

TEST(SeedTextReader, ReusedStructureNamesPairInOrder) {
  std::string text =
      " start 0 0 0\n stop 0 0 1\n"
      " sendBegin s 0 1\n sendEnd s 0 1\n"
      " sendBegin s 0 2\n sendEnd s 0 2\n"
      " recvBegin s 1 3\n recvEnd s 1 3\n"
      " recvBegin s 2 4\n recvEnd s 2 4\n"
      " start 1 1 5\n stop 1 1 6\n start 1 2 7\n stop 1 2 8\n";
  Result<Trace> r = ReadSeedText(text, "t.txt");
  ASSERT_THAT(r, IsOk());
  const MessageTable& m = r->messages();
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(r->region(m.recv_grain[0]).external_id, 1);
  EXPECT_EQ(r->region(m.recv_grain[1]).external_id, 2);
  EXPECT_EQ(r->events(m.sender[0]).time[m.send_event[0]], 1'000'000);
  EXPECT_EQ(r->events(m.sender[1]).time[m.send_event[1]], 2'000'000);
}

TEST(SeedTextReader, SendInsideItsGrainNests) {
  std::string text = " start 0 0 0\n sendBegin x 0 1\n sendEnd x 0 2\n stop 0 0 3\n";
  Result<Trace> r = ReadSeedText(text, "t.txt");
  ASSERT_THAT(r, IsOk());
  EXPECT_THAT(r->events(LocationId(0)).kind,
              ElementsAre(EventKind::kEnter, EventKind::kEnter, EventKind::kSend, EventKind::kLeave,
                          EventKind::kLeave));
  EXPECT_EQ(r->diagnostics().Count(Diag::kSendsWithoutReceive), 1u);
}

TEST(SeedTextReader, ErrorsNameFileLineAndProblem) {
  EXPECT_THAT(ReadSeedText(" start 0 0 5\n stop 0 0 4\n", "a.txt"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("a.txt:2: stop of grain 0 at 4 ms is before its start at 5 ms (line 1)")));
  EXPECT_THAT(ReadSeedText(" start 0 0 x\n", "a.txt"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("a.txt:1: time 'x' is not a number")));
  EXPECT_THAT(ReadSeedText(" start 0 0 1\n stop 0 0 2\n recvEnd r 0 3\n", "a.txt"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("a.txt:3: recvEnd of arc 'r' for grain 0 has no recvBegin")));
  EXPECT_THAT(ReadSeedText("no trace here\n", "a.txt"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("a.txt: no trace records found")));
}

// An arc's name is everything between the keyword and its last two fields, with the escapes
// libgrainscope's seed routines write; a backslash before anything else is itself (the 1989
// traces' names read as they are), and a start/stop line still has exactly 4 fields.
TEST(SeedTextReader, StructureNamesMayHoldSpacesAndEscapes) {
  std::string text =
      " start 0 0 0\n"
      " sendBegin \tblock 1 \t 0 1\r\n sendEnd block 1 0 1\n"
      " sendBegin a\\tb\\x20\\\\c\\q\\x2 0 1\n sendEnd a\\tb\\x20\\\\c\\q\\x2 0 1\n"
      " sendBegin \"\" 0 1\n sendEnd \"\" 0 1\n"
      " stop 0 0 2\n";
  Result<Trace> r = ReadSeedText(text, "t.txt");
  ASSERT_THAT(r, IsOk());
  const MessageTable& m = r->messages();
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(r->str(m.name[0]), "block 1");
  EXPECT_EQ(r->str(m.name[1]), "a\tb \\c\\q\\x2");
  EXPECT_EQ(r->str(m.name[2]), "");
  EXPECT_EQ(r->diagnostics().Count(Diag::kSendsWithoutReceive), 3u);
  EXPECT_THAT(ReadSeedText(" start 0 0 0\n stop 0 0 1 2\n", "a.txt"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("a.txt:2: 'stop' record has 5 fields, expected 4")));
  EXPECT_THAT(ReadSeedText(" start 0 0 0\n sendBegin 0 1\n", "a.txt"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("a.txt:2: 'sendBegin' record has 3 fields, expected 4")));
}

TEST(SeedTextReader, Sniffing) {
  EXPECT_TRUE(LooksLikeSeedText("program output\n start 1 0 290\n"));
  EXPECT_TRUE(LooksLikeSeedText("\trecvEnd a 1 2"));
  EXPECT_FALSE(LooksLikeSeedText("{\"traceEvents\": []}"));
  EXPECT_FALSE(LooksLikeSeedText("starting 1 0 290\n"));
}

}  // namespace
}  // namespace grainscope
