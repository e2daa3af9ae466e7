#include "format/chrome/chrome_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/status_matchers.h"
#include "base/test_files.h"
#include "format/trace_reader.h"
#include "model/diagnostic_kinds.h"

namespace grainscope {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ChromeReader, ReadsCommonTraces) {
  // A bare array, unsorted, with B/E and X slices, a flow, an instant, a counter and metadata.
  constexpr std::string_view kTrace = R"([
    {"ph":"M","name":"process_name","pid":7,"args":{"name":"browser"}},
    {"ph":"M","name":"thread_name","pid":7,"tid":9,"args":{"name":"worker"}},
    {"ph":"X","name":"paint","cat":"gfx","ts":12.5,"dur":2,"pid":7,"tid":7},
    {"ph":"B","name":"load","ts":10,"pid":7,"tid":7},
    {"ph":"E","ts":20,"pid":7,"tid":7},
    {"ph":"s","name":"job","cat":"ipc","id":"0x1","ts":13,"pid":7,"tid":7},
    {"ph":"X","name":"run","ts":30,"dur":5,"pid":7,"tid":9},
    {"ph":"f","bp":"e","name":"job","cat":"ipc","id":"0x1","ts":31,"pid":7,"tid":9},
    {"ph":"i","name":"vsync","s":"g","ts":11,"pid":7,"tid":7},
    {"ph":"C","name":"memory","ts":11,"pid":7,"args":{"kb":4}}
  ])";
  Result<Trace> r = ReadChromeJson(kTrace, "t.json");
  ASSERT_THAT(r, IsOk());
  const Trace& t = *r;
  // Tracks in order of first appearance; the process is its tid == pid track.
  ASSERT_EQ(t.locations().size(), 2u);
  EXPECT_EQ(t.str(t.location(LocationId(0)).name), "worker");
  EXPECT_EQ(t.location(LocationId(0)).external_id, 9);
  EXPECT_EQ(t.location(LocationId(0)).group, 1u);
  EXPECT_EQ(t.str(t.location(LocationId(1)).name), "browser");
  EXPECT_EQ(t.location(LocationId(1)).group, 1u);
  const EventColumns& main = t.events(LocationId(1));
  EXPECT_THAT(main.kind, ElementsAre(EventKind::kEnter, EventKind::kMarker, EventKind::kEnter, EventKind::kLeave,
                                     EventKind::kLeave));
  EXPECT_THAT(main.time, ElementsAre(10000, 11000, 12500, 14500, 20000));
  // A flow that is not grainscope's message is a dependency edge: from the slice its start is
  // in ("paint") to the slice enclosing its "bp":"e" arrival ("run").
  EXPECT_EQ(t.messages().size(), 0u);
  ASSERT_EQ(t.dependencies().size(), 1u);
  EXPECT_EQ(t.dependencies().kind[0], DependencyKind::kOther);
  EXPECT_EQ(t.dependencies().from_location[0], LocationId(1));
  EXPECT_EQ(t.dependencies().from_event[0], 2u);
  EXPECT_EQ(t.dependencies().to_location[0], LocationId(0));
  EXPECT_EQ(t.dependencies().to_event[0], 0u);
  EXPECT_EQ(t.diagnostics().Count(Diag::kSkippedRecords), 1u);  // the counter
}

// What PyTorch's profiler (Kineto) writes: Unix-epoch or baseTimeNanoseconds-relative times,
// fractional microseconds, string pids, process labels and sort indices, "ac2g" launch flows (the
// launches where the work carries no correlation id), the profiler's own span left out.
TEST(ChromeReader, ReadsKinetoTraces) {
  constexpr std::string_view kTrace = R"json({"schemaVersion": 1, "baseTimeNanoseconds": 1711964646000000000,
    "traceEvents": [
    {"name":"process_name","ph":"M","ts":1,"pid":100,"tid":0,"args":{"name":"python3"}},
    {"name":"process_sort_index","ph":"M","ts":1,"pid":100,"tid":0,"args":{"sort_index":100}},
    {"name":"process_labels","ph":"M","ts":1,"pid":0,"tid":0,"args":{"labels":"GPU 0"}},
    {"name":"process_sort_index","ph":"M","ts":1,"pid":0,"tid":0,"args":{"sort_index":16777216}},
    {"name":"process_labels","ph":"M","ts":1,"pid":1,"tid":0,"args":{"labels":"GPU 1"}},
    {"name":"process_sort_index","ph":"M","ts":1,"pid":1,"tid":0,"args":{"sort_index":16777217}},
    {"name":"thread_name","ph":"M","ts":1,"pid":0,"tid":7,"args":{"name":"stream 7"}},
    {"name":"thread_name","ph":"M","ts":1,"pid":1,"tid":7,"args":{"name":"stream 7"}},
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":4458676522700.250,"dur":10.5},
    {"ph":"X","cat":"kernel","name":"gemm","pid":1,"tid":7,"ts":4458676522701,"dur":1},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":4458676522690.655,"dur":5},
    {"ph":"s","id":3,"pid":100,"tid":100,"ts":4458676522690.655,"cat":"ac2g","name":"ac2g"},
    {"ph":"f","id":3,"pid":0,"tid":7,"ts":4458676522700.250,"cat":"ac2g","name":"ac2g","bp":"e"},
    {"ph":"X","cat":"Trace","name":"PyTorch Profiler (0)","pid":"Spans","tid":"PyTorch Profiler","ts":4458676522600,"dur":200},
    {"ph":"i","s":"g","name":"Record Window End","pid":"","tid":"","ts":4458676522800},
    {"ph":"C","name":"memory","pid":100,"ts":4458676522700,"args":{"bytes":4}}
  ]})json";
  Result<Trace> r = ReadChromeJson(kTrace, "kineto.json");
  ASSERT_THAT(r, IsOk());
  const Trace& t = *r;
  // The processes with a sort index first, in its order; a thread name two GPUs share is
  // prefixed with the process's label.
  std::vector<std::string_view> names;
  for (const Location& l : t.locations()) names.push_back(t.str(l.name));
  EXPECT_THAT(names, ElementsAre("python3", "GPU 0 stream 7", "GPU 1 stream 7"));
  // baseTimeNanoseconds + exact decimal microseconds; time zero is the earliest event (the
  // launch's 'ts'; the profiler's span is no event), not baseTimeNanoseconds, which lies 51 days
  // before the run.
  EXPECT_EQ(t.origin_ns(), 1711964646000000000 + 4458676522690655);
  EXPECT_EQ(t.diagnostics().Count(Diag::kProfilerSpans), 2u);  // the span and "Record Window End"
  EXPECT_EQ(t.events(LocationId(0)).time[0], 1711964646000000000 + 4458676522690655);
  EXPECT_EQ(t.events(LocationId(1)).time[0], 1711964646000000000 + 4458676522700250);
  EXPECT_EQ(t.events(LocationId(1)).time[1], 1711964646000000000 + 4458676522710750);
  ASSERT_EQ(t.dependencies().size(), 1u);
  EXPECT_EQ(t.dependencies().kind[0], DependencyKind::kGpuLaunch);
  EXPECT_EQ(t.dependencies().from_location[0], LocationId(0));
  EXPECT_EQ(t.dependencies().from_event[0], 0u);  // the cudaLaunchKernel's Enter
  EXPECT_EQ(t.dependencies().to_location[0], LocationId(1));
  EXPECT_EQ(t.dependencies().to_event[0], 0u);  // the kernel's Enter
  EXPECT_EQ(t.diagnostics().Count(Diag::kSkippedRecords), 1u);
  EXPECT_EQ(t.diagnostics().Count(Diag::kInvalidRecords), 0u);
}

TEST(ChromeReader, UnixEpochMicrosecondsFit) {
  Result<Trace> r = ReadChromeJson(
      R"([{"ph":"X","name":"a","ts":1694039968955744,"dur":3,"pid":1,"tid":1},
          {"ph":"X","name":"b","ts":"1694039968955748.123","dur":"1","pid":"1","tid":"1"}])",
      "epoch.json");
  ASSERT_THAT(r, IsOk());
  ASSERT_EQ(r->locations().size(), 1u);  // "1" is pid 1
  EXPECT_THAT(r->events(LocationId(0)).time, ElementsAre(1694039968955744000, 1694039968955747000,
                                                         1694039968955748123, 1694039968955749123));
  // The file names no time zero: the run starts at its earliest event, not in 1970.
  EXPECT_EQ(r->origin_ns(), 1694039968955744000);
  // ... its earliest kept event: a record skipped for a negative duration sets no time zero.
  Result<Trace> skipped = ReadChromeJson(
      R"([{"ph":"X","name":"bad","ts":1694039968000000,"dur":-1,"pid":1,"tid":1},
          {"ph":"X","name":"a","ts":1694039968955744,"dur":3,"pid":1,"tid":1}])",
      "epoch.json");
  ASSERT_THAT(skipped, IsOk());
  EXPECT_EQ(skipped->diagnostics().Count(Diag::kInvalidRecords), 1u);
  EXPECT_EQ(skipped->origin_ns(), 1694039968955744000);
}

// rocprofiler's first entry is {}; other tools write phases grainscope does not model. Neither
// rejects the trace: both are counted.
TEST(ChromeReader, UnreadableRecordsAreCountedNotFatal) {
  Result<Trace> r = ReadChromeJson(
      R"({"traceEvents":[{}, {"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1}, {"ph":"X","name":"b","ts":1e30,"pid":1,"tid":1},
          {"ph":"X","name":"c","pid":1,"tid":1}, {"ph":"X","name":"d","ts":"soon","pid":1,"tid":1},
          {"ph":"X","name":"e","ts":2,"pid":{"a":1},"tid":1}, {"ph":"O","id":1,"ts":1,"pid":1,"tid":1}, 7],
          "otherData": {"tool":"x"}, "extra": [1, 2]})",
      "roc.json");
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->event_count(), 2u);
  EXPECT_EQ(r->diagnostics().Count(Diag::kInvalidRecords), 6u);
  EXPECT_EQ(r->diagnostics().Count(Diag::kSkippedRecords), 1u);
  const std::string notes = fmt::format("{}", fmt::join(DiagnosticNotes(r->diagnostics()), "\n"));
  EXPECT_THAT(notes, HasSubstr("roc.json: traceEvents[0]: 'ph' (the phase) is missing (1 record)"));
  EXPECT_THAT(notes, HasSubstr("traceEvents[2]: 'ts' is out of range: 1e30"));
  EXPECT_THAT(notes, HasSubstr("traceEvents[3]: 'ts' is missing"));
  EXPECT_THAT(notes, HasSubstr("traceEvents[4]: 'ts' must be a number of microseconds, got \"soon\""));
  EXPECT_THAT(notes, HasSubstr("traceEvents[7]: expected an object, got number"));
}

TEST(ChromeReader, AsyncSlicesArePackedIntoLanes) {
  // Two overlapping async operations and one nested in the first: two lanes.
  Result<Trace> r = ReadChromeJson(
      R"([{"ph":"b","name":"load","cat":"net","id":1,"ts":0,"pid":5,"tid":1},
          {"ph":"b","name":"load","cat":"net","id":2,"ts":2,"pid":5,"tid":2},
          {"ph":"b","name":"parse","cat":"net","id":1,"ts":3,"pid":5,"tid":1},
          {"ph":"e","name":"parse","cat":"net","id":1,"ts":4,"pid":5,"tid":1},
          {"ph":"e","name":"load","cat":"net","id":1,"ts":6,"pid":5,"tid":1},
          {"ph":"e","name":"load","cat":"net","id":2,"ts":8,"pid":5,"tid":2},
          {"ph":"e","name":"load","cat":"net","id":9,"ts":9,"pid":5,"tid":2}])",
      "async.json");
  ASSERT_THAT(r, IsOk());
  ASSERT_EQ(r->locations().size(), 2u);
  EXPECT_EQ(r->str(r->location(LocationId(0)).name), "pid 5 async 0");
  EXPECT_THAT(r->events(LocationId(0)).time, ElementsAre(0, 3000, 4000, 6000));
  EXPECT_THAT(r->events(LocationId(1)).time, ElementsAre(2000, 8000));
  EXPECT_EQ(r->diagnostics().Count(Diag::kStrayEvents), 1u);
}

TEST(ChromeReader, FlowChainsAreDependencies) {
  // catapult's flow_simple: s -> t -> f across three threads.
  Result<Trace> r = ReadChromeJson(
      R"([{"ph":"X","name":"a","ts":0,"dur":10,"pid":1,"tid":1}, {"ph":"s","name":"f","cat":"ipc","id":7,"ts":5,"pid":1,"tid":1},
          {"ph":"X","name":"b","ts":20,"dur":10,"pid":1,"tid":2}, {"ph":"t","name":"f","cat":"ipc","id":7,"ts":25,"pid":1,"tid":2},
          {"ph":"f","name":"f","cat":"ipc","id":7,"ts":35,"pid":1,"tid":3}, {"ph":"X","name":"c","ts":40,"dur":10,"pid":1,"tid":3},
          {"ph":"f","name":"g","cat":"ipc","id":8,"ts":1,"pid":1,"tid":3}, {"ph":"s","name":"g","cat":"ipc","id":8,"ts":60,"pid":1,"tid":2}])",
      "flow.json");
  ASSERT_THAT(r, IsOk());
  const DependencyTable& d = r->dependencies();
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d.from_location[0], LocationId(0));
  EXPECT_EQ(d.to_location[0], LocationId(1));
  EXPECT_EQ(d.from_location[1], LocationId(1));
  EXPECT_EQ(d.to_location[1], LocationId(2));
  EXPECT_EQ(r->events(LocationId(2)).time[d.to_event[1]], 40000);  // no "bp": the next slice
  // An arrival before its start does not pair with the later start: both ends are unpaired.
  EXPECT_EQ(r->diagnostics().Count(Diag::kUnpairedFlows), 2u);
}

TEST(ChromeReader, AMalformedEventIsSkippedAndNamedTheOthersAreRead) {
  Result<Trace> r = ReadChromeJson(
      R"({"traceEvents":[{"ph":"X",},{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1},{"ph":"X","ts":1e}]})", "bad.json");
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->event_count(), 2u);
  EXPECT_EQ(r->diagnostics().Count(Diag::kInvalidRecords), 2u);
  const std::string notes = fmt::format("{}", fmt::join(DiagnosticNotes(r->diagnostics()), "\n"));
  EXPECT_THAT(notes, HasSubstr("bad.json: traceEvents[0]: not valid JSON"));
  EXPECT_THAT(notes, HasSubstr("(at byte 16)"));
  EXPECT_THAT(notes, HasSubstr("'1e' is not a number"));
}

TEST(ChromeReader, MalformedStructureNamesTheByteOffset) {
  EXPECT_THAT(ReadChromeJson(R"({"traceEvents":[{"ph":"X"} {"ph":"X"}]})", "bad.json"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("bad.json: byte 27: not valid JSON: expected ',' or ']' after an event")));
  EXPECT_THAT(ReadChromeJson(R"({"traceEvents":[], "x": tru})", "bad.json"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("bad.json: byte 27: not valid JSON: parse error")));
  EXPECT_THAT(ReadChromeJson(R"(  hello)", "bad.json"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("bad.json: byte 2: not valid JSON: expected '{' or '['")));
  EXPECT_THAT(ReadChromeJson(R"({"traceEvents":[]} [])", "bad.json"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("bad.json: byte 19: not valid JSON: unexpected content after")));
  EXPECT_THAT(ReadChromeJson(R"({"other":)", "cut.json"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("cut.json: byte 9: not valid JSON: the file ends before")));
}

// A profiler killed while writing leaves a file cut inside the event array: what is whole is read.
TEST(ChromeReader, ATruncatedFileIsReadUpToItsLastWholeEvent) {
  for (std::string_view cut : {R"({"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1},{"ph":"X","na)",
                               R"([{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1},)",
                               R"([{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1})"}) {
    Result<Trace> r = ReadChromeJson(cut, "cut.json");
    ASSERT_THAT(r, IsOk()) << cut;
    EXPECT_EQ(r->event_count(), 2u) << cut;
    EXPECT_EQ(r->diagnostics().Count(Diag::kFileTruncated), 1u) << cut;
    EXPECT_THAT(fmt::format("{}", fmt::join(DiagnosticNotes(r->diagnostics()), "\n")),
                HasSubstr(fmt::format("cut.json: the file ends at byte {} inside the event array", cut.size())));
  }
  Result<Trace> whole = ReadChromeJson(R"([{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1}])", "whole.json");
  ASSERT_THAT(whole, IsOk());
  EXPECT_EQ(whole->diagnostics().Count(Diag::kFileTruncated), 0u);
}

// Cut at every byte: an error only while the cut is before the event array; after that, the
// whole events before the cut are read and the cut is noted.
TEST(ChromeReader, ACutAtEveryByteReadsTheWholeEventsBeforeIt) {
  const std::string trace = R"({"schemaVersion": 1, "traceEvents": [
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1.5,"dur":2,"args":{"correlation":7}},
    {"ph":"X","cat":"kernel","name":"k<\"a\">","pid":0,"tid":7,"ts":4,"dur":1,"args":{"correlation":7,"device":0,"stream":7}}
  ], "baseTimeNanoseconds": 1000})";
  const size_t events_at = trace.find('[') + 1, second = trace.find("{\"ph\"", trace.find("{\"ph\"") + 1);
  size_t last_events = 0;
  for (size_t n = 1; n < trace.size(); ++n) {
    Result<Trace> r = ReadChromeJson(std::string_view(trace).substr(0, n), "cut.json");
    if (n < events_at) {
      EXPECT_FALSE(r.ok()) << n;
      continue;
    }
    ASSERT_THAT(r, IsOk()) << n;
    EXPECT_EQ(r->diagnostics().Count(Diag::kFileTruncated), 1u) << n;
    const size_t events = r->event_count();
    EXPECT_GE(events, last_events) << n;  // more of the file, never fewer events
    if (n < second) {
      EXPECT_LE(events, 2u) << n;
    }
    last_events = events;
  }
  EXPECT_EQ(last_events, 4u);
  Result<Trace> whole = ReadChromeJson(trace, "whole.json");
  ASSERT_THAT(whole, IsOk());
  EXPECT_EQ(whole->event_count(), 4u);
  EXPECT_EQ(whole->diagnostics().Count(Diag::kFileTruncated), 0u);
}

// A regular file is mapped (ReadChromeJsonFile), a pipe read whole (ReadChromeJson): one result.
TEST(ChromeReader, AFileAndAPipeReadTheSame) {
  const std::string trace = R"({"traceEvents":[{"ph":"X","name":"a","ts":1.5,"dur":2,"pid":1,"tid":1},
    {"ph":"X","name":"b","ts":2,"dur":1,"pid":1,"tid":2},{"ph":"Q"}], "baseTimeNanoseconds": 5000})";
  TempDir dir("chrome_reader_test");
  ASSERT_TRUE(WriteTestFile(dir / "t.json", trace));
  Result<Trace> file = ReadTrace(dir / "t.json");
  Result<Trace> pipe = ReadThroughFifo(dir / "p.json", trace, [](const std::string& p) { return ReadTrace(p); });
  ASSERT_THAT(file, IsOk());
  ASSERT_THAT(pipe, IsOk());
  EXPECT_EQ(file->event_count(), 4u);
  EXPECT_EQ(pipe->event_count(), file->event_count());
  EXPECT_EQ(pipe->origin_ns(), file->origin_ns());
  EXPECT_EQ(pipe->diagnostics().Count(Diag::kSkippedRecords), 1u);
  EXPECT_EQ(file->diagnostics().Count(Diag::kSkippedRecords), 1u);
  EXPECT_THAT(ReadTrace(dir / "t.json", "chrome"), IsOk());
}

TEST(ChromeReader, WrongShapesAreNamed) {
  EXPECT_THAT(ReadChromeJson(R"({"events":[]})", "a.json"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("\"traceEvents\" array")));
}

TEST(ChromeReader, OverlappingSlicesAreCutNotFatal) {
  Result<Trace> r = ReadChromeJson(
      R"([{"ph":"X","name":"a","ts":0,"dur":10,"pid":1,"tid":1},{"ph":"X","name":"b","ts":5,"dur":10,"pid":1,"tid":1}])",
      "o.json");
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->diagnostics().Count(Diag::kTruncatedSlices), 1u);
  EXPECT_THAT(r->events(LocationId(0)).time, ElementsAre(0, 5000, 10000, 10000));
}

TEST(ChromeReader, Sniffing) {
  EXPECT_TRUE(LooksLikeChromeJson("  \n{\"traceEvents\":[]}"));
  EXPECT_TRUE(LooksLikeChromeJson("[]"));
  EXPECT_FALSE(LooksLikeChromeJson(" start 1 1 290"));
}

}  // namespace
}  // namespace grainscope
