// Kineto (PyTorch profiler) JSON: read speed and memory (issue 34). A generated training trace of
// one rank in PyTorch 2.x's shape (CPU operators nested two deep; cudaLaunchKernel calls with
// their "ac2g" flows; kernels, copies and memsets on streams 7 and 20 with correlation ids and
// Kineto's launch arguments; an NCCL all-reduce per layer group with its process group, Seq and
// message size; a cudaStreamSynchronize and its "cuda_sync" record per step; a profiler span),
// read by ReadTrace as the CLI reads it, against a baseline measured in the same run: the same
// file parsed into nlohmann-json's DOM, which is what the reader did before (and close to what
// Python's json.load does for HTA).
//
//   kineto_bench [--smoke] [--mb N] [--repeat R] [--keep FILE] [--file TRACE.json]
//
// --file reads a given trace instead of generating one (a real job's, the corpus's nccl.json):
// json_events then counts its trace events with a scan of their "ph" keys.
// Speed is the median over R reads of the reading thread's CPU time (the machine is shared).
// Memory is measured in a child process per reader: the peak resident size (VmHWM, reset through
// /proc/self/clear_refs) above the resident size before the read, the mapped file's pages
// included. One JSON object on stdout.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/bench_clock.h"
#include "base/mapped_file.h"
#include "format/chrome/chrome_json.h"
#include "format/trace_reader.h"

namespace grainscope {
namespace {

namespace fs = std::filesystem;

// Kineto's times: microseconds with three decimals, from a base of ~4.4e12 us as in nccl.json.
std::string Us(int64_t ns) { return fmt::format("{}.{:03}", ns / 1000, ns % 1000); }

class KinetoWriter {
 public:
  explicit KinetoWriter(FILE* out) : out_(out) {}

  void Slice(std::string_view cat, std::string_view name, int64_t pid, int64_t tid, int64_t ts, int64_t dur,
             std::string_view args) {
    Emit(fmt::format(R"j({{"ph": "X", "cat": "{}", "name": "{}", "pid": {}, "tid": {}, "ts": {}, "dur": {}, "args": {{{}}}}})j",
                     cat, name, pid, tid, Us(ts), Us(dur), args));
  }
  void Flow(char ph, int64_t id, int64_t pid, int64_t tid, int64_t ts) {
    Emit(fmt::format(R"j({{"ph": "{}", "id": {}, "pid": {}, "tid": {}, "ts": {}, "cat": "ac2g", "name": "ac2g"{}}})j", ph,
                     id, pid, tid, Us(ts), ph == 'f' ? R"j(, "bp": "e")j" : ""));
  }
  void Raw(std::string_view event) { Emit(event); }
  size_t bytes() const { return bytes_; }
  uint64_t events() const { return events_; }

 private:
  void Emit(std::string_view event) {
    const std::string_view sep = events_ == 0 ? "\n  " : ",\n  ";
    std::fwrite(sep.data(), 1, sep.size(), out_);
    std::fwrite(event.data(), 1, event.size(), out_);
    bytes_ += sep.size() + event.size();
    ++events_;
  }
  FILE* out_;
  size_t bytes_ = 0;
  uint64_t events_ = 0;
};

constexpr int64_t kPid = 2910249, kMainTid = 2910249, kBwdTid = 2919752, kBase = 4458676388068751;

const char* const kKernels[] = {
    "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x5_tn_align4>(cutlass_80_tensorop_s1688gemm_128x128_16x5_tn_align4::Params)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>)",
    "void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 32, true, 1>(float, float, float, float, cudnnTensorStruct, float const*, cudnnTensorStruct, float const*, cudnnTensorStruct, float*, float const*, float*, float*, float const*, float const*, float)",
};

// One training step of `layers` layers forward and backward, from `t` (ns after kBase); returns
// the step's end.
int64_t Step(KinetoWriter& w, int step, int layers, int64_t t, int64_t& corr, int64_t& seq) {
  const int64_t step_begin = t;
  for (int l = 0; l < 2 * layers; ++l) {
    const bool backward = l >= layers;
    const int64_t tid = backward ? kBwdTid : kMainTid;
    const int64_t op_begin = t;
    for (int k = 0; k < 3; ++k, ++corr) {
      const int64_t launch = t + 2000 + k * 9000;
      w.Slice("cpu_op", "aten::addmm", kPid, tid, launch - 1000, 8000,
              fmt::format(R"j("External id": {}, "Record function id": {}, "Sequence number": {}, "Fwd thread id": 1, "Ev Idx": {}, "Input Dims": [[1024], [256, 1024], [1024, 1024], [], []], "Input type": ["float", "float", "float", "Scalar", "Scalar"])j",
                          corr, corr - 100, step * 1000 + l, k));
      w.Slice("cuda_runtime", "cudaLaunchKernel", kPid, tid, launch, 4500,
              fmt::format(R"j("External id": {}, "cbid": 211, "correlation": {})j", corr, corr));
      w.Flow('s', corr, kPid, tid, launch);
      const int64_t kbegin = launch + 6000;
      w.Slice("kernel", kKernels[(l + k) % 3], 0, 7, kbegin, 7000,
              fmt::format(R"j("External id": {}, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": {}, "registers per thread": 128, "shared memory": 49152, "blocks per SM": 3.2, "warps per SM": 12.8, "grid": [320, 1, 1], "block": [128, 1, 1], "est. achieved occupancy %": 25)j",
                          corr, corr));
      w.Flow('f', corr, 0, 7, kbegin);
    }
    w.Slice("cpu_op", backward ? "autograd::engine::evaluate_function: AddmmBackward0" : "aten::linear", kPid, tid,
            op_begin, 3 * 9000 + 2000, fmt::format(R"j("External id": {}, "Ev Idx": {})j", corr, l));
    t += 3 * 9000 + 3000;
    if (backward && l % 4 == 3) {  // a gradient bucket's all-reduce on the NCCL stream
      ++corr;
      ++seq;
      w.Slice("user_annotation", "nccl:all_reduce", kPid, tid, t, 6000, fmt::format(R"j("External id": {})j", corr));
      w.Slice("cuda_runtime", "cudaLaunchKernel", kPid, tid, t + 1000, 4000,
              fmt::format(R"j("External id": {}, "cbid": 211, "correlation": {})j", corr, corr));
      w.Flow('s', corr, kPid, tid, t + 1000);
      w.Slice("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", 0, 20,
              t + 7000, 90000,
              fmt::format(R"j("External id": {}, "queued": 0, "device": 0, "context": 1, "stream": 20, "correlation": {}, "Collective name": "allreduce", "In msg nelems": 4194304, "Out msg nelems": 4194304, "Group size": 8, "dtype": "Float", "Process Group Name": "0", "Process Group Description": "default_pg", "Process Group Ranks": "[0, 1, 2, 3, 4, 5, 6, 7]", "Seq": {})j",
                          corr, corr, seq));
      w.Flow('f', corr, 0, 20, t + 7000);
      t += 8000;
    }
  }
  ++corr;  // the optimizer's copy and the step's synchronisation
  w.Slice("gpu_memset", "Memset (Device)", 0, 7, t + 3000, 5000,
          fmt::format(R"j("External id": {}, "device": 0, "context": 1, "stream": 7, "correlation": {}, "bytes": 6291456, "memory bandwidth (GB/s)": 1268.4387096774194)j",
                      corr, corr));
  ++corr;
  w.Slice("cuda_runtime", "cudaStreamSynchronize", kPid, kMainTid, t, 120000,
          fmt::format(R"j("External id": {}, "cbid": 131, "correlation": {})j", corr, corr));
  w.Slice("cuda_sync", "Stream Sync", 0, 7, t + 100000, 18000,
          fmt::format(R"j("device": 0, "stream": 7, "correlation": {}, "cuda_sync_kind": "Stream Sync")j", corr));
  t += 125000;
  w.Slice("user_annotation", fmt::format("ProfilerStep#{}", step), kPid, kMainTid, step_begin, t - step_begin,
          R"j("External id": 1)j");
  return t;
}

// Writes the trace to `path` until it holds about `mb` MB; returns its JSON event count.
uint64_t WriteTrace(const std::string& path, double mb) {
  FILE* out = std::fopen(path.c_str(), "w");
  if (out == nullptr) {
    std::fprintf(stderr, "kineto_bench: cannot write %s\n", path.c_str());
    std::exit(1);
  }
  std::fputs(R"j({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85049802752}],
 "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8},
 "traceEvents": [)j", out);
  KinetoWriter w(out);
  w.Raw(fmt::format(R"j({{"name": "process_name", "ph": "M", "ts": {}, "pid": {}, "tid": 0, "args": {{"name": "python3.10"}}}})j", Us(0), kPid));
  w.Raw(fmt::format(R"j({{"name": "thread_name", "ph": "M", "ts": {}, "pid": 0, "tid": 7, "args": {{"name": "stream 7"}}}})j", Us(0)));
  int64_t t = 0, corr = 1000, seq = 0;
  const size_t target = static_cast<size_t>(mb * 1e6);
  for (int step = 0; w.bytes() < target; ++step) t = Step(w, step, 24, t, corr, seq);
  w.Raw(fmt::format(R"j({{"ph": "X", "cat": "Trace", "ts": {}, "dur": {}, "pid": "Spans", "tid": "PyTorch Profiler", "name": "PyTorch Profiler (0)", "args": {{"Op count": 0}}}})j",
                    Us(0), Us(t)));
  std::fprintf(out, "\n],\n \"traceName\": \"rank0.json\", \"displayTimeUnit\": \"ms\", \"baseTimeNanoseconds\": %lld}\n",
               static_cast<long long>(kBase - kBase % 1000000000));
  std::fclose(out);
  return w.events();
}

// The trace events of a file: its "ph" keys (a name or an argument spelled "ph" would count too;
// none does in the traces this is for).
uint64_t CountEvents(const std::string& path) {
  MappedFile f;
  if (!f.Open(path).ok()) return 0;
  uint64_t n = 0;
  const std::string_view text = f.text();
  for (size_t p = text.find("\"ph\""); p != std::string_view::npos; p = text.find("\"ph\"", p + 4)) ++n;
  return n;
}

uint64_t StatusKb(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return std::strtoull(line.c_str() + std::strlen(key), nullptr, 10);
  return 0;
}

// Peak resident bytes above the start while `run` runs, in a child process; 0 when unknown.
uint64_t PeakBytes(const std::function<void()>& run) {
  int fds[2];
  if (pipe(fds) != 0) return 0;
  const pid_t child = fork();
  if (child == 0) {
    const uint64_t before = StatusKb("VmRSS:");
    std::ofstream("/proc/self/clear_refs") << "5";  // VmHWM from here
    run();
    const uint64_t peak = StatusKb("VmHWM:") > before ? (StatusKb("VmHWM:") - before) * 1024 : 0;
    if (write(fds[1], &peak, sizeof peak) != sizeof peak) _exit(1);
    _exit(0);
  }
  close(fds[1]);
  uint64_t peak = 0;
  if (read(fds[0], &peak, sizeof peak) != sizeof peak) peak = 0;
  close(fds[0]);
  waitpid(child, nullptr, 0);
  return peak;
}

struct Timing {
  double cpu = 0, wall = 0;
};

Timing Time(int repeat, const std::function<void()>& run) {
  std::vector<double> cpu, wall;
  for (int r = 0; r < repeat; ++r) {
    const auto w0 = std::chrono::steady_clock::now();
    const double c0 = bench::ThreadCpuSeconds();
    run();
    cpu.push_back(bench::ThreadCpuSeconds() - c0);
    wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count());
  }
  return {bench::Median(cpu), bench::Median(wall)};
}

struct Args {
  double mb = 200;
  int repeat = 5;
  std::string keep, file;
};

// The command line, or nullopt after printing the usage.
std::optional<Args> ParseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--smoke") {
      a.mb = 2;
      a.repeat = 1;
    } else if (arg == "--mb" && i + 1 < argc) {
      a.mb = std::atof(argv[++i]);
    } else if (arg == "--repeat" && i + 1 < argc) {
      a.repeat = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--keep" && i + 1 < argc) {
      a.keep = argv[++i];
    } else if (arg == "--file" && i + 1 < argc) {
      a.file = argv[++i];
    } else {
      std::fprintf(stderr, "usage: kineto_bench [--smoke] [--mb N] [--repeat R] [--keep FILE] [--file TRACE.json]\n");
      return std::nullopt;
    }
  }
  return a;
}

int Main(int argc, char** argv) {
  const std::optional<Args> args = ParseArgs(argc, argv);
  if (!args) return 2;
  const auto& [mb, repeat, keep, file] = *args;
  const std::string path = !file.empty() ? file
                           : !keep.empty() ? keep
                                           : (fs::temp_directory_path() / fmt::format("kineto_bench_{}.json", getpid())).string();
  const uint64_t json_events = file.empty() ? WriteTrace(path, mb) : CountEvents(path);
  const double file_bytes = static_cast<double>(fs::file_size(path));
  // The peaks first, in children of a process that has read nothing yet: a child of one that has
  // would reuse the heap its reads freed and show too little.
  const uint64_t read_peak = PeakBytes([&] { (void)ReadTrace(path); });
  // The baseline: the file read and parsed into nlohmann's DOM (no trace built).
  auto dom = [&] {
    MappedFile file;
    if (!file.Open(path).ok()) return;
    (void)chrome::ParseKeepingDecimals(file.text(), path);
  };
  const uint64_t dom_peak = PeakBytes(dom);
  uint64_t model_events = 0;
  bool ok = true;
  const Timing read = Time(repeat, [&] {
    Result<Trace> t = ReadTrace(path);
    ok = ok && t.ok();
    if (t.ok()) model_events = t->event_count();
    else std::fprintf(stderr, "kineto_bench: %s\n", t.status().message().c_str());
  });
  const Timing dom_time = Time(std::max(1, repeat / 2), dom);
  if (keep.empty() && file.empty()) fs::remove(path);
  const double mbytes = file_bytes / 1e6;
  std::printf(
      "{\"benchmark\": \"kineto_read\", \"file_bytes\": %.0f, \"json_events\": %llu, \"model_events\": %llu, "
      "\"repeat\": %d, \"cpu_seconds\": %.4f, \"wall_seconds\": %.4f, \"mb_per_s\": %.1f, \"json_events_per_s\": %.0f, "
      "\"ns_per_json_event\": %.1f, \"file_bytes_per_json_event\": %.1f, \"peak_rss_bytes\": %llu, "
      "\"peak_bytes_per_file_byte\": %.3f, \"peak_bytes_per_json_event\": %.1f, "
      "\"baseline_nlohmann_dom\": {\"cpu_seconds\": %.4f, \"mb_per_s\": %.1f, \"peak_rss_bytes\": %llu, "
      "\"peak_bytes_per_file_byte\": %.3f}, \"speedup_vs_baseline\": %.2f, \"ok\": %s}\n",
      file_bytes, static_cast<unsigned long long>(json_events), static_cast<unsigned long long>(model_events), repeat,
      read.cpu, read.wall, mbytes / read.cpu, json_events / read.cpu, 1e9 * read.cpu / json_events,
      file_bytes / json_events, static_cast<unsigned long long>(read_peak), read_peak / file_bytes,
      read_peak / static_cast<double>(json_events), dom_time.cpu, mbytes / dom_time.cpu,
      static_cast<unsigned long long>(dom_peak), dom_peak / file_bytes, dom_time.cpu / read.cpu, ok ? "true" : "false");
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace grainscope

int main(int argc, char** argv) { return grainscope::Main(argc, argv); }
