// The Kineto (PyTorch profiler) rank-directory reader: the input is rank 1's JSON file, next to
// a valid rank 0 of a two-rank job, so the merge of the ranks (regions by name and category,
// locations in rank order, the run checks on world size and backend) runs on damaged data too.
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "format/chrome/chrome_rank_dir.h"
#include "fuzz/fuzz_util.h"

namespace {

constexpr char kRank0[] =
    R"({"distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 2}, "traceEvents": [)"
    R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 5},)"
    R"({"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 12, "dur": 4},)"
    R"({"ph": "s", "cat": "ac2g", "name": "launch", "id": 1, "pid": 1, "tid": 1, "ts": 11},)"
    R"({"ph": "f", "cat": "ac2g", "name": "launch", "id": 1, "pid": 0, "tid": 7, "ts": 12, "bp": "e"},)"
    // A launch, an NCCL all-reduce of process group 0 and a stream synchronise (issue 34).
    R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 18, "dur": 1,)"
    R"( "args": {"correlation": 2}},)"
    R"({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 20,)"
    R"( "ts": 19, "dur": 30, "args": {"correlation": 2, "device": 0, "stream": 20, "Process Group Name": "0",)"
    R"( "Seq": 0, "Collective name": "allreduce", "In msg nelems": 8, "dtype": "Float"}},)"
    R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, "tid": 1, "ts": 20, "dur": 30,)"
    R"( "args": {"correlation": 3}},)"
    R"({"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 20, "ts": 20, "dur": 30,)"
    R"( "args": {"correlation": 3, "cuda_sync_kind": "Stream Sync", "stream": 20, "device": 0}},)"
    // An NCCL send to rank 1 that names its peer: a message end the merge pairs across files.
    R"({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_SendRecv", "pid": 0, "tid": 20, "ts": 60, "dur": 9,)"
    R"( "args": {"device": 0, "stream": 20, "correlation": 4, "Process Group Name": "0", "Collective name": "send",)"
    R"( "Dst Rank": 1, "In msg nelems": 4, "dtype": "Float"}}]})";

std::string g_dir;

void Cleanup() {
  unlink((g_dir + "/rank-0.json").c_str());
  unlink((g_dir + "/rank-1.json").c_str());
  rmdir(g_dir.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  char tmpl[] = "/tmp/gs_fuzz_kineto_dir.XXXXXX";
  if (mkdtemp(tmpl) == nullptr) std::abort();
  g_dir = tmpl;
  grainscope::fuzz::WriteFileOrAbort(g_dir + "/rank-0.json", kRank0, sizeof(kRank0) - 1);
  std::atexit(Cleanup);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  grainscope::fuzz::WriteFileOrAbort(g_dir + "/rank-1.json", data, size);
  (void)grainscope::kChromeRanksImporter.read_path(g_dir, {});
  return 0;
}
