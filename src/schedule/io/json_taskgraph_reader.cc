// The JSON task graph, as `grainscope taskgraph --format json` writes it (docs/json.md). Sample:
//
//   {"nodes": [{"id": 2, "time_ns": 20000000, ...}, ...],
//    "edges": [{"from": 2, "to": 3, "delay_ns": 10000000, ...}, ...]}
//
// Only id/time_ns and from/to/delay_ns are read (other fields are ignored); `weight` and `cost`
// may stand for time_ns and delay_ns in a graph of another time unit. Syntax errors name the
// line and column; content errors the JSON path ("nodes[2].time_ns").
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "schedule/io/readers.h"

namespace grainscope {
namespace {

using Json = nlohmann::json;

// Records where a syntax error is, without exceptions (sax_parse reports errors to the handler).
struct SyntaxErrorFinder : nlohmann::json_sax<Json> {
  size_t position = 0;
  std::string what;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string& last_token, const nlohmann::detail::exception&) override {
    this->position = position;  // a byte count: the caller turns it into line and column
    what = last_token;
    return false;
  }
};

Status SyntaxError(std::string_view content, const std::string& source) {
  SyntaxErrorFinder finder;
  Json::sax_parse(content, &finder, nlohmann::detail::input_format_t::json, /*strict=*/true);
  const size_t at = std::min(finder.position > 0 ? finder.position - 1 : 0, content.size());
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < at; ++i)
    if (content[i] == '\n') ++line, line_start = i + 1;
  std::string near = finder.what.substr(0, 20);
  for (char& c : near)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return DataLoss(fmt::format("{}:{}:{}: invalid JSON near '{}' (expected a task graph object with nodes and edges)",
                              source, line, at - line_start + 1, near));
}

Result<int64_t> IntField(const Json& obj, std::initializer_list<const char*> keys, const std::string& where,
                         const std::string& source) {
  for (const char* key : keys) {
    auto it = obj.find(key);
    if (it == obj.end()) continue;
    if (it->is_number_unsigned()) {
      const uint64_t v = it->get<uint64_t>();
      if (v <= static_cast<uint64_t>(INT64_MAX)) return static_cast<int64_t>(v);
    }
    return DataLoss(fmt::format("{}: {}.{}: expected a non-negative integer, got {}", source, where, key, it->dump()));
  }
  std::string names;
  for (const char* key : keys) names += std::string(names.empty() ? "" : " or ") + key;
  return DataLoss(fmt::format("{}: {}: missing field {}", source, where, names));
}

}  // namespace

Result<TaskDag> ReadJsonTaskGraph(std::string_view content, const std::string& source) {
  const Json j = Json::parse(content, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return SyntaxError(content, source);
  if (!j.is_object()) return DataLoss(fmt::format("{}: expected a JSON object with nodes and edges", source));
  auto nodes = j.find("nodes");
  if (nodes == j.end() || !nodes->is_array()) {
    return DataLoss(fmt::format("{}: expected an array \"nodes\" (a task graph as `grainscope taskgraph --format json` "
                                "writes it)",
                                source));
  }
  DagBuilder b(source);
  std::map<int64_t, uint32_t> index;
  bool in_ns = false;
  for (size_t k = 0; k < nodes->size(); ++k) {
    const Json& n = (*nodes)[k];
    const std::string where = fmt::format("nodes[{}]", k);
    if (!n.is_object()) return DataLoss(fmt::format("{}: {}: expected an object {{\"id\", \"time_ns\"}}", source, where));
    GS_ASSIGN_OR_RETURN(const int64_t id, IntField(n, {"id"}, where, source));
    GS_ASSIGN_OR_RETURN(const int64_t time, IntField(n, {"time_ns", "weight"}, where, source));
    in_ns = in_ns || n.contains("time_ns");
    if (index.count(id) != 0) return DataLoss(fmt::format("{}: {}: node id {} is used twice", source, where, id));
    index[id] = b.AddTask(id, time);
  }
  auto edges = j.find("edges");
  if (edges != j.end() && !edges->is_array()) return DataLoss(fmt::format("{}: \"edges\" must be an array", source));
  for (size_t k = 0; edges != j.end() && k < edges->size(); ++k) {
    const Json& e = (*edges)[k];
    const std::string where = fmt::format("edges[{}]", k);
    if (!e.is_object()) {
      return DataLoss(fmt::format("{}: {}: expected an object {{\"from\", \"to\", \"delay_ns\"}}", source, where));
    }
    GS_ASSIGN_OR_RETURN(const int64_t from, IntField(e, {"from"}, where, source));
    GS_ASSIGN_OR_RETURN(const int64_t to, IntField(e, {"to"}, where, source));
    GS_ASSIGN_OR_RETURN(const int64_t cost, IntField(e, {"delay_ns", "cost"}, where, source));
    auto f = index.find(from), t = index.find(to);
    if (f == index.end()) return DataLoss(fmt::format("{}: {}.from: no node with id {}", source, where, from));
    if (t == index.end()) return DataLoss(fmt::format("{}: {}.to: no node with id {}", source, where, to));
    b.AddEdge(f->second, t->second, cost);
  }
  if (in_ns) b.set_time_unit("ns");
  return std::move(b).Build();
}

namespace {
Sniff SniffJsonTaskGraph(const TraceProbe& probe) {
  if (HasExtension(probe.path, ".json")) return Sniff::kSure;
  const size_t first = probe.head.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && probe.head[first] == '{' ? Sniff::kSure : Sniff::kNo;
}
}  // namespace

constinit const TaskGraphImporter kJsonTaskGraphImporter{kJsonTaskGraphFormat, SniffJsonTaskGraph, ReadJsonTaskGraph};

}  // namespace grainscope
