#include "report/html_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/critpath/critpath.h"
#include "analysis/waits/call_sites.h"
#include "analysis/waits/wait_states.h"
#include "model/trace_script.h"
#include "report/lod.h"

namespace grainscope {
namespace {

// The page's data: the JSON between <script type="application/json" id="gs-data"> and </script>.
nlohmann::json PageData(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"gs-data\">";
  const size_t a = page.find(open) + open.size();
  const size_t b = page.find("</script>", a);
  return nlohmann::json::parse(page.substr(a, b - a));
}

Trace TwoRanks() {
  TraceScript s(2);
  const MessageId m = s.Message(0, 1);
  s.Work(0, "solve </script> <b>", 0, 10);
  s.Send(0, m, 10);
  s.Recv(1, m, 0, 30);
  s.Work(1, "use", 30, 40);
  return s.Finish();
}

TEST(HtmlReportTest, OneSelfContainedPageWithItsDataInline) {
  const Trace t = TwoRanks();
  const TraceSummary summary = Summarize(t);
  HtmlReportInputs in;
  in.source = "two<ranks>.otf2";
  in.trace = &t;
  in.summary = &summary;
  Result<std::string> page = RenderHtmlReport(in);
  ASSERT_TRUE(page.ok()) << page.status().message();
  EXPECT_THAT(*page, testing::HasSubstr("<title>grainscope: two&lt;ranks&gt;.otf2</title>"));
  EXPECT_THAT(*page, testing::Not(testing::HasSubstr("@JS@")));
  EXPECT_THAT(*page, testing::Not(testing::HasSubstr("src=\"http")));
  const nlohmann::json d = PageData(*page);  // a region name holding "</script>" does not end it
  EXPECT_EQ(d["lanes"].size(), 2u);
  EXPECT_EQ(d["grains"]["count"], 2u) << "outermost computation regions: solve and use";
  EXPECT_EQ(d["messages"]["count"], 1u);
  EXPECT_EQ(d["quantum_ns"], 1);
  EXPECT_EQ(d["grains"]["levels"].size(), 0u) << "small traces carry no summary levels";
  bool named = false;
  for (const auto& r : d["regions"]) named |= r["name"] == "solve </script> <b>";
  EXPECT_TRUE(named) << "the name survives the escaping";
}

// A layer with more items than its limit is embedded as a summary on the page's grid: here the one
// message (sent at 10 ns by lane 0) and the late-sender wait (lane 1 from 0 to 10 ns), on 256
// buckets per lane over the 41 quanta of the run.
TEST(HtmlReportTest, LayersBeyondTheirLimitAreEmbeddedAsSummaries) {
  const Trace t = TwoRanks();
  const TraceSummary summary = Summarize(t);
  const CallSites calls = FindCallSites(t);
  const WaitStates waits = FindWaitStates(t, calls, {});
  ASSERT_EQ(waits.instances.size(), 1u);
  HtmlReportInputs in;
  in.trace = &t;
  in.summary = &summary;
  in.waits = &waits;
  HtmlLimits lim;
  lim.messages = lim.waits = 0;
  lim.lod_cells = 4 * 2 * 256;  // a quarter of it holds 256 buckets for 2 lanes, not 1024
  Result<std::string> page = RenderHtmlReport(in, lim);
  ASSERT_TRUE(page.ok()) << page.status().message();
  const nlohmann::json d = PageData(*page);
  EXPECT_EQ(d["messages"]["embedded"], 0u);
  EXPECT_EQ(d["messages"]["count"], 1u);
  EXPECT_EQ(d["messages"]["summary"]["buckets"], 256u);
  EXPECT_EQ(d["messages"]["summary"]["span"], 41u);
  std::vector<uint8_t> sends(2 * 256, 0);
  sends[10 * 256 / 41] = 255;  // lane 0's bucket holding 10 ns: the densest
  EXPECT_EQ(d["messages"]["summary"]["busy"], Base64(sends));
  EXPECT_EQ(d["waits"]["embedded"], 0u);
  EXPECT_EQ(d["waits"]["summary"]["busy"], Base64(CoverageCells({{}, {{0, 10, 0}}}, 41, 256)));
  EXPECT_FALSE(d["path"].contains("summary")) << "within its limit: embedded one by one";
}

// Beyond its limit, the critical path's summary covers every stretch on its own lane: here a
// ping-pong whose path crosses from rank 0 to rank 1 and back, more stretches than lanes.
TEST(HtmlReportTest, ThePathSummaryCoversEveryStretch) {
  TraceScript s(2);
  const MessageId there = s.Message(0, 1), back = s.Message(1, 0);
  s.Work(0, "a", 0, 10);
  s.Send(0, there, 10);
  s.Recv(1, there, 0, 12);
  s.Work(1, "b", 12, 20);
  s.Send(1, back, 20);
  s.Recv(0, back, 10, 22);
  s.Work(0, "c", 22, 30);
  const Trace t = s.Finish();
  const TraceSummary summary = Summarize(t);
  Result<CriticalPath> cp = ComputeCriticalPath(t);
  ASSERT_TRUE(cp.ok());
  ASSERT_GT(cp->path.size(), 2u);
  HtmlReportInputs in;
  in.trace = &t;
  in.summary = &summary;
  in.critical_path = &*cp;
  HtmlLimits lim;
  lim.path_segments = 0;
  lim.lod_cells = 4 * 2 * 256;
  Result<std::string> page = RenderHtmlReport(in, lim);
  ASSERT_TRUE(page.ok());
  std::vector<std::vector<QuantumInterval>> stretches(2);
  for (const PathSegment& seg : cp->path) {
    stretches[seg.location.value].push_back({static_cast<uint32_t>(seg.start_ns - t.origin_ns()),
                                             static_cast<uint32_t>(seg.end_ns - seg.start_ns), 0});
  }
  ASSERT_GT(stretches[0].size(), 1u) << "rank 0 holds stretches before and after rank 1's";
  const nlohmann::json d = PageData(*page);
  EXPECT_EQ(d["path"]["embedded"], 0u);
  EXPECT_EQ(d["path"]["summary"]["busy"], Base64(CoverageCells(stretches, d["path"]["summary"]["span"], 256)));
}

TEST(HtmlReportTest, ManyGrainsGetSummaryLevelsAndBeyondTheLimitNoRawGrains) {
  TraceScript s(3);
  for (int l = 0; l < 3; ++l)
    for (int i = 0; i < 100; ++i) s.Work(l, "g", 10 * i, 10 * i + 5 + l);
  const Trace t = s.Finish();
  const TraceSummary summary = Summarize(t);
  HtmlReportInputs in;
  in.trace = &t;
  in.summary = &summary;
  HtmlLimits lim;
  lim.lod_min_grains = 100;
  lim.raw_grains = 299;
  lim.lod_cells = 3 * 1024 * 4 / 3;
  Result<std::string> page = RenderHtmlReport(in, lim);
  ASSERT_TRUE(page.ok());
  const nlohmann::json d = PageData(*page);
  EXPECT_EQ(d["grains"]["count"], 300u);
  EXPECT_EQ(d["grains"]["embedded"], 0u);
  ASSERT_EQ(d["grains"]["levels"].size(), 2u);
  EXPECT_EQ(d["grains"]["levels"][0]["buckets"], 256u);
  EXPECT_EQ(d["grains"]["levels"][1]["buckets"], 1024u);
}

}  // namespace
}  // namespace grainscope
