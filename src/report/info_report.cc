#include <nlohmann/json.hpp>
#include <fmt/format.h>

#include "model/diagnostic_kinds.h"
#include "report/info_report.h"
#include "report/rows.h"

namespace grainscope {

namespace {

// Every diagnostic with its declared severity and description.
nlohmann::ordered_json DiagnosticsJson(const Trace& trace) {
  nlohmann::ordered_json diags = nlohmann::ordered_json::array();
  for (const Diagnostic& d : trace.diagnostics().entries()) {
    const DiagnosticKind& kind = KindOf(d.kind);
    diags.push_back({{"name", d.name},
                     {"count", d.count},
                     {"example", d.example},
                     {"severity", DiagnosticSeverityName(kind.severity)},
                     {"description", kind.description}});
  }
  return diags;
}

// "4 processes, 8 threads": the kinds present, or "" when there are none.
std::string LocationKindCounts(const TraceSummary& s) {
  std::string kinds;
  for (LocationKind k : kLocationKinds) {
    if (uint64_t n = s.locations_by_kind[static_cast<int>(k)]; n > 0)
      kinds += fmt::format("{}{} {}{}", kinds.empty() ? "" : ", ", n, LocationKindName(k),
                           n == 1 ? "" : k == LocationKind::kProcess ? "es" : "s");
  }
  return kinds;
}

// "MPI_Send 12, MPI_Recv 12, ... (3 more)": the first `top` calls (0: all), and no more than fit
// on a line of about 120 characters unless all were asked for (OpenMP traces name every barrier
// by its source line: 20 of them ran past 800 characters).
std::string CommunicationCalls(const Trace& trace, const TraceSummary& s, size_t top) {
  constexpr size_t kLineBudget = 120;
  const size_t most = RowsShown(s.communication_calls.size(), top);
  std::string calls;
  size_t shown = 0;
  for (; shown < most; ++shown) {
    const auto& [region, n] = s.communication_calls[shown];
    std::string call = fmt::format("{}{} {}", shown == 0 ? "" : ", ", trace.str(trace.region(region).name), n);
    if (top != 0 && shown > 0 && calls.size() + call.size() > kLineBudget) break;
    calls += call;
  }
  if (shown < s.communication_calls.size()) {
    calls += fmt::format(", ... ({} more; --all lists them)", s.communication_calls.size() - shown);
  }
  return calls;
}

std::string InfoText(const Trace& trace, const TraceSummary& s, const RenderOptions& o) {
  std::string out;
  auto line = [&](std::string_view key, const std::string& value) {
    out += fmt::format("  {:<20} {}\n", key, value);
  };
  out += fmt::format("{}\n", o.source);
  line("format", s.format);
  const std::string kinds = LocationKindCounts(s);
  line("locations", fmt::format("{} ({})", s.locations, kinds.empty() ? "none" : kinds));
  line("regions", fmt::format("{}, {} of them grains", s.regions, s.grains));
  line("events", fmt::format("{}", s.events));
  line("messages", fmt::format("{} matched, {} unmatched, {} bytes", s.messages, s.unmatched_messages,
                               s.message_bytes));
  line("collectives", fmt::format("{}", s.collectives));
  line("time span", fmt::format("{} .. {} ({})", FormatDuration(s.start_ns), FormatDuration(s.end_ns),
                                FormatDuration(s.end_ns - s.start_ns)));
  const Diagnostics& diagnostics = trace.diagnostics();
  if (diagnostics.skipped_input() == Diag::kSkippedLines)
    line("skipped lines", fmt::format("{}", diagnostics.Count(Diag::kSkippedLines)));
  if (!s.communication_calls.empty()) line("communication calls", CommunicationCalls(trace, s, o.top));
  if (!trace.diagnostics().empty()) {
    out += "  warnings:\n";
    for (const Diagnostic& d : trace.diagnostics().entries())
      out += fmt::format("    {:<22} {:>8}   first: {}\n", d.name, d.count, d.example);
  }
  return out;
}

}  // namespace

Result<std::string> RenderInfo(const Trace& trace, const TraceSummary& s, const RenderOptions& o) {
  if (o.format == OutputFormat::kJson) {
    nlohmann::ordered_json j;
    j["file"] = o.source;
    j["format"] = s.format;
    j["locations"] = s.locations;
    nlohmann::ordered_json by_kind = nlohmann::ordered_json::object();
    for (LocationKind k : kLocationKinds)
      if (uint64_t n = s.locations_by_kind[static_cast<int>(k)]; n > 0) by_kind[std::string(LocationKindName(k))] = n;
    j["locations_by_kind"] = by_kind;
    j["regions"] = s.regions;
    j["grains"] = s.grains;
    j["events"] = s.events;
    j["messages"] = s.messages;
    j["unmatched_messages"] = s.unmatched_messages;
    j["message_bytes"] = s.message_bytes;
    j["bytes_sent"] = s.bytes_sent;
    j["bytes_received"] = s.bytes_received;
    j["collectives"] = s.collectives;
    j["origin_ns"] = s.origin_ns;
    j["start_ns"] = s.start_ns;
    j["end_ns"] = s.end_ns;
    const Diag skipped = trace.diagnostics().skipped_input();  // skipped_lines or skipped_records
    j[std::string(KindOf(skipped).name)] = trace.diagnostics().Count(skipped);
    nlohmann::ordered_json kinds = nlohmann::ordered_json::object();
    for (int k = 0; k < kEventKindCount; ++k)
      kinds[std::string(EventKindName(static_cast<EventKind>(k)))] = s.events_by_kind[k];
    j["events_by_kind"] = kinds;
    nlohmann::ordered_json calls = nlohmann::ordered_json::object();
    for (const auto& [region, n] : s.communication_calls) calls[std::string(trace.str(trace.region(region).name))] = n;
    j["communication_calls"] = calls;
    j["diagnostics"] = DiagnosticsJson(trace);
    return FinishJson(j, o.notes);
  }
  if (o.format != OutputFormat::kText) {
    return InvalidArgument(fmt::format("info has no {} output (use text or json)", OutputFormatName(o.format)));
  }
  return InfoText(trace, s, o);
}

}  // namespace grainscope
