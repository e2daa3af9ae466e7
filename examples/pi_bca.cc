#include "pi_bca.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "grainscope/trace.hpp"

namespace PI_BCA_NAMESPACE {
namespace {

constexpr int kWorkers = 5;
constexpr int kAggregate = kWorkers + 1;  // grain 6

// Linda's tuple space, reduced to what the program needs: named FIFO mailboxes of doubles.
// out() never blocks, in() waits for the next value of that name.
class TupleSpace {
 public:
  void Out(const std::string& name, std::vector<double> value) {
    std::lock_guard<std::mutex> lock(mu_);
    boxes_[name].push_back(std::move(value));
    cv_.notify_all();
  }
  std::vector<double> In(const std::string& name) {
    std::unique_lock<std::mutex> lock(mu_);
    auto& box = boxes_[name];
    cv_.wait(lock, [&] { return !box.empty(); });
    std::vector<double> v = std::move(box.front());
    box.pop_front();
    return v;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::deque<std::vector<double>>> boxes_;
};

// The names of appendix C: superGlue<from><to>, "0k" start -> worker k, "k6" worker -> aggregate.
std::string Arc(int from, int to) { return "superGlue" + std::to_string(from) + std::to_string(to); }

// Message names are only known at run time here (as in the seed), so they are interned once.
uint32_t ArcId(int from, int to) {
  static const std::vector<uint32_t> ids = [] {
    std::vector<uint32_t> v(7 * 7, 0);
    for (int f = 0; f <= kAggregate; ++f)
      for (int t = 0; t <= kAggregate; ++t) v[f * 7 + t] = grainscope::Intern(Arc(f, t).c_str());
    return v;
  }();
  return ids[from * 7 + to];
}

void Send(TupleSpace& space, int from, int to, std::vector<double> value) {
  grainscope::SendScope send(ArcId(from, to), value.size() * sizeof(double));
  space.Out(Arc(from, to), std::move(value));
}

std::vector<double> Receive(TupleSpace& space, int from, int to) {
  grainscope::RecvScope recv(ArcId(from, to));
  std::vector<double> v = space.In(Arc(from, to));
  recv.received(v.size() * sizeof(double));
  return v;
}

// df0: the interval and the five shares.
void StartGrain(TupleSpace& space, const Options& o) {
  double interval = 0;
  std::vector<std::vector<double>> shares;
  {
    GS_GRAIN("start", 0);
    interval = 1.0 / static_cast<double>(o.intervals);
    const int64_t per = o.intervals / kWorkers;
    for (int k = 1; k <= kWorkers; ++k) {
      const int64_t first = (k - 1) * per + 1;
      const int64_t last = k == kWorkers ? o.intervals : k * per;
      shares.push_back({interval, static_cast<double>(first), static_cast<double>(last)});
    }
  }
  // As in appendix C: the sends follow the grain, the aggregate's first, then workers 5 to 1.
  Send(space, 0, kAggregate, {interval});
  for (int k = kWorkers; k >= 1; --k) Send(space, 0, k, shares[k - 1]);
}

// Each worker is a separate call site, so each has its own static descriptor and grain id.
double Sum(const std::vector<double>& share, int scale) {
  const double interval = share[0];
  const auto first = static_cast<int64_t>(share[1]), last = static_cast<int64_t>(share[2]);
  double result = 0;
  for (int rep = 0; rep < scale; ++rep) {
    double partial = 0;
    for (int64_t i = first; i <= last; ++i) {
      const double x = (static_cast<double>(i) - 0.5) * interval;
      partial += 4.0 / (1.0 + x * x);
    }
    result = partial;
  }
  return result;
}

void WorkerGrain(TupleSpace& space, int k, const Options& o) {
  const std::vector<double> share = Receive(space, 0, k);
  double result = 0;
  switch (k) {
    case 1: { GS_GRAIN("worker 1", 1); result = Sum(share, o.grain_scale); break; }
    case 2: { GS_GRAIN("worker 2", 2); result = Sum(share, o.grain_scale); break; }
    case 3: { GS_GRAIN("worker 3", 3); result = Sum(share, o.grain_scale); break; }
    case 4: { GS_GRAIN("worker 4", 4); result = Sum(share, o.grain_scale); break; }
    default: { GS_GRAIN("worker 5", 5); result = Sum(share, o.grain_scale); break; }
  }
  Send(space, k, kAggregate, {result});
}

// df6: receives in appendix C's order (worker 5 first, the interval last).
double AggregateGrain(TupleSpace& space) {
  double sum = 0;
  for (int k = kWorkers; k >= 1; --k) sum += Receive(space, k, kAggregate)[0];
  const double interval = Receive(space, 0, kAggregate)[0];
  GS_GRAIN("aggregate", kAggregate);
  return sum * interval;
}

// Which grains each processor runs, in order. Two processors: the seed's schedule (gant1 runs
// df0 df2 df3 df4 df6, gant2 df1 df5); otherwise start and aggregate on the first processor and
// the workers round robin.
std::vector<std::vector<int>> Schedule(int processors) {
  if (processors == 2) return {{0, 2, 3, 4, 6}, {1, 5}};
  std::vector<std::vector<int>> lanes(processors);
  lanes[0].push_back(0);
  for (int k = 1; k <= kWorkers; ++k) lanes[(k - 1) % processors].push_back(k);
  lanes[0].push_back(kAggregate);
  return lanes;
}

}  // namespace

std::string CheckOptions(const Options& o) {
  if (o.intervals < kWorkers) return "--intervals must be at least 5";
  if (o.processors < 1 || o.processors > 7) return "--processors must be between 1 and 7";
  if (o.grain_scale < 1) return "--grain-scale must be at least 1";
  return "";
}

Outcome Run(const Options& o) {
  TupleSpace space;
  Outcome out;
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  const auto lanes = Schedule(o.processors);
  for (size_t p = 0; p < lanes.size(); ++p) {
    threads.emplace_back([&, p] {
      gs_thread_processor(static_cast<int32_t>(p + 1));
      for (int grain : lanes[p]) {
        if (grain == 0) StartGrain(space, o);
        else if (grain == kAggregate) out.pi = AggregateGrain(space);
        else WorkerGrain(space, grain, o);
      }
    });
  }
  for (auto& t : threads) t.join();
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace PI_BCA_NAMESPACE
