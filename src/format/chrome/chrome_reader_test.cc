#include "format/chrome/chrome_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"

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
  EXPECT_THAT(main.kind, ElementsAre(EventKind::kEnter, EventKind::kMarker, EventKind::kEnter, EventKind::kSend,
                                     EventKind::kLeave, EventKind::kLeave));
  EXPECT_THAT(main.time, ElementsAre(10000, 11000, 12500, 13000, 14500, 20000));
  ASSERT_EQ(t.messages().size(), 1u);
  EXPECT_TRUE(t.messages().matched(MessageId(0)));
  EXPECT_EQ(t.messages().receiver[0], LocationId(0));
  EXPECT_EQ(t.diagnostics().Count("skipped_records"), 1u);
}

TEST(ChromeReader, MalformedJsonNamesTheByteOffset) {
  EXPECT_THAT(ReadChromeJson(R"({"traceEvents":[{"ph":"X",}]})", "bad.json"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("bad.json: byte 27: not valid JSON: parse error at line 1, column 27")));
  EXPECT_THAT(ReadChromeJson(R"({"traceEvents":[)", "cut.json"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("cut.json: byte 17: not valid JSON")));
}

TEST(ChromeReader, WrongShapesAreNamed) {
  EXPECT_THAT(ReadChromeJson(R"({"events":[]})", "a.json"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("\"traceEvents\" array")));
  EXPECT_THAT(ReadChromeJson(R"([{"ph":"X","name":"a","ts":"12","pid":1,"tid":1}])", "b.json"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("b.json: traceEvents[0]: 'ts' must be a number")));
  EXPECT_THAT(ReadChromeJson(R"([{"name":"a"}])", "c.json"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("traceEvents[0]: 'ph' (the phase) is missing")));
}

TEST(ChromeReader, OverlappingSlicesAreCutNotFatal) {
  Result<Trace> r = ReadChromeJson(
      R"([{"ph":"X","name":"a","ts":0,"dur":10,"pid":1,"tid":1},{"ph":"X","name":"b","ts":5,"dur":10,"pid":1,"tid":1}])",
      "o.json");
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->diagnostics().Count("truncated_slices"), 1u);
  EXPECT_THAT(r->events(LocationId(0)).time, ElementsAre(0, 5000, 10000, 10000));
}

TEST(ChromeReader, Sniffing) {
  EXPECT_TRUE(LooksLikeChromeJson("  \n{\"traceEvents\":[]}"));
  EXPECT_TRUE(LooksLikeChromeJson("[]"));
  EXPECT_FALSE(LooksLikeChromeJson(" start 1 1 290"));
}

}  // namespace
}  // namespace grainscope
