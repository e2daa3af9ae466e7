// The thread API's in-process mailboxes: per message name, the senders' piggybacks (onthefly.h)
// in an array indexed by each message's sequence number, where the matching receive (the one
// with the same sequence number) takes it.
//
// A send must not pay for memory: the first message of a name, and every message that starts a
// new part of the array, used to cost tens of microseconds of page faults in the program's thread
// (docs/compensation.md), a cost no per-event calibration sees. The memory comes from an arena
// populated when the trace is opened, outside any program's measured time; only a program that
// outgrows it (thousands of messages in flight at once over all names, see mailbox.cc) maps more,
// populated in one system call.
#pragma once

#include <cstdint>

#include "record/onthefly.h"

namespace grainscope::record {

void MailboxPost(uint32_t name, const Piggyback& p);
// False when no send claimed this receive's sequence number (within a bounded wait).
bool MailboxTake(uint32_t name, Piggyback* out);

// Empties every mailbox (a previous trace's messages must not pair with the next one's) and makes
// sure the arena is mapped and populated. At open, while no thread records.
void MailboxesReset();

}  // namespace grainscope::record
