// One file of an HPCToolkit database (meta.db, profile.db, trace.db; their FORMATS.md) read with
// every access bounds-checked (internal to the reader, hpctoolkit_reader.h): little-endian
// integers and NUL-terminated strings at absolute offsets, the common header checked.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "base/status.h"

namespace grainscope::hpctoolkit {

class DbFile {
 public:
  // Reads `path`, checks the common header ("HPCTOOLKIT", `format` such as "meta", major
  // version 4) and its footer.
  static Result<DbFile> Open(const std::string& path, std::string_view format, std::string_view footer);

  // The integer of `Int` bytes at `offset`; false (and an error to say) when it is past the end.
  template <typename Int>
  bool Get(uint64_t offset, Int* value) const {
    if (offset > bytes_.size() || bytes_.size() - offset < sizeof(Int)) return false;
    std::memcpy(value, bytes_.data() + offset, sizeof(Int));  // little-endian hosts only (x86, arm64)
    return true;
  }
  // The NUL-terminated string at `offset`; nullopt-like false when it runs past the end.
  bool String(uint64_t offset, std::string_view* s) const;
  // Section `i`'s pointer and size from the header.
  bool Section(int i, uint64_t* pointer, uint64_t* size) const {
    return Get(0x10 + 16 * static_cast<uint64_t>(i), size) && Get(0x18 + 16 * static_cast<uint64_t>(i), pointer);
  }
  // "meta.db: <what> at byte 0x1234 is past the end of the file" (or otherwise damaged).
  Status Damaged(std::string_view what, uint64_t offset) const;
  const std::string& path() const { return path_; }
  uint64_t size() const { return bytes_.size(); }

 private:
  std::string path_, bytes_;
};

}  // namespace grainscope::hpctoolkit
