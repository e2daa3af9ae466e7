// Reading whole files, and writing a file that must not exist yet. Outputs a user names (-o, a
// converted trace) are written through base/output_target.h, which decides what may be replaced.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace grainscope {

// Inputs that are not regular files (a pipe, /dev/stdin, a device) are read up to this many bytes,
// so that an endless one (/dev/zero, `yes | grainscope info /dev/stdin`) ends with an error instead
// of taking all memory: 4 GiB, or GRAINSCOPE_MAX_STREAM_BYTES when set (docs/robustness.md).
// Regular files are read to the size they had when opened.
inline constexpr uint64_t kDefaultMaxStreamBytes = uint64_t{4} << 30;
uint64_t MaxStreamBytes();

// Called once with the first kHeadBytes of a file (or all of it, when shorter) before the rest is
// read: an error stops the read, so an input that is no trace fails at once, also when endless.
inline constexpr size_t kHeadBytes = 64 * 1024;
using HeadCheck = std::function<Status(std::string_view head)>;

// The whole content of `path`, or an error naming the file and the reason.
Result<std::string> ReadFile(const std::string& path, const HeadCheck& check_head = nullptr);

// Creates `path` (O_EXCL: fails when anything is there) and writes `content`; on failure the
// file it created is removed again.
Status WriteNewFile(const std::string& path, std::string_view content);

}  // namespace grainscope
