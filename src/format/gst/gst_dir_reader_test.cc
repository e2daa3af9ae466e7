#include "format/gst/gst_dir_reader.h"

#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "format/trace_reader.h"
#include "format/trace_writer.h"
#include "model/exact_dump_test_util.h"

namespace grainscope {
namespace {

namespace fs = std::filesystem;

void ExpectSameOnAnyThreads(const std::string& dir) {
  Result<Trace> one = ReadGstDirectory(dir, ReadOptions{.threads = 1});
  ASSERT_THAT(one, IsOk());
  EXPECT_GT(one->event_count(), 0u);
  for (unsigned threads : {2u, 3u, 8u}) {
    SCOPED_TRACE(threads);
    Result<Trace> many = ReadGstDirectory(dir, ReadOptions{.threads = threads});
    ASSERT_THAT(many, IsOk());
    EXPECT_EQ(testing_util::ExactDump(*one), testing_util::ExactDump(*many));
  }
}

TEST(GstDirectoryReader, ExampleRankDirectoryIsTheSameOnAnyNumberOfThreads) {
  const std::string dir = std::string(GRAINSCOPE_EXAMPLES_DIR) + "/traces/mpi_barrier_imbalance";
  ExpectSameOnAnyThreads(dir);
  Result<Trace> t = ReadGstDirectory(dir);
  ASSERT_THAT(t, IsOk());
  // The labels became model rows, not markers: communicators, collectives, clock metadata.
  EXPECT_GT(t->collectives().size(), 0u);
  EXPECT_FALSE(t->communicators().empty());
  EXPECT_EQ(t->str(t->communicators()[0].name), "MPI_COMM_WORLD");
  for (uint32_t l = 0; l < t->locations().size(); ++l) {
    const EventColumns& ev = t->events(LocationId(l));
    for (size_t i = 0; i < ev.size(); ++i) {
      if (ev.kind[i] == EventKind::kMarker) {
        EXPECT_FALSE(t->str(StringId(ev.arg[i])).starts_with("mpi."));
      }
    }
  }
}

// A bigger directory with messages: the corpus's OTF2 ping-pong written as rank files.
TEST(GstDirectoryReader, ConvertedCorpusTraceIsTheSameOnAnyNumberOfThreads) {
  const std::string path = std::string(GRAINSCOPE_CORPUS_DIR) + "/pipit/ping-pong-otf2/traces.otf2";
  if (!fs::exists(path)) GTEST_SKIP() << "corpus trace " << path << " is absent (../shared/corpus)";
  Result<Trace> original = ReadTrace(path);
  ASSERT_THAT(original, IsOk());
  const std::string dir = (fs::path(::testing::TempDir()) / fmt::format("gs-gstdir-{}.gst", getpid())).string();
  fs::remove_all(dir);
  ASSERT_THAT(WriteTrace(*original, dir), IsOk());
  ASSERT_TRUE(fs::is_directory(dir));
  ExpectSameOnAnyThreads(dir);
  Result<Trace> t = ReadGstDirectory(dir, ReadOptions{.threads = 4});
  ASSERT_THAT(t, IsOk());
  EXPECT_EQ(t->messages().size(), original->messages().size());
  EXPECT_EQ(t->diagnostics().Count(Diag::kSendsWithoutReceive), 0u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace grainscope
