#include "scale/share_notes.h"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

#include "model/diagnostic_kinds.h"

namespace grainscope {
namespace {

// Notes are one line each: a blob is the lines.
std::string Join(const std::vector<std::string>& notes) {
  std::string blob;
  for (const std::string& n : notes) {
    blob += n;
    blob += '\n';
  }
  return blob;
}

std::vector<std::string> Split(std::string_view blob) {
  std::vector<std::string> out;
  while (!blob.empty()) {
    const size_t end = blob.find('\n');
    out.emplace_back(blob.substr(0, end));
    blob.remove_prefix(end == std::string_view::npos ? blob.size() : end + 1);
  }
  return out;
}

}  // namespace

Result<std::vector<std::string>> GatherShareNotes(const Diagnostics& mine, ShareExchange& exchange) {
  std::vector<std::string> out(exchange.count());
  out[0] = Join(DiagnosticNotes(mine));
  GS_ASSIGN_OR_RETURN(std::vector<std::string> in, exchange.AllToAll(std::move(out)));
  if (exchange.index() != 0) return std::vector<std::string>();
  std::vector<std::vector<std::string>> by_share;
  for (const std::string& blob : in) by_share.push_back(Split(blob));
  auto everywhere = [&](const std::string& note) {
    return std::all_of(by_share.begin(), by_share.end(), [&](const std::vector<std::string>& notes) {
      return std::find(notes.begin(), notes.end(), note) != notes.end();
    });
  };
  std::vector<std::string> notes;
  for (uint32_t k = 0; k < by_share.size(); ++k)
    for (const std::string& note : by_share[k]) {
      if (by_share.size() > 1 && !everywhere(note)) {
        notes.push_back(fmt::format("share {} of {}: {}", k, by_share.size(), note));
      } else if (k == 0) {
        notes.push_back(note);
      }
    }
  return notes;
}

}  // namespace grainscope
