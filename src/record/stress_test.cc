// Recording under stress (issue 11): 8 threads record a known pattern with the smallest buffers
// (2 blocks per thread, so owners and the flusher both write and the rings wrap all the time);
// the trace must hold every event of every thread, in order, or count what was dropped. And a
// recording process killed with SIGKILL: the trace is readable, each thread's events are an exact
// prefix of what it recorded, it lost at most its unwritten buffer, and the reader says so.
//
// Size: GRAINSCOPE_STRESS_EVENTS events per thread (default 200000, a few seconds; the full
// size is 10000000: `GRAINSCOPE_STRESS_EVENTS=10000000 build/bin/gs_record_stress_tests`).
// This binary is also the child of the SIGKILL test (`--stress-child`).
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "format/gst/gst_chunks.h"
#include "grainscope/trace.h"
#include "record/stream.h"
#include "record/test_util.h"

namespace grainscope::record {
namespace {

GS_DEFINE_REGION(g_r0, "stress0");
GS_DEFINE_REGION(g_r1, "stress1");
GS_DEFINE_REGION(g_r2, "stress2");
GS_DEFINE_REGION(g_r3, "stress3");
GS_DEFINE_MESSAGE(g_mark, "stress.mark");
gs_region* const kRegions[4] = {&g_r0, &g_r1, &g_r2, &g_r3};

constexpr uint64_t kSendEvery = 1024;

// Iteration i of thread k: region (i + k) % 4 begins; every 1024th iteration a send carrying
// i as its byte count and k as its peer (so a reader can tell exactly where it is); the region
// ends. 2 events per iteration, 4 on the 1024th (send begin + send end; the send begin has a
// continuation slot).
inline void Iteration(uint64_t i, int k) {
  gs_region* r = kRegions[(i + static_cast<uint64_t>(k)) % 4];
  gs_region_begin(r);
  if (i % kSendEvery == 0) {
    gs_send_begin(gs_message_id(&g_mark), i, k);
    gs_send_end(gs_message_id(&g_mark));
  }
  gs_region_end(r);
}

uint64_t EventsPerThread() {
  const char* env = std::getenv("GRAINSCOPE_STRESS_EVENTS");
  return env != nullptr ? std::strtoull(env, nullptr, 10) : 200'000;
}

// Iterations that make at least `events` events.
uint64_t IterationsFor(uint64_t events) { return events / 2; }

struct StreamCheck {
  std::string name;
  uint64_t iterations = 0;  // complete iterations found, from 0 without a gap
  uint64_t records = 0;
  std::string error;        // the first departure from the pattern, if any
};

// Walks one stream's records in sequence order and checks them against the pattern of thread
// `k`. Returns how many whole iterations are there; `error` says where the pattern broke.
StreamCheck CheckStream(const gst::StreamChunks& stream, int k,
                        const std::map<std::string, uint32_t>& region_ids, uint32_t mark_id) {
  StreamCheck c;
  std::vector<const gst::EventBlock*> blocks;
  for (const auto& b : stream.blocks) blocks.push_back(&b);
  std::sort(blocks.begin(), blocks.end(), [](auto* a, auto* b) { return a->sequence < b->sequence; });
  std::vector<gst::Record> records;
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (blocks[i]->sequence != i || blocks[i]->damaged) break;  // the reader ends the stream here too
    const size_t n = blocks[i]->records.size() / sizeof(gst::Record);
    const size_t at = records.size();
    records.resize(at + n);
    std::memcpy(records.data() + at, blocks[i]->records.data(), n * sizeof(gst::Record));
  }
  c.records = records.size();
  size_t p = 0;
  uint64_t last_time = 0;
  auto expect = [&](uint8_t kind, uint32_t id, uint64_t i) {
    if (p >= records.size()) return false;
    const gst::Record& r = records[p];
    if (r.kind != kind || r.id != id || r.time < last_time) {
      c.error = "iteration " + std::to_string(i) + ", record " + std::to_string(p) + ": kind " + std::to_string(r.kind) +
                " id " + std::to_string(r.id) + ", expected kind " + std::to_string(kind) + " id " + std::to_string(id);
      return false;
    }
    last_time = r.time;
    p += 1 + r.extra;
    return true;
  };
  for (uint64_t i = 0;; ++i) {
    const uint32_t region = region_ids.at("stress" + std::to_string((i + static_cast<uint64_t>(k)) % 4));
    if (!expect(gst::kRecordRegionBegin, region, i)) break;
    if (i % kSendEvery == 0) {
      const size_t slot = p;
      if (!expect(gst::kRecordSendBegin, mark_id, i)) break;
      if (slot + 1 < records.size()) {
        gst::MessageSlot m;
        std::memcpy(&m, &records[slot + 1], sizeof m);
        if (m.bytes != i || m.peer != k) {
          c.error = "iteration " + std::to_string(i) + ": the send carries " + std::to_string(m.bytes);
          break;
        }
      }
      if (!expect(gst::kRecordSendEnd, mark_id, i)) break;
    }
    if (!expect(gst::kRecordRegionEnd, region, i)) break;
    c.iterations = i + 1;
  }
  // Running out of records ends the walk without an error (a prefix); anything else is one.
  if (p < records.size() && c.error.empty()) c.error = "records left over after iteration " + std::to_string(c.iterations);
  return c;
}

std::vector<unsigned char> Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Checks every "stress <k>" stream of the trace at `path`: returns iterations per thread.
std::map<int, StreamCheck> CheckTrace(const std::vector<unsigned char>& bytes, const std::string& path) {
  std::map<int, StreamCheck> out;
  Result<gst::Chunks> chunks = gst::ParseChunks(bytes, path);
  EXPECT_TRUE(chunks.ok()) << chunks.status().message();
  if (!chunks.ok()) return out;
  std::map<std::string, uint32_t> regions;
  for (const auto& [id, def] : chunks->regions) regions[def.name] = id;
  uint32_t mark = 0;
  for (const auto& [id, text] : chunks->strings)
    if (text == "stress.mark") mark = id;
  for (const auto& [id, stream] : chunks->streams) {
    if (!stream.location || stream.location->name.rfind("stress ", 0) != 0) continue;
    const int k = std::atoi(stream.location->name.c_str() + 7);
    out[k] = CheckStream(stream, k, regions, mark);
    out[k].name = stream.location->name;
  }
  return out;
}

void Worker(int k, uint64_t iterations) {
  gs_thread_name(("stress " + std::to_string(k)).c_str());
  for (uint64_t i = 0; i < iterations; ++i) Iteration(i, k);
}

TEST(StressRecording, EightThreadsSmallBuffersNoEventLostOrReordered) {
  constexpr int kThreads = 8;
  const uint64_t iterations = IterationsFor(EventsPerThread());
  ScratchDir dir;
  const std::string path = dir.File("stress.gst");
  Options o = TestOptions(path);
  o.buffer_kib = 128;  // the minimum: 2 blocks of 4096 records per thread
  ASSERT_TRUE(Open(o));
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int k = 0; k < kThreads; ++k) threads.emplace_back(Worker, k, iterations);
  for (auto& t : threads) t.join();
  Close();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const std::vector<unsigned char> bytes = Slurp(path);
  std::map<int, StreamCheck> checks = CheckTrace(bytes, path);
  ASSERT_EQ(checks.size(), static_cast<size_t>(kThreads));
  uint64_t events = 0;
  for (const auto& [k, c] : checks) {
    EXPECT_EQ(c.iterations, iterations) << c.name << ": " << c.error;
    EXPECT_TRUE(c.error.empty()) << c.name << ": " << c.error;
    events += c.records;
  }
  Result<gst::Chunks> chunks = gst::ParseChunks(bytes, path);
  ASSERT_TRUE(chunks.ok());
  ASSERT_TRUE(chunks->end.has_value());
  EXPECT_EQ(chunks->end->dropped_events, 0u) << "events were dropped";
  std::printf("[ stress   ] %d threads x %llu events: %llu records in %.2f s (%.1f M records/s), %zu bytes\n", kThreads,
              static_cast<unsigned long long>(EventsPerThread()), static_cast<unsigned long long>(events), seconds,
              static_cast<double>(events) / seconds / 1e6, bytes.size());
  // And the full reader agrees (it also checks nesting, ids and the block sequence).
  if (bytes.size() < (512u << 20)) {
    Result<Trace> t = ReadGst(bytes, path);
    ASSERT_TRUE(t.ok()) << t.status().message();
    EXPECT_EQ(t->Metadata("dropped_events"), "0");
    EXPECT_EQ(t->diagnostics().Count(Diag::kMissingBlocks), 0u);
  }
}

// ---- SIGKILL ----------------------------------------------------------------------------------

constexpr int kChildThreads = 4;

// The child: kChildThreads threads record the pattern until killed, each publishing how many
// iterations it has completed in a shared file (which outlives the SIGKILL in the page cache).
int RunChild(const char* counts_path) {
  const int fd = open(counts_path, O_RDWR | O_CREAT, 0644);
  if (fd < 0 || ftruncate(fd, 4096) != 0) return 2;
  void* map = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) return 3;
  auto* counts = static_cast<std::atomic<uint64_t>*>(map);
  std::vector<std::thread> threads;
  for (int k = 0; k < kChildThreads; ++k) {
    threads.emplace_back([k, counts] {
      gs_thread_name(("stress " + std::to_string(k)).c_str());
      for (uint64_t i = 0;; ++i) {
        Iteration(i, k);
        counts[k].store(i + 1, std::memory_order_release);
      }
    });
  }
  // Ready once every thread has wrapped its ring (4096 iterations) a few times.
  for (;;) {
    bool all = true;
    for (int k = 0; k < kChildThreads; ++k) all = all && counts[k].load() > 20'000;
    if (all) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::printf("ready\n");
  std::fflush(stdout);
  for (auto& t : threads) t.join();  // never: the parent kills us
  return 0;
}

// Kills the stress child (4 threads, rings of 2 blocks) in full flight and checks what the trace
// keeps: an exact prefix of each thread's iterations, missing at most `max_lost_blocks` blocks'
// worth. `flusher_stall_us` > 0 holds the flusher that long on every block it claims
// (GRAINSCOPE_TEST_FLUSHER_STALL_US), so the owners write their own blocks past it.
void KillInFlightAndCheck(long flusher_stall_us, uint64_t max_lost_blocks) {
  ScratchDir dir;
  const std::string trace = dir.File("killed.gst"), counts = dir.File("counts");
  int out[2];
  ASSERT_EQ(pipe(out), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
    setenv("GRAINSCOPE_TRACE", trace.c_str(), 1);
    setenv("GRAINSCOPE_BUFFER_KB", "128", 1);  // 2 blocks of 4096 records per thread
    if (flusher_stall_us > 0) setenv("GRAINSCOPE_TEST_FLUSHER_STALL_US", std::to_string(flusher_stall_us).c_str(), 1);
    execl("/proc/self/exe", "gs_record_stress_tests", "--stress-child", counts.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  char buf[16] = {};
  ASSERT_GT(read(out[0], buf, sizeof buf - 1), 0);
  ASSERT_EQ(std::string(buf), "ready\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(30));  // killed in full flight
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  close(out[0]);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;

  std::vector<uint64_t> recorded(kChildThreads);
  {
    const std::vector<unsigned char> c = Slurp(counts);
    ASSERT_GE(c.size(), kChildThreads * sizeof(uint64_t));
    std::memcpy(recorded.data(), c.data(), kChildThreads * sizeof(uint64_t));
  }
  const std::vector<unsigned char> bytes = Slurp(trace);
  std::map<int, StreamCheck> checks = CheckTrace(bytes, trace);
  ASSERT_EQ(checks.size(), static_cast<size_t>(kChildThreads));
  const uint64_t max_lost_iterations = max_lost_blocks * kBlockRecords / 2;  // 2 records per iteration
  for (const auto& [k, c] : checks) {
    EXPECT_TRUE(c.error.empty()) << c.name << ": " << c.error;  // an exact prefix, in order
    EXPECT_LE(c.iterations, recorded[k]) << c.name;
    EXPECT_LE(recorded[k] - c.iterations, max_lost_iterations + 1) << c.name << ": lost more than its buffer";
    std::printf("[ sigkill  ] %s: %llu iterations recorded, %llu in the trace (lost %llu)\n", c.name.c_str(),
                static_cast<unsigned long long>(recorded[k]), static_cast<unsigned long long>(c.iterations),
                static_cast<unsigned long long>(recorded[k] - c.iterations));
  }
  Result<Trace> t = ReadGst(bytes, trace);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->Metadata("end"), "missing");
  ASSERT_EQ(t->diagnostics().Count(Diag::kTraceNotFinished), 1u);
  for (const auto& d : t->diagnostics().entries()) {
    if (d.name == "trace_not_finished") {
      EXPECT_NE(d.example.find("trace not closed"), std::string::npos) << d.example;
      EXPECT_NE(d.example.find("events after its last written block are lost"), std::string::npos) << d.example;
    }
  }
}

// At most the ring in memory, a block the flusher was writing and the ring the owner may have
// written past it (stream.cc, FarAheadOfAWriteInFlight): 2 + 1 + 2 blocks. Usually the ring or
// less.
TEST(StressRecording, SigkillLosesAtMostTheUnwrittenBuffers) { KillInFlightAndCheck(0, 5); }

// The same with the flusher held 20 ms on every block: the owners write their own blocks past the
// one it holds, and without a bound a kill lost everything after that block (the reader ends
// the stream at the gap). Here the owners stop a ring ahead of it.
TEST(StressRecording, SigkillWithAStalledFlusherLosesAtMostTwoRingsAndABlock) { KillInFlightAndCheck(20000, 5); }

}  // namespace
}  // namespace grainscope::record

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--stress-child") == 0) return grainscope::record::RunChild(argv[2]);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
