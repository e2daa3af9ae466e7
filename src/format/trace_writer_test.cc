// Every writer keeps unmatched messages as what they are (issue 17): a receive whose send was
// never recorded, a send nobody received, with the other side unknown or known. Read back, the
// trace has the same matched and unmatched messages.
#include "format/trace_writer.h"

#include <unistd.h>

#include <filesystem>
#include <string>
#include <tuple>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/progress.h"
#include "base/status_matchers.h"
#include "format/trace_reader.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

namespace fs = std::filesystem;

// Two locations; threads (a .gst file) or ranks of one communicator (a .gst rank directory).
// Location 0 sends "item" (received) and "lost" (never received, receiver unknown); location 1
// receives "item" twice, the second without a recorded send (sender unknown). Ranks add a send
// to a known rank that never arrived.
Trace Unmatched(bool ranks) {
  TraceBuilder b("test");
  const LocationKind kind = ranks ? LocationKind::kRank : LocationKind::kThread;
  const LocationId p0 = b.AddLocation("p0", kind, 0), p1 = b.AddLocation("p1", kind, 1);
  CommunicatorId comm;
  if (ranks) comm = b.AddCommunicator("MPI_COMM_WORLD", {p0, p1});
  const RegionId work = b.AddRegion("work", RegionRole::kGrain, 1);
  const MessageId item = b.AddMessage({p0, p1, 0, "item", 8, comm});
  const MessageId unsent = b.AddMessage({LocationId(), p1, 0, "item", 8, comm});
  const MessageId lost = b.AddMessage({p0, LocationId(), 0, "lost", 16, comm});
  b.Enter(p0, 0, work);
  b.Send(p0, 1, item);
  b.Send(p0, 2, lost);
  if (ranks) b.Send(p0, 3, b.AddMessage({p0, p1, 5, "", 4, comm}));
  b.Leave(p0, 4, work);
  b.Enter(p1, 0, work);
  b.Recv(p1, 5, item);
  b.Recv(p1, 6, unsent);
  b.Leave(p1, 7, work);
  Result<Trace> t = b.Finish();
  EXPECT_THAT(t, IsOk());
  return std::move(t).value();
}

// (matched, unmatched with the sender unknown, with the receiver unknown, with both sides known)
std::tuple<int, int, int, int> Counts(const Trace& t) {
  const MessageTable& m = t.messages();
  int matched = 0, unsent = 0, unreceived = 0, known = 0;
  for (uint32_t i = 0; i < m.size(); ++i) {
    if (m.matched(MessageId(i))) {
      ++matched;
    } else if (!m.sender[i].valid()) {
      ++unsent;
    } else if (!m.receiver[i].valid()) {
      ++unreceived;
    } else {
      ++known;
    }
  }
  return {matched, unsent, unreceived, known};
}

class UnmatchedRoundTrip : public ::testing::TestWithParam<std::tuple<const char*, bool>> {};

TEST_P(UnmatchedRoundTrip, KeepsMatchedAndUnmatchedCounts) {
  const auto [extension, ranks] = GetParam();
  const Trace original = Unmatched(ranks);
  ASSERT_EQ(Counts(original), std::make_tuple(1, 1, 1, ranks ? 1 : 0));
  const fs::path dir = fs::path(::testing::TempDir()) / fmt::format("gs-unmatched-{}", getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / fmt::format("{}{}", ranks ? "ranks" : "threads", extension)).string();
  ASSERT_THAT(WriteTrace(original, path), IsOk());
  Result<Trace> back = ReadTrace(path);
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(Counts(*back), Counts(original)) << path;
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(EveryWriter, UnmatchedRoundTrip,
                         ::testing::Combine(::testing::Values(".otf2", ".json", ".gst"), ::testing::Bool()),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) + 1) + (std::get<1>(info.param) ? "Ranks" : "Threads");
                         });

// No format holds dependency edges yet: every writer leaves them out and says so, never silently.
TEST(WriteTrace, SaysItLeavesDependencyEdgesOut) {
  TraceBuilder b("test");
  const LocationId p0 = b.AddLocation("p0", LocationKind::kThread, 0), p1 = b.AddLocation("p1", LocationKind::kThread, 1);
  const RegionId work = b.AddRegion("work", RegionRole::kGrain, 1);
  b.Enter(p0, 0, work);
  b.Leave(p0, 5, work);
  b.Enter(p1, 6, work);
  b.Leave(p1, 9, work);
  b.AddDependency(DependencyKind::kJoin, p0, 1, p1, 0);
  Result<Trace> t = b.Finish();
  ASSERT_THAT(t, IsOk());
  const fs::path dir = fs::temp_directory_path() / fmt::format("gs_writer_deps_{}", getpid());
  fs::create_directories(dir);
  for (const char* name : {"t.gst", "t.json", "t.otf2"}) {
    std::vector<std::string> notes;
    ASSERT_THAT(WriteTrace(*t, (dir / name).string(), "auto", {}, &notes), IsOk());
    ASSERT_EQ(notes.size(), 1u) << name;
    EXPECT_THAT(notes[0], ::testing::HasSubstr("1 dependency edge(s)"));
  }
  fs::remove_all(dir);
  // Edges derived from sync events are written: their events are, and every reader derives them.
  TraceBuilder s("test");
  const LocationId s0 = s.AddLocation("s0", LocationKind::kThread, 0), s1 = s.AddLocation("s1", LocationKind::kThread, 1);
  s.Sync(s0, 1, SyncKind::kThreadCreate, 7);
  s.Sync(s1, 2, SyncKind::kThreadBegin, 7);
  s.AddDependency(DependencyKind::kJoin, s0, 0, s1, 0);  // a reader's own edge between the same events
  Result<Trace> synced = s.Finish();
  ASSERT_THAT(synced, IsOk());
  ASSERT_EQ(synced->dependencies().size(), 2u);
  EXPECT_EQ(DependenciesNotWrittenNote(*synced, "x"), "") << "both end at sync events";
  Result<Trace> none = TraceBuilder("test").Finish();
  ASSERT_THAT(none, IsOk());
  EXPECT_EQ(DependenciesNotWrittenNote(*none, "x"), "");
}

// Writing goes through the registry (format/exporter.h): every writer is found by its name and,
// under "auto", by each of its extensions, and writes what the reader of that name (if any) reads.
TEST(WriteTrace, TheRegistryDrivesWriting) {
  std::vector<std::string_view> names = {"auto"};
  const Trace original = Unmatched(false);
  const fs::path dir = fs::temp_directory_path() / fmt::format("gs_writer_registry_{}", getpid());
  fs::create_directories(dir);
  for (const Exporter* writer : Exporters()) {
    names.push_back(writer->name);
    EXPECT_EQ(FindExporter(writer->name), writer);
    EXPECT_FALSE(writer->what.empty()) << writer->name;
    ASSERT_FALSE(writer->extensions.empty()) << writer->name;
    for (std::string_view extension : writer->extensions) {
      const std::string path = (dir / fmt::format("t{}", extension)).string();
      EXPECT_EQ(ExporterForPath(path), writer) << path;
      EXPECT_EQ(ExporterForPath(path + "/"), writer) << "a directory named " << path;
      ASSERT_THAT(WriteTrace(original, path), IsOk()) << path;
      ASSERT_TRUE(fs::exists(path)) << path;
      EXPECT_STREQ(progress::Read().phase, "writing") << "what the progress bar calls it";
      if (FindImporter(writer->name) == nullptr) continue;
      Result<Trace> back = ReadTrace(path);
      ASSERT_THAT(back, IsOk()) << path;
      EXPECT_EQ(back->format(), writer->name);
    }
  }
  fs::remove_all(dir);
  EXPECT_EQ(WritableFormats(), names);
  EXPECT_EQ(FindExporter("auto"), nullptr);
  EXPECT_EQ(ExporterForPath("out.xyz"), nullptr);
}

TEST(WriteTrace, AnUnknownExtensionOrNameListsTheKnownOnes) {
  const Trace t = Unmatched(false);
  EXPECT_THAT(WriteTrace(t, "out.xyz"),
              StatusIs(StatusCode::kInvalidArgument,
                       "out.xyz: cannot tell the output format from the extension '.xyz' (.otf2, .json, .gst or .csv); "
                       "name it (known: auto, otf2, chrome, gst, csv)"));
  EXPECT_THAT(WriteTrace(t, "out.gst", "paraver"),
              StatusIs(StatusCode::kInvalidArgument, "unknown output format 'paraver' (known: auto, otf2, chrome, gst, csv)"));
  EXPECT_EQ(OutputExtensionsHelp(),
            ".otf2: OTF2 for Vampir and Scalasca, .json: Chrome trace events for Perfetto and chrome://tracing, "
            ".gst: grainscope's own format, a directory of rank files for MPI traces, .csv: Pipit's CSV, one event "
            "per row (Pipit, pandas)");
}

// What an output of each writer occupies besides its path: only an OTF2 anchor has more.
TEST(PathsBesides, AnOtf2AnchorAlsoOccupiesItsDefinitionsAndDirectory) {
  EXPECT_EQ(PathsBesides("run/a.otf2"), (std::vector<std::string>{"run/a.def", "run/a"}));
  EXPECT_EQ(PathsBesides("a.otf2/"), std::vector<std::string>{}) << "a directory named a.otf2";
  EXPECT_EQ(PathsBesides("a.gst"), std::vector<std::string>{});
  EXPECT_EQ(PathsBesides("a.json"), std::vector<std::string>{});
  EXPECT_EQ(PathsBesides("a"), std::vector<std::string>{});
}

}  // namespace
}  // namespace grainscope
