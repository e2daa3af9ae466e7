#include "model/collective_matcher.h"

#include <gtest/gtest.h>

namespace grainscope {
namespace {

TEST(CollectiveMatcher, KthCollectiveOfEachParticipantPerCommunicator) {
  CollectiveMatcher m;
  // Rank 0 and rank 1 on communicator 0, interleaved; rank 1 also on communicator 7.
  EXPECT_EQ(m.Next(0, 0), 0u);
  EXPECT_EQ(m.Next(0, 0), 1u);
  EXPECT_EQ(m.Next(0, 1), 0u);  // rank 1's first: the instance rank 0 called first
  EXPECT_EQ(m.Next(7, 1), 0u);  // another communicator counts apart
  EXPECT_EQ(m.Next(0, 1), 1u);
  EXPECT_EQ(m.Next(0, 0), 2u);
  EXPECT_EQ(m.Next(7, 1), 1u);
}

}  // namespace
}  // namespace grainscope
