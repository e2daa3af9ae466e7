#include "format/otf2/otf2_definitions.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "format/otf2/otf2_common.h"

namespace grainscope::otf2 {
namespace {

// Definitions refer to each other by small dense integers in every archive we know of; a
// reference beyond this is treated as corrupt input rather than allocated for.
constexpr uint64_t kMaxRef = uint64_t{1} << 26;

struct RawLocationGroup {
  bool defined = false;
  uint32_t name = OTF2_UNDEFINED_STRING;
  OTF2_LocationGroupType type = OTF2_LOCATION_GROUP_TYPE_UNKNOWN;
};

struct RawLocation {
  uint64_t ref;
  uint32_t name;
  OTF2_LocationType type;
  uint64_t events;
  uint32_t group;
  std::optional<std::string> kind_property;
  std::optional<int64_t> external_id_property;
};

struct RawRegion {
  bool defined = false;
  uint32_t name = OTF2_UNDEFINED_STRING;
  uint32_t description = OTF2_UNDEFINED_STRING;
  OTF2_RegionRole role = OTF2_REGION_ROLE_UNKNOWN;
  OTF2_Paradigm paradigm = OTF2_PARADIGM_UNKNOWN;
};

struct RawGroup {
  bool defined = false;
  OTF2_GroupType type = OTF2_GROUP_TYPE_UNKNOWN;
  OTF2_Paradigm paradigm = OTF2_PARADIGM_UNKNOWN;
  std::vector<uint64_t> members;
};

struct RawComm {
  uint32_t ref;
  uint32_t name;
  uint32_t group;
};

struct RawDefinitions {
  Status status;
  uint64_t resolution = 0;
  uint64_t global_offset = 0;
  bool has_clock = false;
  std::vector<std::string> strings;
  std::vector<RawLocationGroup> location_groups;
  std::vector<RawLocation> locations;
  std::vector<RawRegion> regions;
  std::vector<RawGroup> groups;
  std::vector<RawComm> comms;
  std::vector<uint32_t> attribute_names;  // by attribute ref
  std::vector<uint32_t> parameter_names;  // by parameter ref
  struct Property {
    uint64_t location;
    uint32_t name;
    OTF2_Type type;
    OTF2_AttributeValue value;
  };
  std::vector<Property> location_properties;

  std::string_view String(uint32_t ref) const {
    return ref < strings.size() ? std::string_view(strings[ref]) : std::string_view();
  }
};

// The slot for `ref` in a table indexed by reference, grown on demand; null for absurd refs.
template <typename T>
T* Slot(std::vector<T>& table, uint64_t ref, RawDefinitions* defs, std::string_view what) {
  if (ref >= kMaxRef) {
    defs->status = DataLoss(fmt::format("{} definition has reference {}, larger than {} supported", what,
                                        ref, kMaxRef));
    return nullptr;
  }
  if (ref >= table.size()) table.resize(ref + 1);
  return &table[ref];
}

RawDefinitions* Defs(void* user) { return static_cast<RawDefinitions*>(user); }
OTF2_CallbackCode Ok(bool ok) { return ok ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_INTERRUPT; }

OTF2_CallbackCode OnClock(void* user, uint64_t resolution, uint64_t offset, uint64_t, uint64_t) {
  RawDefinitions* d = Defs(user);
  d->resolution = resolution;
  d->global_offset = offset;
  d->has_clock = true;
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode OnString(void* user, OTF2_StringRef self, const char* s) {
  std::string* slot = Slot(Defs(user)->strings, self, Defs(user), "string");
  if (slot != nullptr) *slot = s;
  return Ok(slot != nullptr);
}

OTF2_CallbackCode OnLocationGroup(void* user, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                  OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef,
                                  OTF2_LocationGroupRef) {
  RawLocationGroup* g = Slot(Defs(user)->location_groups, self, Defs(user), "location group");
  if (g != nullptr) *g = RawLocationGroup{true, name, type};
  return Ok(g != nullptr);
}

OTF2_CallbackCode OnLocation(void* user, OTF2_LocationRef self, OTF2_StringRef name,
                             OTF2_LocationType type, uint64_t events, OTF2_LocationGroupRef group) {
  Defs(user)->locations.push_back(RawLocation{self, name, type, events, group, {}, {}});
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode OnRegion(void* user, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef,
                           OTF2_StringRef description, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                           OTF2_RegionFlag, OTF2_StringRef, uint32_t, uint32_t) {
  RawRegion* r = Slot(Defs(user)->regions, self, Defs(user), "region");
  if (r != nullptr) *r = RawRegion{true, name, description, role, paradigm};
  return Ok(r != nullptr);
}

// Large groups may arrive split over several records with the same reference: members append.
OTF2_CallbackCode OnGroup(void* user, OTF2_GroupRef self, OTF2_StringRef, OTF2_GroupType type,
                          OTF2_Paradigm paradigm, OTF2_GroupFlag, uint32_t count,
                          const uint64_t* members) {
  RawGroup* g = Slot(Defs(user)->groups, self, Defs(user), "group");
  if (g == nullptr) return OTF2_CALLBACK_INTERRUPT;
  g->defined = true;
  g->type = type;
  g->paradigm = paradigm;
  g->members.insert(g->members.end(), members, members + count);
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode OnComm(void* user, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                         OTF2_CommRef, OTF2_CommFlag) {
  Defs(user)->comms.push_back(RawComm{self, name, group});
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode OnAttribute(void* user, OTF2_AttributeRef self, OTF2_StringRef name, OTF2_StringRef,
                              OTF2_Type) {
  uint32_t* slot = Slot(Defs(user)->attribute_names, self, Defs(user), "attribute");
  if (slot != nullptr) *slot = name;
  return Ok(slot != nullptr);
}

OTF2_CallbackCode OnParameter(void* user, OTF2_ParameterRef self, OTF2_StringRef name,
                              OTF2_ParameterType) {
  uint32_t* slot = Slot(Defs(user)->parameter_names, self, Defs(user), "parameter");
  if (slot != nullptr) *slot = name;
  return Ok(slot != nullptr);
}

OTF2_CallbackCode OnLocationProperty(void* user, OTF2_LocationRef location, OTF2_StringRef name,
                                     OTF2_Type type, OTF2_AttributeValue value) {
  Defs(user)->location_properties.push_back({location, name, type, value});
  return OTF2_CALLBACK_SUCCESS;
}

// Finds the reference whose name is `name` in a table of string references.
template <typename Ref>
Ref FindNamed(const RawDefinitions& d, const std::vector<uint32_t>& names, std::string_view name,
              Ref undefined) {
  for (size_t ref = 0; ref < names.size(); ++ref)
    if (d.String(names[ref]) == name) return static_cast<Ref>(ref);
  return undefined;
}

class DefinitionResolver {
 public:
  DefinitionResolver(RawDefinitions& raw, TraceBuilder& builder, std::string_view file)
      : raw_(raw), builder_(builder), file_(file) {}

  Result<Otf2Definitions> Run(TimeNs shift_ns) {
    out_.clock = TickConverter(1'000'000'000, shift_ns);
    if (raw_.has_clock) {
      if (raw_.resolution == 0)
        return DataLoss(fmt::format("{}: the clock properties give a timer resolution of 0", file_));
      out_.clock = TickConverter(raw_.resolution, shift_ns);
      out_.has_clock_properties = true;
      out_.global_offset_ns = out_.clock.ToNs(raw_.global_offset);
    }
    AttachLocationProperties();
    AddLocations();
    AddRegions();
    GS_RETURN_IF_ERROR(AddCommunicators());
    out_.strings = std::move(raw_.strings);
    return std::move(out_);
  }

 private:
  // The MPI ranks: the COMM_LOCATIONS group of paradigm MPI lists one location per rank, in rank
  // order. COMM_GROUP members of a paradigm are indices into its COMM_LOCATIONS group.
  const RawGroup* CommLocations(OTF2_Paradigm paradigm) const {
    for (const RawGroup& g : raw_.groups)
      if (g.defined && g.type == OTF2_GROUP_TYPE_COMM_LOCATIONS && g.paradigm == paradigm) return &g;
    return nullptr;
  }

  void AttachLocationProperties() {
    std::unordered_map<uint64_t, size_t> index;
    for (size_t i = 0; i < raw_.locations.size(); ++i) index.emplace(raw_.locations[i].ref, i);
    for (const RawDefinitions::Property& p : raw_.location_properties) {
      auto it = index.find(p.location);
      if (it == index.end()) continue;
      RawLocation& loc = raw_.locations[it->second];
      std::string_view name = raw_.String(p.name);
      if (name == kLocationKindProperty && p.type == OTF2_TYPE_STRING)
        loc.kind_property = std::string(raw_.String(p.value.stringRef));
      if (name == kLocationExternalIdProperty && p.type == OTF2_TYPE_INT64)
        loc.external_id_property = p.value.int64;
    }
  }

  // Each location group's leader (index into `locs`): a rank before other locations, which come
  // before those an archive of ours marks as threads (it lists threads among the MPI locations
  // too); the first on ties.
  static std::unordered_map<uint32_t, uint32_t> GroupLeaders(const std::vector<RawLocation>& locs,
                                                            const std::unordered_map<uint64_t, int64_t>& rank_of) {
    auto precedence = [&](const RawLocation& l) {
      if (l.kind_property && *l.kind_property == LocationKindName(LocationKind::kThread)) return 0;
      return rank_of.count(l.ref) > 0 ? 2 : 1;
    };
    std::unordered_map<uint32_t, uint32_t> leader;  // location group -> index of its leader
    for (uint32_t i = 0; i < locs.size(); ++i) {
      auto [it, added] = leader.emplace(locs[i].group, i);
      if (!added && precedence(locs[i]) > precedence(locs[it->second])) it->second = i;
    }
    return leader;
  }

  // Metric-only locations are not kept: counted, with the records they hold.
  void ReportMetricLocations(uint64_t skipped, uint64_t skipped_events) {
    builder_.diagnostics().AddCount(
        Diag::kSkippedLocations, skipped,
        fmt::format("{}: metric-only locations (their records are counted as skipped)", file_));
    // Not read at all: their definitions say how many records they hold.
    builder_.diagnostics().AddCount(
        Diag::kSkippedRecords, skipped_events,
        fmt::format("{}: {} records on {} metric-only locations (metrics are not modelled)", file_, skipped_events,
                    skipped));
  }

  // Locations in reference order. A location in the MPI locations group is a rank (external id:
  // its rank); it leads its location group, else the group's first location does (kind process).
  // The group's other locations are its threads (OpenMP threads when the OpenMP locations group
  // lists them); an accelerator stream is a GPU stream wherever it stands. Metric-only locations
  // are not kept.
  void AddLocations() {
    std::vector<RawLocation>& locs = raw_.locations;
    std::stable_sort(locs.begin(), locs.end(),
                     [](const RawLocation& a, const RawLocation& b) { return a.ref < b.ref; });
    uint64_t skipped = 0, skipped_events = 0;
    std::erase_if(locs, [&](const RawLocation& l) {
      if (l.type != OTF2_LOCATION_TYPE_METRIC) return false;
      ++skipped;
      skipped_events += l.events;
      return true;
    });
    std::unordered_map<uint64_t, int64_t> rank_of;
    if (const RawGroup* mpi = CommLocations(OTF2_PARADIGM_MPI)) {
      for (size_t r = 0; r < mpi->members.size(); ++r) rank_of.emplace(mpi->members[r], r);
    }
    std::unordered_set<uint64_t> openmp;  // Score-P lists a run's OpenMP threads in one group
    if (const RawGroup* omp = CommLocations(OTF2_PARADIGM_OPENMP)) openmp.insert(omp->members.begin(), omp->members.end());
    std::unordered_map<uint32_t, uint32_t> leader = GroupLeaders(locs, rank_of);  // location group -> its leader
    std::unordered_map<uint32_t, int64_t> threads;  // location group -> threads numbered so far
    for (uint32_t i = 0; i < locs.size(); ++i) {
      const RawLocation& loc = locs[i];
      const bool leads = leader[loc.group] == i;
      const auto rank = rank_of.find(loc.ref);
      const std::string_view group_name =
          loc.group < raw_.location_groups.size() && raw_.location_groups[loc.group].defined
              ? raw_.String(raw_.location_groups[loc.group].name)
              : std::string_view();
      LocationKind kind = loc.type == OTF2_LOCATION_TYPE_ACCELERATOR_STREAM ? LocationKind::kGpuStream
                          : rank != rank_of.end()                          ? LocationKind::kRank
                          : leads                                          ? LocationKind::kProcess
                          : openmp.count(loc.ref) > 0                      ? LocationKind::kOpenMpThread
                                                                           : LocationKind::kThread;
      // A thread of an MPI rank keeps its location reference as its id (Score-P's is thread << 32 |
      // rank): numbered per rank, the threads of different ranks would share ids.
      int64_t external_id = rank != rank_of.end() ? rank->second
                            : leads            ? loc.group
                            : rank_of.empty()  ? ++threads[loc.group]
                                               : static_cast<int64_t>(loc.ref);
      // Score-P names every master thread "Master thread": the group ("MPI Rank 3") says more.
      std::string name = leads ? std::string(group_name.empty() ? raw_.String(loc.name) : group_name)
                               : fmt::format("{}:{}", group_name, raw_.String(loc.name));
      if (loc.kind_property) {  // an archive grainscope wrote: its own names and kinds
        ParseLocationKind(*loc.kind_property, &kind);
        name = std::string(raw_.String(loc.name));
      }
      if (loc.external_id_property) external_id = *loc.external_id_property;
      if (name.empty()) name = fmt::format("location {}", loc.ref);
      location_of_ref_.emplace(loc.ref, builder_.AddLocation(name, kind, external_id));
      out_.location_refs.push_back(loc.ref);
      out_.location_event_counts.push_back(loc.events);
    }
    for (uint32_t i = 0; i < locs.size(); ++i) {
      builder_.SetLocationGroup(LocationId(i), leader[locs[i].group]);
      out_.process_of.push_back(leader[locs[i].group]);
    }
    if (skipped > 0) ReportMetricLocations(skipped, skipped_events);
  }

  void AddRegions() {
    out_.region_of_ref.assign(raw_.regions.size(), RegionId());
    out_.thread_barrier_region.assign(raw_.regions.size(), 0);
    for (size_t ref = 0; ref < raw_.regions.size(); ++ref) {
      const RawRegion& r = raw_.regions[ref];
      if (!r.defined) continue;
      std::string_view name = raw_.String(r.name);
      const RegionRole role = RoleOf(r.role, r.paradigm, raw_.String(r.description));
      out_.region_of_ref[ref] = builder_.AddRegion(name, role, static_cast<int64_t>(ref));
      out_.thread_barrier_region[ref] =
          (r.role == OTF2_REGION_ROLE_BARRIER || r.role == OTF2_REGION_ROLE_IMPLICIT_BARRIER) &&
          r.paradigm != OTF2_PARADIGM_MPI;
    }
  }

  // The location of member `i` of a group, through the group's paradigm for COMM_GROUPs.
  Result<LocationId> MemberLocation(const RawGroup& g, uint64_t member, uint32_t comm_ref) const {
    uint64_t location_ref = member;
    if (g.type == OTF2_GROUP_TYPE_COMM_GROUP) {
      const RawGroup* locations = CommLocations(g.paradigm);
      if (locations == nullptr || member >= locations->members.size()) {
        return DataLoss(fmt::format("{}: communicator {} has member {}, which is not a rank of its paradigm",
                                    file_, comm_ref, member));
      }
      location_ref = locations->members[member];
    }
    auto it = location_of_ref_.find(location_ref);
    if (it == location_of_ref_.end()) {
      return DataLoss(fmt::format("{}: communicator {} names location {}, which is not defined", file_,
                                  comm_ref, location_ref));
    }
    return it->second;
  }

  Status AddCommunicators() {
    std::sort(raw_.comms.begin(), raw_.comms.end(),
              [](const RawComm& a, const RawComm& b) { return a.ref < b.ref; });
    for (const RawComm& c : raw_.comms) {
      CommInfo* info = Slot(out_.comm_of_ref, c.ref, &raw_, "communicator");
      if (info == nullptr) return raw_.status;
      info->defined = true;
      info->name = std::string(raw_.String(c.name));
      if (c.group >= raw_.groups.size() || !raw_.groups[c.group].defined) {
        return DataLoss(fmt::format("{}: communicator '{}' refers to undefined group {}", file_,
                                    info->name, c.group));
      }
      const RawGroup& g = raw_.groups[c.group];
      info->self = g.type == OTF2_GROUP_TYPE_COMM_SELF;
      for (uint64_t m : g.members) {
        GS_ASSIGN_OR_RETURN(LocationId loc, MemberLocation(g, m, c.ref));
        info->members.push_back(loc);
      }
      // A COMM_SELF-like definition is one communicator per location; the reader makes each
      // location's when its first record on it is read.
      // A thread team's barriers come back as sync events (otf2_events.cc), from which the builder
      // makes the model's communicators again ("barrier <object>", model/thread_sync.h).
      info->thread_team = info->name.starts_with(kThreadTeamName);
      if (info->name != kNoCommunicatorName && !info->self && !info->thread_team)
        info->id = builder_.AddCommunicator(info->name, info->members);
    }
    out_.message_key_attribute =
        FindNamed(raw_, raw_.attribute_names, kMessageKeyAttribute, OTF2_UNDEFINED_ATTRIBUTE);
    out_.message_name_attribute =
        FindNamed(raw_, raw_.attribute_names, kMessageNameAttribute, OTF2_UNDEFINED_ATTRIBUTE);
    out_.message_grain_attribute =
        FindNamed(raw_, raw_.attribute_names, kMessageGrainAttribute, OTF2_UNDEFINED_ATTRIBUTE);
    out_.sync_object_attribute =
        FindNamed(raw_, raw_.attribute_names, kSyncObjectAttribute, OTF2_UNDEFINED_ATTRIBUTE);
    out_.sync_arg_attribute = FindNamed(raw_, raw_.attribute_names, kSyncArgAttribute, OTF2_UNDEFINED_ATTRIBUTE);
    out_.marker_parameter =
        FindNamed(raw_, raw_.parameter_names, kMarkerParameter, OTF2_UNDEFINED_PARAMETER);
    return OkStatus();
  }

  RawDefinitions& raw_;
  TraceBuilder& builder_;
  std::string_view file_;
  Otf2Definitions out_;
  std::unordered_map<uint64_t, LocationId> location_of_ref_;
};

}  // namespace

Result<Otf2Definitions> ReadOtf2Definitions(OTF2_Reader* reader, TraceBuilder& builder,
                                            std::string_view file) {
  OTF2_GlobalDefReader* defs = OTF2_Reader_GetGlobalDefReader(reader);
  if (defs == nullptr) return DataLoss(fmt::format("{}: cannot open the global definitions", file));
  OTF2_GlobalDefReaderCallbacks* cb = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, &OnClock);
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, &OnString);
  OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, &OnLocationGroup);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, &OnLocation);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, &OnRegion);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, &OnGroup);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, &OnComm);
  OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, &OnAttribute);
  OTF2_GlobalDefReaderCallbacks_SetParameterCallback(cb, &OnParameter);
  OTF2_GlobalDefReaderCallbacks_SetLocationPropertyCallback(cb, &OnLocationProperty);
  RawDefinitions raw;
  OTF2_ErrorCode rc = OTF2_Reader_RegisterGlobalDefCallbacks(reader, defs, cb, &raw);
  OTF2_GlobalDefReaderCallbacks_Delete(cb);
  if (rc != OTF2_SUCCESS) return Otf2Error(rc, fmt::format("{}: global definitions", file));
  uint64_t count = 0;
  rc = OTF2_Reader_ReadAllGlobalDefinitions(reader, defs, &count);
  if (!raw.status.ok()) return DataLoss(fmt::format("{}: {}", file, raw.status.message()));
  if (rc != OTF2_SUCCESS) return Otf2Error(rc, fmt::format("{}: reading the global definitions", file));
  OTF2_Reader_CloseGlobalDefReader(reader, defs);
  // libotf2 reads a cut definitions file as if it ended there: the anchor's count tells.
  uint64_t expected = 0;
  if (OTF2_Reader_GetNumberOfGlobalDefinitions(reader, &expected) == OTF2_SUCCESS && count < expected) {
    return DataLoss(fmt::format("{}: the global definitions file holds {} of the {} definitions the anchor file "
                                "announces (it was cut or is damaged)", file, count, expected));
  }
  TimeNs shift_ns = 0;
  char* shift = nullptr;
  if (OTF2_Reader_GetProperty(reader, kTimeShiftProperty, &shift) == OTF2_SUCCESS && shift != nullptr) {
    shift_ns = std::strtoll(shift, nullptr, 10);
    std::free(shift);
  }
  return DefinitionResolver(raw, builder, file).Run(shift_ns);
}

}  // namespace grainscope::otf2
