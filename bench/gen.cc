// bench/gen: writes a reproducible synthetic trace (bench/synthetic: nested regions, a ring of
// point-to-point messages with a chosen fraction of late senders, barriers) as OTF2 and/or as a
// .gst directory of per-location streams, and prints what it wrote as JSON. The same seed and
// options give the same trace.
//
//   gen --locations 64 --events 10000000 --seed 1 --otf2 out/otf2 --gst out/gst [--check]
// --check reads every output back and fails unless it holds the generated events and messages.
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "format/otf2/otf2_writer.h"
#include "format/trace_reader.h"
#include "format/gst/gst_writer.h"
#include "synthetic/synthetic_trace.h"

namespace {

using namespace grainscope;

size_t Matched(const Trace& t) {
  size_t n = 0;
  for (size_t i = 0; i < t.messages().size(); ++i) {
    n += t.messages().send_event[i] != kNoEvent && t.messages().recv_event[i] != kNoEvent;
  }
  return n;
}

Status Check(const Trace& want, const std::string& path) {
  GS_ASSIGN_OR_RETURN(Trace got, ReadTrace(path));
  if (got.event_count() != want.event_count() || Matched(got) != Matched(want) ||
      got.collectives().size() != want.collectives().size() || got.locations().size() != want.locations().size()) {
    return DataLoss(fmt::format("{}: read back {} events, {} matched messages, {} collectives; generated {}, {}, {}", path,
                                got.event_count(), Matched(got), got.collectives().size(), want.event_count(),
                                Matched(want), want.collectives().size()));
  }
  return OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  SyntheticOptions o;
  std::string otf2, gst;
  bool check = false;
  CLI::App app{"Write a reproducible synthetic trace as OTF2 and/or a .gst directory"};
  app.add_option("--locations", o.locations, "locations (ranks)")->check(CLI::PositiveNumber);
  app.add_option("--events", o.events, "approximate number of events")->check(CLI::PositiveNumber);
  app.add_option("--seed", o.seed, "random seed");
  app.add_option("--late-fraction", o.late_fraction, "share of rounds in which a location is a late sender");
  app.add_option("--message-fraction", o.message_fraction, "share of send/receive events");
  app.add_option("--barrier-every", o.barrier_every, "a barrier every N rounds (0: none)");
  app.add_option("--otf2", otf2, "write OTF2: DIR or DIR/name.otf2 (an archive there is replaced)");
  app.add_option("--gst", gst, "write a .gst directory, one stream per location (a .gst trace there is replaced)");
  app.add_flag("--check", check, "read the outputs back and compare counts");
  CLI11_PARSE(app, argc, argv);

  auto trace = GenerateSyntheticTrace(o);
  if (!trace.ok()) {
    std::fprintf(stderr, "gen: %s\n", trace.status().message().c_str());
    return 1;
  }
  // The outputs of an earlier run are replaced (only traces of their format: base/output_target.h).
  const OutputOptions replace{.force = true};
  for (const auto& [path, write] :
       {std::pair<std::string, Status (*)(const Trace&, const std::string&, const OutputOptions&)>{otf2, WriteOtf2},
        {gst, WriteGst}}) {
    if (path.empty()) continue;
    Status s = write(*trace, path, replace);
    if (s.ok() && check) s = Check(*trace, path);
    if (!s.ok()) {
      std::fprintf(stderr, "gen: %s\n", s.message().c_str());
      return 1;
    }
  }
  std::printf("%s\n", fmt::format(R"({{"locations": {}, "events": {}, "messages": {}, "collectives": {}, "seed": {}, "otf2": "{}", "gst": "{}", "checked": {}}})",
                                  trace->locations().size(), trace->event_count(), trace->messages().size(),
                                  trace->collectives().size(), o.seed, otf2, gst, check).c_str());
  return 0;
}
