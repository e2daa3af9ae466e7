#include "format/otf2/otf2_writer.h"


#include <algorithm>
#include <deque>
#include <filesystem>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <otf2/otf2.h>

#include "format/format_names.h"
#include "format/otf2/otf2_common.h"
#include "format/otf2/otf2_thread_writer.h"

namespace grainscope {
namespace {

namespace fs = std::filesystem;

constexpr uint32_t kNone = UINT32_MAX;
constexpr uint64_t kEventChunk = 1 << 20;
constexpr uint64_t kDefinitionChunk = 4 << 20;

OTF2_FlushType PreFlush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
const OTF2_FlushCallbacks kFlushCallbacks = {&PreFlush, nullptr};

// Global definitions are written after the events (a location's definition states its event
// count), so everything they need is collected first.
class Otf2ArchiveWriter {
 public:
  explicit Otf2ArchiveWriter(const Trace& trace) : t_(trace), threads_(trace) {}

  Status Write(const std::string& dir, const std::string& name) {
    GS_RETURN_IF_ERROR(Prepare());
    OTF2_Archive* archive = OTF2_Archive_Open(dir.c_str(), name.c_str(), OTF2_FILEMODE_WRITE,
                                              kEventChunk, kDefinitionChunk, OTF2_SUBSTRATE_POSIX,
                                              OTF2_COMPRESSION_NONE);
    if (archive == nullptr) return IoError(fmt::format("{}: cannot create an OTF2 archive here", dir));
    Status s = WriteArchive(archive);
    OTF2_ErrorCode rc = OTF2_Archive_Close(archive);
    GS_RETURN_IF_ERROR(s);
    if (rc != OTF2_SUCCESS) return otf2::Otf2Error(rc, "closing the OTF2 archive");
    return OkStatus();
  }

 private:
  uint32_t Str(std::string_view s) {
    auto [it, added] = string_refs_.emplace(s, static_cast<uint32_t>(strings_.size()));
    if (added) strings_.push_back(s);
    return it->second;
  }
  // A string made here (a sync event's label): kept for the strings' views.
  uint32_t OwnedStr(std::string s) {
    if (auto it = string_refs_.find(s); it != string_refs_.end()) return it->second;
    return Str(owned_strings_.emplace_back(std::move(s)));
  }

  Status Check(OTF2_ErrorCode rc, std::string_view what) {
    return rc == OTF2_SUCCESS ? OkStatus() : otf2::Otf2Error(rc, what);
  }

  // Ranks: communicator c's rank of every location (comm_ranks_[c][location]); the extra last
  // communicator is the invented one for messages and collectives that have none.
  Status Prepare() {
    const size_t nloc = t_.locations().size();
    const TimeNs lowest = std::min({t_.origin_ns(), t_.start_ns(), TimeNs{0}});
    shift_ = -lowest;  // OTF2 timestamps are unsigned
    Str("");
    const MessageTable& m = t_.messages();
    const CollectiveTable& c = t_.collectives();
    bool need_no_comm = false;
    for (size_t i = 0; i < m.size(); ++i) need_no_comm |= !m.communicator[i].valid();
    for (size_t i = 0; i < c.size(); ++i) need_no_comm |= !c.communicator[i].valid();
    comm_ranks_.resize(t_.communicators().size() + (need_no_comm ? 1 : 0));
    for (size_t k = 0; k < t_.communicators().size(); ++k) {
      const std::vector<LocationId>& members = t_.communicators()[k].members;
      for (uint32_t r = 0; r < members.size(); ++r) comm_ranks_[k].emplace(members[r].value, r);
    }
    if (need_no_comm) {
      no_comm_ = static_cast<uint32_t>(comm_ranks_.size() - 1);
      for (uint32_t l = 0; l < nloc; ++l) comm_ranks_[no_comm_].emplace(l, l);
    }

    // Which messages are non-blocking, and where MPI's FIFO rule would see their receive.
    has_send_complete_.assign(m.size(), false);
    recv_order_.assign(m.size(), kNoEvent);
    for (uint32_t l = 0; l < nloc; ++l) {
      const EventColumns& e = t_.events(LocationId(l));
      for (uint32_t i = 0; i < e.size(); ++i) {
        if (e.kind[i] == EventKind::kSendComplete) has_send_complete_[e.arg[i]] = true;
        if (e.kind[i] == EventKind::kRecvPost) recv_order_[e.arg[i]] = i;
        if (e.kind[i] == EventKind::kMarker) has_markers_ = true;
      }
    }
    has_recv_post_.assign(m.size(), false);
    for (uint32_t i = 0; i < m.size(); ++i) {
      has_recv_post_[i] = recv_order_[i] != kNoEvent;
      if (!has_recv_post_[i]) recv_order_[i] = m.recv_event[i];
    }
    has_markers_ |= threads_.any_markers();
    MarkKeyedMessages();
    AssignCommunicatorReferences();
    return OkStatus();
  }

  uint32_t CommOf(CommunicatorId c) const { return c.valid() ? c.value : no_comm_; }

  // OTF2 references: the communicators in order, then the thread teams (a thread barrier's
  // communicator is its team's, otf2_thread_writer.h: one per set of threads, not one per barrier
  // object or instance).
  void AssignCommunicatorReferences() {
    comm_ref_.assign(comm_ranks_.size(), OTF2_UNDEFINED_COMM);
    uint32_t refs = 0;
    for (uint32_t k = 0; k < comm_ranks_.size(); ++k)
      if (!threads_.IsThreadBarrier(k)) comm_ref_[k] = refs++;
    sync_object_attribute_ = any_keyed_ ? kGrainAttribute + 1 : 0;  // after the message attributes, if any
    first_team_ref_ = refs;
    threads_.SetReferences(refs, sync_object_attribute_, sync_object_attribute_ + 1);
  }

  // A message needs the key attribute unless FIFO matching per (communicator, sender, receiver,
  // tag) pairs its records exactly as the Trace does: true for real MPI traces, rarely for seed text.
  void MarkKeyedMessages() {
    const MessageTable& m = t_.messages();
    keyed_.assign(m.size(), false);
    auto channel = [&](uint32_t i) {
      return std::make_tuple(CommOf(m.communicator[i]), m.sender[i].value, m.receiver[i].value, m.tag[i]);
    };
    std::vector<uint32_t> by_send(m.size()), by_recv;
    for (uint32_t i = 0; i < m.size(); ++i) by_send[i] = i;
    by_recv = by_send;
    std::sort(by_send.begin(), by_send.end(), [&](uint32_t a, uint32_t b) {
      return std::make_tuple(channel(a), m.send_event[a], a) < std::make_tuple(channel(b), m.send_event[b], b);
    });
    std::sort(by_recv.begin(), by_recv.end(), [&](uint32_t a, uint32_t b) {
      return std::make_tuple(channel(a), recv_order_[a], a) < std::make_tuple(channel(b), recv_order_[b], b);
    });
    for (size_t first = 0; first < by_send.size();) {
      size_t last = first;
      bool clean = true;
      while (last < by_send.size() && channel(by_send[last]) == channel(by_send[first])) {
        clean &= by_send[last] == by_recv[last] && m.matched(MessageId(by_send[last]));
        ++last;
      }
      if (!clean || !m.communicator[by_send[first]].valid())
        for (size_t k = first; k < last; ++k) keyed_[by_send[k]] = true;
      first = last;
    }
    // The attribute definitions are written when any message carries one of them.
    any_keyed_ = std::find(keyed_.begin(), keyed_.end(), true) != keyed_.end();
    for (uint32_t i = 0; i < m.size() && !any_keyed_; ++i)
      any_keyed_ = !t_.str(m.name[i]).empty() || m.send_grain[i].valid() || m.recv_grain[i].valid();
  }

  // The rank of `loc` in `comm`. An unmatched message's unknown peer (a receive whose send was
  // never recorded) is OTF2_UNDEFINED_UINT32, which ReadOtf2 reads back as an unknown peer.
  Result<uint32_t> RankOf(uint32_t comm, LocationId loc, std::string_view what) const {
    if (!loc.valid()) return OTF2_UNDEFINED_UINT32;
    auto it = comm_ranks_[comm].find(loc.value);
    if (it == comm_ranks_[comm].end()) {
      return FailedPrecondition(fmt::format("{} location '{}' is not a member of communicator {}", what,
                                            t_.str(t_.location(loc).name), comm));
    }
    return it->second;
  }

  OTF2_AttributeList* MessageAttributes(uint32_t msg, bool send_side) {
    const MessageTable& m = t_.messages();
    const RegionId grain = send_side ? m.send_grain[msg] : m.recv_grain[msg];
    const bool named = !t_.str(m.name[msg]).empty();
    if (!keyed_[msg] && !named && !grain.valid()) return nullptr;  // plain MPI: no attributes
    OTF2_AttributeList_RemoveAllAttributes(attributes_);
    if (keyed_[msg]) OTF2_AttributeList_AddUint64(attributes_, kKeyAttribute, msg);
    if (named) OTF2_AttributeList_AddStringRef(attributes_, kNameAttribute, Str(t_.str(m.name[msg])));
    if (grain.valid()) OTF2_AttributeList_AddRegionRef(attributes_, kGrainAttribute, grain.value);
    return attributes_;
  }

  static constexpr uint32_t kNoRow = UINT32_MAX;
  uint32_t MemberRow(uint32_t c, LocationId loc) const { return t_.collectives().member_row(CollectiveId(c), loc); }

  Status WriteEvents(OTF2_EvtWriter* w, LocationId loc) {
    const EventColumns& e = t_.events(loc);
    const MessageTable& m = t_.messages();
    const CollectiveTable& c = t_.collectives();
    for (uint32_t i = 0; i < e.size(); ++i) {
      const OTF2_TimeStamp ts = static_cast<OTF2_TimeStamp>(e.time[i] + shift_);
      const uint32_t a = e.arg[i];
      OTF2_ErrorCode rc = OTF2_SUCCESS;
      switch (e.kind[i]) {
        case EventKind::kEnter: rc = OTF2_EvtWriter_Enter(w, nullptr, ts, a); break;
        case EventKind::kLeave: rc = OTF2_EvtWriter_Leave(w, nullptr, ts, a); break;
        case EventKind::kSend: {
          const uint32_t comm = CommOf(m.communicator[a]);
          GS_ASSIGN_OR_RETURN(uint32_t to, RankOf(comm, m.receiver[a], "the receiving"));
          OTF2_AttributeList* attrs = MessageAttributes(a, true);
          const OTF2_CommRef ref = comm_ref_[comm];
          rc = has_send_complete_[a]
                   ? OTF2_EvtWriter_MpiIsend(w, attrs, ts, to, ref, m.tag[a], m.bytes[a], a)
                   : OTF2_EvtWriter_MpiSend(w, attrs, ts, to, ref, m.tag[a], m.bytes[a]);
          break;
        }
        case EventKind::kSendComplete: rc = OTF2_EvtWriter_MpiIsendComplete(w, nullptr, ts, a); break;
        case EventKind::kRecvPost: rc = OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, ts, a); break;
        case EventKind::kRecv: {
          const uint32_t comm = CommOf(m.communicator[a]);
          GS_ASSIGN_OR_RETURN(uint32_t from, RankOf(comm, m.sender[a], "the sending"));
          OTF2_AttributeList* attrs = MessageAttributes(a, false);
          const OTF2_CommRef ref = comm_ref_[comm];
          rc = has_recv_post_[a]
                   ? OTF2_EvtWriter_MpiIrecv(w, attrs, ts, from, ref, m.tag[a], m.bytes[a], a)
                   : OTF2_EvtWriter_MpiRecv(w, attrs, ts, from, ref, m.tag[a], m.bytes[a]);
          break;
        }
        case EventKind::kCollBegin: {
          if (threads_.IsThreadBarrier(CommOf(c.communicator[a]))) {
            rc = threads_.WriteBarrierBegin(w, ts);
            break;
          }
          // A non-blocking collective (it ends after its call) is a request its completion names.
          const uint32_t k = MemberRow(a, loc);
          rc = k != kNoRow && !EndsWithItsCall(e, i, c.member_end[k])
                   ? OTF2_EvtWriter_NonBlockingCollectiveRequest(w, nullptr, ts, a)
                   : OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, ts);
          break;
        }
        case EventKind::kCollEnd: {
          const uint32_t comm = CommOf(c.communicator[a]);
          if (threads_.IsThreadBarrier(comm)) {
            rc = threads_.WriteBarrierEnd(w, attributes_, ts, comm);
            break;
          }
          const OTF2_CommRef ref = comm_ref_[comm];
          uint32_t root = OTF2_UNDEFINED_UINT32;
          if (c.root[a].valid()) {
            GS_ASSIGN_OR_RETURN(root, RankOf(comm, c.root[a], "the root"));
          }
          const uint32_t k = MemberRow(a, loc);
          const bool found = k != kNoRow;
          const uint64_t sent = found ? c.member_bytes_sent[k] : 0;
          const uint64_t received = found ? c.member_bytes_received[k] : 0;
          rc = found && !EndsWithItsCall(e, c.member_begin[k], i)
                   ? OTF2_EvtWriter_NonBlockingCollectiveComplete(w, nullptr, ts, otf2::Otf2CollectiveOpOf(c.op[a]),
                                                                  ref, root, sent, received, a)
                   : OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, ts, otf2::Otf2CollectiveOpOf(c.op[a]), ref, root,
                                                     sent, received);
          break;
        }
        case EventKind::kMarker:
          rc = OTF2_EvtWriter_ParameterString(w, nullptr, ts, kMarkerParameter, Str(t_.str(StringId(a))));
          break;
        case EventKind::kSync: {
          // OTF2's thread record, or where OTF2 has none the marker its label names
          // (otf2_thread_writer.h); the reader turns either back into the event.
          const SyncTable& s = t_.syncs();
          rc = threads_.IsMarker(a) ? OTF2_EvtWriter_ParameterString(
                                          w, nullptr, ts, kMarkerParameter,
                                          OwnedStr(SyncLabel(s.kind[a], s.object[a], s.arg[a])))
                                    : threads_.WriteSync(w, attributes_, ts, loc, a);
          break;
        }
      }
      if (rc != OTF2_SUCCESS) {
        return otf2::Otf2Error(rc, fmt::format("writing event {} of location '{}'", i,
                                               t_.str(t_.location(loc).name)));
      }
    }
    return OkStatus();
  }

  Status WriteArchive(OTF2_Archive* archive) {
    GS_RETURN_IF_ERROR(Check(OTF2_Archive_SetFlushCallbacks(archive, &kFlushCallbacks, nullptr), "flush"));
    GS_RETURN_IF_ERROR(Check(OTF2_Archive_SetSerialCollectiveCallbacks(archive), "collectives"));
    GS_RETURN_IF_ERROR(Check(OTF2_Archive_SetCreator(archive, "grainscope"), "creator"));
    nlohmann::json meta = nlohmann::json::object();
    for (const MetadataEntry& e : t_.metadata()) meta[std::string(t_.str(e.key))] = t_.str(e.value);
    // Bytes that are not UTF-8 (a trace's strings need not be) become U+FFFD, not an exception.
    const std::string meta_text = meta.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    GS_RETURN_IF_ERROR(Check(OTF2_Archive_SetProperty(archive, otf2::kMetadataProperty, meta_text.c_str(), true),
                             "metadata"));
    if (shift_ != 0) {
      GS_RETURN_IF_ERROR(Check(OTF2_Archive_SetProperty(archive, otf2::kTimeShiftProperty,
                                                        fmt::format("{}", shift_).c_str(), true),
                               "time shift"));
    }

    const uint32_t nloc = static_cast<uint32_t>(t_.locations().size());
    GS_RETURN_IF_ERROR(Check(OTF2_Archive_OpenEvtFiles(archive), "opening event files"));
    attributes_ = OTF2_AttributeList_New();
    event_counts_.assign(nloc, 0);
    Status status;
    for (uint32_t l = 0; l < nloc && status.ok(); ++l) {
      OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive, l);
      if (w == nullptr) return IoError(fmt::format("cannot open the event writer of location {}", l));
      status = WriteEvents(w, LocationId(l));
      OTF2_EvtWriter_GetNumberOfEvents(w, &event_counts_[l]);
      OTF2_Archive_CloseEvtWriter(archive, w);
    }
    OTF2_AttributeList_Delete(attributes_);
    GS_RETURN_IF_ERROR(status);
    GS_RETURN_IF_ERROR(Check(OTF2_Archive_CloseEvtFiles(archive), "closing event files"));

    // Empty local definitions: readers expect one file per location.
    GS_RETURN_IF_ERROR(Check(OTF2_Archive_OpenDefFiles(archive), "opening definition files"));
    for (uint32_t l = 0; l < nloc; ++l) {
      OTF2_DefWriter* d = OTF2_Archive_GetDefWriter(archive, l);
      if (d != nullptr) OTF2_Archive_CloseDefWriter(archive, d);
    }
    GS_RETURN_IF_ERROR(Check(OTF2_Archive_CloseDefFiles(archive), "closing definition files"));

    OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(archive);
    if (g == nullptr) return IoError("cannot open the global definition writer");
    return WriteDefinitions(g);
  }

  // Communicator `ref` over `members` (indices into group 0) with its group, reference ref + 1.
  Status WriteCommunicator(OTF2_GlobalDefWriter* g, uint32_t ref, uint32_t name, const std::vector<uint64_t>& members) {
    GS_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteGroup(g, ref + 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                                             OTF2_GROUP_FLAG_NONE, members.size(), members.data()),
                             "group"));
    return Check(OTF2_GlobalDefWriter_WriteComm(g, ref, name, ref + 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE),
                 "communicator");
  }

  // Location groups and locations with their kind and external id as properties (their names
  // are defined strings already).
  Status WriteLocations(OTF2_GlobalDefWriter* g, uint32_t kind_key, uint32_t id_key) {
    const uint32_t nloc = static_cast<uint32_t>(t_.locations().size());
    // A location heads its own location group unless it is a thread of another location.
    auto group_of = [&](uint32_t l) {
      const uint32_t grp = t_.locations()[l].group;
      return grp < nloc && t_.locations()[grp].group == grp ? grp : l;
    };
    for (uint32_t l = 0; l < nloc; ++l) {
      if (group_of(l) != l) continue;
      GS_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteLocationGroup(
                                   g, l, Str(t_.str(t_.locations()[l].name)),
                                   OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, OTF2_UNDEFINED_LOCATION_GROUP),
                               "location group"));
    }
    for (uint32_t l = 0; l < nloc; ++l) {
      const Location& loc = t_.locations()[l];
      GS_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteLocation(g, l, Str(t_.str(loc.name)),
                                                                  OTF2_LOCATION_TYPE_CPU_THREAD,
                                                                  event_counts_[l], group_of(l)),
                               "location"));
      OTF2_AttributeValue kind, id;
      kind.stringRef = Str(LocationKindName(loc.kind));
      id.int64 = loc.external_id;
      GS_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteLocationProperty(g, l, kind_key, OTF2_TYPE_STRING, kind), "property"));
      GS_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteLocationProperty(g, l, id_key, OTF2_TYPE_INT64, id), "property"));
    }
    return OkStatus();
  }

  // The regions, each with OTF2's role and paradigm for it (otf2::Otf2KindOf).
  Status WriteRegions(OTF2_GlobalDefWriter* g) {
    for (uint32_t r = 0; r < t_.regions().size(); ++r) {
      const Region& region = t_.regions()[r];
      const uint32_t name = Str(t_.str(region.name));
      const otf2::Otf2RegionKind k = otf2::Otf2KindOf(region.role, t_.str(region.name));
      GS_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteRegion(
                                   g, r, name, name, k.role_description ? Str(otf2::RoleDescription(region.role)) : 0, k.role,
                                   k.paradigm, OTF2_REGION_FLAG_NONE, 0, 0, 0),
                               "region"));
    }
    return OkStatus();
  }

  // The communicators' groups and definitions, the thread teams' last.
  Status WriteCommunicators(OTF2_GlobalDefWriter* g, uint32_t no_comm_name, const std::vector<uint32_t>& team_names) {
    const uint32_t nloc = static_cast<uint32_t>(t_.locations().size());
    // Group 0: every location, in index order, as the MPI ranks; each communicator's group lists
    // its members' indices into it.
    std::vector<uint64_t> members(nloc);
    for (uint32_t l = 0; l < nloc; ++l) members[l] = l;
    GS_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                                             OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                                             nloc, members.data()),
                             "group"));
    for (uint32_t c = 0; c < comm_ranks_.size(); ++c) {
      if (comm_ref_[c] == OTF2_UNDEFINED_COMM) continue;  // a thread barrier's: its team's below
      const bool invented = c == no_comm_;
      members.clear();
      if (invented) {
        for (uint32_t l = 0; l < nloc; ++l) members.push_back(l);
      } else {
        for (LocationId m : t_.communicators()[c].members) members.push_back(m.value);
      }
      const uint32_t name = invented ? no_comm_name : Str(t_.str(t_.communicators()[c].name));
      GS_RETURN_IF_ERROR(WriteCommunicator(g, comm_ref_[c], name, members));
    }
    for (uint32_t k = 0; k < threads_.teams().size(); ++k)
      GS_RETURN_IF_ERROR(WriteCommunicator(g, first_team_ref_ + k, team_names[k], threads_.teams()[k]));
    return OkStatus();
  }

  Status WriteDefinitions(OTF2_GlobalDefWriter* g) {
    // Every string first: OTF2 wants a string defined before a definition refers to it.
    const uint32_t machine = Str("machine");
    const uint32_t kind_key = Str(otf2::kLocationKindProperty);
    const uint32_t id_key = Str(otf2::kLocationExternalIdProperty);
    for (const Location& l : t_.locations()) Str(t_.str(l.name)), Str(LocationKindName(l.kind));
    for (const Region& r : t_.regions()) Str(t_.str(r.name));
    Str(otf2::kWaitDescription);  // first among the descriptions (archives of older versions had only it)
    for (const Region& r : t_.regions())
      if (otf2::Otf2KindOf(r.role, t_.str(r.name)).role_description) Str(otf2::RoleDescription(r.role));
    for (uint32_t c = 0; c < t_.communicators().size(); ++c)
      if (!threads_.IsThreadBarrier(c)) Str(t_.str(t_.communicators()[c].name));  // a barrier's is its team's
    const uint32_t no_comm_name = Str(otf2::kNoCommunicatorName);
    const uint32_t key_name = Str(otf2::kMessageKeyAttribute);
    const uint32_t name_name = Str(otf2::kMessageNameAttribute);
    const uint32_t grain_name = Str(otf2::kMessageGrainAttribute);
    const uint32_t marker_name = Str(otf2::kMarkerParameter);
    // Only archives with thread records define the sync attributes (others stay as they were).
    const bool sync_attributes = threads_.any_records() || !threads_.teams().empty();
    const uint32_t sync_object_name = sync_attributes ? Str(otf2::kSyncObjectAttribute) : 0;
    const uint32_t sync_arg_name = sync_attributes ? Str(otf2::kSyncArgAttribute) : 0;
    std::vector<uint32_t> team_names;
    for (size_t k = 0; k < threads_.teams().size(); ++k)
      team_names.push_back(OwnedStr(fmt::format("{} {}", otf2::kThreadTeamName, k)));
    for (uint32_t s = 0; s < strings_.size(); ++s) {
      GS_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteString(g, s, std::string(strings_[s]).c_str()), "string"));
    }
    const TimeNs end = t_.end_ns() + shift_;
    const TimeNs origin = t_.origin_ns() + shift_;
    GS_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteClockProperties(
                                 g, 1'000'000'000, origin, std::max<TimeNs>(0, end - origin),
                                 OTF2_UNDEFINED_TIMESTAMP),
                             "clock properties"));
    GS_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, machine, machine,
                                                                      OTF2_UNDEFINED_SYSTEM_TREE_NODE),
                             "system tree"));
    GS_RETURN_IF_ERROR(WriteLocations(g, kind_key, id_key));
    GS_RETURN_IF_ERROR(WriteRegions(g));
    GS_RETURN_IF_ERROR(WriteCommunicators(g, no_comm_name, team_names));
    if (any_keyed_) {
      GS_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteAttribute(g, kKeyAttribute, key_name, 0, OTF2_TYPE_UINT64), "attribute"));
      GS_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteAttribute(g, kNameAttribute, name_name, 0, OTF2_TYPE_STRING), "attribute"));
      GS_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteAttribute(g, kGrainAttribute, grain_name, 0, OTF2_TYPE_REGION), "attribute"));
    }
    if (sync_attributes) {
      GS_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteAttribute(g, sync_object_attribute_, sync_object_name, 0,
                                                                   OTF2_TYPE_UINT64),
                               "attribute"));
      GS_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteAttribute(g, sync_object_attribute_ + 1, sync_arg_name, 0,
                                                                   OTF2_TYPE_UINT32),
                               "attribute"));
    }
    if (has_markers_) {
      GS_RETURN_IF_ERROR(Check(OTF2_GlobalDefWriter_WriteParameter(g, kMarkerParameter, marker_name,
                                                                   OTF2_PARAMETER_TYPE_STRING),
                               "parameter"));
    }
    return OkStatus();
  }

  static constexpr OTF2_AttributeRef kKeyAttribute = 0;
  static constexpr OTF2_AttributeRef kNameAttribute = 1;
  static constexpr OTF2_AttributeRef kGrainAttribute = 2;
  static constexpr OTF2_ParameterRef kMarkerParameter = 0;

  const Trace& t_;
  TimeNs shift_ = 0;
  std::vector<std::string_view> strings_;
  std::unordered_map<std::string_view, uint32_t> string_refs_;
  std::vector<std::unordered_map<uint32_t, uint32_t>> comm_ranks_;  // location -> rank
  uint32_t no_comm_ = kNone;
  std::vector<OTF2_CommRef> comm_ref_;  // by communicator index (no_comm_ last): its OTF2 reference
  uint32_t first_team_ref_ = 0;
  OTF2_AttributeRef sync_object_attribute_ = 0;  // and + 1: the sync argument
  otf2::Otf2ThreadWriter threads_;
  std::vector<bool> has_send_complete_, has_recv_post_, keyed_;
  std::vector<EventIndex> recv_order_;
  bool any_keyed_ = false;
  bool has_markers_ = false;
  std::deque<std::string> owned_strings_;  // OwnedStr's (a deque: its strings never move)
  std::vector<uint64_t> event_counts_;
  OTF2_AttributeList* attributes_ = nullptr;
};

// What an archive's anchor "x.otf2" has beside it: its definition file x.def and its directory x/.
std::vector<std::string> ArchiveSiblings(const std::string& anchor) {
  return {fs::path(anchor).replace_extension(".def").string(), fs::path(anchor).replace_extension().string()};
}

// The three parts of an archive "name" in `dir`, the anchor first (it is moved into place last).
// An existing archive is ours when its anchor has the OTF2 signature and its directory holds only
// definition and event files.
std::vector<OutputPart> ArchiveParts(const fs::path& dir, const std::string& name) {
  auto anchor_ok = [](const std::string& file) { return otf2::HasOtf2Signature(file); };
  auto archive_file = [](std::string_view entry) { return entry.ends_with(".def") || entry.ends_with(".evt"); };
  const std::string anchor = (dir / (name + ".otf2")).string();
  const std::vector<std::string> siblings = ArchiveSiblings(anchor);
  return {OutputPart{anchor, anchor_ok, nullptr}, OutputPart{siblings[0], AnyRegularFile, nullptr},
          OutputPart{siblings[1], nullptr, archive_file}};
}

constexpr std::string_view kExtensions[] = {".otf2"};

}  // namespace

Status WriteOtf2(const Trace& trace, const std::string& anchor_path_or_dir, const OutputOptions& options) {
  otf2::SilenceOtf2Errors();
  fs::path target(anchor_path_or_dir);
  fs::path dir = target;
  std::string name = "traces";
  if (target.extension() == ".otf2") {
    dir = target.parent_path();
    name = target.stem().string();
  }
  std::error_code ec;
  if (!dir.empty()) fs::create_directories(dir, ec);
  if (ec) return IoError(fmt::format("{}: cannot create the directory: {}", dir.string(), ec.message()));
  // libotf2 writes <staging>/<name>{.otf2,.def,/} and refuses to reuse a directory: a fresh one.
  GS_ASSIGN_OR_RETURN(OutputTarget out, OutputTarget::Claim(std::string(kOtf2Exporter.what), ArchiveParts(dir, name), options));
  Status s = Otf2ArchiveWriter(trace).Write(out.staging_dir(), name);
  if (!s.ok()) return Status(s.code(), fmt::format("{}: {}", anchor_path_or_dir, s.message()));
  return out.Commit();
}

constinit const Exporter kOtf2Exporter{kOtf2Format, kExtensions, WriteOtf2, "an OTF2 archive",
                                       "OTF2 for Vampir and Scalasca", ArchiveSiblings};

}  // namespace grainscope
