#include "model/message_matcher.h"

#include <string>
#include <string_view>
#include <tuple>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace grainscope {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// "s->r" for a pair, "s->-" / "-->r" for a side alone, prefixed by the channel.
std::vector<std::string> Pairs(FifoMessageMatcher<std::string>& m) {
  std::vector<std::string> out;
  m.MatchAll([&](uint32_t channel, const std::string* send, const std::string* recv) {
    out.push_back(std::to_string(channel) + ":" + (send ? *send : "-") + "->" + (recv ? *recv : "-"));
  });
  return out;
}

TEST(ChannelIds, DenseInOrderOfFirstAppearance) {
  ChannelIds<std::string_view> ids;
  EXPECT_EQ(ids.Id("b"), 0u);
  EXPECT_EQ(ids.Id("a"), 1u);
  EXPECT_EQ(ids.Id("b"), 0u);
  EXPECT_EQ(ids.size(), 2u);
  EXPECT_EQ(ids.key(1), "a");
}

TEST(FifoMessageMatcher, NthSendWithNthReceivePerChannel) {
  FifoMessageMatcher<std::string> m;
  // Channels interleave, and a receive may be added before its send: only each channel's order counts.
  m.AddReceive(1, "r1a");
  m.AddSend(0, "s0a");
  m.AddSend(1, "s1a");
  m.AddSend(0, "s0b");
  m.AddReceive(0, "r0a");
  m.AddReceive(0, "r0b");
  m.AddReceive(1, "r1b");
  m.Group();
  EXPECT_EQ(m.channel_count(), 2u);
  EXPECT_THAT(Pairs(m), ElementsAre("0:s0a->r0a", "0:s0b->r0b", "1:s1a->r1a", "1:-->r1b"));
}

TEST(FifoMessageMatcher, SurplusSidesComeAloneAfterThePairs) {
  FifoMessageMatcher<std::string> m;
  m.AddSend(2, "s2a");
  m.AddSend(2, "s2b");
  m.AddSend(2, "s2c");
  m.AddReceive(2, "r2a");
  m.Group();
  EXPECT_EQ(m.channel_count(), 3u);
  EXPECT_THAT(m.sends(0), IsEmpty());
  EXPECT_THAT(m.receives(1), IsEmpty());
  EXPECT_THAT(Pairs(m), ElementsAre("2:s2a->r2a", "2:s2b->-", "2:s2c->-"));
}

TEST(FifoMessageMatcher, GroupedSidesCanBeReorderedBeforeMatching) {
  // The .gst readers sort each channel's sides by completion time before pairing them.
  FifoMessageMatcher<int> m;
  for (int t : {30, 10, 20}) m.AddSend(0, t);
  for (int t : {25, 15}) m.AddReceive(0, t);
  m.Group();
  std::sort(m.sends(0).begin(), m.sends(0).end());
  std::sort(m.receives(0).begin(), m.receives(0).end());
  std::vector<std::pair<int, int>> pairs;
  m.Match(0, [&](uint32_t, const int* s, const int* r) { pairs.emplace_back(s ? *s : -1, r ? *r : -1); });
  EXPECT_THAT(pairs, ElementsAre(std::pair(10, 15), std::pair(20, 25), std::pair(30, -1)));
}

// The order rule as a parameter: ends added out of order (a receive recorded before an earlier
// one completed) meet by the rule's order, ties in the order added.
TEST(FifoMessageMatcher, OrderEachChannelPutsEachSideInTheRulesOrder) {
  struct End {
    int time;
    int id;
  };
  FifoMessageMatcher<End> m;
  m.AddSend(0, {30, 1});
  m.AddSend(0, {10, 2});
  m.AddSend(0, {10, 3});  // ties with id 2: stays after it
  m.AddReceive(0, {35, 4});
  m.AddReceive(0, {12, 5});
  m.AddReceive(0, {15, 6});
  m.Group();
  m.OrderEachChannel([](const End& a, const End& b) { return a.time < b.time; });
  std::vector<std::pair<int, int>> pairs;
  m.MatchAll([&](uint32_t, const End* s, const End* r) { pairs.emplace_back(s->id, r->id); });
  EXPECT_THAT(pairs, ElementsAre(std::pair(2, 5), std::pair(3, 6), std::pair(1, 4)));
}

// Counts per side, the first example only made once.
TEST(UnmatchedEnds, CountsEachSideAndMakesOnlyTheFirstExample) {
  UnmatchedEnds u;
  int made = 0;
  for (int i = 0; i < 3; ++i) u.NoSend([&] { return "receive " + std::to_string(++made); });
  u.NoReceive([] { return std::string("send 7"); });
  Diagnostics d;
  u.Report(d);
  EXPECT_EQ(made, 1);
  EXPECT_EQ(d.Count(Diag::kReceivesWithoutSend), 3u);
  EXPECT_EQ(d.Count(Diag::kSendsWithoutReceive), 1u);
  ASSERT_EQ(d.entries().size(), 2u);
  EXPECT_EQ(d.entries()[0].example, "receive 1");
  Diagnostics none;
  UnmatchedEnds().Report(none);
  EXPECT_TRUE(none.empty());
}

TEST(FifoMessageMatcher, NothingAddedMatchesNothing) {
  FifoMessageMatcher<int> m;
  m.Group();
  EXPECT_EQ(m.channel_count(), 0u);
  int calls = 0;
  m.MatchAll([&](uint32_t, const int*, const int*) { ++calls; });
  EXPECT_EQ(calls, 0);
  EXPECT_THAT(m.sends(5), IsEmpty());
}

}  // namespace
}  // namespace grainscope
