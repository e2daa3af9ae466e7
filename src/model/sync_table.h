// The sync events of a trace (EventKind::kSync): one row each, its kind, the object it names and
// its argument. thread_sync.h says what they mean and what the builder derives from them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace grainscope {

// The model's own numbers (a format that writes them maps them: format/gst/gst_model_numbers.h).
enum class SyncKind : uint8_t {
  kLockRequest,     // the thread asks for the lock (it may block from here)
  kLockAcquired,    // it holds the lock
  kLockRelease,     // it gives the lock up
  kBarrierEnter,    // arrives at the barrier (argument: participants, 0 when unknown)
  kBarrierLeave,    // leaves it
  kCondWaitBegin,   // starts waiting on the condition variable
  kCondWaitEnd,     // the wait returned
  kCondSignal,      // signals one waiter
  kCondBroadcast,   // signals every waiter
  kThreadCreate,    // creates the thread `object` (an id the program gives the child)
  kThreadBegin,     // the child's first event
  kThreadEnd,       // the child's last event (argument 1: the creator's own end of the team it
                    // forked, from which it waits for the others: its join begins there)
  kThreadJoinBegin,  // starts waiting for thread `object` to end
  kThreadJoinEnd,    // the join returned
  kTaskCreate,
  kTaskBegin,
  kTaskEnd,
};
inline constexpr int kSyncKindCount = 17;
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
