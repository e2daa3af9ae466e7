#include "format/chrome/chrome_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/status_matchers.h"

namespace grainscope::chrome {
namespace {

using ::testing::HasSubstr;

int64_t Ns(std::string_view micros) {
  int64_t ns = -1;
  EXPECT_TRUE(MicrosToNs(micros, &ns)) << micros;
  return ns;
}

TEST(MicrosToNs, ConvertsDecimalsExactly) {
  EXPECT_EQ(Ns("12"), 12000);
  EXPECT_EQ(Ns("12.5"), 12500);
  EXPECT_EQ(Ns("-3.25"), -3250);
  EXPECT_EQ(Ns("0.001"), 1);
  EXPECT_EQ(Ns("0.0004"), 0);
  EXPECT_EQ(Ns("0.0005"), 1);     // half away from zero
  EXPECT_EQ(Ns("-0.0005"), -1);
  EXPECT_EQ(Ns("1.5e3"), 1500000);
  EXPECT_EQ(Ns("25E-1"), 2500);
  EXPECT_EQ(Ns("007.000"), 7000);
  // A double is off by a nanosecond here; Kineto writes such times (nccl.json).
  EXPECT_EQ(Ns("4458676522690.655"), 4458676522690655);
  // Unix-epoch microseconds with a fraction, which no double holds to the nanosecond.
  EXPECT_EQ(Ns("1694039968955744.123"), 1694039968955744123);
  EXPECT_EQ(Ns("9223372036854775.807"), INT64_MAX);
  EXPECT_EQ(Ns("0.00000000000000000000000000000000000000000001"), 0);
}

TEST(MicrosToNs, RejectsWhatIsNotANumberOrDoesNotFit) {
  int64_t ns;
  for (std::string_view bad : {"", "-", ".", "1.2.3", "12us", "e5", "1e", "0x10", " 1", "9223372036854775.808",
                               "1e17", "-9223372036854775.809", "123456789012345678901234567890123456789012"})
    EXPECT_FALSE(MicrosToNs(bad, &ns)) << bad;
}

TEST(ParseKeepingDecimals, KeepsFractionsAsTextAndIntegersAsIntegers) {
  Result<nlohmann::json> doc = ParseKeepingDecimals(R"({"ts": 4458676522690.655, "dur": 12, "x": -1.5e3})", "t.json");
  ASSERT_THAT(doc, IsOk());
  EXPECT_EQ((*doc)["ts"], "4458676522690.655");
  EXPECT_TRUE((*doc)["dur"].is_number_integer());
  EXPECT_EQ((*doc)["x"], "-1.5e3");
}

TEST(ParseKeepingDecimals, MalformedJsonNamesTheByteOffset) {
  EXPECT_THAT(ParseKeepingDecimals(R"({"a": [1, 2,]})", "bad.json"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("bad.json: byte 12: not valid JSON")));
}

TEST(EventParser, ReadsTheFieldsAndArgsOfAnEvent) {
  EventParser parser;
  JsonEvent ev;
  std::string why;
  ASSERT_TRUE(parser.Parse(R"({"ph":"X","name":"k\u00e9","pid":"Spans","tid":7,"ts":4458676522690.655,"dur":"12",
      "id":null,"extra":{"deep":[1,2]},"args":{"correlation":57532,"stream":4294967295,"grid":[1, 1],"Seq":"3",
      "x":1.5e3,"ok":true,"peer":null}})", &ev, &why)) << why;
  EXPECT_EQ(ev.ph.text, "X");
  EXPECT_EQ(ev.name.text, "k\xc3\xa9");  // unescaped
  EXPECT_TRUE(ev.pid.is_string());
  EXPECT_EQ(ev.tid.Int(), 7);
  EXPECT_EQ(ev.ts.kind, JsonValue::kString);  // a fraction: its digits, as text
  EXPECT_EQ(ev.ts.text, "4458676522690.655");
  EXPECT_EQ(ev.dur.text, "12");
  EXPECT_EQ(ev.id.kind, JsonValue::kNull);
  EXPECT_EQ(ev.id.Key(), "null");
  EXPECT_FALSE(ev.bp.present());
  EXPECT_EQ(ev.args.Int("correlation", -1), 57532);
  EXPECT_EQ(ev.args.Int("stream", -1), 4294967295);
  EXPECT_EQ(ev.args.Int("Seq", -1), -1);  // a string is no integer
  EXPECT_EQ(ev.args.String("Seq"), "3");
  EXPECT_EQ(ev.args.Find("grid")->text, "[1, 1]");
  EXPECT_EQ(ev.args.String("x"), "1.5e3");
  EXPECT_EQ(ev.args.Find("ok")->text, "true");
  EXPECT_EQ(ev.args.ToJson().dump(), R"({"Seq":"3","correlation":57532,"grid":[1,1],"ok":true,"peer":null,"stream":4294967295,"x":"1.5e3"})");
  // The next event reuses the buffers: nothing of this one is left.
  ASSERT_TRUE(parser.Parse(R"({"ph":"i"})", &ev, &why));
  EXPECT_FALSE(ev.name.present());
  EXPECT_FALSE(ev.args.present);
  EXPECT_TRUE(ev.args.members.empty());
}

TEST(EventParser, SaysWhatIsWrong) {
  EventParser parser;
  JsonEvent ev;
  std::string why;
  EXPECT_FALSE(parser.Parse("[1]", &ev, &why));
  EXPECT_EQ(why, "expected an object, got array");
  EXPECT_FALSE(parser.Parse("5", &ev, &why));
  EXPECT_EQ(why, "expected an object, got number");
  EXPECT_FALSE(parser.Parse(R"({"ph":"X",})", &ev, &why));
  EXPECT_THAT(why, HasSubstr("not valid JSON"));
  EXPECT_FALSE(parser.Parse(R"({"ts":01})", &ev, &why));
  EXPECT_THAT(why, HasSubstr("'01' is not a number"));
}

TEST(EventSplitter, SplitsElementsAndFindsTheEndOrTheCut) {
  const std::string_view doc = R"([ {"a":"]}\"{"} , [1,[2]] ,3 ] )";
  EventSplitter s(doc, 1, "t.json");
  std::vector<std::string> got;
  std::string_view e;
  size_t offset = 0;
  while (*s.Next(&e, &offset)) got.emplace_back(e);
  EXPECT_THAT(got, ::testing::ElementsAre(R"({"a":"]}\"{"})", "[1,[2]]", "3"));
  EXPECT_TRUE(s.closed());
  EXPECT_EQ(s.position(), doc.size() - 1);
  EventSplitter cut(R"([{"a":1}, {"b":)", 1, "t.json");
  EXPECT_TRUE(*cut.Next(&e, &offset));
  EXPECT_FALSE(*cut.Next(&e, &offset));
  EXPECT_FALSE(cut.closed());
  EXPECT_EQ(cut.cut(), 10u);
}

TEST(ScanDocument, KeepsTheOtherMembersAndFindsTheEvents) {
  const std::string_view doc = R"({"schemaVersion": 1, "traceEvents": [{"ph":"X"}], "baseTimeNanoseconds": 1700000000000000000, "x\ty": 2.5})";
  Result<DocumentLayout> l = ScanDocument(doc, "t.json");
  ASSERT_THAT(l, IsOk());
  EXPECT_EQ(l->header.dump(), R"({"baseTimeNanoseconds":1700000000000000000,"schemaVersion":1,"x\ty":"2.5"})");
  EXPECT_EQ(doc.substr(l->events_begin, 10), R"({"ph":"X"})");
  EXPECT_FALSE(l->truncated);
  EXPECT_THAT(ScanDocument(R"({"events": []})", "t.json"), StatusIs(StatusCode::kDataLoss, HasSubstr("\"traceEvents\" array")));
}

}  // namespace
}  // namespace grainscope::chrome
