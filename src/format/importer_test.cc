// The importer registry: every reader listed once, by name, with its sniffer; and ReadTrace
// choosing through it (sure beats plausible, a pipe is read once and never sniffed before).
#include "format/importer.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "format/format_names.h"
#include "format/gst/gst_format.h"
#include "format/trace_reader.h"

namespace grainscope {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

Sniff SniffWith(std::string_view format, const std::string& path, std::string_view head, bool stream = false) {
  return FindImporter(format)->sniff(TraceProbe{path, head, stream});
}

std::string GstMagic() { return std::string(reinterpret_cast<const char*>(gst::kMagic), sizeof gst::kMagic); }

class TempDir {
 public:
  TempDir() : path_(fs::temp_directory_path() / ("gs_importer_test_" + std::to_string(getpid()))) {
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

void WriteFile(const std::string& path, const std::string& content) {
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fwrite(content.data(), 1, content.size(), f);
  std::fclose(f);
}

TEST(Importers, EachFormatOnceByNameWithOneRead) {
  EXPECT_THAT(ReadableFormats(), ElementsAre("auto", kSeedTextFormat, kOtf2Format, kChromeFormat, kGstFormat));
  for (const Importer* importer : Importers()) {
    EXPECT_EQ(FindImporter(importer->name), importer);
    EXPECT_NE(importer->sniff, nullptr) << importer->name;
    EXPECT_NE(importer->read_path == nullptr, importer->read_content == nullptr) << importer->name;
    if (importer->read_path != nullptr) {
      EXPECT_FALSE(importer->file_kind.empty()) << importer->name;
    }
  }
  EXPECT_EQ(FindImporter("auto"), nullptr);
  EXPECT_EQ(FindImporter("csv"), nullptr);
}

TEST(Importers, SniffersSaySureOnlyForSignatures) {
  EXPECT_EQ(SniffWith(kSeedTextFormat, "t.txt", "hello\n start 1 0 290\n"), Sniff::kPlausible);
  EXPECT_EQ(SniffWith(kSeedTextFormat, "t.txt", "hello\n"), Sniff::kNo);
  EXPECT_EQ(SniffWith(kChromeFormat, "t.txt", "  {\"traceEvents\": []}"), Sniff::kSure);
  EXPECT_EQ(SniffWith(kChromeFormat, "t.json", " start 1 0 290\n"), Sniff::kNo);
  EXPECT_EQ(SniffWith(kOtf2Format, "run/traces.otf2", ""), Sniff::kSure);
  EXPECT_EQ(SniffWith(kOtf2Format, "run/traces.txt", ""), Sniff::kNo);
  EXPECT_EQ(SniffWith(kGstFormat, "t.txt", GstMagic() + "rest"), Sniff::kSure);
  EXPECT_EQ(SniffWith(kGstFormat, "t.gst", ""), Sniff::kSure);  // a damaged magic gets the .gst reader's error
  EXPECT_EQ(SniffWith(kGstFormat, "t.txt", " start 1 0 290\n"), Sniff::kNo);
  // A pipe: its name says nothing (it may not be mapped), its bytes do.
  EXPECT_EQ(SniffWith(kGstFormat, "p.gst", "", true), Sniff::kNo);
  EXPECT_EQ(SniffWith(kGstFormat, "p", GstMagic(), true), Sniff::kSure);
}

TEST(ReadTrace, ASureReaderWinsOverAPlausibleOne) {
  // JSON whose second line is a seed text record: the Chrome reader's error, not seed text's.
  TempDir dir;
  const std::string path = dir / "both.txt";
  WriteFile(path, "{\"traceEvents\": []}\n start 1 0 1\n stop 1 0 2\n");
  Result<Trace> t = ReadTrace(path);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("not valid JSON"));
}

// Writes `content` into the FIFO `path` from another thread while ReadTrace reads it.
Result<Trace> ReadThroughPipe(const std::string& path, const std::string& content) {
  if (::mkfifo(path.c_str(), 0600) != 0) return IoError("mkfifo failed");
  std::thread writer([&] {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) return;
    std::fwrite(content.data(), 1, content.size(), f);
    std::fclose(f);
  });
  Result<Trace> t = ReadTrace(path);
  writer.join();
  return t;
}

TEST(ReadTrace, APipeIsReadOnceAndNeverSniffedBefore) {
  TempDir dir;
  Result<Trace> t = ReadThroughPipe(dir / "seed.gst", " start 1 0 1\n stop 1 0 2\n");  // the name says nothing
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->format(), kSeedTextFormat);
  EXPECT_EQ(t->event_count(), 2u);
}

TEST(ReadTrace, AGstTraceInAPipeIsRefusedByName) {
  TempDir dir;
  const std::string path = dir / "pipe";
  Result<Trace> t = ReadThroughPipe(path, GstMagic() + std::string(100, '\0'));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(),
            path + ": a .gst trace from a pipe or device: the .gst reader maps a file, save it to one");
}

}  // namespace
}  // namespace grainscope
