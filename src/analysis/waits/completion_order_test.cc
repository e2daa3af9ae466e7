#include "analysis/waits/completion_order.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace grainscope {
namespace {

using ::testing::ElementsAre;

WaitInstance Wait(uint32_t waiter, uint32_t late, TimeNs start, TimeNs wait) {
  WaitInstance w{};
  w.kind = WaitKind::kWaitAtNxN;
  w.waiter = LocationId(waiter);
  w.late = late == UINT32_MAX ? LocationId() : LocationId(late);
  w.start_ns = start;
  w.wait_ns = wait;
  return w;
}

TEST(CompletionOrder, ByEndThenNestedFirstAtEqualEnds) {
  std::vector<WaitInstance> waits = {
      Wait(1, 3, 450, 200),         // 0: stream 1 waits for stream 3 at the all-reduce, until 650
      Wait(3, 2, 350, 300),         // 1: stream 3 idle until its thread 2 launched, at 650
      Wait(0, 1, 100, 50),          // 2: ends first
      Wait(0, UINT32_MAX, 0, 900),  // 3: no late location: not characterised
      Wait(5, 0, 600, 50),          // 4: ends at 650 too; its waiter is late in no wait
  };
  // Wait 1 is nested in wait 0 (its waiter is wait 0's late location): before it, although its
  // waiter's number is larger; wait 4 is in neither, by waiter among the rest.
  EXPECT_THAT(CompletionOrder(waits), ElementsAre(2, 1, 0, 4));
}

}  // namespace
}  // namespace grainscope
