#include "model/trace_share.h"

#include <gtest/gtest.h>

namespace grainscope {
namespace {

// Per share, the locations it holds.
std::vector<std::vector<uint32_t>> Held(const std::vector<LocationSet>& shares) {
  std::vector<std::vector<uint32_t>> out;
  for (const LocationSet& s : shares) {
    out.emplace_back();
    for (uint32_t l = 0; l < s.member.size(); ++l)
      if (s.Holds(l)) out.back().push_back(l);
  }
  return out;
}

using H = std::vector<std::vector<uint32_t>>;

TEST(ShareLocations, WholeProcessesOfAboutEqualEvents) {
  // Processes 0..3 with 2 locations each; process 0 holds as many events as the other three.
  const std::vector<uint32_t> process = {0, 0, 1, 1, 2, 2, 3, 3};
  const std::vector<uint64_t> events = {300, 300, 100, 100, 100, 100, 100, 100};
  EXPECT_EQ(Held(ShareLocations(process, events, 1)), (H{{0, 1, 2, 3, 4, 5, 6, 7}}));
  EXPECT_EQ(Held(ShareLocations(process, events, 2)), (H{{0, 1}, {2, 3, 4, 5, 6, 7}}));
  EXPECT_EQ(Held(ShareLocations(process, events, 4)), (H{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  // More shares than processes: the last ones are empty.
  EXPECT_EQ(Held(ShareLocations(process, events, 6)), (H{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {}, {}}));
}

TEST(ShareLocations, AProcessesLocationsNeedNotBeNeighbours) {
  // Score-P's order: every rank's master first, then the threads.
  const std::vector<uint32_t> process = {0, 1, 2, 0, 1, 2};
  EXPECT_EQ(Held(ShareLocations(process, std::vector<uint64_t>(6, 10), 3)), (H{{0, 3}, {1, 4}, {2, 5}}));
  EXPECT_EQ(Held(ShareLocations(process, std::vector<uint64_t>(6, 10), 2)), (H{{0, 1, 3, 4}, {2, 5}}));
}

TEST(ShareLocations, EveryShareGetsAProcessWhileAnyIsLeft) {
  const std::vector<uint32_t> process = {0, 1, 2};
  EXPECT_EQ(Held(ShareLocations(process, std::vector<uint64_t>{1000, 1, 1}, 3)), (H{{0}, {1}, {2}}));
  EXPECT_EQ(Held(ShareLocations(process, std::vector<uint64_t>{0, 0, 0}, 2)), (H{{0}, {1, 2}}));
}

TEST(LocationSet, HoldsItsLocations) {
  EXPECT_TRUE(LocationSet().whole());
  EXPECT_TRUE(LocationSet().Holds(7));
  const LocationSet s{{0, 1, 0}};
  EXPECT_TRUE(s.Holds(1));
  EXPECT_FALSE(s.Holds(0));
  EXPECT_FALSE(s.Holds(5));
  EXPECT_FALSE(s.whole());
}

}  // namespace
}  // namespace grainscope
