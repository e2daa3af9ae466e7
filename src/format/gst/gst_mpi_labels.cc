#include "format/gst/gst_mpi_labels.h"

#include <charconv>
#include <utility>

#include <fmt/format.h>

#include "format/gst/gst_model_numbers.h"

namespace grainscope::gst {
namespace {

// Splits on single spaces; the labels are written by our own snprintf calls.
std::vector<std::string_view> Fields(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find(' ', i);
    if (j == std::string_view::npos) j = s.size();
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

template <typename T>
bool Number(std::string_view s, T& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

// "0-3,5" -> 0 1 2 3 5
bool Ranges(std::string_view s, std::vector<int>& out) {
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find(',', i);
    if (j == std::string_view::npos) j = s.size();
    std::string_view item = s.substr(i, j - i);
    const size_t dash = item.find('-');
    int lo = 0, hi = 0;
    if (dash == std::string_view::npos) {
      if (!Number(item, lo)) return false;
      hi = lo;
    } else if (!Number(item.substr(0, dash), lo) || !Number(item.substr(dash + 1), hi) || hi < lo) {
      return false;
    }
    for (int r = lo; r <= hi; ++r) out.push_back(r);
    i = j + 1;
  }
  return true;
}

}  // namespace

std::optional<MpiRankLabel> ParseMpiRank(std::string_view label) {
  auto f = Fields(label);
  MpiRankLabel l;
  if (f.size() < 3 || f.size() > 4 || f[0] != "mpi.rank" || !Number(f[1], l.rank) || !Number(f[2], l.size))
    return std::nullopt;
  if (f.size() == 4) {
    uint64_t run = 0;
    auto [p, ec] = std::from_chars(f[3].data(), f[3].data() + f[3].size(), run, 16);
    if (ec != std::errc() || p != f[3].data() + f[3].size()) return std::nullopt;
    l.run = run;
  }
  return l;
}

std::optional<MpiEagerLimitLabel> ParseMpiEagerLimit(std::string_view label) {
  auto f = Fields(label);
  MpiEagerLimitLabel l;
  if (f.size() != 3 || f[0] != "mpi.eager_limit") return std::nullopt;
  auto [p, ec] = std::from_chars(f[1].data(), f[1].data() + f[1].size(), l.bytes);
  if (ec != std::errc() || p != f[1].data() + f[1].size()) return std::nullopt;
  l.variable = std::string(f[2]);
  return l;
}

std::optional<MpiCommLabel> ParseMpiComm(std::string_view label) {
  auto f = Fields(label);
  MpiCommLabel l;
  if (f.size() != 3 || f[0] != "mpi.comm" || !Ranges(f[2], l.members)) return std::nullopt;
  l.id = std::string(f[1]);
  return l;
}

std::optional<MpiClockLabel> ParseMpiClock(std::string_view label) {
  auto f = Fields(label);
  MpiClockLabel l;
  if (f.size() < 4 || f[0] != "mpi.clock" || (f[1] != "init" && f[1] != "finalize") ||
      !Number(f[2], l.offset_ns) || !Number(f[3], l.monotonic_ns)) {
    return std::nullopt;
  }
  l.finalize = f[1] == "finalize";
  return l;
}

std::optional<MpiCollLabel> ParseMpiColl(std::string_view label) {
  auto f = Fields(label);
  MpiCollLabel l;
  const bool blocking = f.size() == 6 && f[0] == "mpi.coll";
  const bool nonblocking = f.size() == 7 && f[0] == "mpi.icoll" && Number(f[6], l.slot) && l.slot != 0;
  if ((!blocking && !nonblocking) || !Number(f[3], l.root) || !Number(f[4], l.sent) || !Number(f[5], l.received)) {
    return std::nullopt;
  }
  l.op = std::string(f[1]);
  l.comm = std::string(f[2]);
  return l;
}

std::optional<uint32_t> ParseMpiCollEnd(std::string_view label) {
  auto f = Fields(label);
  uint32_t slot = 0;
  if (f.size() != 2 || f[0] != "mpi.icoll_end" || !Number(f[1], slot) || slot == 0) return std::nullopt;
  return slot;
}

std::optional<MpiMessageName> ParseMpiMessageName(std::string_view name) {
  auto f = Fields(name);
  MpiMessageName m;
  if (f.size() != 5 || f[0] != "mpi.msg" || !Number(f[2], m.sender) || !Number(f[3], m.receiver) ||
      !Number(f[4], m.tag)) {
    return std::nullopt;
  }
  m.comm = std::string(f[1]);
  return m;
}

std::optional<NonBlockingMark> NonBlockingMarkOf(std::string_view label) {
  if (!label.starts_with("mpi.icoll")) return std::nullopt;
  if (auto slot = ParseMpiCollEnd(label)) return NonBlockingMark{*slot, true};
  if (auto coll = ParseMpiColl(label); coll && coll->slot != 0) return NonBlockingMark{coll->slot, false};
  return std::nullopt;
}

std::string MpiCollLabelText(const MpiCollLabel& c) {
  if (c.slot == 0) return fmt::format("mpi.coll {} {} {} {} {}", c.op, c.comm, c.root, c.sent, c.received);
  return fmt::format("mpi.icoll {} {} {} {} {} {}", c.op, c.comm, c.root, c.sent, c.received, c.slot);
}

CollectiveOp MpiCollOp(std::string_view name) { return ModelCollectiveOp(MpiCollOpNumberOf(name)); }

std::string_view MpiCollOpName(CollectiveOp op) { return MpiCollOpNameOf(MpiCollOpNumber(op)); }

}  // namespace grainscope::gst
