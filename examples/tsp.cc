// example_tsp: the seed's parallel simulated annealing for the travelling salesman (Yadav 1989,
// appendix A, after Martha 1986) on std::thread, instrumented with the C++ recording API.
//
// The seed's structure and grain ids: grain 1 reads the cities, grain 2 links the path, grain 3
// sets up the annealing, grain 4+k is worker k's whole annealing (one per processor; the seed
// numbered it 3+k and so shared id 3 with the set-up), grain 4+P writes the result. At every temperature each worker anneals its own copy of the current
// path, then all meet at a barrier and the shortest copy becomes the current path. We make the
// data flow of that barrier visible as messages: each worker sends its path length ("length"),
// the leader (worker 0) picks the best and sends the new path to the others ("path").
//
//   GRAINSCOPE_TRACE=tsp.gst build/bin/example_tsp --processors 2
//   build/bin/grainscope report tsp.gst
//
// Options: --cities N (100) --processors P (2) --temperatures T (20) --iterations I (20000 per
// temperature, shared among the workers) --seed S (1).
#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "grainscope/trace.hpp"

namespace {

struct Point {
  double x, y;
};

struct Options {
  int cities = 100;
  int processors = 2;
  int temperatures = 20;
  long iterations = 20000;
  unsigned seed = 1;
};

// The seed's RANF: a linear congruential generator, one state per worker.
double Ranf(unsigned long& state) {
  state = state * 1103515245u + 12345u;
  return static_cast<double>(state & 0x7fffffff) / 2147483647.0;
}

double Distance(const Point& a, const Point& b) { return std::hypot(a.x - b.x, a.y - b.y); }

double Length(const std::vector<int>& tour, const std::vector<Point>& cities) {
  double sum = 0;
  for (size_t i = 0; i < tour.size(); ++i) sum += Distance(cities[tour[i]], cities[tour[(i + 1) % tour.size()]]);
  return sum;
}

// One annealing sweep at `temperature`. The seed's cswap swaps two neighbouring cities; we use
// the 2-opt move (reverse the tour between two cities), which converges far faster, with the same
// Metropolis rule: take a move that shortens the tour, else with probability exp(-delta / T).
void Anneal(std::vector<int>& tour, const std::vector<Point>& c, double temperature, long iterations,
            unsigned long& rng) {
  const size_t n = tour.size();
  for (long it = 0; it < iterations; ++it) {
    size_t i = 1 + static_cast<size_t>(Ranf(rng) * static_cast<double>(n - 2));
    size_t j = 1 + static_cast<size_t>(Ranf(rng) * static_cast<double>(n - 2));
    if (i == j) continue;
    if (i > j) std::swap(i, j);
    const Point& before = c[tour[i - 1]];
    const Point& after = c[tour[(j + 1) % n]];
    const double delta = Distance(before, c[tour[j]]) + Distance(c[tour[i]], after) -
                         Distance(before, c[tour[i]]) - Distance(c[tour[j]], after);
    if (delta <= 0 || Ranf(rng) < std::exp(-delta / temperature))
      std::reverse(tour.begin() + static_cast<std::ptrdiff_t>(i), tour.begin() + static_cast<std::ptrdiff_t>(j) + 1);
  }
}

struct Shared {
  std::vector<Point> cities;
  std::vector<int> path;                // the current path (the seed's shared `path`)
  std::vector<std::vector<int>> copies;  // each worker's copy (mypath[m_myid])
  std::vector<double> lengths;           // mypathlen[]
};

void Worker(int k, const Options& o, Shared& s, std::barrier<>& sync) {
  gs_thread_processor(k);
  // Grain 4+k: its id is only known at run time, so each worker thread has its own descriptor.
  static thread_local gs_region grain = GS_REGION_INIT("iterate", GS_ROLE_GRAIN, 0);
  grain.external_id = 4 + k;
  grainscope::RegionScope scope(grain);
  unsigned long rng = 27ul * static_cast<unsigned long>(k) + o.seed;
  const long share = o.iterations / o.processors;
  // Geometric cooling from about an edge of the initial tour down to a thousandth of it.
  double temperature = 0.5;
  const double drop = std::pow(0.001, 1.0 / o.temperatures);
  for (int step = 0; step < o.temperatures; ++step, temperature *= drop) {
    const bool last = step + 1 == o.temperatures;
    {
      GS_SCOPE("anneal");
      s.copies[k] = s.path;  // get_current_path
      Anneal(s.copies[k], s.cities, temperature, share, rng);
      s.lengths[k] = Length(s.copies[k], s.cities);
    }
    if (k != 0) {
      {
        GS_SEND("length", sizeof(double), 0);
        sync.arrive_and_wait();  // m_sync(): every worker's length is in
      }
      if (last) {
        sync.arrive_and_wait();
      } else {
        GS_RECV(in, "path");  // waiting for the leader's choice is waiting for this message
        sync.arrive_and_wait();
        in.received(s.path.size() * sizeof(int), 0);
      }
      continue;
    }
    sync.arrive_and_wait();
    for (int j = 1; j < o.processors; ++j) {
      GS_RECV(in, "length");
      in.received(sizeof(double), j);
    }
    {
      GS_SCOPE("select best");  // m_single(): get_smallest_path_index, put_current_path
      int best = 0;
      for (int j = 1; j < o.processors; ++j)
        if (s.lengths[j] <= s.lengths[best]) best = j;
      s.path = s.copies[best];
    }
    if (!last) {
      for (int j = 1; j < o.processors; ++j) {
        GS_SEND("path", s.path.size() * sizeof(int), j);
      }
    }
    sync.arrive_and_wait();  // releases the others with the new path
  }
}

bool ParseOptions(int argc, char** argv, Options& o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const char* v = argv[i + 1];
    if (std::strcmp(argv[i], "--cities") == 0) o.cities = std::atoi(v);
    else if (std::strcmp(argv[i], "--processors") == 0) o.processors = std::atoi(v);
    else if (std::strcmp(argv[i], "--temperatures") == 0) o.temperatures = std::atoi(v);
    else if (std::strcmp(argv[i], "--iterations") == 0) o.iterations = std::atol(v);
    else if (std::strcmp(argv[i], "--seed") == 0) o.seed = static_cast<unsigned>(std::atol(v));
    else return false;
  }
  return argc % 2 == 1 && o.cities >= 4 && o.processors >= 1 && o.processors <= 64 && o.temperatures >= 1 &&
         o.iterations >= o.processors;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseOptions(argc, argv, o)) {
    std::fprintf(stderr, "usage: %s [--cities N>=4] [--processors 1-64] [--temperatures T] [--iterations I] [--seed S]\n",
                 argv[0]);
    return 2;
  }
  Shared s;
  {
    GS_GRAIN("read cities", 1);  // the seed reads a file; we place the cities on a circle, shuffled
    unsigned long rng = o.seed;
    for (int i = 0; i < o.cities; ++i) {
      const double angle = 2 * M_PI * i / o.cities;
      s.cities.push_back({std::cos(angle), std::sin(angle)});
    }
    for (int i = o.cities - 1; i > 0; --i)
      std::swap(s.cities[i], s.cities[static_cast<int>(Ranf(rng) * (i + 1)) % (i + 1)]);
  }
  {
    GS_GRAIN("link path", 2);
    for (int i = 0; i < o.cities; ++i) s.path.push_back(i);
  }
  std::barrier<> sync(o.processors);
  std::vector<std::thread> workers;
  {
    GS_GRAIN("anneal setup", 3);
    s.copies.resize(o.processors);
    s.lengths.resize(o.processors);
  }
  const double initial = Length(s.path, s.cities);
  for (int k = 0; k < o.processors; ++k) workers.emplace_back(Worker, k, std::cref(o), std::ref(s), std::ref(sync));
  for (auto& w : workers) w.join();
  {
    gs_region write = GS_REGION_INIT("write result", GS_ROLE_GRAIN, 4 + o.processors);
    grainscope::RegionScope scope(write);
    std::printf("cities %d, processors %d: tour length %.4f -> %.4f (optimum %.4f)\n", o.cities, o.processors, initial,
                Length(s.path, s.cities), 2 * o.cities * std::sin(M_PI / o.cities));
  }
  return 0;
}
