// The order in which waits are characterised (characterize.cc): a wait's explanation takes in
// the explanations of the waits nested in its late location's path, so those come first. A
// nested wait ends no later than the wait containing it; when both end at the same time (a GPU
// stream idle until its launch, which is the moment it arrives late at an NCCL all-reduce),
// the one whose waiter is the other's late location goes first.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/waits/wait_states.h"

namespace grainscope {

// The waits with a late location, by end time; at equal end times, a wait whose waiter is the
// late location of another wait ending then comes before the rest; otherwise by waiter, then
// index.
std::vector<uint32_t> CompletionOrder(const std::vector<WaitInstance>& waits);

}  // namespace grainscope
