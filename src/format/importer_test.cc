// The importer registry: every reader listed once, by name, with its sniffer; and ReadTrace
// choosing through it (sure beats plausible, a pipe is read once and never sniffed before).
#include "format/importer.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/file.h"
#include "base/test_files.h"
#include "format/format_names.h"
#include "format/gst/gst_format.h"
#include "format/trace_reader.h"

namespace grainscope {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Sniff SniffWith(std::string_view format, const std::string& path, std::string_view head, bool stream = false) {
  return FindImporter(format)->sniff(TraceProbe{path, head, stream});
}

std::string GstMagic() { return std::string(reinterpret_cast<const char*>(gst::kMagic), sizeof gst::kMagic); }

TEST(Importers, EachFormatOnceByNameWithARead) {
  EXPECT_THAT(ReadableFormats(), ElementsAre("auto", kSeedTextFormat, kOtf2Format, kChromeFormat, kGstFormat, kChromeRanksFormat, kCsvFormat,
                                           kProjectionsFormat, kNsightFormat, kHpctoolkitFormat));
  for (const Importer* importer : Importers()) {
    EXPECT_EQ(FindImporter(importer->name), importer);
    EXPECT_NE(importer->sniff, nullptr) << importer->name;
    EXPECT_TRUE(importer->read_path != nullptr || importer->read_content != nullptr) << importer->name;
    if (importer->read_content == nullptr) {  // a pipe's message names its files
      EXPECT_FALSE(importer->file_kind.empty()) << importer->name;
    }
  }
  EXPECT_EQ(FindImporter("auto"), nullptr);
  EXPECT_EQ(FindImporter("tsv"), nullptr);
}

TEST(Importers, SniffersSaySureOnlyForSignatures) {
  EXPECT_EQ(SniffWith(kSeedTextFormat, "t.txt", "hello\n start 1 0 290\n"), Sniff::kPlausible);
  EXPECT_EQ(SniffWith(kSeedTextFormat, "t.txt", "hello\n"), Sniff::kNo);
  EXPECT_EQ(SniffWith(kChromeFormat, "t.txt", "  {\"traceEvents\": []}"), Sniff::kSure);
  EXPECT_EQ(SniffWith(kChromeFormat, "t.json", " start 1 0 290\n"), Sniff::kNo);
  EXPECT_EQ(SniffWith(kCsvFormat, "t.txt", "Timestamp (ns),Event Type,Name,Process\n"), Sniff::kSure);
  EXPECT_EQ(SniffWith(kCsvFormat, "t.csv", "time,type,name\n"), Sniff::kNo);
  EXPECT_EQ(SniffWith(kOtf2Format, "run/traces.otf2", ""), Sniff::kSure);
  EXPECT_EQ(SniffWith(kOtf2Format, "run/traces.txt", ""), Sniff::kNo);
  EXPECT_EQ(SniffWith(kGstFormat, "t.txt", GstMagic() + "rest"), Sniff::kSure);
  EXPECT_EQ(SniffWith(kGstFormat, "t.gst", ""), Sniff::kSure);  // a damaged magic gets the .gst reader's error
  EXPECT_EQ(SniffWith(kGstFormat, "t.txt", " start 1 0 290\n"), Sniff::kNo);
  // A pipe: its name says nothing (it may not be mapped), its bytes do.
  EXPECT_EQ(SniffWith(kGstFormat, "p.gst", "", true), Sniff::kNo);
  EXPECT_EQ(SniffWith(kGstFormat, "p", GstMagic(), true), Sniff::kSure);
}

TEST(Importers, AutoAsksReadersOfPathsFirst) {
  std::vector<std::string_view> names;
  for (const Importer* importer : ImportersInDetectionOrder()) names.push_back(importer->name);
  EXPECT_THAT(names, ElementsAre(kOtf2Format, kGstFormat, kChromeRanksFormat, kProjectionsFormat, kNsightFormat,
                                 kHpctoolkitFormat, kSeedTextFormat, kChromeFormat,
                                 kCsvFormat));
}

TEST(ReadTraceContent, ReadsBytesReadBeforeWithTheGivenReader) {
  Result<Trace> t = ReadTraceContent(" start 1 0 1\n stop 1 0 2\n", "t.json", *FindImporter(kSeedTextFormat));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->format(), kSeedTextFormat);
  EXPECT_EQ(t->event_count(), 2u);
}

TEST(ReadTrace, ASureReaderWinsOverAPlausibleOne) {
  // JSON whose second line is a seed text record: the Chrome reader's error, not seed text's.
  TempDir dir("importer_test");
  const std::string path = dir / "both.txt";
  ASSERT_TRUE(WriteTestFile(path, "{\"traceEvents\": []}\n start 1 0 1\n stop 1 0 2\n"));
  Result<Trace> t = ReadTrace(path);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("not valid JSON"));
}

Result<Trace> ReadThroughPipe(const std::string& path, const std::string& content) {
  return ReadThroughFifo(path, content, [](const std::string& p) { return ReadTrace(p); });
}

TEST(ReadTrace, APipeIsReadOnceAndNeverSniffedBefore) {
  TempDir dir("importer_test");
  Result<Trace> t = ReadThroughPipe(dir / "seed.gst", " start 1 0 1\n stop 1 0 2\n");  // the name says nothing
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->format(), kSeedTextFormat);
  EXPECT_EQ(t->event_count(), 2u);
}

TEST(ReadTrace, AGstTraceInAPipeIsRefusedByName) {
  TempDir dir("importer_test");
  const std::string path = dir / "pipe";
  Result<Trace> t = ReadThroughPipe(path, GstMagic() + std::string(100, '\0'));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(),
            path + ": a .gst trace from a pipe or device: the .gst reader maps a file, save it to one");
}

}  // namespace
}  // namespace grainscope
