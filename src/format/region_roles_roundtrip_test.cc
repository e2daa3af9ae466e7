// Every writer keeps every region role (model/region_roles.h): written and read back, each region
// has the role it had, also where the format has no word for it (OTF2 keeps it in the region's
// description, .gst in its role numbers, Chrome JSON in the category).
#include <unistd.h>

#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "format/trace_reader.h"
#include "format/trace_writer.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

namespace fs = std::filesystem;

// One region per role, under a name that is no known call (so the role is what the writer kept),
// and a few known calls whose role their name gives.
Trace EveryRole() {
  TraceBuilder b("test");
  const LocationId l = b.AddLocation("rank 0", LocationKind::kRank, 0);
  TimeNs t = 0;
  for (RegionRole role : AllRegionRoles()) {
    const RegionId r = b.AddRegion(fmt::format("region_{}", RegionRoleName(role)), role, t);
    b.Enter(l, t, r);
    b.Leave(l, t + 1, r);
    t += 2;
  }
  for (std::string_view call : {"MPI_Ssend", "MPI_Barrier", "cudaLaunchKernel", "ncclKernel_AllReduce"}) {
    const RegionId r = b.AddRegion(call, RegionRole::kFunction, t);
    b.Enter(l, t, r);
    b.Leave(l, t + 1, r);
    t += 2;
  }
  Result<Trace> trace = b.Finish();
  EXPECT_THAT(trace, IsOk());
  return std::move(trace).value();
}

class RolesRoundTrip : public ::testing::TestWithParam<const char*> {};

TEST_P(RolesRoundTrip, KeepsEveryRole) {
  const Trace original = EveryRole();
  const fs::path dir = fs::path(::testing::TempDir()) / fmt::format("gs-roles-{}", getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / fmt::format("roles{}", GetParam())).string();
  ASSERT_THAT(WriteTrace(original, path), IsOk());
  Result<Trace> back = ReadTrace(path);
  ASSERT_THAT(back, IsOk());
  for (const Region& want : original.regions()) {
    const std::string_view name = original.str(want.name);
    bool found = false;
    for (const Region& got : back->regions()) {
      if (back->str(got.name) != name) continue;
      found = true;
      EXPECT_EQ(RegionRoleName(got.role), RegionRoleName(want.role)) << name << " in " << path;
      EXPECT_EQ(got.synchronous_send, want.synchronous_send) << name;
    }
    EXPECT_TRUE(found) << name << " in " << path;
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(EveryWriter, RolesRoundTrip, ::testing::Values(".otf2", ".json", ".gst"),
                         [](const auto& info) { return std::string(info.param + 1); });

}  // namespace
}  // namespace grainscope
