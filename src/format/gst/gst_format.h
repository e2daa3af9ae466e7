// The native grainscope trace format (.gst): constants and on-disk layouts shared by the writer
// in the recording runtime (src/record) and the reader (gst_reader.cc). docs/formats/gst.md is the
// specification; this header is its executable form and must stay in step with it.
//
// A file is a header followed by chunks. Every chunk starts with a ChunkHeader giving its type and
// the exact number of payload bytes that follow, so a reader can skip a chunk it does not know and
// can check every length against the bytes actually present. Chunks are appended by several
// writers at once (each thread's blocks, definitions, clock samples), each chunk in one piece at an
// offset reserved for it, so chunks of different kinds and streams interleave in the file.
//
// Event records are fixed-size 16-byte slots in kEventBlock chunks, one stream per thread. A record
// may own continuation slots after it (`extra`), which is how a reader skips kinds it does not know.
//
// Header-only and dependency-free: the recording runtime includes it and must stay light.
// Everything is little-endian; the structs below are exactly their on-disk layout on the
// little-endian machines we support (x86-64, aarch64), checked by the static_asserts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "format/gst/gst_checksum.h"
#include "format/limits.h"

namespace grainscope::gst {

// "\x89GST\r\n\x1a\n": the high byte catches 7-bit transfers, CR-LF and ^Z catch text-mode mangling
// (the PNG trick).
inline constexpr unsigned char kMagic[8] = {0x89, 'G', 'S', 'T', '\r', '\n', 0x1a, '\n'};
// Version 2 added the checksums to the chunk header (32 bytes instead of 24); readers still read
// version 1 files (without checksums).
inline constexpr uint16_t kVersionMajor = 2;  // incompatible changes
// 1: delta-coded event blocks (a 2.0 reader refuses them); 2: grain records with an id per
// instance (kinds 10 and 11; a 2.1 reader skips them and counts them as skipped records); 3: sync
// records (kind 12; a 2.2 reader skips them); 4: region roles 4 to 19 (a 2.3 reader reads them as
// functions); 5: MPI records (kinds 13 to 16: messages and collectives of libgrainscope-mpi, which
// 2.4 and older wrote as "mpi.msg" message names and "mpi.coll" labels; a 2.4 reader skips them)
inline constexpr uint16_t kVersionMinor = 5;
inline constexpr uint16_t kOldestReadableMajor = 1;

struct FileHeader {
  unsigned char magic[8];
  uint16_t version_major;
  uint16_t version_minor;
  uint32_t header_size;   // bytes from the start of the file to the first chunk (>= 32)
  uint32_t record_size;   // 16
  uint32_t flags;         // 0; no flags defined yet
  uint64_t reserved;      // 0
};
static_assert(sizeof(FileHeader) == 32);

enum ChunkType : uint32_t {
  kChunkMetadata = 1,    // key/value strings: program, host, clock, overhead, ...
  kChunkClock = 2,       // one ClockSample
  kChunkRegionDef = 3,   // RegionDef + name + file
  kChunkStringDef = 4,   // StringDef + text
  kChunkLocationDef = 5, // LocationDef + name; the last one of a stream wins
  kChunkEventBlock = 6,  // records of one stream, possibly zstd-compressed
  kChunkEnd = 7,         // EndOfTrace; the run finished writing the trace
};

enum ChunkFlags : uint32_t {
  kChunkZstd = 1u << 0,   // payload is one zstd frame; raw_size is its decompressed size
  kChunkDelta = 1u << 1,  // event blocks: the records are delta-coded (gst_block_codec.h);
                          // with kChunkZstd, the zstd frame holds the coded records
};
inline constexpr uint32_t kChunkCoded = kChunkZstd | kChunkDelta;  // stored_size may differ from raw_size

struct ChunkHeader {
  uint32_t type;         // ChunkType
  uint32_t flags;        // ChunkFlags
  uint32_t stored_size;  // payload bytes following this header in the file
  uint32_t raw_size;     // payload bytes after decompression (== stored_size when not compressed)
  uint32_t stream;       // event blocks and location definitions: the stream (thread); else 0
  uint32_t sequence;     // event blocks: 0, 1, 2, ... per stream, in recording order; else 0
  uint32_t payload_crc;  // version 2: CRC-32C of the stored_size payload bytes as stored
  uint32_t header_crc;   // version 2: CRC-32C of the 28 header bytes before this field
};
static_assert(sizeof(ChunkHeader) == 32);
// Version 1 chunk headers end before the checksums.
inline constexpr uint32_t kChunkHeaderSizeV1 = 24;
inline constexpr uint32_t kChunkHeaderCrcOffset = 28;

// Fills in the checksums of a chunk header for `payload` (stored_size bytes), as written.
inline void SealChunkHeader(ChunkHeader& h, const void* payload) {
  h.payload_crc = Crc32c(payload, h.stored_size);
  h.header_crc = Crc32c(&h, kChunkHeaderCrcOffset);
}

// Upper bound on a chunk's raw payload, so a corrupt size cannot make a reader allocate gigabytes.
inline constexpr uint32_t kMaxChunkRawSize = limits::kMaxChunkBytes;

// ---- Event records --------------------------------------------------------------------------

enum RecordKind : uint8_t {
  kRecordRegionBegin = 1,  // id: region
  kRecordRegionEnd = 2,    // id: region
  kRecordSendBegin = 3,    // id: message name (string); extra = 1: MessageSlot
  kRecordSendEnd = 4,      // id: message name
  kRecordRecvBegin = 5,    // id: message name
  kRecordRecvEnd = 6,      // id: message name; extra = 1: MessageSlot
  kRecordMarker = 7,       // id: label (string)
  kRecordProcessor = 8,    // id: the seed processor id this thread runs from now on
  kRecordOrigin = 9,       // id: 0. The seed's initialize_clock(): the run's time zero
  kRecordGrainBegin = 10,  // a grain whose id the program gives per instance (gs_grain_begin_id):
  kRecordGrainEnd = 11,    // the descriptor's region (the call site) and the grain id, packed
                           // (see PackGrain below) or with extra = 1: GrainSlot
  kRecordSync = 12,        // a thread synchronises (version 2.3): reserved = its SyncRecordKind,
                           // id = its argument (a barrier's participants), extra = 1: SyncSlot
  // MPI (version 2.5), what libgrainscope-mpi writes. `id` names the communicator: a string whose
  // text is the key the rank's "mpi.comm <key> <members>" label defines ("w" is MPI_COMM_WORLD).
  kRecordMpiSend = 13,       // a message sent: extra = 1: MpiMessageSlot (peer = the receiver)
  kRecordMpiRecv = 14,       // a message received (completed): extra = 1: MpiMessageSlot (peer = the sender)
  kRecordMpiCollective = 15, // a collective begins: reserved = its MpiCollOpNumber, extra = 2: MpiCollSizes,
                             // MpiCollRoot. A blocking one (slot 0) ends with the call's region.
  kRecordMpiCollectiveEnd = 16,  // the non-blocking collective in flight in slot `id` ends
};
inline constexpr uint8_t kLastKnownRecordKind = kRecordMpiCollectiveEnd;

// What a sync record says happened (model/sync_table.h says what each means; gst_model_numbers.h
// maps them). The runtime's gs_lock_request() and the like write these numbers.
enum SyncRecordKind : uint16_t {
  kSyncLockRequest = 1,
  kSyncLockAcquired = 2,
  kSyncLockRelease = 3,
  kSyncBarrierEnter = 4,
  kSyncBarrierLeave = 5,
  kSyncCondWaitBegin = 6,
  kSyncCondWaitEnd = 7,
  kSyncCondSignal = 8,
  kSyncCondBroadcast = 9,
  kSyncThreadCreate = 10,
  kSyncThreadBegin = 11,
  kSyncThreadEnd = 12,
  kSyncThreadJoinBegin = 13,
  kSyncThreadJoinEnd = 14,
  kSyncTaskCreate = 15,
  kSyncTaskBegin = 16,
  kSyncTaskEnd = 17,
};
inline constexpr uint16_t kLastSyncRecordKind = kSyncTaskEnd;

struct Record {
  uint64_t time;   // raw clock value (see ClockSample for the conversion to ns)
  uint8_t kind;    // RecordKind; unknown kinds are skipped with their `extra` slots
  uint8_t extra;   // continuation slots that follow and belong to this record
  uint16_t reserved;
  uint32_t id;     // region or string id, by kind
};
static_assert(sizeof(Record) == 16);

// The header every writer of this version puts at byte 0 (the runtime's sink, the trace writer).
inline FileHeader CurrentFileHeader() {
  FileHeader h{};
  std::memcpy(h.magic, kMagic, sizeof h.magic);
  h.version_major = kVersionMajor;
  h.version_minor = kVersionMinor;
  h.header_size = sizeof h;
  h.record_size = sizeof(Record);
  return h;
}

inline constexpr uint32_t kNoRegion = 0;  // ids start at 1; 0 means "none"
inline constexpr int32_t kNoPeer = -1;

// The continuation slot of kRecordSendBegin and kRecordRecvEnd.
struct MessageSlot {
  uint64_t bytes;  // payload size the program reported (0 when unknown)
  int32_t peer;    // receiving (for a send) or sending (for a receive) thread/rank, or kNoPeer
  uint32_t grain;  // region id of the grain the message belongs to, or kNoRegion
};
static_assert(sizeof(MessageSlot) == sizeof(Record));

// Packs the second half of a Record (kind, extra, id) into one 64-bit store for the hot path.
constexpr uint64_t PackKindId(uint8_t kind, uint8_t extra, uint32_t id) {
  return uint64_t{kind} | (uint64_t{extra} << 8) | (uint64_t{id} << 32);
}

// kRecordGrainBegin/End. Packed, the record's own 48 bits hold both: reserved = the site's region
// id (<= 0xffff), id = the grain id (0 .. 0xffffffff), so the common case is one slot, stored as
// cheaply as a region event. Otherwise id = the site's region id and one GrainSlot follows.
inline constexpr uint32_t kMaxPackedGrainSite = 0xffff;
inline constexpr bool FitsPackedGrain(uint32_t site, int64_t grain) {
  return site <= kMaxPackedGrainSite && grain >= 0 && grain <= int64_t{0xffffffff};
}
constexpr uint64_t PackGrain(uint8_t kind, uint32_t site, int64_t grain) {
  return uint64_t{kind} | (uint64_t{site} << 16) | (static_cast<uint64_t>(grain) << 32);
}
struct GrainSlot {
  int64_t grain;      // the grain id
  uint64_t reserved;  // 0
};
static_assert(sizeof(GrainSlot) == sizeof(Record));

// The continuation slot of kRecordSync.
struct SyncSlot {
  uint64_t object;    // the lock's, barrier's or condition's address; the thread's or task's id
  uint64_t reserved;  // 0
};
static_assert(sizeof(SyncSlot) == sizeof(Record));
constexpr uint64_t PackSync(uint16_t sync_kind, uint32_t arg) {
  return uint64_t{kRecordSync} | (uint64_t{1} << 8) | (uint64_t{sync_kind} << 16) | (uint64_t{arg} << 32);
}

// The continuation slot of kRecordMpiSend and kRecordMpiRecv. A message's channel is (communicator,
// sender, receiver, tag) with world ranks: the k-th send and the k-th receive of a channel are one
// message (MPI's non-overtaking rule).
struct MpiMessageSlot {
  uint64_t bytes;  // the payload's size
  int32_t peer;    // world rank of the receiver (a send) or the sender (a receive)
  int32_t tag;
};
static_assert(sizeof(MpiMessageSlot) == sizeof(Record));

// What kind of collective a kRecordMpiCollective record begins (its `reserved`); a number this
// version does not know is read as kMpiOpOther.
enum MpiCollOpNumber : uint16_t {
  kMpiOpOther = 0,
  kMpiOpBarrier = 1,
  kMpiOpBcast = 2,
  kMpiOpReduce = 3,
  kMpiOpAllreduce = 4,
  kMpiOpGather = 5,
  kMpiOpScatter = 6,
  kMpiOpAllgather = 7,
  kMpiOpAlltoall = 8,
  kMpiOpScan = 9,
  kMpiOpReduceScatter = 10,
  kMpiOpInit = 11,  // MPI_Init's synchronisation of all ranks (all-to-all, as kMpiOpOther)
};
inline constexpr uint16_t kLastMpiCollOp = kMpiOpInit;
// Each number's name, as libgrainscope-mpi's wrappers and the 2.4 labels ("mpi.coll bcast ...") say it.
inline constexpr const char* kMpiCollOpNames[] = {"other",  "barrier", "bcast",     "reduce", "allreduce",      "gather",
                                                  "scatter", "allgather", "alltoall", "scan", "reduce_scatter", "init"};
static_assert(sizeof kMpiCollOpNames / sizeof kMpiCollOpNames[0] == kLastMpiCollOp + 1);
constexpr uint16_t MpiCollOpNumberOf(std::string_view name) {
  for (uint16_t n = 0; n <= kLastMpiCollOp; ++n)
    if (name == kMpiCollOpNames[n]) return n;
  return kMpiOpOther;
}
constexpr std::string_view MpiCollOpNameOf(uint16_t number) {
  return number <= kLastMpiCollOp ? kMpiCollOpNames[number] : kMpiCollOpNames[kMpiOpOther];
}

// The two continuation slots of kRecordMpiCollective.
struct MpiCollSizes {
  uint64_t sent;      // bytes this rank sends in the operation
  uint64_t received;  // bytes it receives
};
static_assert(sizeof(MpiCollSizes) == sizeof(Record));
struct MpiCollRoot {
  int32_t root;       // world rank of the root, or -1 (rootless)
  uint32_t slot;      // 0: blocking; else a non-blocking collective, ended by the
                      // kRecordMpiCollectiveEnd of this slot that follows on its thread. The slot is
                      // the smallest number (from 1) no other collective in flight on the rank has.
  uint64_t reserved;  // 0
};
static_assert(sizeof(MpiCollRoot) == sizeof(Record));

// ---- Definitions ----------------------------------------------------------------------------

// What a region stands for (gst_roles.h maps the numbers onto the model's RegionRole). The runtime
// writes 0 to 3 (the C API's gs_region_role); the trace writer writes every role (version 2.4; a
// 2.3 reader reads 4 and up as functions).
enum RegionRole : uint8_t {
  kRoleFunction = 0,       // a code region: function, loop, phase
  kRoleGrain = 1,          // a unit of computation in the seed's sense (task-graph node)
  kRoleCommunication = 2,  // a communication call the program marks itself (its kind: its name's)
  kRoleOther = 3,
  kRolePointToPoint = 4,
  kRoleCollective = 5,
  kRoleBarrier = 6,
  kRoleWait = 7,
  kRoleOneSided = 8,
  kRoleMpiOther = 9,
  kRoleInitFinalize = 10,
  kRoleThreadSync = 11,
  kRoleOpenMp = 12,
  kRoleGpuKernel = 13,
  kRoleGpuMemcpy = 14,
  kRoleGpuMemset = 15,
  kRoleGpuLaunch = 16,
  kRoleDeviceSync = 17,
  kRoleCommCollective = 18,
  kRoleIo = 19,
};

// kChunkRegionDef payload: RegionDef, then name_size bytes of name, then file_size bytes of file.
struct RegionDef {
  uint32_t id;           // >= 1
  uint8_t role;          // RegionRole
  uint8_t reserved[3];
  int64_t external_id;   // the program's own id (seed grain id), or kNoExternalId
  uint32_t line;         // source line of the descriptor, 0 when unknown
  uint32_t name_size;
  uint32_t file_size;
  uint32_t reserved2;
};
static_assert(sizeof(RegionDef) == 32);
inline constexpr int64_t kNoExternalId = INT64_MIN;

// kChunkStringDef payload: StringDef then `size` bytes of text (message names, marker labels).
struct StringDef {
  uint32_t id;  // >= 1
  uint32_t size;
};
static_assert(sizeof(StringDef) == 8);

// kChunkLocationDef payload: LocationDef then name_size bytes of name. ChunkHeader.stream is the
// stream it describes.
struct LocationDef {
  uint64_t os_thread_id;  // gettid()
  uint32_t thread_index;  // order in which threads started recording, from 0
  uint32_t name_size;
};
static_assert(sizeof(LocationDef) == 16);

enum ClockKind : uint32_t {
  kClockMonotonic = 0,  // raw values are CLOCK_MONOTONIC nanoseconds
  kClockTsc = 1,        // raw values are invariant TSC ticks
};

// kChunkClock payload: one simultaneous reading of the raw clock and CLOCK_MONOTONIC. The first
// sample is taken before any event; further samples during and at the end of the run. A reader
// converts raw values with the line through the first and the last sample; with a single sample
// it uses nominal_ticks_per_ns (the start-up calibration).
struct ClockSample {
  uint32_t clock;               // ClockKind
  uint32_t reserved;
  uint64_t raw;                 // raw clock value
  int64_t monotonic_ns;         // CLOCK_MONOTONIC at the same moment
  double nominal_ticks_per_ns;  // start-up estimate of the raw clock's rate (1.0 for monotonic)
};
static_assert(sizeof(ClockSample) == 32);

// kChunkMetadata payload: entries of (uint32 key_size, key, uint32 value_size, value).
// Keys written by the runtime: program, command_line, host, pid, clock, start_unix_ns,
// overhead_per_event_ns, overhead_calibration, compression, grainscope_version.

enum EndReason : uint32_t {
  kEndExit = 0,    // exit(), return from main, or gs_trace_close()
  kEndSignal = 1,  // a fatal signal; EndOfTrace.signal says which
};

// kChunkEnd payload. The last chunk the runtime writes; its absence means the run was killed
// before it could finish the trace (SIGKILL, power loss) and blocks may be missing.
struct EndOfTrace {
  uint64_t dropped_events;  // events the runtime could not record (see docs/formats/gst.md)
  uint32_t reason;          // EndReason
  int32_t signal;           // the signal number for kEndSignal, else 0
  uint32_t streams;         // number of streams (threads) that recorded
  uint32_t reserved;
};
static_assert(sizeof(EndOfTrace) == 24);

// Reads a T from possibly unaligned bytes (memory-mapped files give no alignment guarantee).
template <typename T>
inline T Load(const unsigned char* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

}  // namespace grainscope::gst
