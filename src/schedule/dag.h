// TaskDag: the schedulable task graph every scheduler reads.
//
// Nodes are tasks with an integer computation time (weight), edges are precedence constraints
// with an integer communication cost, paid only when the two tasks run on different processors.
// Times are integer "time units": nanoseconds for a graph derived from a trace, the file's own
// unit for a graph read from a file (STG, DOT, the seed's Task_Graph).
//
// Tasks are indexed 0..n-1 in the order they were added; `id` keeps the number the input used
// (task-graph node id, STG task number, DOT node name when it is a number). Adjacency is stored
// in both directions as compact arrays (CSR), sorted by the neighbour's index.
//
// Built through DagBuilder, which merges repeated edges between the same pair of tasks into one
// edge whose cost is the SUM of their costs (two messages from a producer to a consumer must
// both be transferred when the two run on different processors; this is the seed's view, where
// every arc carries its own delay), and rejects self-loops and cycles.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace grainscope {

struct DagArc {
  uint32_t task = 0;  // the neighbour (successor or predecessor)
  int64_t cost = 0;   // communication cost of the edge
};

struct TaskDag {
  std::vector<int64_t> id;        // the input's id of each task
  std::vector<std::string> name;  // the input's name when it is not a number; empty otherwise
  std::vector<int64_t> weight;    // computation time, >= 0

  std::vector<uint32_t> succ_begin;  // n + 1 offsets into succ
  std::vector<DagArc> succ;
  std::vector<uint32_t> pred_begin;  // n + 1 offsets into pred
  std::vector<DagArc> pred;

  // A topological order: Kahn's algorithm taking the ready task of smallest index first.
  std::vector<uint32_t> topo_order;

  std::string time_unit;        // "ns" when derived from a trace; empty: the file's own unit
  uint64_t merged_edges = 0;    // input edges folded into an earlier edge of the same pair

  uint32_t size() const { return static_cast<uint32_t>(weight.size()); }
  size_t edge_count() const { return succ.size(); }
  std::span<const DagArc> successors(uint32_t t) const {
    return {succ.data() + succ_begin[t], succ.data() + succ_begin[t + 1]};
  }
  std::span<const DagArc> predecessors(uint32_t t) const {
    return {pred.data() + pred_begin[t], pred.data() + pred_begin[t + 1]};
  }
  int64_t total_weight() const;
  // The task's label for people and files: its name, else its id.
  std::string Label(uint32_t t) const;
};

class DagBuilder {
 public:
  // `source` prefixes error messages ("graph.dot: ...").
  explicit DagBuilder(std::string source) : source_(std::move(source)) {}

  uint32_t AddTask(int64_t id, int64_t weight, std::string name = {});
  void AddEdge(uint32_t from, uint32_t to, int64_t cost) { edges_.push_back({from, to, cost}); }
  uint32_t task_count() const { return static_cast<uint32_t>(dag_.weight.size()); }
  void set_time_unit(std::string unit) { dag_.time_unit = std::move(unit); }
  // For the errors of a graph that is not acyclic: how a task is named there (default: its
  // Label), and what the message adds at its end (why such a graph arose, what to do).
  void set_error_context(std::function<std::string(uint32_t task)> describe, std::string hint) {
    describe_ = std::move(describe);
    hint_ = std::move(hint);
  }

  // Merges repeated edges, builds the adjacency, checks that there is no cycle. Fails with
  // FailedPrecondition naming the tasks of one cycle.
  Result<TaskDag> Build() &&;

 private:
  struct RawEdge {
    uint32_t from, to;
    int64_t cost;
  };
  std::string Describe(const TaskDag& g, uint32_t t) const { return describe_ ? describe_(t) : g.Label(t); }

  std::string source_;
  TaskDag dag_;
  std::vector<RawEdge> edges_;
  std::function<std::string(uint32_t)> describe_;
  std::string hint_;
};

// Levels of every task, indexed by task (definitions of Kwok & Ahmad 1999):
//   static b-level  computation only, from the task's start to the end of the graph (incl. itself)
//   b-level         the same with communication costs on the path
//   t-level         longest path from an entry task to the task's start, with communication
std::vector<int64_t> StaticBottomLevels(const TaskDag& g);
std::vector<int64_t> BottomLevels(const TaskDag& g);
std::vector<int64_t> TopLevels(const TaskDag& g);
// Longest computation-only path (the critical path without communication): a lower bound on any
// schedule's length.
int64_t CriticalPathWithoutCommunication(const TaskDag& g);

}  // namespace grainscope
