// Helpers for the recording runtime's tests: a scratch directory, opening a trace in it with test
// options, and reading it back through the .gst reader.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "format/gst/gst_reader.h"
#include "model/trace.h"
#include "record/runtime.h"

namespace grainscope::record {

class ScratchDir {
 public:
  ScratchDir() {
    std::string templ = (std::filesystem::temp_directory_path() / "gs_record_test.XXXXXX").string();
    path_ = mkdtemp(templ.data());
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline Options TestOptions(const std::string& path) {
  Options o;
  o.path = path.c_str();  // the caller keeps `path` alive until Open returns
  o.signals = false;      // gtest's own death handling stays in charge
  return o;
}

inline Trace MustRead(const std::string& path) {
  Result<Trace> r = ReadGstFile(path);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return Trace();
  return std::move(r).value();
}

// The location named `name`, or an invalid id.
inline LocationId FindLocation(const Trace& t, std::string_view name) {
  for (uint32_t i = 0; i < t.locations().size(); ++i)
    if (t.str(t.locations()[i].name) == name) return LocationId(i);
  return LocationId();
}

}  // namespace grainscope::record
