// The eager limit a TraceBuilder decides MPI rendezvous sends under, and the decision itself
// (model/rendezvous.h): in Finish, and again for a trace just read (WithEagerLimit).
#include <charconv>

#include "model/metadata_keys.h"
#include "model/rendezvous.h"
#include "model/trace_builder.h"

namespace grainscope {

void TraceBuilder::SetEagerLimitUnlessRecorded(uint64_t bytes, std::string_view source) {
  SetEagerLimit(bytes, source);
  eager_limit_is_fallback_ = true;
}

// A fallback limit gives way to the one a file grainscope wrote keeps in its metadata.
void TraceBuilder::TakeRecordedEagerLimit() {
  std::string_view recorded, recorded_source;
  for (const MetadataEntry& m : body_.metadata) {
    if (str(m.key) == metadata::kEagerLimitBytes) recorded = str(m.value);
    if (str(m.key) == metadata::kEagerLimitSource) recorded_source = str(m.value);
  }
  uint64_t n = 0;
  if (!recorded.empty() && std::from_chars(recorded.data(), recorded.data() + recorded.size(), n).ec == std::errc()) {
    eager_limit_ = n;
    eager_limit_source_ = std::string(recorded_source);
  }
}

void TraceBuilder::AddRendezvousEdges() {
  if (eager_limit_is_fallback_) TakeRecordedEagerLimit();
  if (!eager_limit_) return;
  const DependencyTable& d = body_.dependencies;
  if (std::find(d.kind.begin(), d.kind.end(), DependencyKind::kRendezvous) != d.kind.end()) return;
  std::vector<std::span<const TimeNs>> times(times_.begin(), times_.end());
  DecideRendezvous(body_, times, *eager_limit_, eager_limit_source_);
}

// Replaces `body`'s rendezvous edges with those of `bytes` and keeps the limit as metadata.
void TraceBuilder::DecideRendezvous(TraceBody& body, std::span<const std::span<const TimeNs>> times, uint64_t bytes,
                                    std::string_view source) {
  DependencyTable& d = body.dependencies;
  size_t kept = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    if (d.kind[i] == DependencyKind::kRendezvous) continue;
    d.kind[kept] = d.kind[i];
    d.from_location[kept] = d.from_location[i];
    d.from_event[kept] = d.from_event[i];
    d.to_location[kept] = d.to_location[i];
    d.to_event[kept] = d.to_event[i];
    ++kept;
  }
  d.kind.resize(kept), d.from_location.resize(kept), d.from_event.resize(kept);
  d.to_location.resize(kept), d.to_event.resize(kept);
  RendezvousEdges found = FindRendezvousEdges(body, times, bytes);
  const DependencyTable& e = found.edges;
  d.kind.insert(d.kind.end(), e.kind.begin(), e.kind.end());
  d.from_location.insert(d.from_location.end(), e.from_location.begin(), e.from_location.end());
  d.from_event.insert(d.from_event.end(), e.from_event.begin(), e.from_event.end());
  d.to_location.insert(d.to_location.end(), e.to_location.begin(), e.to_location.end());
  d.to_event.insert(d.to_event.end(), e.to_event.begin(), e.to_event.end());
  std::erase_if(body.metadata, [&](const MetadataEntry& m) {
    const std::string_view key = body.strings.Get(m.key);
    return key == metadata::kEagerLimitBytes || key == metadata::kEagerLimitSource;
  });
  body.metadata.push_back({body.strings.Intern(metadata::kEagerLimitBytes), body.strings.Intern(std::to_string(bytes))});
  body.metadata.push_back({body.strings.Intern(metadata::kEagerLimitSource), body.strings.Intern(source)});
}

Result<Trace> TraceBuilder::WithEagerLimit(Trace trace, uint64_t bytes, std::string_view source) {
  // The body is taken over, not copied: a trace just read owns it alone.
  if (trace.body_.use_count() != 1) return Internal("an eager limit can only be applied to a trace just read");
  TraceBody body = std::move(const_cast<TraceBody&>(*trace.body_));
  body.index_slot = NewTraceIndexSlot();  // derived from the old edges: built again on first use
  body.hb_slot = NewHbSlot();
  std::vector<std::span<const TimeNs>> times;
  for (uint32_t l = 0; l < body.locations.size(); ++l) times.push_back(trace.timeline_.at(LocationId(l)));
  DecideRendezvous(body, times, bytes, source);
  return Trace(std::move(trace.format_), std::make_shared<TraceBody>(std::move(body)), std::move(trace.timeline_));
}

}  // namespace grainscope
