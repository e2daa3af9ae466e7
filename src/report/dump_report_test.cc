#include "report/dump_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/trace_script.h"

namespace grainscope {
namespace {

using testing::HasSubstr;

// Two ranks: a message from rank 0 to rank 1, a broadcast rooted at rank 1, and a message whose
// receive was never recorded.
Trace Sample() {
  TraceScript s(2);
  s.builder().SetOrigin(1000);
  const MessageId m = s.Message(0, 1, 7, 64);
  const MessageId lost = s.Message(1, 0, 9, 8);
  s.Work(0, "solve", 1000, 1010);
  s.Send(0, m, 1010);
  s.Recv(1, m, 1000, 1030);
  const CollectiveId b = s.Collective(CollectiveOp::kBroadcast, 1);
  s.Join(0, b, 1040, 1060);
  s.Join(1, b, 1050, 1060);
  s.Send(1, lost, 1070);
  s.builder().diagnostics().Add(Diag::kSendsWithoutReceive, "x: a message never received");
  return s.Finish();
}

TEST(DumpReportTest, TextNamesEveryEventMessageCollectiveAndDiagnostic) {
  RenderOptions o;
  o.source = "sample";
  o.top = 0;
  Result<std::string> out = RenderDump(Sample(), o);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_THAT(*out, HasSubstr("origin_ns 1000  start_ns 0  end_ns 70  events 19"));
  EXPECT_THAT(*out, HasSubstr("events of rank 0 (9):"));
  EXPECT_THAT(*out, HasSubstr("index=3 time_ns=10 kind=send message=0 peer=\"rank 1\" tag=7 bytes=64 "
                              "communicator=world"));
  EXPECT_THAT(*out, HasSubstr("message=0 send=\"rank 0#3 @10\" recv=\"rank 1#1 @30\" sender=\"rank 0\" "
                              "receiver=\"rank 1\" tag=7 bytes=64 communicator=world"));
  EXPECT_THAT(*out, HasSubstr("collective=0 op=broadcast shape=one_to_all communicator=world root=\"rank 1\""));
  EXPECT_THAT(*out, HasSubstr("location=\"rank 1\" enter=\"rank 1#4 @50\" leave=\"rank 1#5 @60\""));
  EXPECT_THAT(*out, HasSubstr("unmatched message ends (1):\n    message=1 send=\"rank 1#8 @70\" recv=-"));
  EXPECT_THAT(*out, HasSubstr("name=sends_without_receive count=1"));
}

TEST(DumpReportTest, TopCutsEverySectionAndSaysHowManyRowsItHas) {
  RenderOptions o;
  o.top = 2;
  Result<std::string> out = RenderDump(Sample(), o);
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(*out, HasSubstr("events of rank 0 (9):\n    index=0"));
  EXPECT_THAT(*out, HasSubstr("    ... 7 more rows (--top N or --all shows them)\n"));
  EXPECT_THAT(*out, testing::Not(HasSubstr("index=3 time_ns=10")));
}

TEST(DumpReportTest, JsonHasTheSameSectionsAndIsStable) {
  RenderOptions o;
  o.format = OutputFormat::kJson;
  o.top = 0;
  Result<std::string> out = RenderDump(Sample(), o);
  ASSERT_TRUE(out.ok());
  const nlohmann::json j = nlohmann::json::parse(*out);
  EXPECT_EQ(j["origin_ns"], 1000);
  std::vector<std::string> titles;
  for (const auto& s : j["sections"]) titles.push_back(s["section"]);
  EXPECT_THAT(titles, testing::ElementsAre("locations", "regions", "communicators", "events of rank 0",
                                           "events of rank 1", "messages", "collectives", "dependencies",
                                           "unmatched message ends", "diagnostics"));
  const auto& collective = j["sections"][6]["rows"][0];
  EXPECT_EQ(collective["root"], "rank 1");
  EXPECT_EQ(collective["members"][0]["enter"], "rank 0#6 @40");
  EXPECT_EQ(*out, *RenderDump(Sample(), o)) << "deterministic";
}

TEST(DumpReportTest, CsvIsRefused) {
  RenderOptions o;
  o.format = OutputFormat::kCsv;
  EXPECT_FALSE(RenderDump(Sample(), o).ok());
}

}  // namespace
}  // namespace grainscope
