// The MPI records of .gst 2.5 (gst_format.h: kRecordMpiSend, kRecordMpiRecv, kRecordMpiCollective,
// kRecordMpiCollectiveEnd) read from a rank directory give the trace the 2.4 labels gave, and a
// rank file read alone shows them as 2.4's markers and message names.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "format/gst/gst_format.h"
#include "format/gst/gst_reader.h"
#include "format/gst/gst_test_image.h"
#include "format/otf2/trace_dump_test_util.h"
#include "format/trace_reader.h"

namespace grainscope {
namespace {

namespace fs = std::filesystem;
using gst_test::Bytes;
using gst_test::GstImage;
using gst_test::R;
using gst_test::Slot;
using gst_test::SlotOf;
using ::testing::HasSubstr;

// Region and string ids of the images below.
enum : uint32_t { kSend = 1, kRecv, kBarrier, kIallreduce, kWait };
enum : uint32_t { kRankLabel = 1, kCommLabel, kWorld, kMessageName, kBarrierLabel, kIcollLabel, kIcollEndLabel };

// Rank `rank` of 2: rank 0 sends 64 bytes with tag 7 to rank 1; both then take part in a barrier
// and in a non-blocking allreduce (slot 1) that an MPI_Wait completes. `records`: as 2.5 writes
// it (MPI records); else as 2.4 did (message names and labels).
Bytes RankImage(int rank, bool records) {
  GstImage g;
  g.Clock();
  g.Region(kSend, "MPI_Send", gst::kRoleCommunication);
  g.Region(kRecv, "MPI_Recv", gst::kRoleCommunication);
  g.Region(kBarrier, "MPI_Barrier", gst::kRoleCommunication);
  g.Region(kIallreduce, "MPI_Iallreduce", gst::kRoleCommunication);
  g.Region(kWait, "MPI_Wait", gst::kRoleCommunication);
  g.String(kRankLabel, fmt::format("mpi.rank {} 2", rank));
  g.String(kCommLabel, "mpi.comm w 0-1");
  g.String(kWorld, "w");
  g.String(kMessageName, "mpi.msg w 0 1 7");
  g.String(kBarrierLabel, "mpi.coll barrier w -1 0 0");
  g.String(kIcollLabel, "mpi.icoll allreduce w -1 8 8 1");
  g.String(kIcollEndLabel, "mpi.icoll_end 1");
  const uint64_t t0 = 1100 + 50 * rank;
  std::vector<gst::Record> b = {R(t0, gst::kRecordMarker, kRankLabel), R(t0, gst::kRecordMarker, kCommLabel)};
  auto add = [&](std::initializer_list<gst::Record> r) { b.insert(b.end(), r); };
  if (rank == 0) {
    add({R(1200, gst::kRecordRegionBegin, kSend)});
    if (records) {
      add({R(1210, gst::kRecordMpiSend, kWorld, 1), SlotOf(gst::MpiMessageSlot{64, 1, 7})});
    } else {
      add({R(1210, gst::kRecordSendBegin, kMessageName, 1), Slot(64, 1, 0), R(1210, gst::kRecordSendEnd, kMessageName)});
    }
    add({R(1220, gst::kRecordRegionEnd, kSend)});
  } else {
    add({R(1200, gst::kRecordRegionBegin, kRecv)});
    if (records) {
      add({R(1300, gst::kRecordMpiRecv, kWorld, 1), SlotOf(gst::MpiMessageSlot{64, 0, 7})});
    } else {
      add({R(1300, gst::kRecordRecvBegin, kMessageName), R(1300, gst::kRecordRecvEnd, kMessageName, 1), Slot(64, 0, 0)});
    }
    add({R(1310, gst::kRecordRegionEnd, kRecv)});
  }
  const uint64_t b0 = 1400 + 100 * rank;
  add({R(b0, gst::kRecordRegionBegin, kBarrier)});
  if (records) {
    gst::Record head = R(b0, gst::kRecordMpiCollective, kWorld, 2);
    head.reserved = gst::kMpiOpBarrier;
    add({head, SlotOf(gst::MpiCollSizes{0, 0}), SlotOf(gst::MpiCollRoot{-1, 0, 0})});
  } else {
    add({R(b0, gst::kRecordMarker, kBarrierLabel)});
  }
  add({R(1600, gst::kRecordRegionEnd, kBarrier), R(1700, gst::kRecordRegionBegin, kIallreduce)});
  if (records) {
    gst::Record head = R(1700, gst::kRecordMpiCollective, kWorld, 2);
    head.reserved = gst::kMpiOpAllreduce;
    add({head, SlotOf(gst::MpiCollSizes{8, 8}), SlotOf(gst::MpiCollRoot{-1, 1, 0})});
  } else {
    add({R(1700, gst::kRecordMarker, kIcollLabel)});
  }
  add({R(1710, gst::kRecordRegionEnd, kIallreduce), R(1800 + 10 * rank, gst::kRecordRegionBegin, kWait)});
  add({records ? R(1900, gst::kRecordMpiCollectiveEnd, 1) : R(1900, gst::kRecordMarker, kIcollEndLabel)});
  add({R(1910, gst::kRecordRegionEnd, kWait)});
  g.Block(0, 0, b);
  g.End();
  return g.bytes();
}

std::string RankDirectory(std::string_view name, bool records) {
  const fs::path dir = fs::path(::testing::TempDir()) / fmt::format("gs-mpirec-{}-{}", name, getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (int rank = 0; rank < 2; ++rank) {
    const Bytes bytes = RankImage(rank, records);
    std::ofstream out(dir / fmt::format("rank-{:05}.gst", rank), std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  return dir.string();
}

// DumpTrace without the gst_version line (2.4 and 2.5 images say their own).
std::string DumpWithoutVersion(const Trace& t) {
  std::istringstream in(testing_util::DumpTrace(t));
  std::string out, line;
  while (std::getline(in, line)) {
    if (line.find("meta gst_version=") == std::string::npos) out += line + "\n";
  }
  return out;
}

TEST(GstMpiRecords, ARankDirectoryGivesMessagesAndCollectives) {
  Result<Trace> r = ReadTrace(RankDirectory("records", true));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Trace& t = *r;
  ASSERT_EQ(t.messages().size(), 1u);
  EXPECT_TRUE(t.messages().matched(MessageId(0)));
  EXPECT_EQ(t.messages().bytes[0], 64u);
  EXPECT_EQ(t.messages().tag[0], 7);
  ASSERT_TRUE(t.messages().communicator[0].valid());
  EXPECT_EQ(t.str(t.communicators()[t.messages().communicator[0].value].name), "MPI_COMM_WORLD");
  const CollectiveTable& ct = t.collectives();
  ASSERT_EQ(ct.size(), 2u);
  EXPECT_EQ(ct.op[0], CollectiveOp::kBarrier);
  EXPECT_EQ(ct.op[1], CollectiveOp::kAllreduce);
  for (uint32_t c = 0; c < 2; ++c) EXPECT_EQ(ct.member_count(CollectiveId(c)), 2u) << c;
  // The allreduce ends in MPI_Wait, at its end record's time (1900 - 1000 ns from the clock's start).
  const uint32_t m = ct.member_row(CollectiveId(1), LocationId(1));
  EXPECT_EQ(t.events(LocationId(1)).time[ct.member_end[m]], 900);
  EXPECT_EQ(ct.member_bytes_sent[m], 8u);
  EXPECT_EQ(t.diagnostics().Count(Diag::kUnfinishedCollectives), 0u);
}

TEST(GstMpiRecords, RecordsGiveTheTraceLabelsGave) {
  Result<Trace> labels = ReadTrace(RankDirectory("labels", false));
  Result<Trace> records = ReadTrace(RankDirectory("records2", true));
  ASSERT_TRUE(labels.ok()) << labels.status().message();
  ASSERT_TRUE(records.ok()) << records.status().message();
  EXPECT_EQ(DumpWithoutVersion(*records), DumpWithoutVersion(*labels));
}

TEST(GstMpiRecords, ARankFileReadAloneShowsTheLabelsAndNames) {
  Result<Trace> r = ReadTrace(RankDirectory("alone", true) + "/rank-00001.gst");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const std::string dump = testing_util::DumpTrace(*r);
  EXPECT_THAT(dump, HasSubstr("marker mpi.coll barrier w -1 0 0\n"));
  EXPECT_THAT(dump, HasSubstr("marker mpi.icoll allreduce w -1 8 8 1\n"));
  EXPECT_THAT(dump, HasSubstr("marker mpi.icoll_end 1\n"));
  EXPECT_THAT(dump, HasSubstr("name='mpi.msg w 0 1 7'"));
}

std::string ErrorOf(const std::vector<gst::Record>& records) {
  GstImage g;
  g.Clock();
  g.String(kWorld, "w");
  g.Block(0, 0, records);
  g.End();
  Result<Trace> r = ReadGst(g.bytes(), "t.gst");
  return r.ok() ? std::string("(no error)") : r.status().message();
}

TEST(GstMpiRecords, DamagedRecordsAreErrorsWithTheirPlace) {
  EXPECT_THAT(ErrorOf({R(1100, gst::kRecordMpiCollective, kWorld, 1), SlotOf(gst::MpiCollSizes{0, 0})}),
              HasSubstr("MPI collective record with 1 of its 2 slots"));
  EXPECT_THAT(ErrorOf({R(1100, gst::kRecordMpiSend, kWorld, 0)}), HasSubstr("MPI send record without its message slot"));
  EXPECT_THAT(ErrorOf({R(1100, gst::kRecordMpiRecv, 99, 1), SlotOf(gst::MpiMessageSlot{1, 0, 0})}),
              HasSubstr("MPI receive names communicator string 99, which has no definition"));
}

TEST(GstMpiRecords, AnOperationOfALaterVersionIsOther) {
  gst::Record head = R(1100, gst::kRecordMpiCollective, kWorld, 2);
  head.reserved = 999;
  GstImage g;
  g.Clock();
  g.String(kWorld, "w");
  g.Block(0, 0, {head, SlotOf(gst::MpiCollSizes{0, 0}), SlotOf(gst::MpiCollRoot{-1, 0, 0})});
  g.End();
  Result<Trace> r = ReadGst(g.bytes(), "t.gst");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_THAT(testing_util::DumpTrace(*r), HasSubstr("marker mpi.coll other w -1 0 0\n"));
}

}  // namespace
}  // namespace grainscope
