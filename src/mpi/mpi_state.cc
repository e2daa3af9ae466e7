// Communicators, messages, collectives and the MPI_Init/MPI_Finalize work of the wrapper library
// (requests: mpi_requests.cc; the labels of messages and collectives: mpi_labels.cc).
#include "mpi/mpi_state.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "record/onthefly.h"

extern char* program_invocation_short_name;

namespace grainscope::mpi {
namespace {

namespace rec = grainscope::record;

struct CommEntry {
  MPI_Comm handle = MPI_COMM_NULL;
  CommInfo info;
  std::vector<int> members;  // world rank of each rank; empty for MPI_COMM_WORLD
  uint32_t children = 0;     // communicators created from this one so far (the id of the next)
};

std::atomic<bool> g_recording{false};
int g_world_rank = 0;
int g_world_size = 1;
MPI_Comm g_private = MPI_COMM_NULL;  // a duplicate of MPI_COMM_WORLD for the clock ping-pong
MPI_Comm g_shadow_world = MPI_COMM_NULL;  // MPI_COMM_WORLD's piggyback shadow
// GRAINSCOPE_ONTHEFLY=1: carry the on-the-fly state with every message and collective (an extra
// message per message, an extra allgather per collective). Off by default: it changes the
// program's traffic, and a send the wrappers do not see would make its receiver wait for it.
bool g_onthefly = false;
constexpr int kClockTag = 7001;

std::mutex g_comm_mutex;
// A deque: LookupComm hands out pointers that must survive other threads adding communicators.
// Leaked on purpose: wrappers may run until the process ends.
std::deque<CommEntry>* g_comms = nullptr;

// The wrapper's own labels (rank, communicators, clocks): consumed by the reader, not events.
void Mark(const std::string& label) { rec::CarriedLabel(gs_intern(label.c_str())); }

// "0-3,5,7-9": members as ranges of world ranks, short for the common contiguous cases.
std::string Ranges(const std::vector<int>& members) {
  std::string out;
  for (size_t i = 0; i < members.size();) {
    size_t j = i;
    while (j + 1 < members.size() && members[j + 1] == members[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(members[i]);
    if (j > i) out += '-' + std::to_string(members[j]);
    i = j + 1;
  }
  return out;
}

std::vector<int> MembersOf(MPI_Comm comm) {
  std::vector<int> members;
  MPI_Group group, world;
  int size = 0;
  if (PMPI_Comm_size(comm, &size) != MPI_SUCCESS || size <= 0) return members;
  PMPI_Comm_group(comm, &group);
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  std::vector<int> ranks(size);
  for (int i = 0; i < size; ++i) ranks[i] = i;
  members.resize(size, -1);
  PMPI_Group_translate_ranks(group, size, ranks.data(), world, members.data());
  PMPI_Group_free(&group);
  PMPI_Group_free(&world);
  return members;
}

// Adds `handle` under `id` and writes its definition marker. Caller holds g_comm_mutex.
CommEntry& AddComm(MPI_Comm handle, const char* id) {
  if (g_comms == nullptr) g_comms = new std::deque<CommEntry>();
  CommEntry e;
  e.handle = handle;
  e.info.index = static_cast<uint32_t>(g_comms->size());
  std::snprintf(e.info.id, sizeof e.info.id, "%s", id);
  if (handle == MPI_COMM_WORLD) {
    e.info.size = g_world_size;
  } else {
    e.members = MembersOf(handle);
    e.info.size = static_cast<int>(e.members.size());
  }
  if (g_recording.load(std::memory_order_relaxed) || handle == MPI_COMM_WORLD) {
    std::vector<int> all = e.members;
    if (handle == MPI_COMM_WORLD) {
      for (int r = 0; r < g_world_size; ++r) all.push_back(r);
    }
    Mark(std::string("mpi.comm ") + e.info.id + " " + Ranges(all));
  }
  g_comms->push_back(std::move(e));
  return g_comms->back();
}

CommEntry* FindComm(MPI_Comm comm) {
  if (g_comms == nullptr) return nullptr;
  for (CommEntry& e : *g_comms) {
    if (e.handle == comm) return &e;
  }
  return nullptr;
}

// A communicator the wrappers did not see being created (MPI_Comm_create, a Cartesian one, ...):
// named after its membership, which every member computes alike.
CommEntry* AddUnknownComm(MPI_Comm comm) {
  std::vector<int> members = MembersOf(comm);
  uint64_t hash = 1469598103934665603ull;
  for (int m : members) hash = (hash ^ static_cast<uint64_t>(m)) * 1099511628211ull;
  char id[48];
  std::snprintf(id, sizeof id, "g%llx", static_cast<unsigned long long>(hash));
  return &AddComm(comm, id);
}

// The kernel's boot id: ranks that share it share CLOCK_MONOTONIC, so their offset is exactly 0
// (a measured one would only add the ping-pong's error, which is large on an oversubscribed node).
void BootId(char (&id)[40]) {
  std::memset(id, 0, sizeof id);
  FILE* f = std::fopen("/proc/sys/kernel/random/boot_id", "r");
  if (f == nullptr) return;
  if (std::fgets(id, sizeof id, f) == nullptr) id[0] = '\0';
  std::fclose(f);
}

void SyncClocks(const char* phase) {
  constexpr int kRounds = 10;
  char mine[40], root[40];
  BootId(mine);
  std::memcpy(root, mine, sizeof root);
  PMPI_Bcast(root, sizeof root, MPI_CHAR, 0, g_private);
  const bool same_clock = mine[0] != '\0' && std::memcmp(mine, root, sizeof root) == 0;
  int64_t offset = 0;
  int64_t best_rtt = -1;
  if (g_world_rank == 0) {
    for (int r = 1; r < g_world_size; ++r) {
      for (int k = 0; k < kRounds; ++k) {
        long long ping = 0;
        PMPI_Recv(&ping, 1, MPI_LONG_LONG, r, kClockTag, g_private, MPI_STATUS_IGNORE);
        long long now = MonotonicNs();
        PMPI_Send(&now, 1, MPI_LONG_LONG, r, kClockTag, g_private);
      }
    }
  } else {
    for (int k = 0; k < kRounds; ++k) {
      long long t1 = MonotonicNs(), t0 = 0;
      PMPI_Send(&t1, 1, MPI_LONG_LONG, 0, kClockTag, g_private);
      PMPI_Recv(&t0, 1, MPI_LONG_LONG, 0, kClockTag, g_private, MPI_STATUS_IGNORE);
      const int64_t t2 = MonotonicNs();
      // Rank 0 read its clock about half-way through the round trip; the shortest round trip
      // bounds the error best.
      if (best_rtt < 0 || t2 - t1 < best_rtt) {
        best_rtt = t2 - t1;
        offset = t0 - (t1 + t2) / 2;
      }
    }
  }
  char label[160];
  std::snprintf(label, sizeof label, "mpi.clock %s %lld %lld %lld %lld", phase,
                static_cast<long long>(same_clock ? 0 : offset), static_cast<long long>(MonotonicNs()),
                static_cast<long long>(best_rtt < 0 ? 0 : best_rtt), static_cast<long long>(offset));
  Mark(label);
}

// The launcher's job id, when there is one: the default directory name is then the job's.
std::string JobId() {
  for (const char* var : {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "FLUX_JOB_ID", "OMPI_MCA_ess_base_jobid"}) {
    const char* v = std::getenv(var);
    if (v == nullptr || *v == '\0') continue;
    std::string id;
    for (const char* c = v; *c != '\0' && id.size() < 48; ++c) id += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
    return id;
  }
  return "pid" + std::to_string(static_cast<long long>(getpid()));
}

// 0: `dir` exists and holds nothing (or did not exist and was made); EEXIST: it holds files; else
// the errno of the failure.
int MakeEmptyDirectory(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0777) == 0) return 0;
  if (errno != EEXIST) return errno;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return errno;
  int result = 0;
  while (const dirent* e = readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
      result = EEXIST;
      break;
    }
  }
  closedir(d);
  return result;
}

// Rank 0 picks the run's directory and makes it: $GRAINSCOPE_TRACE, which must be new or empty
// (a trace is one run: files of an earlier run would merge into this one), else
// grainscope-<program>-<job id>, with -2, -3, ... when that name is taken. Every rank gets the
// name; empty when there is none (the program then runs without a trace).
std::string OpenTraceDirectory() {
  std::string dir;
  if (g_world_rank == 0) {
    const char* env = std::getenv("GRAINSCOPE_TRACE");
    const bool chosen = env != nullptr && *env != '\0';
    const std::string base = chosen ? env : std::string("grainscope-") + program_invocation_short_name + "-" + JobId();
    for (int attempt = 1; attempt <= 100; ++attempt) {
      const std::string candidate = attempt == 1 ? base : base + "-" + std::to_string(attempt);
      const int err = MakeEmptyDirectory(candidate);
      if (err == 0) {
        dir = candidate;
        break;
      }
      if (err == EEXIST && chosen) {
        std::fprintf(stderr, "grainscope-mpi: the trace directory %s already holds files (an earlier run?): "
                     "not recording; name a new or empty directory in GRAINSCOPE_TRACE\n", candidate.c_str());
        break;
      }
      if (err != EEXIST) {
        std::fprintf(stderr, "grainscope-mpi: cannot create the trace directory %s: %s\n", candidate.c_str(),
                     std::strerror(err));
        break;
      }
    }
  }
  int size = static_cast<int>(dir.size());
  PMPI_Bcast(&size, 1, MPI_INT, 0, g_private);
  dir.resize(static_cast<size_t>(size));
  if (size > 0) PMPI_Bcast(dir.data(), size, MPI_CHAR, 0, g_private);
  return dir;
}

// One id per run, in every rank file's mpi.rank label: the reader merges only files of one run.
unsigned long long RunId() {
  unsigned long long id = 0;
  if (g_world_rank == 0) {
    std::random_device entropy;
    id = (static_cast<unsigned long long>(entropy()) << 32) ^ entropy() ^
         static_cast<unsigned long long>(MonotonicNs());
  }
  PMPI_Bcast(&id, 1, MPI_UNSIGNED_LONG_LONG, 0, g_private);
  return id;
}

}  // namespace

int64_t MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

bool Recording() { return g_recording.load(std::memory_order_relaxed); }
int MyWorldRank() { return g_world_rank; }

const CommInfo* LookupComm(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return nullptr;
  std::lock_guard<std::mutex> lock(g_comm_mutex);
  CommEntry* e = FindComm(comm);
  if (e == nullptr) e = AddUnknownComm(comm);
  return &e->info;
}

int WorldRank(MPI_Comm comm, int rank) {
  if (rank < 0) return -1;
  if (comm == MPI_COMM_WORLD) return rank;
  std::lock_guard<std::mutex> lock(g_comm_mutex);
  CommEntry* e = FindComm(comm);
  if (e == nullptr) e = AddUnknownComm(comm);
  if (e->handle == MPI_COMM_WORLD) return rank;
  return rank < static_cast<int>(e->members.size()) ? e->members[rank] : -1;
}

void RegisterDerivedComm(MPI_Comm parent, MPI_Comm created) {
  std::lock_guard<std::mutex> lock(g_comm_mutex);
  CommEntry* p = FindComm(parent);
  if (p == nullptr) p = AddUnknownComm(parent);
  // Every member of the parent creates the same communicators from it in the same order
  // (creation is collective), so "<parent>.<k>" names the k-th on every member; the first member
  // tells apart the pieces of one split.
  char parent_id[48];
  std::memcpy(parent_id, p->info.id, sizeof parent_id);
  const uint32_t k = p->children++;
  if (created == MPI_COMM_NULL) return;  // this rank passed MPI_UNDEFINED to the split
  std::vector<int> members = MembersOf(created);
  char id[48];
  std::snprintf(id, sizeof id, "%s.%u.%d", parent_id, k, members.empty() ? -1 : members[0]);
  CommEntry& e = AddComm(created, id);
  // Every member of `created` registers it (creation is collective), so the dup is collective too.
  // Inter-communicators get none: their collectives (and the Allgather of the piggyback) span
  // the two groups, which the on-the-fly model does not cover.
  int inter = 0;
  PMPI_Comm_test_inter(created, &inter);
  if (!g_onthefly || inter || PMPI_Comm_dup(created, &e.info.shadow) != MPI_SUCCESS) e.info.shadow = MPI_COMM_NULL;
}

void ForgetComm(MPI_Comm comm) {
  std::lock_guard<std::mutex> lock(g_comm_mutex);
  CommEntry* e = FindComm(comm);
  if (e == nullptr) return;
  e->handle = MPI_COMM_NULL;  // ids stay: messages recorded earlier use them
  if (e->info.shadow != MPI_COMM_NULL) PMPI_Comm_free(&e->info.shadow);
}

uint64_t Bytes(int count, MPI_Datatype type) {
  int size = 0;
  if (count <= 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS) return 0;
  return static_cast<uint64_t>(count) * static_cast<uint64_t>(size);
}

void RecordSend(MPI_Comm comm, int dest, int tag, uint64_t bytes) {
  if (!Recording() || dest == MPI_PROC_NULL) return;
  const CommInfo* info = LookupComm(comm);
  if (info == nullptr) return;
  const int to = WorldRank(comm, dest);
  const uint32_t key = CommKey(*info);
  if (key == 0) return;
  const uint64_t t = rec::CarriedMpiSend(key, bytes, to, tag);
  if (t == 0 || info->shadow == MPI_COMM_NULL) return;
  // Before the user's message: 24 bytes go eagerly, so this never waits for the receiver.
  rec::Piggyback p = rec::PiggybackForSend(t);
  PMPI_Send(&p, sizeof p, MPI_BYTE, dest, tag, info->shadow);
}

namespace {

// The piggyback of a message just received from `source` with `tag`: it was sent before the
// message, so it is there; a sender that did not send one (a call the wrappers do not cover,
// e.g. a persistent send) is waited for a bounded time, then the receive counts as unmatched.
bool ReceivePiggyback(MPI_Comm shadow, int source, int tag, rec::Piggyback* out) {
  const double deadline = PMPI_Wtime() + 0.05;
  int found = 0;
  MPI_Status status;
  do {
    if (PMPI_Iprobe(source, tag, shadow, &found, &status) != MPI_SUCCESS) return false;
  } while (!found && PMPI_Wtime() < deadline);
  if (!found) return false;
  return PMPI_Recv(out, sizeof *out, MPI_BYTE, source, tag, shadow, MPI_STATUS_IGNORE) == MPI_SUCCESS;
}

// The bytes a receive got. PMPI_Get_count's int count is MPI_UNDEFINED from 2 GiB on, so MPI 3's
// MPI_Count variant is asked where there is one.
uint64_t ReceivedBytes(const MPI_Status& status) {
#if MPI_VERSION >= 3
  MPI_Count bytes = 0;
  if (PMPI_Get_elements_x(&status, MPI_BYTE, &bytes) != MPI_SUCCESS || bytes < 0) return 0;
#else
  int bytes = 0;
  if (PMPI_Get_count(&status, MPI_BYTE, &bytes) != MPI_SUCCESS || bytes < 0) return 0;
#endif
  return static_cast<uint64_t>(bytes);
}

}  // namespace

void RecordRecv(MPI_Comm comm, const MPI_Status& status) {
  if (!Recording() || status.MPI_SOURCE == MPI_PROC_NULL || status.MPI_SOURCE < 0) return;
  const CommInfo* info = LookupComm(comm);
  if (info == nullptr) return;
  const uint64_t bytes = ReceivedBytes(status);
  const int from = WorldRank(comm, status.MPI_SOURCE);
  const uint32_t key = CommKey(*info);
  if (key == 0) return;
  const rec::CarriedTimes times = rec::CarriedMpiReceive(key, bytes, from, status.MPI_TAG);
  if (times.time == 0 || info->shadow == MPI_COMM_NULL) return;
  rec::Piggyback p;
  const bool found = ReceivePiggyback(info->shadow, status.MPI_SOURCE, status.MPI_TAG, &p);
  rec::NoteReceiveBegin(times.segment_begin);
  rec::ApplyReceivedPiggyback(found ? &p : nullptr, times.time);
}

namespace {

// The collective the calling thread is in (between RecordCollective and EndCall).
struct PendingCollective {
  MPI_Comm shadow = MPI_COMM_NULL;
  int root = -1;          // rank in the communicator whose begin feeds the others (one-to-all)
  uint64_t begin = 0;     // raw time of the begin marker
};
thread_local PendingCollective t_collective;

// What each member contributes: its critical path and time at its begin, and the begin's
// compensated time (begin - delay).
struct MemberState {
  int64_t cp_ticks;
  uint64_t begin;
  double compensated_begin;
};

// The collective's edge into this member's end, as one piggyback: the post-mortem sweep feeds
// every member's end from the latest begin (from the root's for one-to-all), with the largest
// critical path among the feeding begins.
rec::Piggyback CollectivePiggyback(const PendingCollective& c) {
  const rec::Piggyback mine = rec::PiggybackForSend(c.begin);
  const MemberState me{mine.cp_ticks, c.begin, static_cast<double>(c.begin) - mine.delay_ticks};
  int size = 0;
  PMPI_Comm_size(c.shadow, &size);
  std::vector<MemberState> all(static_cast<size_t>(size > 0 ? size : 1));
  PMPI_Allgather(&me, sizeof me, MPI_BYTE, all.data(), sizeof me, MPI_BYTE, c.shadow);
  int first = 0, last = size;
  if (c.root >= 0 && c.root < size) first = c.root, last = c.root + 1;
  rec::Piggyback p;
  p.cp_ticks = all[first].cp_ticks;
  p.send_time = all[first].begin;
  double compensated = all[first].compensated_begin;
  for (int k = first + 1; k < last; ++k) {
    p.cp_ticks = std::max(p.cp_ticks, all[k].cp_ticks);
    p.send_time = std::max(p.send_time, all[k].begin);
    compensated = std::max(compensated, all[k].compensated_begin);
  }
  p.delay_ticks = static_cast<double>(p.send_time) - compensated;
  return p;
}

}  // namespace

void EndCall(gs_region* region) {
  PendingCollective c = t_collective;
  t_collective = PendingCollective();
  if (c.begin == 0) {
    gs_region_end(region);
    return;
  }
  const rec::Piggyback p = CollectivePiggyback(c);
  const uint64_t end = rec::RegionEndTimed(region);
  if (end == 0) return;
  rec::NoteReceiveBegin(c.begin);
  rec::ApplyReceivedPiggyback(&p, end);
}

void RecordCollective(const char* op, MPI_Comm comm, int root, uint64_t sent, uint64_t received) {
  if (!Recording()) return;
  const CommInfo* info = LookupComm(comm);
  if (info == nullptr) return;
  const uint32_t key = CommKey(*info);
  if (key == 0) return;
  const int root_world = root >= 0 ? WorldRank(comm, root) : -1;
  const uint64_t t = rec::MpiCollectiveTimed({gst::MpiCollOpNumberOf(op), key, root_world, sent, received, 0});
  // One-to-all operations (the reader's shape for bcast and scatter) are fed by their root alone.
  const bool one_to_all = std::strcmp(op, "bcast") == 0 || std::strcmp(op, "scatter") == 0;
  if (t != 0 && info->shadow != MPI_COMM_NULL) t_collective = PendingCollective{info->shadow, one_to_all ? root : -1, t};
}

// No on-the-fly state crosses a non-blocking collective: its members' begins are not where its
// end is, and a piggyback collective at the Wait would need every member to wait there too.
uint32_t BeginNonBlockingCollective(const char* op, MPI_Comm comm, int root, uint64_t sent, uint64_t received) {
  if (!Recording()) return 0;
  const CommInfo* info = LookupComm(comm);
  if (info == nullptr) return 0;
  const uint32_t key = CommKey(*info);
  if (key == 0) return 0;
  const uint32_t slot = TakeCollectiveSlot();
  rec::MpiCollectiveTimed({gst::MpiCollOpNumberOf(op), key, root >= 0 ? WorldRank(comm, root) : -1, sent, received, slot});
  return slot;
}

void AfterInit(int init_result, int64_t entry_monotonic_ns, bool thread_variant) {
  if (init_result != MPI_SUCCESS) return;  // the program goes on without a trace
  const char* enable = std::getenv("GRAINSCOPE_ENABLE");
  if (enable != nullptr && std::strcmp(enable, "0") == 0) return;
  PMPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &g_world_size);
  if (PMPI_Comm_dup(MPI_COMM_WORLD, &g_private) != MPI_SUCCESS) return;
  const char* onthefly = std::getenv("GRAINSCOPE_ONTHEFLY");
  g_onthefly = onthefly != nullptr && *onthefly != '\0' && std::strcmp(onthefly, "0") != 0;
  const std::string dir = OpenTraceDirectory();
  if (dir.empty()) return;
  const unsigned long long run = RunId();
  char file[32];
  std::snprintf(file, sizeof file, "/rank-%05d.gst", g_world_rank);
  // Without the piggybacks each rank's on-the-fly totals see only its own events: not published.
  rec::SetOnTheFlyPublished(g_onthefly);
  int opened = gs_trace_open((dir + file).c_str()) == 0 ? 1 : 0;
  int all_opened = 0;
  PMPI_Allreduce(&opened, &all_opened, 1, MPI_INT, MPI_MIN, g_private);
  if (!all_opened) return;  // the clock ping-pong needs every rank
  // The call's region, begun at the wrapper's entry: the rank's first record, before the labels.
  // It is a collective over MPI_COMM_WORLD (an all-to-all "init"): the ranks leave it together
  // (the allreduce above synchronised them), so a rank launched early waits in it for the others
  // rather than working, as in a barrier.
  GS_MPI_REGION(r_init, "MPI_Init");
  GS_MPI_REGION(r_init_thread, "MPI_Init_thread");
  gs_region* init_region = thread_variant ? &r_init_thread : &r_init;
  const uint64_t entry = rec::RegionBeginAt(init_region, rec::RawClockAt(entry_monotonic_ns));
  const uint64_t init_begin = rec::MpiCollectiveAt({gst::kMpiOpInit, gs_intern("w"), -1, 0, 0, 0}, entry);
  // The on-the-fly compensation counts rank 0's calibrated overhead on every rank: the directory
  // reader keeps rank 0's metadata, so that is the value the post-mortem compensation uses.
  double overhead_ns = rec::AnalysisOverheadNs();
  PMPI_Bcast(&overhead_ns, 1, MPI_DOUBLE, 0, g_private);
  rec::AnalysisSetOverheadNs(overhead_ns);
  char rank_label[80];
  std::snprintf(rank_label, sizeof rank_label, "mpi.rank %d %d %016llx", g_world_rank, g_world_size, run);
  Mark(rank_label);
  if (const std::string eager = EagerLimitLabel(); !eager.empty()) Mark(eager);
  if (g_onthefly && PMPI_Comm_dup(MPI_COMM_WORLD, &g_shadow_world) != MPI_SUCCESS) g_shadow_world = MPI_COMM_NULL;
  {
    std::lock_guard<std::mutex> lock(g_comm_mutex);
    CommEntry* world = FindComm(MPI_COMM_WORLD);
    if (world == nullptr) world = &AddComm(MPI_COMM_WORLD, "w");
    world->info.shadow = g_shadow_world;
  }
  SyncClocks("init");
  // Ends the region after the members' on-the-fly states met, as every collective's (EndCall).
  if (init_begin != 0 && g_shadow_world != MPI_COMM_NULL) t_collective = PendingCollective{g_shadow_world, -1, init_begin};
  EndCall(init_region);
  g_recording.store(true, std::memory_order_relaxed);
}

namespace {

// At close, the on-the-fly totals over all ranks (every rank's metadata then holds them): the
// longest critical path, the earliest first and latest last event. Raw clock values of different
// ranks compare directly when they share one clock (one kernel: CLOCK_MONOTONIC or the TSC).
void CombineOverRanks(rec::OnTheFlyRaw* t) {
  int64_t max_values[3] = {t->max_cp_ticks, static_cast<int64_t>(t->max_last),
                           -static_cast<int64_t>(t->min_first == UINT64_MAX ? INT64_MAX : t->min_first)};
  PMPI_Allreduce(MPI_IN_PLACE, max_values, 3, MPI_INT64_T, MPI_MAX, g_private);
  double compensated = t->max_compensated_end;
  PMPI_Allreduce(MPI_IN_PLACE, &compensated, 1, MPI_DOUBLE, MPI_MAX, g_private);
  unsigned long long unmatched = t->unmatched;
  PMPI_Allreduce(MPI_IN_PLACE, &unmatched, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, g_private);
  t->max_cp_ticks = max_values[0];
  t->max_last = static_cast<uint64_t>(max_values[1]);
  t->min_first = max_values[2] == -INT64_MAX ? UINT64_MAX : static_cast<uint64_t>(-max_values[2]);
  t->max_compensated_end = compensated;
  t->unmatched = unmatched;
}

}  // namespace

void BeforeFinalize() {
  if (!Recording()) return;
  {
    // The call's region, until the trace closes (what MPI_Finalize does after that is not seen).
    GS_MPI_REGION(r_finalize, "MPI_Finalize");
    CallRegion call(&r_finalize);
    SyncClocks("finalize");
  }
  g_recording.store(false, std::memory_order_relaxed);
  if (g_onthefly) rec::SetTotalsCombiner(CombineOverRanks);
  gs_trace_close();
  rec::SetTotalsCombiner(nullptr);
  PMPI_Comm_free(&g_private);
  if (g_shadow_world != MPI_COMM_NULL) PMPI_Comm_free(&g_shadow_world);
}

}  // namespace grainscope::mpi
