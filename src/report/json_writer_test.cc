#include "report/json_writer.h"

#include <gtest/gtest.h>

#include "base/parallel.h"
#include "report/notes.h"

namespace grainscope {
namespace {

using Json = nlohmann::ordered_json;

// Elements of every shape: nested objects and arrays, empty ones, escapes and non-ASCII text.
Json Element(size_t i) {
  return Json{{"name", i == 1 ? "a \"quoted\"\nline\t\u00e9" : "x"},
              {"n", static_cast<int64_t>(i) - 1},
              {"fraction", 0.1 * static_cast<double>(i)},
              {"nested", Json{{"empty", Json::array()}, {"list", Json::array({1, Json::object(), Json{{"k", nullptr}}})}}}};
}

TEST(JsonReportWriter, WritesTheBytesOfTheWholeDump) {
  Json whole;
  whole["length_ns"] = 5;
  whole["path"] = Json::array();
  for (size_t i = 0; i < 3; ++i) whole["path"].push_back(Element(i));
  whole["none"] = Json::array();
  whole["object"] = Json{{"a", 1}};
  const std::vector<std::string> notes = {"a note"};
  std::string out;
  TextSink sink(out);
  JsonReportWriter w(sink);
  w.Member("length_ns", 5);
  w.Array("path", 3, Element);
  w.Array("none", 0, Element);
  w.Member("object", Json{{"a", 1}});
  w.Finish(notes);
  EXPECT_EQ(out, FinishJson(whole, notes));
  whole["notes"] = Json::array({"a note"});
  EXPECT_EQ(out, whole.dump(2) + "\n");
}

TEST(JsonReportWriter, ObjectsOfArraysNestAsTheDump) {
  Json whole;
  whole["processors"] = Json::array();
  for (size_t p = 0; p < 3; ++p) {
    Json lane;
    lane["id"] = p;
    lane["tasks"] = Json::array();
    for (size_t i = 0; i < p; ++i) lane["tasks"].push_back(Element(i));
    whole["processors"].push_back(lane);
  }
  whole["processors"].push_back(Json::object());
  std::string out;
  TextSink sink(out);
  JsonReportWriter w(sink);
  w.ObjectArray("processors", 4, [](size_t p, JsonReportWriter& lane) {
    if (p == 3) return;  // an object with no member
    lane.Member("id", p);
    lane.Array("tasks", p, Element);
  });
  w.Finish({});
  EXPECT_EQ(out, whole.dump(2) + "\n");
}

// A long array is formatted a chunk per task on several threads: the same bytes as the dump.
TEST(JsonReportWriter, LongArraysOnSeveralThreadsWriteTheBytesOfTheDump) {
  constexpr size_t kElements = 30000;  // several chunks of AppendInOrder's 8192
  Json whole;
  whole["path"] = Json::array();
  for (size_t i = 0; i < kElements; ++i) whole["path"].push_back(Element(i % 5));
  SetThreads(3);
  std::string out;
  TextSink sink(out);
  JsonReportWriter w(sink);
  w.Array("path", kElements, [](size_t i) { return Element(i % 5); });
  w.Finish({});
  SetThreads(0);
  EXPECT_TRUE(out == whole.dump(2) + "\n");
}

TEST(JsonReportWriter, AnEmptyReportIsAnEmptyObject) {
  std::string out;
  TextSink sink(out);
  JsonReportWriter(sink).Finish({});
  EXPECT_EQ(out, "{}\n");
}

// A trace's strings need not be UTF-8 (a seed trace's names are bytes): a report names them with
// U+FFFD in place of each bad byte instead of throwing (taskgraph -f json and dump -f json of such
// a trace aborted).
TEST(JsonReportWriter, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  EXPECT_EQ(JsonReportWriter::Dump(Json("arc\xff" "12")), "\"arc\xEF\xBF\xBD" "12\"");
  std::string out;
  TextSink sink(out);
  JsonReportWriter w(sink);
  w.Member("k\xfe", "v\xc3");
  w.Array("a", 1, [](size_t) { return Json{{"name", "x\xff"}}; });
  w.Finish({"note \xff"});
  EXPECT_EQ(Json::parse(out)["a"][0]["name"], "x\xEF\xBF\xBD");
  EXPECT_EQ(Json::parse(out)["k\xEF\xBF\xBD"], "v\xEF\xBF\xBD");
}

}  // namespace
}  // namespace grainscope
