#include "format/hpctoolkit/hpctoolkit_file.h"

#include <fmt/format.h>

#include "base/file.h"

namespace grainscope::hpctoolkit {

Result<DbFile> DbFile::Open(const std::string& path, std::string_view format, std::string_view footer) {
  DbFile f;
  f.path_ = path;
  GS_ASSIGN_OR_RETURN(f.bytes_, ReadFile(path));
  const std::string_view b = f.bytes_;
  if (b.size() < 0x10 || !b.starts_with("HPCTOOLKIT") || b.substr(10, 4) != format)
    return DataLoss(fmt::format("{}: not an HPCToolkit {}.db file (expected \"HPCTOOLKIT{}\" at byte 0)", path, format == "trce" ? "trace" : format == "prof" ? "profile" : format, format));
  if (static_cast<uint8_t>(b[14]) != 4)
    return Unimplemented(fmt::format("{}: HPCToolkit database version {}.{}; grainscope reads version 4", path,
                                     static_cast<int>(static_cast<uint8_t>(b[14])), static_cast<int>(static_cast<uint8_t>(b[15]))));
  if (!b.ends_with(footer))
    return DataLoss(fmt::format("{}: truncated: it does not end with \"{}\" as a complete file does", path, footer));
  return f;
}

bool DbFile::String(uint64_t offset, std::string_view* s) const {
  if (offset >= bytes_.size()) return false;
  const size_t end = bytes_.find('\0', offset);
  if (end == std::string::npos) return false;
  *s = std::string_view(bytes_).substr(offset, end - offset);
  return true;
}

Status DbFile::Damaged(std::string_view what, uint64_t offset) const {
  return DataLoss(fmt::format("{}: damaged: {} at byte {:#x} is not within the file ({} bytes)", path_, what, offset, bytes_.size()));
}

}  // namespace grainscope::hpctoolkit
