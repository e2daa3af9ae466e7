// ReadGraphInput: the task-graph readers' registry and sniffers, "auto" choosing among them and the
// trace readers with one rule, and --input-format picking a reader by name.
#include "schedule/io/graph_input.h"

#include <filesystem>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "base/test_files.h"
#include "format/format_names.h"
#include "schedule/io/taskgraph_importer.h"

namespace grainscope {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::string kSource = GRAINSCOPE_SOURCE_DIR;
const std::string kSeedTextTrace = kSource + "/examples/traces/fig4_5.txt";
const std::string kChromeTrace = kSource + "/tests/golden/inputs/collectives.json";  // {"displayTimeUnit": ...
const std::string kGstTrace = kSource + "/examples/traces/pi.gst";
const std::string kGstDirectory = kSource + "/tests/golden/inputs/collectives.gst";  // a directory of ranks
const std::string kOtf2Trace = kSource + "/tests/golden/inputs/collectives.otf2";

constexpr std::string_view kStg = "   2\n    0   0   0\n    1   4   1   0\n    2   5   1   1\n    3   0   1   2\n";
constexpr std::string_view kDot = "digraph g {\n  1 [Weight=4];\n  2 [Weight=5];\n  1 -> 2 [Weight=1];\n}\n";
constexpr std::string_view kSeedTaskGraph =
    "Task_Graph <a seed task graph>\n2 <nodes>\n1 4 0 0 1 0\n2 5 0 0 0 1\n1 <edges>\n1 2 1\n";
constexpr std::string_view kJson =
    "{\"nodes\": [{\"id\": 1, \"time_ns\": 4}, {\"id\": 2, \"time_ns\": 5}],\n"
    " \"edges\": [{\"from\": 1, \"to\": 2, \"delay_ns\": 1}]}\n";

Sniff SniffWith(std::string_view format, const std::string& path, std::string_view head) {
  return FindTaskGraphImporter(format)->sniff(TraceProbe{path, head});
}

TEST(TaskGraphImporters, EachFormatOnceByNameInHelpOrder) {
  std::vector<std::string_view> names;
  for (const TaskGraphImporter* reader : TaskGraphImporters()) {
    names.push_back(reader->name);
    EXPECT_EQ(FindTaskGraphImporter(reader->name), reader);
    EXPECT_NE(reader->sniff, nullptr) << reader->name;
    EXPECT_NE(reader->read, nullptr) << reader->name;
  }
  EXPECT_THAT(names, ElementsAre(kSeedTaskGraphFormat, kStgFormat, kDotFormat, kJsonTaskGraphFormat));
  EXPECT_EQ(FindTaskGraphImporter("auto"), nullptr);
  EXPECT_EQ(FindTaskGraphImporter(kChromeFormat), nullptr);
  EXPECT_THAT(GraphInputFormats(), ElementsAre("auto", kSeedTextFormat, kOtf2Format, kChromeFormat, kGstFormat, kChromeRanksFormat,
                                               kCsvFormat, kProjectionsFormat, kNsightFormat, kHpctoolkitFormat,
                                               kSeedTaskGraphFormat, kStgFormat, kDotFormat,
                                               kJsonTaskGraphFormat));
}

TEST(TaskGraphSniffers, Stg) {
  EXPECT_EQ(SniffWith(kStgFormat, "a/rand0000.stg", ""), Sniff::kSure);
  EXPECT_EQ(SniffWith(kStgFormat, "A/RAND0000.STG", "digraph {"), Sniff::kSure);
  EXPECT_EQ(SniffWith(kStgFormat, "g", "   50\n    0   0   0\n"), Sniff::kPlausible);
  EXPECT_EQ(SniffWith(kStgFormat, "g", "   50\n    1   0   0\n"), Sniff::kNo);  // task 0 comes first
  EXPECT_EQ(SniffWith(kStgFormat, "g.txt", " start 1 1 290\n"), Sniff::kNo);
}

TEST(TaskGraphSniffers, Dot) {
  EXPECT_EQ(SniffWith(kDotFormat, "g.DOT", ""), Sniff::kSure);
  EXPECT_EQ(SniffWith(kDotFormat, "g.gv", "{"), Sniff::kSure);
  EXPECT_EQ(SniffWith(kDotFormat, "g", "  digraph x {"), Sniff::kPlausible);
  EXPECT_EQ(SniffWith(kDotFormat, "g", "strict digraph {"), Sniff::kPlausible);
  EXPECT_EQ(SniffWith(kDotFormat, "g", "digraph{"), Sniff::kPlausible);
  EXPECT_EQ(SniffWith(kDotFormat, "g.txt", "graph g { a -- b }"), Sniff::kNo);
}

TEST(TaskGraphSniffers, JsonTaskGraph) {
  EXPECT_EQ(SniffWith(kJsonTaskGraphFormat, "g.json", ""), Sniff::kSure);
  EXPECT_EQ(SniffWith(kJsonTaskGraphFormat, "g.json", "[{\"ph\": \"X\"}]"), Sniff::kSure);  // the name says so
  EXPECT_EQ(SniffWith(kJsonTaskGraphFormat, "g", "\n {\"nodes\": []}"), Sniff::kSure);
  EXPECT_EQ(SniffWith(kJsonTaskGraphFormat, "g", "[{\"ph\": \"X\"}]"), Sniff::kNo);
  EXPECT_EQ(SniffWith(kJsonTaskGraphFormat, "g.stg", "   50\n"), Sniff::kNo);
}

TEST(TaskGraphSniffers, SeedTaskGraph) {
  // No extension: the first word is all there is, and a trace reader sure of the file wins.
  EXPECT_EQ(SniffWith(kSeedTaskGraphFormat, "Task_Graph", "Task_Graph <Identifies a Task Graph file >\n"),
            Sniff::kPlausible);
  EXPECT_EQ(SniffWith(kSeedTaskGraphFormat, "g", "  Task_Graph<x>"), Sniff::kPlausible);
  EXPECT_EQ(SniffWith(kSeedTaskGraphFormat, "Task_Graph", "Schedule <a seed schedule>\n"), Sniff::kNo);
}

TEST(GraphInput, AutoAsksTaskGraphReadersThenTraceReaders) {
  // An extension before the content, as before the registry.
  EXPECT_EQ(DetectGraphFormat("g.stg", "Task_Graph <x>\n"), kStgFormat);
  EXPECT_EQ(DetectGraphFormat("g.dot", "{\"nodes\": []}"), kDotFormat);
  EXPECT_EQ(DetectGraphFormat("g.json", "digraph {"), kJsonTaskGraphFormat);
  EXPECT_EQ(DetectGraphFormat("g.json", "   50\n    0   0   0\n"), kJsonTaskGraphFormat);
  EXPECT_EQ(DetectGraphFormat("Task_Graph", "Task_Graph <Identifies a Task Graph file >\n"), kSeedTaskGraphFormat);
  EXPECT_EQ(DetectGraphFormat("g", "  digraph x {"), kDotFormat);
  EXPECT_EQ(DetectGraphFormat("g", "\n{\"nodes\": []}"), kJsonTaskGraphFormat);
  EXPECT_EQ(DetectGraphFormat("g", "   50\n    0   0   0\n"), kStgFormat);
  // The rest as `info` reads it: readers of paths, then readers of content.
  EXPECT_EQ(DetectGraphFormat("trace.txt", " start 1 1 290\n"), kSeedTextFormat);
  EXPECT_EQ(DetectGraphFormat("trace", "[{\"ph\": \"X\"}]"), kChromeFormat);
  EXPECT_EQ(DetectGraphFormat("run/traces.otf2", "anything"), kOtf2Format);
  EXPECT_EQ(DetectGraphFormat("t.gst", "[{\"ph\": \"X\"}]"), kGstFormat);
  EXPECT_EQ(DetectGraphFormat("notes.txt", "hello world\n"), "");
}

TEST(GraphInput, AChromeTraceInAJsonObjectIsReadAsATaskGraphUnlessNamed) {
  // Unchanged from before the registry: a JSON object, or any *.json, is a task graph to "auto"
  // (the task-graph sniffers come first), so a Chrome trace gets the task-graph reader's error;
  // --input-format chrome reads it. A Chrome trace in an array without .json is a trace.
  EXPECT_EQ(DetectGraphFormat(kChromeTrace, "{\"displayTimeUnit\":\"ns\", \"traceEvents\": []}"),
            kJsonTaskGraphFormat);
  EXPECT_THAT(ReadGraphInput(kChromeTrace),
              StatusIs(StatusCode::kDataLoss, HasSubstr(kChromeTrace + ": expected an array \"nodes\"")));
  Result<GraphInput> named = ReadGraphInput(kChromeTrace, kChromeFormat);
  ASSERT_THAT(named, IsOk());
  EXPECT_TRUE(named->from_trace);
  EXPECT_EQ(named->format, kChromeFormat);
  EXPECT_EQ(DetectGraphFormat("trace", "[{\"ph\": \"X\"}]"), kChromeFormat);
}

TEST(GraphInput, ATraceReaderSureOfANameWinsOverTaskGraphText) {
  // A *.gst or *.otf2 name is a signature; text a task-graph reader would only plausibly take gets
  // that reader's error (before the registry such a file was read as the task graph).
  TempDir dir("graph_input_test");
  const std::string path = dir / "g.gst";
  ASSERT_TRUE(WriteTestFile(path, kDot));
  EXPECT_EQ(DetectGraphFormat(path, kDot), kGstFormat);
  EXPECT_THAT(ReadGraphInput(path), StatusIs(StatusCode::kDataLoss, HasSubstr("not a .gst trace")));
  EXPECT_EQ(DetectGraphFormat("g.otf2", kStg), kOtf2Format);
}

// Each task-graph format under a name and content that "auto" would give another reader.
struct Named {
  std::string_view format;
  std::string_view content;
  std::string file;
};

TEST(GraphInput, AnInputFormatPicksThatTaskGraphReader) {
  TempDir dir("graph_input_test");
  for (const Named& n : {Named{kSeedTaskGraphFormat, kSeedTaskGraph, "g.json"}, Named{kStgFormat, kStg, "g.dot"},
                         Named{kDotFormat, kDot, "g.stg"}, Named{kJsonTaskGraphFormat, kJson, "g.stg"}}) {
    const std::string path = dir / (std::string(n.format) + "_" + n.file);
    ASSERT_TRUE(WriteTestFile(path, n.content));
    EXPECT_NE(DetectGraphFormat(path, n.content), n.format);
    Result<GraphInput> in = ReadGraphInput(path, n.format);
    ASSERT_THAT(in, IsOk()) << n.format;
    EXPECT_EQ(in->format, n.format);
    EXPECT_FALSE(in->from_trace);
    EXPECT_THAT(in->dag.weight, ElementsAre(4, 5)) << n.format;
    EXPECT_EQ(in->dag.edge_count(), 1u) << n.format;
  }
}

TEST(GraphInput, AnInputFormatPicksThatTraceReader) {
  TempDir dir("graph_input_test");
  const std::string seed_as_stg = dir / "fig4_5.stg";  // "auto" would take the STG reader
  std::filesystem::copy_file(kSeedTextTrace, seed_as_stg);
  for (const auto& [format, path] : {std::pair{kSeedTextFormat, seed_as_stg}, std::pair{kOtf2Format, kOtf2Trace},
                                     std::pair{kChromeFormat, kChromeTrace}, std::pair{kGstFormat, kGstTrace}}) {
    Result<GraphInput> in = ReadGraphInput(path, format);
    ASSERT_THAT(in, IsOk()) << format;
    EXPECT_EQ(in->format, format);
    EXPECT_TRUE(in->from_trace);
    EXPECT_GT(in->dag.size(), 0u) << format;
  }
  // The named reader, not detection: the OTF2 reader's error for a seed text trace.
  EXPECT_THAT(ReadGraphInput(kSeedTextTrace, kOtf2Format), StatusIs(StatusCode::kDataLoss, HasSubstr("OTF2")));
}

TEST(GraphInput, TheTaskGraphOfATraceInNanoseconds) {
  Result<GraphInput> in = ReadGraphInput(kSeedTextTrace);
  ASSERT_THAT(in, IsOk());
  EXPECT_TRUE(in->from_trace);
  EXPECT_EQ(in->format, "seedtext");
  EXPECT_EQ(in->dag.time_unit, "ns");
  EXPECT_THAT(in->dag.id, ElementsAre(2, 3, 4, 5, 6, 7, 8));
  EXPECT_EQ(in->dag.weight[0], 20'000'000);
  EXPECT_EQ(in->dag.edge_count(), 11u);
}

TEST(GraphInput, ADirectoryTraceIsReadByItsReader) {
  // Before the registry "auto" read every input as a file first: "is a directory, expected a file".
  Result<GraphInput> in = ReadGraphInput(kGstDirectory);
  ASSERT_THAT(in, IsOk());
  EXPECT_EQ(in->format, kGstFormat);
  EXPECT_TRUE(in->from_trace);
  TempDir dir("graph_input_test");
  EXPECT_THAT(ReadGraphInput(dir / ""), StatusIs(StatusCode::kIoError, HasSubstr("is a directory, expected a file")));
}

TEST(GraphInput, APipeIsReadOnce) {
  // Before the registry "auto" read a pipe to detect its format, then again to read it: empty.
  TempDir dir("graph_input_test");
  auto read = [](const std::string& p) { return ReadGraphInput(p); };
  Result<GraphInput> graph = ReadThroughFifo(dir / "graph", std::string(kStg), read);
  ASSERT_THAT(graph, IsOk());
  EXPECT_EQ(graph->format, kStgFormat);
  EXPECT_THAT(graph->dag.weight, ElementsAre(4, 5));
  Result<GraphInput> trace = ReadThroughFifo(dir / "trace", " start 1 0 1\n stop 1 0 2\n", read);
  ASSERT_THAT(trace, IsOk());
  EXPECT_EQ(trace->format, kSeedTextFormat);
  const std::string gst = dir / "gst";
  EXPECT_THAT(ReadThroughFifo(gst, "\x89GST\r\n\x1a\n" + std::string(100, '\0'), read),
              StatusIs(StatusCode::kDataLoss, HasSubstr(gst + ": a .gst trace from a pipe or device")));
}

TEST(GraphInput, UnknownFormatsMissingEmptyAndUnrecognisedFiles) {
  EXPECT_THAT(ReadGraphInput("x", "xml"), StatusIs(StatusCode::kInvalidArgument, HasSubstr("unknown input format 'xml'")));
  EXPECT_THAT(ReadGraphInput("/nonexistent/g.stg"),
              StatusIs(StatusCode::kIoError, HasSubstr("/nonexistent/g.stg: cannot open")));
  // A reader of paths is not chosen by the name alone when there is nothing there to read.
  EXPECT_THAT(ReadGraphInput("/nonexistent/t.otf2"),
              StatusIs(StatusCode::kIoError, HasSubstr("/nonexistent/t.otf2: cannot open")));
  TempDir dir("graph_input_test");
  const std::string empty = dir / "empty.gst";
  ASSERT_TRUE(WriteTestFile(empty, ""));
  EXPECT_THAT(ReadGraphInput(empty), StatusIs(StatusCode::kDataLoss, HasSubstr("empty.gst: the file is empty, "
                                                                               "expected a trace or a task graph")));
  EXPECT_THAT(ReadGraphInput(empty, kStgFormat),
              StatusIs(StatusCode::kDataLoss, HasSubstr("empty.gst: the file is empty, expected a task graph")));
  const std::string notes = dir / "notes.txt";
  ASSERT_TRUE(WriteTestFile(notes, "hello world\n"));
  EXPECT_THAT(ReadGraphInput(notes), StatusIs(StatusCode::kDataLoss, HasSubstr("neither a trace nor a task graph")));
}

}  // namespace
}  // namespace grainscope
