// Fixed-size records in a blob that goes to another process (model/share_exchange.h): the same
// build on every side, so a record is its bytes. A record type must have no padding, or its
// sender must zero it (memset) before filling it: no uninitialised byte leaves the process.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace grainscope::wire {

template <typename T>
void Put(std::string& blob, const T& v) {
  static_assert(std::is_trivially_copyable_v<T>);
  blob.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// A count, then the records.
template <typename T>
void PutAll(std::string& blob, const std::vector<T>& records) {
  static_assert(std::is_trivially_copyable_v<T>);
  Put(blob, uint64_t{records.size()});
  if (!records.empty()) blob.append(reinterpret_cast<const char*>(records.data()), records.size() * sizeof(T));
}

// One record from the front of `blob`; false when too short.
template <typename T>
bool Take(std::string_view& blob, T& out) {
  static_assert(std::is_trivially_copyable_v<T>);
  if (blob.size() < sizeof out) return false;
  std::memcpy(static_cast<void*>(&out), blob.data(), sizeof out);
  blob.remove_prefix(sizeof out);
  return true;
}

// What PutAll wrote, appended to `out`; false when the blob is too short for its count.
template <typename T>
bool TakeAll(std::string_view& blob, std::vector<T>& out) {
  static_assert(std::is_trivially_copyable_v<T>);
  uint64_t n = 0;
  if (!Take(blob, n)) return false;
  if (n > blob.size() / sizeof(T)) return false;
  if (n == 0) return true;
  const size_t first = out.size();
  out.resize(first + n);
  std::memcpy(static_cast<void*>(out.data() + first), blob.data(), n * sizeof(T));
  blob.remove_prefix(n * sizeof(T));
  return true;
}

}  // namespace grainscope::wire
