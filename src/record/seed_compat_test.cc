// The seed's timing routines: the appendix C program shape (a start grain sends the interval to
// workers, an aggregate grain collects the partial sums) on two threads standing for the seed's
// two processors. The .gst trace and the seed text printed on stdout must tell the same story.
#include "grainscope/seed_compat.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "base/file.h"
#include "format/seedtext/seedtext_reader.h"
#include "record/test_util.h"

namespace grainscope::record {
namespace {

// Runs `body` with standard output going to `file` (where the seed routines print their lines).
template <typename Body>
void WithStdoutTo(const std::string& file, Body body) {
  std::fflush(stdout);
  const int saved = dup(STDOUT_FILENO);
  const int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(fd, STDOUT_FILENO);
  body();
  std::fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(fd);
  close(saved);
}

// Processor 1 runs grains 0, 2, 6; processor 2 runs grain 1. Arcs: 0 -> 1, 0 -> 2, 1 -> 6, 2 -> 6.
void AppendixCShape() {
  initialize_clock();
  std::thread p2([] {
    get_recv_begin_time(1, "superGlue01");
    // (the interval would be taken from a queue here)
    get_recv_end_time(1, "superGlue01");
    get_grain_start_time(2, 1);
    get_grain_stop_time(2, 1);
    get_send_begin_time(1, "superGlue16");
    get_send_end_time(1, "superGlue16");
  });
  get_grain_start_time(1, 0);
  get_grain_stop_time(1, 0);
  get_send_begin_time(0, "superGlue01");
  get_send_end_time(0, "superGlue01");
  get_send_begin_time(0, "superGlue02");
  get_send_end_time(0, "superGlue02");
  get_recv_begin_time(2, "superGlue02");
  get_recv_end_time(2, "superGlue02");
  get_grain_start_time(1, 2);
  get_grain_stop_time(1, 2);
  get_send_begin_time(2, "superGlue26");
  get_send_end_time(2, "superGlue26");
  p2.join();
  get_recv_begin_time(6, "superGlue26");
  get_recv_end_time(6, "superGlue26");
  get_recv_begin_time(6, "superGlue16");
  get_recv_end_time(6, "superGlue16");
  get_grain_start_time(1, 6);
  get_grain_stop_time(1, 6);
}

TEST(SeedCompat, RecordsGrainsProcessorsAndArcsAndPrintsTheSeedText) {
  ScratchDir dir;
  const std::string path = dir.File("pi.gst"), text = dir.File("pi.txt");
  Options o = TestOptions(path);
  o.seed_text = SeedText::kPrecise;
  ASSERT_TRUE(Open(o));
  WithStdoutTo(text, AppendixCShape);
  Close();

  Trace gst = MustRead(path);
  ASSERT_EQ(gst.locations().size(), 2u);
  EXPECT_EQ(gst.str(gst.location(LocationId(0)).name), "processor 1");
  EXPECT_EQ(gst.location(LocationId(1)).external_id, 2);
  EXPECT_EQ(gst.messages().size(), 4u);
  for (uint32_t m = 0; m < gst.messages().size(); ++m) {
    EXPECT_TRUE(gst.messages().matched(MessageId(m))) << gst.str(gst.messages().name[m]);
    EXPECT_TRUE(gst.messages().send_grain[m].valid());
    EXPECT_TRUE(gst.messages().recv_grain[m].valid());
  }
  EXPECT_GE(gst.origin_ns(), 0);

  Result<std::string> content = ReadFile(text);
  ASSERT_TRUE(content.ok());
  Result<Trace> seed = ReadSeedText(*content, text);
  ASSERT_TRUE(seed.ok()) << seed.status().message() << "\n" << *content;
  ASSERT_EQ(seed->locations().size(), 2u);
  EXPECT_EQ(seed->messages().size(), gst.messages().size());
  EXPECT_EQ(seed->event_count(), gst.event_count());
  // Same grains, same processors, same arcs with the same grain ends.
  for (uint32_t m = 0; m < gst.messages().size(); ++m) {
    const std::string_view name = gst.str(gst.messages().name[m]);
    bool found = false;
    for (uint32_t k = 0; k < seed->messages().size(); ++k) {
      if (seed->str(seed->messages().name[k]) != name) continue;
      found = true;
      EXPECT_EQ(seed->region(seed->messages().send_grain[k]).external_id,
                gst.region(gst.messages().send_grain[m]).external_id);
      EXPECT_EQ(seed->region(seed->messages().recv_grain[k]).external_id,
                gst.region(gst.messages().recv_grain[m]).external_id);
    }
    EXPECT_TRUE(found) << name;
  }
}

// What the seed routines print, grainscope reads back: structure names with spaces, tabs,
// newlines, backslashes, edge spaces, or none at all name the same messages, with the same
// senders, receivers and grains, in the seed text as in the .gst trace of the same run (a space
// in a name made the printed line one the seed text reader rejected).
TEST(SeedCompat, StructureNamesOfAnyTextReadBackAsTheTraceHasThem) {
  const std::vector<std::string> names = {"block 1", "two  spaces", "x 1 2", "tab\there", "line\nbreak", "",
                                          " edges ", "back\\slash", "\"\"", "\x01control"};
  ScratchDir dir;
  const std::string path = dir.File("names.gst"), text = dir.File("names.txt");
  Options o = TestOptions(path);
  o.seed_text = SeedText::kPrecise;
  SetSeedTextOrigin(0);  // as in a fresh process: no initialize_clock(), the first line is time 0
  ASSERT_TRUE(Open(o));
  WithStdoutTo(text, [&] {
    get_grain_start_time(1, 0);
    for (const std::string& name : names) {
      get_send_begin_time(0, name.c_str());
      get_send_end_time(0, name.c_str());
    }
    get_grain_stop_time(1, 0);
    std::thread([&] {
      get_grain_start_time(2, 1);
      for (auto it = names.rbegin(); it != names.rend(); ++it) {  // in another order than sent
        get_recv_begin_time(1, it->c_str());
        get_recv_end_time(1, it->c_str());
      }
      get_grain_stop_time(2, 1);
    }).join();
  });
  Close();

  Trace gst = MustRead(path);
  Result<std::string> content = ReadFile(text);
  ASSERT_TRUE(content.ok());
  Result<Trace> seed = ReadSeedText(*content, text);
  ASSERT_TRUE(seed.ok()) << seed.status().message() << "\n" << *content;
  EXPECT_TRUE(seed->diagnostics().empty());
  // Time zero is the first event in both (the seed text's first line is 0 ms, give or take the
  // time between recording and printing it).
  EXPECT_EQ(gst.origin_ns(), gst.start_ns());
  EXPECT_LT(seed->start_ns() - seed->origin_ns(), 1'000'000);
  EXPECT_EQ(seed->event_count(), gst.event_count());
  ASSERT_EQ(gst.messages().size(), names.size());
  ASSERT_EQ(seed->messages().size(), names.size());
  // One row per name in each, with the same ends: (name, sender, receiver, send grain, receive grain).
  auto rows = [](const Trace& t) {
    std::vector<std::tuple<std::string, int64_t, int64_t, int64_t, int64_t>> out;
    const MessageTable& m = t.messages();
    for (uint32_t k = 0; k < m.size(); ++k) {
      EXPECT_TRUE(m.matched(MessageId(k)));
      out.emplace_back(std::string(t.str(m.name[k])), t.location(m.sender[k]).external_id,
                       t.location(m.receiver[k]).external_id, t.region(m.send_grain[k]).external_id,
                       t.region(m.recv_grain[k]).external_id);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(rows(*seed), rows(gst));
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  for (size_t k = 0; k < sorted.size(); ++k) EXPECT_EQ(std::get<0>(rows(gst)[k]), sorted[k]);
}

// initialize_clock() is the seed's time zero: the time before the first grain is the program's
// (its initialisation), in the .gst trace as in the seed text.
TEST(SeedCompat, InitializeClockIsTimeZero) {
  ScratchDir dir;
  const std::string path = dir.File("zero.gst");
  ASSERT_TRUE(Open(TestOptions(path)));
  initialize_clock();
  std::this_thread::sleep_for(std::chrono::milliseconds(3));
  get_grain_start_time(1, 0);
  get_grain_stop_time(1, 0);
  Close();
  Trace t = MustRead(path);
  EXPECT_GE(t.start_ns() - t.origin_ns(), 3'000'000);
}

TEST(SeedCompat, TextOnlyWhenRecordingIsOff) {
  ScratchDir dir;
  const std::string path = dir.File("off.gst"), text = dir.File("off.txt");
  Options o = TestOptions(path);
  o.enable = false;
  o.seed_text = SeedText::kMilliseconds;
  ASSERT_TRUE(Open(o));
  WithStdoutTo(text, [&] {
    initialize_clock();
    get_grain_start_time(1, 0);
    get_grain_stop_time(1, 0);
  });
  EXPECT_FALSE(std::filesystem::exists(path));
  Result<std::string> content = ReadFile(text);
  ASSERT_TRUE(content.ok());
  EXPECT_EQ(*content, " start \t1\t0\t\t0\n stop \t1\t0\t\t0\n");
}

}  // namespace
}  // namespace grainscope::record
