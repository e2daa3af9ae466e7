#include "gst_dir_writer.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "format/gst/gst_format.h"

namespace grainscope {
namespace {

namespace g = gst;

class GstFile {
 public:
  void Chunk(uint32_t type, const std::string& payload, uint32_t sequence = 0) {
    g::ChunkHeader h{type, 0, static_cast<uint32_t>(payload.size()), static_cast<uint32_t>(payload.size()), 0, sequence};
    g::SealChunkHeader(h, payload.data());
    Append(&h, sizeof h);
    out_ += payload;
  }
  void Append(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
  uint32_t String(const std::string& s) {
    auto [it, added] = strings_.try_emplace(s, static_cast<uint32_t>(strings_.size() + 1));
    if (added) {
      g::StringDef d{it->second, static_cast<uint32_t>(s.size())};
      std::string payload(reinterpret_cast<const char*>(&d), sizeof d);
      Chunk(g::kChunkStringDef, payload + s);
    }
    return it->second;
  }
  void Record(uint64_t time, uint8_t kind, uint32_t id, const g::MessageSlot* slot = nullptr) {
    const size_t need = slot ? 2 : 1;
    if (block_.size() + need > kBlockRecords) FlushBlock();
    g::Record r{time, kind, static_cast<uint8_t>(slot ? 1 : 0), 0, id};
    block_.push_back(r);
    if (slot) {
      g::Record s;
      std::memcpy(&s, slot, sizeof s);
      block_.push_back(s);
    }
  }
  void FlushBlock() {
    if (block_.empty()) return;
    Chunk(g::kChunkEventBlock, std::string(reinterpret_cast<const char*>(block_.data()), block_.size() * sizeof(g::Record)), sequence_++);
    block_.clear();
  }
  std::string& bytes() { return out_; }

 private:
  static constexpr size_t kBlockRecords = 4096;
  std::string out_;
  std::unordered_map<std::string, uint32_t> strings_;
  std::vector<g::Record> block_;
  uint32_t sequence_ = 0;
};

uint8_t RoleOf(RegionRole r) {
  switch (r) {
    case RegionRole::kGrain: return g::kRoleGrain;
    case RegionRole::kFunction: return g::kRoleFunction;
    case RegionRole::kOther: return g::kRoleOther;
    default: return g::kRoleCommunication;
  }
}

std::string OpName(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kBarrier: return "barrier";
    case CollectiveOp::kBroadcast: return "bcast";
    case CollectiveOp::kReduce: return "reduce";
    case CollectiveOp::kAllreduce: return "allreduce";
    case CollectiveOp::kGather: return "gather";
    case CollectiveOp::kScatter: return "scatter";
    case CollectiveOp::kAllgather: return "allgather";
    case CollectiveOp::kAlltoall: return "alltoall";
    case CollectiveOp::kScan: return "scan";
    default: return "other";
  }
}

}  // namespace

Status WriteGstDirectory(const Trace& t, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return IoError(fmt::format("{}: {}", dir, ec.message()));
  const uint32_t n = static_cast<uint32_t>(t.locations().size());
  // Per collective member: its bytes, found by (collective, location).
  const CollectiveTable& ct = t.collectives();
  for (uint32_t l = 0; l < n; ++l) {
    GstFile f;
    g::FileHeader h{};
    std::memcpy(h.magic, g::kMagic, 8);
    h.version_major = g::kVersionMajor;
    h.version_minor = g::kVersionMinor;
    h.header_size = sizeof h;
    h.record_size = sizeof(g::Record);
    f.Append(&h, sizeof h);
    g::ClockSample clock{g::kClockMonotonic, 0, 0, 0, 1.0};
    f.Chunk(g::kChunkClock, std::string(reinterpret_cast<const char*>(&clock), sizeof clock));
    for (uint32_t r = 0; r < t.regions().size(); ++r) {
      const std::string name(t.str(t.regions()[r].name));
      g::RegionDef d{r + 1, RoleOf(t.regions()[r].role), {0, 0, 0}, t.regions()[r].external_id, 0,
                     static_cast<uint32_t>(name.size()), 0, 0};
      f.Chunk(g::kChunkRegionDef, std::string(reinterpret_cast<const char*>(&d), sizeof d) + name);
    }
    f.Record(0, g::kRecordMarker, f.String(fmt::format("mpi.rank {} {}", l, n)));
    for (uint32_t c = 0; c < t.communicators().size(); ++c) {
      std::string members;
      for (LocationId m : t.communicators()[c].members) members += (members.empty() ? "" : ",") + std::to_string(m.value);
      f.Record(0, g::kRecordMarker, f.String(fmt::format("mpi.comm c{} {}", c, members)));
    }
    const EventColumns& ev = t.events(LocationId(l));
    const MessageTable& m = t.messages();
    for (size_t i = 0; i < ev.size(); ++i) {
      const uint64_t time = static_cast<uint64_t>(std::max<TimeNs>(ev.time[i], 0));
      const uint32_t arg = ev.arg[i];
      switch (ev.kind[i]) {
        case EventKind::kEnter: f.Record(time, g::kRecordRegionBegin, arg + 1); break;
        case EventKind::kLeave: f.Record(time, g::kRecordRegionEnd, arg + 1); break;
        case EventKind::kSend:
        case EventKind::kRecv: {
          const uint32_t comm = m.communicator[arg].valid() ? m.communicator[arg].value : 0;
          const uint32_t name = f.String(fmt::format("mpi.msg c{} {} {} {}", comm, m.sender[arg].value,
                                                     m.receiver[arg].value, m.tag[arg]));
          const bool send = ev.kind[i] == EventKind::kSend;
          g::MessageSlot slot{m.bytes[arg], static_cast<int32_t>(send ? m.receiver[arg].value : m.sender[arg].value), 0};
          if (send) {
            f.Record(time, g::kRecordSendBegin, name, &slot);
            f.Record(time, g::kRecordSendEnd, name);
          } else {
            f.Record(time, g::kRecordRecvBegin, name);
            f.Record(time, g::kRecordRecvEnd, name, &slot);
          }
          break;
        }
        case EventKind::kCollBegin: {
          uint64_t sent = 0, received = 0;
          for (uint32_t k = ct.first_member[arg]; k < ct.first_member[arg + 1]; ++k) {
            if (ct.member_location[k].value == l) sent = ct.member_bytes_sent[k], received = ct.member_bytes_received[k];
          }
          const int root = ct.root[arg].valid() ? static_cast<int>(ct.root[arg].value) : -1;
          f.Record(time, g::kRecordMarker, f.String(fmt::format("mpi.coll {} c{} {} {} {}", OpName(ct.op[arg]),
                                                                ct.communicator[arg].value, root, sent, received)));
          break;
        }
        case EventKind::kMarker: f.Record(time, g::kRecordMarker, f.String(std::string(t.str(StringId(arg))))); break;
        default: break;  // ends with the collective region's leave; no others in synthetic traces
      }
    }
    f.FlushBlock();
    g::EndOfTrace end{0, g::kEndExit, 0, 1, 0};
    f.Chunk(g::kChunkEnd, std::string(reinterpret_cast<const char*>(&end), sizeof end));
    const std::string path = fmt::format("{}/rank-{:05}.gst", dir, l);
    FILE* out = std::fopen(path.c_str(), "wb");
    if (out == nullptr) return IoError(fmt::format("{}: cannot create", path));
    const bool ok = std::fwrite(f.bytes().data(), 1, f.bytes().size(), out) == f.bytes().size();
    if (std::fclose(out) != 0 || !ok) return IoError(fmt::format("{}: write failed", path));
  }
  return OkStatus();
}

}  // namespace grainscope
