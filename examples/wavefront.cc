// example_wavefront: the bundled demo (`make demo`, issue 22). A blocked wavefront — the shape of
// a Gauss-Seidel sweep, Smith-Waterman or a blocked LU's panel updates — over a grid of R x C
// blocks: block (i, j) needs block (i-1, j) above it and block (i, j-1) to its left. Each block is
// one grain of a few milliseconds of real work (relaxation sweeps over its cells); each
// dependency is a message carrying the producer's boundary (the row below it, the column to its
// right), so the task graph is the wavefront's: 2RC - R - C arcs.
//
// P threads, one per core by default; block row i belongs to thread i mod P, which computes its
// rows top to bottom, each left to right: the pipelined schedule of a wavefront.
//
//   GRAINSCOPE_TRACE=wavefront.gst build/bin/example_wavefront [--threads P] [--rows R]
//       [--cols C] [--grain-ms MS | --sweeps N]
//
// --grain-ms calibrates the sweeps per block on this machine; --sweeps fixes them, so that runs
// on different thread counts do the same work (the demo passes the first run's to the second).
//   build/bin/grainscope predict wavefront.gst -p 1..4
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "grainscope/trace.hpp"

namespace {

constexpr int kCells = 48;  // a block is kCells x kCells doubles

struct Options {
  int threads = 0;  // 0: one per core
  int rows = 16;
  int cols = 16;
  double grain_ms = 2.0;
  int sweeps = 0;  // 0: calibrated from grain_ms
};

// One block: its cells, and the boundaries it publishes (its last row for the block below, its
// last column for the block to its right) with a flag each that the consumer waits on.
struct Block {
  std::vector<double> cells = std::vector<double>(kCells * kCells, 0.0);
  double bottom[kCells] = {};
  double right[kCells] = {};
  std::atomic<bool> bottom_ready{false};
  std::atomic<bool> right_ready{false};
  uint32_t down_id = 0, right_id = 0;  // the messages to the block below and to the right
};

// `sweeps` relaxation sweeps over a block whose top and left halo are given: the work of a grain.
double Relax(std::vector<double>& c, const double* top, const double* left, int sweeps) {
  double change = 0;
  for (int s = 0; s < sweeps; ++s) {
    change = 0;
    for (int y = 0; y < kCells; ++y) {
      for (int x = 0; x < kCells; ++x) {
        const double up = y > 0 ? c[(y - 1) * kCells + x] : top[x];
        const double lf = x > 0 ? c[y * kCells + x - 1] : left[y];
        const double v = 0.25 * (up + lf + 2.0 * c[y * kCells + x]) + 1e-3;
        change += v - c[y * kCells + x];
        c[y * kCells + x] = v;
      }
    }
  }
  return change;
}

// Sweeps per block so that a block takes about `grain_ms`: timed on a scratch block.
int CalibrateSweeps(double grain_ms) {
  std::vector<double> scratch(kCells * kCells, 0.0);
  const double halo[kCells] = {};
  int sweeps = 1;
  for (;;) {
    const auto t0 = std::chrono::steady_clock::now();
    volatile double sink = Relax(scratch, halo, halo, sweeps);
    (void)sink;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (ms >= 0.2 * grain_ms || sweeps > (1 << 20)) return std::max(1, static_cast<int>(sweeps * grain_ms / ms));
    sweeps *= 2;
  }
}

// The messages of one channel: the boundaries thread `from` sends down to thread `to` ("down
// t0>t1"), or to the right within a thread ("right t0"). A reader pairs the k-th send of a name
// with its k-th receive, and each channel's sends and receives run in the same order (a thread's
// rows top to bottom, each left to right), so 2P names describe every dependency; and each name's
// first use, which registers it in the trace, is paid once per channel, not once per message.
uint32_t ChannelId(const char* kind, int from, int to) {
  char name[64];
  if (to < 0) std::snprintf(name, sizeof name, "%s t%d", kind, from);
  else std::snprintf(name, sizeof name, "%s t%d>t%d", kind, from, to);
  return grainscope::Intern(name);
}

// One thread per core: a consumer spins (yielding) instead of sleeping, so that a boundary
// costs its copy, not a futex wake-up, and time outside grains stays small (the model does not
// see it: docs/schedule.md).
void Wait(const std::atomic<bool>& flag) {
  while (!flag.load(std::memory_order_acquire)) std::this_thread::yield();
}

void Publish(std::atomic<bool>& flag) { flag.store(true, std::memory_order_release); }

class Wavefront {
 public:
  Wavefront(const Options& o, int sweeps, int threads)
      : o_(o), sweeps_(sweeps), blocks_(static_cast<size_t>(o.rows) * o.cols) {
    // Message names interned before the run: the calls between grains stay a copy and a store.
    for (int i = 0; i < o.rows; ++i) {
      for (int j = 0; j < o.cols; ++j) {
        At(i, j).down_id = ChannelId("down", i % threads, (i + 1) % threads);
        At(i, j).right_id = ChannelId("right", i % threads, -1);
      }
    }
  }

  void RunThread(int p, int threads) {
    gs_thread_processor(p + 1);
    GS_DEFINE_GRAIN_SITE(site, "block");
    for (int i = p; i < o_.rows; i += threads) {
      for (int j = 0; j < o_.cols; ++j) {
        double top[kCells] = {}, left[kCells] = {};
        if (i > 0) Receive(At(i - 1, j).down_id, At(i - 1, j).bottom_ready, At(i - 1, j).bottom, top, (i - 1) % threads);
        if (j > 0) Receive(At(i, j - 1).right_id, At(i, j - 1).right_ready, At(i, j - 1).right, left, p);
        Block& b = At(i, j);
        {
          grainscope::GrainScope grain(site, static_cast<int64_t>(i) * o_.cols + j);
          checksum_ += Relax(b.cells, top, left, sweeps_);
        }
        if (i + 1 < o_.rows) Send(b.down_id, b.bottom, &b.cells[(kCells - 1) * kCells], 1, b.bottom_ready, (i + 1) % threads);
        if (j + 1 < o_.cols) Send(b.right_id, b.right, &b.cells[kCells - 1], kCells, b.right_ready, p);
      }
    }
  }

  double checksum() const { return checksum_.load(); }

 private:
  Block& At(int i, int j) { return blocks_[static_cast<size_t>(i) * o_.cols + j]; }

  // Copies kCells values, `stride` apart, from the block into its boundary buffer and publishes it.
  static void Send(uint32_t message, double* boundary, const double* from, int stride, std::atomic<bool>& ready,
                   int peer) {
    grainscope::SendScope send(message, sizeof(double) * kCells, peer + 1);
    for (int k = 0; k < kCells; ++k) boundary[k] = from[k * stride];
    Publish(ready);
  }

  static void Receive(uint32_t message, const std::atomic<bool>& ready, const double* boundary, double* into, int peer) {
    grainscope::RecvScope recv(message);
    Wait(ready);
    std::memcpy(into, boundary, sizeof(double) * kCells);
    recv.received(sizeof(double) * kCells, peer + 1);
  }

  Options o_;
  int sweeps_;
  std::vector<Block> blocks_;
  std::atomic<double> checksum_{0.0};
};

bool ParseOptions(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    if (i + 1 >= argc) return false;
    const char* v = argv[++i];
    if (std::strcmp(argv[i - 1], "--threads") == 0) o.threads = std::atoi(v);
    else if (std::strcmp(argv[i - 1], "--rows") == 0) o.rows = std::atoi(v);
    else if (std::strcmp(argv[i - 1], "--cols") == 0) o.cols = std::atoi(v);
    else if (std::strcmp(argv[i - 1], "--grain-ms") == 0) o.grain_ms = std::atof(v);
    else if (std::strcmp(argv[i - 1], "--sweeps") == 0) o.sweeps = std::atoi(v);
    else return false;
  }
  return o.threads >= 0 && o.threads <= 256 && o.rows >= 1 && o.rows <= 1000 && o.cols >= 1 && o.cols <= 1000 &&
         o.grain_ms > 0 && o.grain_ms <= 1000 && o.sweeps >= 0 && o.sweeps <= 1000000;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseOptions(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: %s [--threads P (0: one per core)] [--rows 1-1000] [--cols 1-1000] [--grain-ms MS | --sweeps N]\n",
                 argv[0]);
    return 2;
  }
  const int threads = o.threads > 0 ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  const int sweeps = o.sweeps > 0 ? o.sweeps : CalibrateSweeps(o.grain_ms);
  Wavefront w(o, sweeps, threads);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int p = 0; p < threads; ++p) pool.emplace_back([&w, p, threads] { w.RunThread(p, threads); });
  for (std::thread& t : pool) t.join();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("wavefront %dx%d blocks of %d sweeps on %d thread%s: %.3f s (checksum %.6g)\n", o.rows, o.cols, sweeps,
              threads, threads == 1 ? "" : "s", s, w.checksum());
  return 0;
}
