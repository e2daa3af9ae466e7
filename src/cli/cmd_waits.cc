#include <limits>
#include <memory>

#include "analysis/waits/characterize.h"
#include "base/progress.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "format/trace_reader.h"
#include "model/rendezvous.h"
#include "model/trace_builder.h"

namespace grainscope::cli {

CommandBody AddWaitsCommand(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  auto threshold = std::make_shared<double>(CharacterizeOptions{}.threshold);
  auto eager = std::make_shared<uint64_t>(WaitStateOptions{}.eager_limit_bytes);
  CLI::App* cmd = app.add_subcommand(
      "waits", "Who waited for whom and why: wait states (late sender, late receiver, wait at barrier / "
               "N x N, late broadcast, early reduce, barrier completion; between threads lock contention, "
               "condition wait, join wait), each synchronisation point's "
               "waits merged into classes of the same cause, and the regions that caused most waiting");
  AddCommonOptions(*cmd, *o, {"text", "json", "csv"}, false);
  AddNumberOption(*cmd, "--class-distance", *threshold, 0.0, 2.0, false,
                  "How alike two waits of a sync point must be to share a class: the distance between their "
                  "causes (a number from 0, the same cause, to 2, nothing in common; not a time) under which "
                  "they merge");
  // Its old name, which read like a duration: still accepted, with a note, and not listed.
  CLI::Option* old_name = AddNumberOption(*cmd, "--threshold", *threshold, 0.0, 2.0, false, "");
  old_name->group("");
  CLI::Option* eager_option =
      AddIntegerOption(*cmd, "--eager-limit", *eager, 0, std::numeric_limits<int64_t>::max(), "bytes",
                       "Messages larger than this (bytes) are rendezvous sends (late receiver); default: the "
                       "MPI library's as recorded, else 65536");
  return [o, threshold, eager, eager_option, old_name] {
    return Run("waits", [&]() -> Status {
      GS_ASSIGN_OR_RETURN(RenderOptions r, MakeRenderOptions(*o));
      if (old_name->count() > 0) {
        r.notes.push_back("--threshold is now --class-distance: a distance between causes from 0 to 2, not a time");
      }
      GS_ASSIGN_OR_RETURN(Trace trace, LoadTrace(o->trace, o->input_format, ReadOptions{o->strict}, r));
      // The model decides which sends are rendezvous, once: under the user's limit, if given.
      if (eager_option->count() > 0) {
        GS_ASSIGN_OR_RETURN(trace, TraceBuilder::WithEagerLimit(std::move(trace), *eager, "--eager-limit"));
      }
      // Named steps for the progress bar: on a large trace each takes seconds after the read.
      progress::Begin("finding call sites", 0);
      const CallSites calls = FindCallSites(trace);
      WaitStateOptions wo;
      if (const std::optional<EagerLimit> traced = TraceEagerLimit(trace)) {
        wo.eager_limit_bytes = traced->bytes;
        wo.eager_limit_source = std::string(traced->source);
      }
      progress::Begin("finding wait states", 0);
      const WaitStates waits = FindWaitStates(trace, calls, wo);
      CharacterizeOptions co;
      co.threshold = *threshold;
      const Characterization c = Characterize(trace, calls, waits, co);
      return EmitStream([&](TextSink& out) { return WriteWaits(trace, waits, c, r, out); }, *o, r.notes);
    });
  };
}

}  // namespace grainscope::cli
