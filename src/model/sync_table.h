// The sync events of a trace (EventKind::kSync): one row each, its kind, the object it names and
// its argument. thread_sync.h says what they mean and what the builder derives from them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace grainscope {

// The numbers are the .gst format's (gst_format.h SyncKind): keep them.
enum class SyncKind : uint8_t {
  kLockRequest = 1,     // the thread asks for the lock (it may block from here)
  kLockAcquired = 2,    // it holds the lock
  kLockRelease = 3,     // it gives the lock up
  kBarrierEnter = 4,    // arrives at the barrier (argument: participants, 0 when unknown)
  kBarrierLeave = 5,    // leaves it
  kCondWaitBegin = 6,   // starts waiting on the condition variable
  kCondWaitEnd = 7,     // the wait returned
  kCondSignal = 8,      // signals one waiter
  kCondBroadcast = 9,   // signals every waiter
  kThreadCreate = 10,   // creates the thread `object` (an id the program gives the child)
  kThreadBegin = 11,    // the child's first event
  kThreadEnd = 12,      // the child's last event (argument 1: the creator's own end of the team it
                        // forked, from which it waits for the others: its join begins there)
  kThreadJoinBegin = 13,  // starts waiting for thread `object` to end
  kThreadJoinEnd = 14,    // the join returned
  kTaskCreate = 15,
  kTaskBegin = 16,
  kTaskEnd = 17,
};
inline constexpr uint8_t kLastSyncKind = 17;
std::string_view SyncKindName(SyncKind kind);  // "lock_acquired", ...
bool ParseSyncKind(std::string_view name, SyncKind* kind);

// One row per sync event, column-wise.
struct SyncTable {
  std::vector<SyncKind> kind;
  std::vector<uint64_t> object;
  std::vector<uint32_t> arg;

  size_t size() const { return kind.size(); }
};

inline constexpr std::string_view kSyncLabelPrefix = "sync.";
std::string SyncLabel(SyncKind kind, uint64_t object, uint32_t arg);
struct ParsedSync {
  SyncKind kind;
  uint64_t object = 0;
  uint32_t arg = 0;
};
std::optional<ParsedSync> ParseSyncLabel(std::string_view label);

}  // namespace grainscope
