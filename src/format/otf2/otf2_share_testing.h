// Test helpers shared by the tests of traces read in shares (otf2_share_test.cc,
// otf2_share_critpath_test.cc, otf2_share_replay_test.cc).
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "base/status.h"
#include "format/otf2/otf2_writer.h"
#include "model/share_exchange.h"
#include "model/trace.h"
#include "model/trace_share.h"

namespace grainscope {

// `processes` ranks of `threads` threads each: messages between neighbours (some rendezvous, some
// MPI_Ssend), thread barriers, an MPI_Allreduce and a broadcast of the even ranks every 10th
// iteration.
Trace HybridRun(int processes, int threads);

// Reads the `count` shares of the OTF2 archive `path` at once, on threads, completed through
// each other (LocalShareExchange).
std::vector<TraceShare> ReadCompleted(const std::string& path, uint32_t count);

// Runs `body(k, exchange)` for k in [0, count) at once, each on its own thread talking to the
// others through a LocalShareExchange; their results.
template <class T, class Body>
std::vector<Result<T>> RunShares(uint32_t count, const Body& body) {
  LocalShareExchange exchange(count);
  std::vector<Result<T>> got;
  for (uint32_t k = 0; k < count; ++k) got.emplace_back(InvalidArgument("not computed"));
  std::vector<std::thread> threads;
  for (uint32_t k = 0; k < count; ++k)
    threads.emplace_back([&, k] {
      LocalShareExchange::Member me(exchange, k);
      got[k] = body(k, me);
    });
  for (std::thread& t : threads) t.join();
  return got;
}

// Runs `body(share, exchange)` on every share at once (RunShares).
template <class T, class Body>
std::vector<Result<T>> OnShares(const std::vector<TraceShare>& shares, const Body& body) {
  return RunShares<T>(static_cast<uint32_t>(shares.size()),
                      [&](uint32_t k, ShareExchange& exchange) { return body(shares[k], exchange); });
}

// A test suite whose archive of HybridRun(6, 3) (Hybrid()) is written once, in a directory of
// its own that the suite removes.
class HybridArchiveTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::filesystem::path(std::filesystem::temp_directory_path() /
                                     ("gs_otf2_shares_" + std::to_string(getpid())));
    std::filesystem::create_directories(*dir_);
    ASSERT_TRUE(WriteOtf2(HybridRun(6, 3), Hybrid()).ok());
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
  }
  static std::string Path(const char* name) { return (*dir_ / name).string(); }
  static std::string Hybrid() { return Path("hybrid"); }
  inline static std::filesystem::path* dir_ = nullptr;
};

}  // namespace grainscope
