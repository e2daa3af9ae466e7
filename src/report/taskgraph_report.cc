#include <nlohmann/json.hpp>
#include <fmt/format.h>

#include "report/taskgraph_report.h"
#include "report/grain_id.h"
#include "report/json_writer.h"
#include "analysis/profile/grains.h"
#include "report/location_column.h"
#include "report/rows.h"

namespace grainscope {
namespace {

int64_t ProcessorId(const Trace& t, const TaskNode& n) { return t.location(n.grain.location).external_id; }

// The seed's Task_Graph file (figure 4.5b): nodes laid out 5 per row for TaskGrapher's screen.
void TaskGraphSeed(const TaskGraph& g, int64_t unit_ns, TextSink& out) {
  out.text() += "Task_Graph <Identifies a Task Graph file >\n";
  out.Row("{} < Total Number of Nodes >\n", g.nodes.size());
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    const TaskNode& n = g.nodes[k];
    const size_t top = 40 + 40 * (k / 5), left = 80 + 80 * (k % 5);
    out.Row("{} {} {} {} {} {}\n", n.id, ToUnit(n.grain.duration(), unit_ns), top, left, n.successors, n.predecessors);
  }
  out.Row("{} < Total Number of Edges >\n", g.edges.size());
  for (const TaskEdge& e : g.edges) out.Row("{} {} {}\n", e.from, e.to, ToUnit(e.delay_ns, unit_ns));
}

// Written node by node (json_writer.h): a graph of millions of grains is never one DOM.
void TaskGraphJson(const Trace& t, const TaskGraph& g, const RenderOptions& o, TextSink& out) {
  using Json = JsonReportWriter::Json;
  JsonReportWriter w(out);
  w.Member("ids_from_grain_ids", g.ids_from_grain_ids);
  w.Array("nodes", g.nodes.size(), [&](size_t i) {
    const TaskNode& n = g.nodes[i];
    Json nj;
    nj["id"] = n.id;
    nj["time_ns"] = n.grain.duration();
    nj["grain"] = GrainIdJson(n.grain.id);
    nj["processor"] = ProcessorId(t, n);
    nj["location"] = LocationName(t, n.grain.location);
    nj["region"] = t.str(t.region(n.grain.region).name);
    nj["start_ns"] = n.grain.start - t.origin_ns();
    nj["stop_ns"] = n.grain.stop - t.origin_ns();
    nj["successors"] = n.successors;
    nj["predecessors"] = n.predecessors;
    return nj;
  });
  w.Array("edges", g.edges.size(), [&](size_t i) {
    const TaskEdge& e = g.edges[i];
    return Json{{"from", e.from}, {"to", e.to}, {"delay_ns", e.delay_ns}, {"message", TaskEdgeLabel(t, e)}};
  });
  w.Member("unmatched_messages", g.unmatched_messages);
  w.Member("unattributed_messages", g.unattributed_messages);
  w.Member("unattributed_dependencies", g.unattributed_dependencies);
  w.Finish(o.notes);
}

// Graphviz, with the `Weight=` attributes task-graph collections use (times in `unit_ns`).
void TaskGraphDot(const TaskGraph& g, int64_t unit_ns, TextSink& out) {
  out.text() += "digraph taskgraph {\n";
  for (const TaskNode& n : g.nodes) {
    out.Row("\t{}\t [Weight={}, label=\"{}\\n{}\"];\n", n.id, ToUnit(n.grain.duration(), unit_ns), n.id,
            FormatDuration(n.grain.duration()));
  }
  for (const TaskEdge& e : g.edges) out.Row("\t{} -> {}\t [Weight={}];\n", e.from, e.to, ToUnit(e.delay_ns, unit_ns));
  out.text() += "}\n";
}

std::string TaskGraphText(const Trace& t, const TaskGraph& g, const RenderOptions& o) {
  std::string out = fmt::format("Task graph: {} ({} nodes, {} edges)\n", o.source, g.nodes.size(), g.edges.size());
  // Named by the location and the region, not by the trace's raw ids (an OTF2 thread's location
  // reference is 4294967296); the grain id only where grains have ids of their own.
  const size_t lw = LocationColumnWidth(t, 8);
  out += fmt::format("  {:>6} {:>8} {:>14} {:>6} {:>6}  {:<{}}  {}\n", "node", "grain", "time", "succ", "pred",
                     "location", lw, "region");
  const size_t nodes_shown = RowsShown(g.nodes.size(), o.top);
  for (size_t i = 0; i < nodes_shown; ++i) {
    const TaskNode& n = g.nodes[i];
    out += fmt::format("  {:>6} {:>8} {:>14} {:>6} {:>6}  {:<{}}  {}\n", n.id,
                       GrainIdText(n.grain.id), FormatDuration(n.grain.duration()),
                       n.successors, n.predecessors, LocationName(t, n.grain.location), lw,
                       t.str(t.region(n.grain.region).name));
  }
  out += RowsLeftOut(g.nodes.size(), nodes_shown);
  out += fmt::format("\n  {:>6} {:>6} {:>14}  {}\n", "from", "to", "delay", "message");
  const size_t edges_shown = RowsShown(g.edges.size(), o.top);
  for (size_t i = 0; i < edges_shown; ++i) {
    const TaskEdge& e = g.edges[i];
    out += fmt::format("  {:>6} {:>6} {:>14}  {}\n", e.from, e.to, FormatDuration(e.delay_ns),
                       TaskEdgeLabel(t, e));
  }
  out += RowsLeftOut(g.edges.size(), edges_shown);
  if (g.unmatched_messages + g.unattributed_messages > 0) {
    out += fmt::format("\n  not edges: {} unmatched messages, {} messages outside any grain\n",
                       g.unmatched_messages, g.unattributed_messages);
  }
  if (g.unattributed_dependencies > 0)
    out += fmt::format("  not edges: {} dependency edges with an end outside any grain\n", g.unattributed_dependencies);
  return out;
}

}  // namespace

Status WriteTaskGraph(const Trace& t, const TaskGraph& g, const RenderOptions& o, TextSink& out) {
  switch (o.format) {
    case OutputFormat::kText: out.text() += TaskGraphText(t, g, o); return OkStatus();
    case OutputFormat::kJson: TaskGraphJson(t, g, o, out); return OkStatus();
    case OutputFormat::kSeed: TaskGraphSeed(g, o.unit_ns, out); return OkStatus();
    case OutputFormat::kDot: TaskGraphDot(g, o.unit_ns, out); return OkStatus();
    default:
      return InvalidArgument(fmt::format("taskgraph has no {} output (use text, json, seed or dot)",
                                         OutputFormatName(o.format)));
  }
}

Result<std::string> RenderTaskGraph(const Trace& t, const TaskGraph& g, const RenderOptions& o) {
  return CollectText([&](TextSink& out) { return WriteTaskGraph(t, g, o, out); });
}

}  // namespace grainscope
