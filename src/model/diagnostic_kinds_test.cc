#include "model/diagnostic_kinds.h"
#include "model/diagnostics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace grainscope {
namespace {

using ::testing::ElementsAre;

TEST(DiagnosticKinds, SortedUniqueAndDescribed) {
  const std::span<const DiagnosticKind> kinds = DiagnosticKinds();
  ASSERT_FALSE(kinds.empty());
  for (size_t i = 0; i < kinds.size(); ++i) {
    EXPECT_FALSE(kinds[i].description.empty()) << kinds[i].name;
    EXPECT_EQ(kinds[i].name.find(' '), std::string_view::npos) << kinds[i].name;
    if (i > 0) {
      EXPECT_LT(kinds[i - 1].name, kinds[i].name) << "FindDiagnosticKind needs the list sorted";
    }
    EXPECT_EQ(FindDiagnosticKind(kinds[i].name), &kinds[i]);
    EXPECT_EQ(static_cast<size_t>(kinds[i].id), i) << kinds[i].name << ": Diag and the table in one order";
    EXPECT_EQ(&KindOf(kinds[i].id), &kinds[i]);
  }
  EXPECT_EQ(kinds.size(), static_cast<size_t>(kDiagCount));
  EXPECT_EQ(FindDiagnosticKind("no_such_thing"), nullptr);
  EXPECT_EQ(FindDiagnosticKind(""), nullptr);
}

TEST(Diagnostics, CountsPerKindAndMerges) {
  Diagnostics a, b;
  a.Add(Diag::kSkippedLines, "first");
  a.Add(Diag::kSkippedLines, "second");
  b.AddCount(Diag::kSkippedLines, 3, "other");
  b.AddCount(Diag::kDroppedEvents, 0, "none: not an entry");
  b.AddCount(Diag::kFileTruncated, 1, "cut");
  a.Merge(b);
  EXPECT_EQ(a.Count(Diag::kSkippedLines), 5u);
  EXPECT_EQ(a.Count(Diag::kFileTruncated), 1u);
  EXPECT_EQ(a.Count(Diag::kDroppedEvents), 0u);
  ASSERT_EQ(a.entries().size(), 2u);
  EXPECT_EQ(a.entries()[0].example, "first");
  EXPECT_EQ(a.entries()[0].name, "skipped_lines");
}

TEST(DiagnosticNotes, OneLinePerKindWithCountNameAndFirstExample) {
  Diagnostics d;
  d.AddCount(Diag::kReceivesWithoutSend, 3, "q.gst: message 'item' is received but never sent");
  d.Add(Diag::kSkippedLines, "t.txt:4: not a trace record:\nhello");
  d.AddCount(Diag::kIgnoredAttributes, 7, "a.otf2: attributes");  // changes no result: info lists it, no note
  EXPECT_THAT(DiagnosticNotes(d),
              ElementsAre("3 message(s) received but never sent [receives_without_send]; first: q.gst: message 'item' is "
                          "received but never sent",
                          "1 line(s) that are not trace records (the program's own output), skipped [skipped_lines]; "
                          "first: t.txt:4: not a trace record: hello"));
}

}  // namespace
}  // namespace grainscope
