// Graphviz DOT task graphs with Weight= attributes. Sample (Akrya/Scheduler's collection):
//
//   digraph "OutTree-Balanced-MaxBf-3_Nodes_7_CCR_2.0_WeightType_Random" {
//     main.graph [CCR=10.0, Density=1.9];
//     0  [Weight=5];
//     0 -> 1  [Weight=15];
//   }
//
// The subset read: `[strict] digraph [name] { statements }`, statements separated by ';' or
// newlines: `a -> b -> c [attrs]` (edges), `a [attrs]` (a node), `name = value` (a graph
// attribute), and `graph|node|edge [attrs]` (defaults: node and edge Weight defaults are used,
// graph attributes ignored; a `something.graph [...]` statement, as written by some generators,
// is a graph attribute statement). Comments: //, /* */, and lines starting with '#'. Subgraphs
// and ports are not supported (an error says so).
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "base/numbers.h"
#include "schedule/io/readers.h"

namespace grainscope {
namespace {

struct DotToken {
  enum Kind { kId, kPunct, kEnd } kind;
  std::string text;  // an id (quotes removed) or one of { } [ ] = ; , -> --
  uint32_t line;
};

bool IdChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || (c & 0x80); }

// A quoted ID whose opening quote is s[i]: its text, with \" unescaped, in `text`; `i` ends past
// the closing quote and `line` counts the line breaks inside. False when it is never closed.
bool LexQuoted(std::string_view s, size_t& i, uint32_t& line, std::string& text) {
  for (++i; i < s.size() && s[i] != '"'; ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '"') ++i;
    if (s[i] == '\n') ++line;
    text += s[i];
  }
  if (i >= s.size()) return false;
  ++i;
  return true;
}

Result<std::vector<DotToken>> Lex(std::string_view s, const std::string& source) {
  std::vector<DotToken> out;
  uint32_t line = 1;
  bool line_start = true;
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '\n') {
      ++line, ++i, line_start = true;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      continue;
    }
    if ((c == '#' && line_start) || s.substr(i, 2) == "//") {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    line_start = false;
    if (s.substr(i, 2) == "/*") {
      const size_t end = s.find("*/", i + 2);
      if (end == std::string_view::npos) return DataLoss(fmt::format("{}:{}: a /* comment is never closed", source, line));
      line += static_cast<uint32_t>(std::count(s.begin() + i, s.begin() + end, '\n'));
      i = end + 2;
      continue;
    }
    if (s.substr(i, 2) == "->" || s.substr(i, 2) == "--") {
      out.push_back({DotToken::kPunct, std::string(s.substr(i, 2)), line});
      i += 2;
      continue;
    }
    if (std::string_view("{}[]=;,:").find(c) != std::string_view::npos) {
      out.push_back({DotToken::kPunct, std::string(1, c), line});
      ++i;
      continue;
    }
    if (c == '"') {
      std::string text;
      const uint32_t start_line = line;
      if (!LexQuoted(s, i, line, text)) return DataLoss(fmt::format("{}:{}: a quoted string is never closed", source, start_line));
      out.push_back({DotToken::kId, std::move(text), start_line});
      continue;
    }
    if (IdChar(c) || (c == '-' && i + 1 < s.size() && (std::isdigit(static_cast<unsigned char>(s[i + 1])) || s[i + 1] == '.'))) {
      size_t j = i + 1;
      while (j < s.size() && IdChar(s[j])) ++j;
      out.push_back({DotToken::kId, std::string(s.substr(i, j - i)), line});
      i = j;
      continue;
    }
    return DataLoss(fmt::format("{}:{}: unexpected character '{}' in DOT", source, line, c));
  }
  out.push_back({DotToken::kEnd, "", line});
  return out;
}

struct DotNode {
  std::string name;
  uint32_t line;  // first appearance
  std::optional<int64_t> weight;
};

class DotParser {
 public:
  DotParser(std::vector<DotToken> tokens, const std::string& source) : t_(std::move(tokens)), source_(source) {}

  Result<TaskDag> Parse() {
    if (IsId("strict")) ++at_;
    if (!IsId("digraph")) {
      return Error(IsId("graph") ? "an undirected graph: a task graph must be a digraph"
                                 : fmt::format("expected 'digraph', got {}", Describe(t_[at_])));
    }
    ++at_;
    if (t_[at_].kind == DotToken::kId) ++at_;  // the graph's name
    GS_RETURN_IF_ERROR(Expect("{"));
    while (!IsPunct("}")) {
      if (t_[at_].kind == DotToken::kEnd) return Error("the file ends before the closing '}'");
      GS_RETURN_IF_ERROR(Statement());
      while (IsPunct(";")) ++at_;
    }
    ++at_;
    if (t_[at_].kind != DotToken::kEnd) return Error(fmt::format("expected the end of the file after '}}', got {}", Describe(t_[at_])));
    return Build();
  }

 private:
  bool IsId(std::string_view s) const { return t_[at_].kind == DotToken::kId && t_[at_].text == s; }
  bool IsPunct(std::string_view s) const { return t_[at_].kind == DotToken::kPunct && t_[at_].text == s; }
  static std::string Describe(const DotToken& t) {
    return t.kind == DotToken::kEnd ? "the end of the file" : fmt::format("'{}'", t.text);
  }
  Status Error(std::string_view message) const { return DataLoss(fmt::format("{}:{}: {}", source_, t_[at_].line, message)); }
  Status Expect(std::string_view punct) {
    if (!IsPunct(punct)) return Error(fmt::format("expected '{}', got {}", punct, Describe(t_[at_])));
    ++at_;
    return OkStatus();
  }

  // `[a=b, c=d] [e=f]`: returns the Weight value if present (last one wins).
  Result<std::optional<int64_t>> Attributes() {
    std::optional<int64_t> weight;
    while (IsPunct("[")) {
      ++at_;
      while (!IsPunct("]")) {
        if (t_[at_].kind != DotToken::kId) return Error(fmt::format("expected an attribute name, got {}", Describe(t_[at_])));
        const DotToken& key = t_[at_++];
        GS_RETURN_IF_ERROR(Expect("="));
        if (t_[at_].kind != DotToken::kId) return Error(fmt::format("expected the value of {}, got {}", key.text, Describe(t_[at_])));
        const DotToken& value = t_[at_++];
        std::string lower = key.text;
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
        if (lower == "weight") {
          GS_ASSIGN_OR_RETURN(weight, ParseWeight(value));
        }
        if (IsPunct(",") || IsPunct(";")) ++at_;
      }
      ++at_;
    }
    return weight;
  }

  // Weights are integer time units; "12.0" is accepted as 12.
  Result<int64_t> ParseWeight(const DotToken& v) const {
    std::string_view s = v.text;
    const size_t dot = s.find('.');
    if (dot != std::string_view::npos && s.find_first_not_of('0', dot + 1) == std::string_view::npos) s = s.substr(0, dot);
    std::optional<int64_t> w = ParseNonNegativeInt(s);
    if (!w) return DataLoss(fmt::format("{}:{}: expected a non-negative integer Weight, got '{}'", source_, v.line, v.text));
    return *w;
  }

  uint32_t Node(const DotToken& id) {
    auto [it, added] = index_.emplace(id.text, static_cast<uint32_t>(nodes_.size()));
    if (added) nodes_.push_back(DotNode{id.text, id.line, std::nullopt});
    return it->second;
  }

  Status Statement() {
    if (IsId("subgraph") || IsPunct("{")) return Error("subgraphs are not supported in task graphs");
    if (t_[at_].kind != DotToken::kId) return Error(fmt::format("expected a node, an edge or an attribute, got {}", Describe(t_[at_])));
    const DotToken& first = t_[at_++];
    if (IsPunct("=")) {  // graph attribute `name = value`
      ++at_;
      if (t_[at_].kind != DotToken::kId) return Error(fmt::format("expected a value after '=', got {}", Describe(t_[at_])));
      ++at_;
      return OkStatus();
    }
    if (IsPunct(":")) return Error("node ports are not supported in task graphs");
    const bool defaults = first.text == "graph" || first.text == "node" || first.text == "edge" ||
                          (first.text.size() > 6 && first.text.ends_with(".graph"));
    if (defaults) {
      GS_ASSIGN_OR_RETURN(std::optional<int64_t> w, Attributes());
      if (first.text == "node" && w) node_default_ = w;
      if (first.text == "edge" && w) edge_default_ = w;
      return OkStatus();
    }
    std::vector<uint32_t> chain = {Node(first)};
    while (IsPunct("->") || IsPunct("--")) {
      if (IsPunct("--")) return Error("an undirected edge '--': a task graph needs directed edges '->'");
      ++at_;
      if (t_[at_].kind != DotToken::kId) return Error(fmt::format("expected a node after '->', got {}", Describe(t_[at_])));
      chain.push_back(Node(t_[at_++]));
    }
    GS_ASSIGN_OR_RETURN(std::optional<int64_t> w, Attributes());
    if (chain.size() == 1) {
      if (w) nodes_[chain[0]].weight = w;
      else if (!nodes_[chain[0]].weight && node_default_) nodes_[chain[0]].weight = node_default_;
      return OkStatus();
    }
    for (size_t k = 0; k + 1 < chain.size(); ++k) edges_.push_back({chain[k], chain[k + 1], w.value_or(edge_default_.value_or(0))});
    return OkStatus();
  }

  Result<TaskDag> Build() {
    // Numeric names become ids and order the tasks; otherwise first appearance does.
    bool numeric = true;
    for (const DotNode& n : nodes_) numeric = numeric && ParseNonNegativeInt(n.name).has_value();
    std::vector<uint32_t> order(nodes_.size());
    for (uint32_t k = 0; k < order.size(); ++k) order[k] = k;
    if (numeric) {
      std::stable_sort(order.begin(), order.end(),
                       [&](uint32_t a, uint32_t b) { return *ParseNonNegativeInt(nodes_[a].name) < *ParseNonNegativeInt(nodes_[b].name); });
    }
    DagBuilder b(source_);
    std::vector<uint32_t> task(nodes_.size());
    for (uint32_t k = 0; k < order.size(); ++k) {
      const DotNode& n = nodes_[order[k]];
      if (!n.weight && !node_default_) {
        return DataLoss(fmt::format("{}:{}: node {} has no Weight attribute (expected `{} [Weight=<time>]`)", source_,
                                    n.line, n.name, n.name));
      }
      const int64_t weight = n.weight ? *n.weight : *node_default_;
      task[order[k]] = numeric ? b.AddTask(*ParseNonNegativeInt(n.name), weight) : b.AddTask(k + 1, weight, n.name);
    }
    for (const auto& [from, to, cost] : edges_) b.AddEdge(task[from], task[to], cost);
    return std::move(b).Build();
  }

  std::vector<DotToken> t_;
  const std::string& source_;
  size_t at_ = 0;
  std::map<std::string, uint32_t> index_;
  std::vector<DotNode> nodes_;
  struct Edge {
    uint32_t from, to;
    int64_t cost;
  };
  std::vector<Edge> edges_;
  std::optional<int64_t> node_default_, edge_default_;
};

}  // namespace

Result<TaskDag> ReadDotTaskGraph(std::string_view content, const std::string& source) {
  GS_ASSIGN_OR_RETURN(std::vector<DotToken> tokens, Lex(content, source));
  return DotParser(std::move(tokens), source).Parse();
}

namespace {
Sniff SniffDot(const TraceProbe& probe) {
  if (HasExtension(probe.path, ".dot") || HasExtension(probe.path, ".gv")) return Sniff::kSure;
  const std::string_view word = FirstWord(probe.head);
  return word == "digraph" || word == "strict" ? Sniff::kPlausible : Sniff::kNo;
}
}  // namespace

constinit const TaskGraphImporter kDotImporter{kDotFormat, SniffDot, ReadDotTaskGraph};

}  // namespace grainscope
