// TraceBuilder's nesting rule (trace_builder.h): each location's events checked, improper nesting
// repaired and counted, references to the renumbered events moved with them.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/parallel.h"
#include "model/trace_builder.h"

namespace grainscope {

namespace {

// Event i of `location` names entry `arg` past the end of its table ("message", "collective",
// "string", "sync event"). Out of line and cold: CheckLocation's loop runs once per event of every
// trace read, and only a corrupt trace gets here.
[[gnu::cold, gnu::noinline]] Status UnknownEntry(std::string_view location, size_t i, std::string_view table,
                                                 uint32_t arg) {
  return DataLoss(fmt::format("{}: event {} names unknown {} {}", location, i, table, arg));
}

}  // namespace

Status TraceBuilder::CheckLocation(LocationId loc, bool* improper) const {
  const EventColumns e{times_[loc.value], body_.kinds[loc.value], body_.args[loc.value]};
  std::string_view name = str(body_.locations[loc.value].name);
  std::vector<uint32_t> open;  // regions entered and not yet left
  for (size_t i = 0; i < e.size(); ++i) {
    if (i > 0 && e.time[i] < e.time[i - 1]) {
      return DataLoss(fmt::format("{}: event {} at {} ns is earlier than the event before it ({} ns)",
                                  name, i, SinceOrigin(e.time[i]), SinceOrigin(e.time[i - 1])));
    }
    const uint32_t arg = e.arg[i];
    switch (e.kind[i]) {
      case EventKind::kEnter:
        if (arg >= body_.regions.size())
          return DataLoss(fmt::format("{}: event {} enters unknown region {}", name, i, arg));
        open.push_back(arg);
        break;
      case EventKind::kLeave:
        if (!open.empty() && open.back() == arg) {
          open.pop_back();
        } else if (repair_nesting_) {
          // RepairNesting will rewrite this location; follow its rule to keep checking the rest.
          *improper = true;
          auto it = std::find(open.rbegin(), open.rend(), arg);
          if (it != open.rend()) open.erase(std::prev(it.base()), open.end());
        } else {
          return DataLoss(fmt::format(
              "{}: event {} at {} ns leaves region '{}' which is not the innermost open region",
              name, i, SinceOrigin(e.time[i]), RegionName(arg)));
        }
        break;
      case EventKind::kSend:
      case EventKind::kSendComplete:
      case EventKind::kRecvPost:
      case EventKind::kRecv:
        if (arg >= body_.messages.size()) return UnknownEntry(name, i, "message", arg);
        break;
      case EventKind::kCollBegin:
      case EventKind::kCollEnd:
        if (arg >= body_.collectives.size()) return UnknownEntry(name, i, "collective", arg);
        break;
      case EventKind::kMarker:
        if (arg >= body_.strings.size()) return UnknownEntry(name, i, "string", arg);
        break;
      case EventKind::kSync:
        if (arg >= body_.syncs.size()) return UnknownEntry(name, i, "sync event", arg);
        break;
    }
  }
  // Regions open at the end are a run that stopped inside them, not improper nesting: closed and
  // counted also under --strict.
  if (!open.empty()) *improper = true;
  return OkStatus();
}

// Rewrites one location's events by the rule in the header: Leaves inserted before a Leave of an
// outer region, Leaves of regions not open dropped, Leaves appended for what is open at the end.
// Only locations CheckLocation found improper come here, so the common case pays nothing.
TraceBuilder::NestingRepairs TraceBuilder::RepairNesting(LocationId loc) {
  std::vector<TimeNs>& time = times_[loc.value];
  std::vector<EventKind>& kind = body_.kinds[loc.value];
  std::vector<uint32_t>& arg = body_.args[loc.value];
  const size_t n = time.size();
  std::vector<TimeNs> new_time;
  std::vector<EventKind> new_kind;
  std::vector<uint32_t> new_arg;
  new_time.reserve(n + 16);
  new_kind.reserve(n + 16);
  new_arg.reserve(n + 16);
  auto emit = [&](TimeNs t, EventKind k, uint32_t a) {
    new_time.push_back(t);
    new_kind.push_back(k);
    new_arg.push_back(a);
  };
  NestingRepairs r;
  std::vector<EventIndex> new_index(n);
  std::vector<uint32_t> open;
  for (size_t i = 0; i < n; ++i) {
    new_index[i] = static_cast<EventIndex>(new_time.size());
    if (kind[i] == EventKind::kEnter) {
      open.push_back(arg[i]);
    } else if (kind[i] == EventKind::kLeave) {
      auto it = std::find(open.rbegin(), open.rend(), arg[i]);
      if (it == open.rend()) {
        if (r.dropped_leaves++ == 0)
          r.first_dropped = fmt::format("leaves '{}' at {} ns, which is not open", RegionName(arg[i]), SinceOrigin(time[i]));
        continue;
      }
      const size_t depth = open.size() - 1 - static_cast<size_t>(it - open.rbegin());  // of the region left
      if (depth + 1 < open.size() && r.closed_early == 0) {
        r.first_closed_early = fmt::format("leaves '{}' at {} ns while '{}' is open", RegionName(arg[i]),
                                           SinceOrigin(time[i]), RegionName(open.back()));
      }
      for (; open.size() > depth + 1; open.pop_back(), ++r.closed_early) emit(time[i], EventKind::kLeave, open.back());
      open.pop_back();
    }
    emit(time[i], kind[i], arg[i]);
  }
  if (!open.empty()) {
    const TimeNs last = new_time.back();
    r.first_closed_at_end = fmt::format("'{}' open at the last event, {} ns", RegionName(open.back()), SinceOrigin(last));
    for (; !open.empty(); open.pop_back(), ++r.closed_at_end) emit(last, EventKind::kLeave, open.back());
  }
  time = std::move(new_time);
  kind = std::move(new_kind);
  arg = std::move(new_arg);
  RenumberEvents(loc, new_index);
  return r;
}

// Points every reference to an event of `loc` at its place after RepairNesting (a dropped Leave's
// references move to the event after it).
void TraceBuilder::RenumberEvents(LocationId loc, const std::vector<EventIndex>& new_index) {
  const std::vector<EventKind>& kind = body_.kinds[loc.value];
  const std::vector<uint32_t>& arg = body_.args[loc.value];
  for (EventIndex i = 0; i < kind.size(); ++i) {
    if (kind[i] == EventKind::kSend) body_.messages.send_event[arg[i]] = i;
    if (kind[i] == EventKind::kRecv) body_.messages.recv_event[arg[i]] = i;
  }
  auto renumber = [&](EventIndex& e) {
    if (e < new_index.size()) e = new_index[e];
  };
  for (CollectiveMember& m : members_) {
    if (m.location != loc) continue;
    renumber(m.begin);
    renumber(m.end);
  }
  DependencyTable& d = body_.dependencies;
  for (size_t i = 0; i < d.size(); ++i) {
    if (d.from_location[i] == loc) renumber(d.from_event[i]);
    if (d.to_location[i] == loc) renumber(d.to_event[i]);
  }
  InstanceTable& in = body_.instances;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in.location[i] == loc) renumber(in.enter[i]);
  }
}


// Checked one location per task (base/parallel.h): the first error in location order is the one
// reported, whatever the threads. Repairs (rare) rewrite shared tables: one after another.
Status TraceBuilder::CheckNesting() {
  const size_t locations = body_.locations.size();
  std::vector<Status> checked(locations);
  std::vector<char> improper(locations, 0);
  ParallelFor(locations, Threads(), [&](size_t l) {
    bool bad = false;
    checked[l] = CheckLocation(LocationId(static_cast<uint32_t>(l)), &bad);
    improper[l] = bad;
  });
  std::vector<std::pair<LocationId, NestingRepairs>> repairs;
  for (uint32_t l = 0; l < locations; ++l) {
    GS_RETURN_IF_ERROR(checked[l]);
    if (improper[l]) repairs.emplace_back(LocationId(l), RepairNesting(LocationId(l)));
  }
  ReportNestingRepairs(repairs);
  return OkStatus();
}

// One diagnostic per repair, its example naming the first location repaired, how many it had,
// and the other locations with their counts (a few of them).
void TraceBuilder::ReportNestingRepairs(const std::vector<std::pair<LocationId, NestingRepairs>>& repairs) {
  struct Kind {
    Diag kind;
    std::string_view what;
    uint64_t NestingRepairs::*count;
    std::string NestingRepairs::*first;
  };
  static constexpr Kind kKinds[] = {
      {Diag::kImproperNestingRepaired, "closed early", &NestingRepairs::closed_early, &NestingRepairs::first_closed_early},
      {Diag::kUnmatchedLeavesDropped, "dropped", &NestingRepairs::dropped_leaves, &NestingRepairs::first_dropped},
      {Diag::kUnclosedRegions, "closed at the end", &NestingRepairs::closed_at_end, &NestingRepairs::first_closed_at_end},
  };
  constexpr size_t kListed = 4;
  for (const Kind& k : kKinds) {
    uint64_t total = 0;
    size_t locations = 0;
    std::string example;
    for (const auto& [loc, r] : repairs) {
      const uint64_t count = r.*k.count;
      if (count == 0) continue;
      total += count;
      const std::string_view name = str(body_.locations[loc.value].name);
      if (locations == 0) {
        example = fmt::format("{}: {} {} ({})", name, count, k.what, r.*k.first);
      } else if (locations < kListed) {
        example += fmt::format("; {}: {}", name, count);
      }
      ++locations;
    }
    if (locations > kListed) example += fmt::format("; ... {} locations in all", locations);
    body_.diagnostics.AddCount(k.kind, total, example);
  }
}

}  // namespace grainscope
