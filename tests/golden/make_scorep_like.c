/* Writes tests/golden/inputs/scorep_like.otf2 (+ .def and directory) with the OTF2 C API, in the
 * shape Score-P gives an MPI run and our own writer does not: a system tree and one location group
 * per rank, locations named "Master thread", regions with MPI paradigm and roles (MPI_Init,
 * MPI_Isend/MPI_Irecv/MPI_Wait with request ids, collectives), a COMM_LOCATIONS group with
 * COMM_GROUPs of ranks over it, a split communicator whose root is given as a rank within it, a
 * clock with a global offset and a resolution other than 1 ns, and a "main" region around it all.
 *
 *   make_scorep_like OUTDIR
 * writes scorep_like.otf2 and scorep_improper.otf2: the same run with the nesting defects real tools
 * write (TraceR, APEX; issue 19): rank 2 leaves "solve" while the MPI_Wait it entered inside is
 * still open, then leaves MPI_Irecv, which it never entered; rank 1 never leaves "main"; and
 * scorep_self.otf2: the same run where every rank then calls MPI_Barrier on MPI_COMM_SELF (a
 * COMM_SELF group of no members, one communicator definition for all ranks, as Score-P writes it)
 * at a different time: three one-rank barriers, never one three-rank barrier (issue 19 item 3).
 * 3 ranks: rank 0 sends rank 1 a message with MPI_Isend, rank 1 receives it with MPI_Irecv and
 * MPI_Wait; then MPI_Bcast rooted at rank 1, MPI_Reduce on {0, 2} rooted at its rank 1 (world
 * rank 2), MPI_Barrier. Times below are in ticks of 10 ns after the global offset.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <otf2/otf2.h>

#define GENERATOR_NAME "make_scorep_like"
#include "otf2_generator.h"

enum { kRanks = 3 };
enum { kMain, kInit, kFinalize, kIsend, kIrecv, kWait, kBcast, kReduce, kBarrier, kSolve, kRegions };
static const char* const kRegionNames[kRegions] = {"main", "MPI_Init", "MPI_Finalize", "MPI_Isend", "MPI_Irecv",
                                                   "MPI_Wait", "MPI_Bcast", "MPI_Reduce", "MPI_Barrier", "solve"};
static const OTF2_RegionRole kRoles[kRegions] = {
    OTF2_REGION_ROLE_FUNCTION,     OTF2_REGION_ROLE_FUNCTION,     OTF2_REGION_ROLE_FUNCTION,
    OTF2_REGION_ROLE_POINT2POINT,  OTF2_REGION_ROLE_POINT2POINT,  OTF2_REGION_ROLE_POINT2POINT,
    OTF2_REGION_ROLE_COLL_ONE2ALL, OTF2_REGION_ROLE_COLL_ALL2ONE, OTF2_REGION_ROLE_BARRIER,
    OTF2_REGION_ROLE_FUNCTION};
static const uint64_t kOffset = 1000000; /* ticks */


static OTF2_TimeStamp T(uint64_t ticks) { return kOffset + ticks; }

/* A call region around nothing else: enter at `a`, leave at `b`. */
static void Region(OTF2_EvtWriter* w, uint32_t region, uint64_t a, uint64_t b) {
  Check(OTF2_EvtWriter_Enter(w, NULL, T(a), region), "enter");
  Check(OTF2_EvtWriter_Leave(w, NULL, T(b), region), "leave");
}

/* A collective call as Score-P records it: enter, begin, end (with op, comm, root), leave. */
static void Collective(OTF2_EvtWriter* w, uint32_t region, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root,
                       uint64_t bytes, uint64_t a, uint64_t b) {
  Check(OTF2_EvtWriter_Enter(w, NULL, T(a), region), "enter");
  Check(OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, T(a)), "collective begin");
  Check(OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, T(b), op, comm, root, bytes, bytes), "collective end");
  Check(OTF2_EvtWriter_Leave(w, NULL, T(b), region), "leave");
}

static void Rank0(OTF2_EvtWriter* w) {
  Region(w, kInit, 5, 50);
  Region(w, kSolve, 60, 200);
  Check(OTF2_EvtWriter_Enter(w, NULL, T(200), kIsend), "enter");
  Check(OTF2_EvtWriter_MpiIsend(w, NULL, T(201), 1, 0, 5, 1024, 1), "isend");
  Check(OTF2_EvtWriter_Leave(w, NULL, T(205), kIsend), "leave");
  Region(w, kSolve, 205, 300);
  Check(OTF2_EvtWriter_Enter(w, NULL, T(300), kWait), "enter");
  Check(OTF2_EvtWriter_MpiIsendComplete(w, NULL, T(310), 1), "isend complete");
  Check(OTF2_EvtWriter_Leave(w, NULL, T(320), kWait), "leave");
  Collective(w, kBcast, OTF2_COLLECTIVE_OP_BCAST, 0, 1, 64, 330, 380);
  Collective(w, kReduce, OTF2_COLLECTIVE_OP_REDUCE, 1, 1, 8, 400, 450);
  Collective(w, kBarrier, OTF2_COLLECTIVE_OP_BARRIER, 0, OTF2_UNDEFINED_UINT32, 0, 470, 500);
}

static void Rank1(OTF2_EvtWriter* w) {
  Region(w, kInit, 5, 60);
  Check(OTF2_EvtWriter_Enter(w, NULL, T(100), kIrecv), "enter");
  Check(OTF2_EvtWriter_MpiIrecvRequest(w, NULL, T(101), 7), "irecv request");
  Check(OTF2_EvtWriter_Leave(w, NULL, T(105), kIrecv), "leave");
  Region(w, kSolve, 105, 150);
  Check(OTF2_EvtWriter_Enter(w, NULL, T(150), kWait), "enter");
  Check(OTF2_EvtWriter_MpiIrecv(w, NULL, T(255), 0, 0, 5, 1024, 7), "irecv");
  Check(OTF2_EvtWriter_Leave(w, NULL, T(260), kWait), "leave");
  Collective(w, kBcast, OTF2_COLLECTIVE_OP_BCAST, 0, 1, 64, 340, 380);
  Collective(w, kBarrier, OTF2_COLLECTIVE_OP_BARRIER, 0, OTF2_UNDEFINED_UINT32, 0, 490, 500);
}

static void Rank2(OTF2_EvtWriter* w) {
  Region(w, kInit, 5, 70);
  Region(w, kSolve, 80, 330);
  Collective(w, kBcast, OTF2_COLLECTIVE_OP_BCAST, 0, 1, 64, 335, 390);
  Collective(w, kReduce, OTF2_COLLECTIVE_OP_REDUCE, 1, 1, 8, 420, 460);
  Collective(w, kBarrier, OTF2_COLLECTIVE_OP_BARRIER, 0, OTF2_UNDEFINED_UINT32, 0, 475, 505);
}

/* Strings: 0 "", 1..kRegions region names, then the names below. */
enum { kStrMachine = kRegions + 1, kStrNode, kStrMaster, kStrWorld, kStrSplit, kStrRank0, kStrSelf = kStrRank0 + kRanks };
enum Variant { kProper, kImproper, kSelfBarriers };

static void WriteDefinitions(OTF2_Archive* archive, const uint64_t* events, enum Variant variant) {
  OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(archive);
  char name[32];
  Check(OTF2_GlobalDefWriter_WriteString(g, 0, ""), "string");
  for (uint32_t r = 0; r < kRegions; ++r) Check(OTF2_GlobalDefWriter_WriteString(g, r + 1, kRegionNames[r]), "string");
  Check(OTF2_GlobalDefWriter_WriteString(g, kStrMachine, "Linux"), "string");
  Check(OTF2_GlobalDefWriter_WriteString(g, kStrNode, "machine"), "string");
  Check(OTF2_GlobalDefWriter_WriteString(g, kStrMaster, "Master thread"), "string");
  Check(OTF2_GlobalDefWriter_WriteString(g, kStrWorld, "MPI_COMM_WORLD"), "string");
  Check(OTF2_GlobalDefWriter_WriteString(g, kStrSplit, "MPI_COMM_WORLD.split"), "string");
  for (uint32_t r = 0; r < kRanks; ++r) {
    snprintf(name, sizeof name, "MPI Rank %u", r);
    Check(OTF2_GlobalDefWriter_WriteString(g, kStrRank0 + r, name), "string");
  }
  if (variant == kSelfBarriers) Check(OTF2_GlobalDefWriter_WriteString(g, kStrSelf, "MPI_COMM_SELF"), "string");
  /* 10 ns ticks; the run began at the global offset. */
  Check(OTF2_GlobalDefWriter_WriteClockProperties(g, 100000000, kOffset, 600, OTF2_UNDEFINED_TIMESTAMP), "clock");
  Check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, kStrMachine, kStrNode, OTF2_UNDEFINED_SYSTEM_TREE_NODE), "node");
  for (uint32_t r = 0; r < kRanks; ++r) {
    Check(OTF2_GlobalDefWriter_WriteLocationGroup(g, r, kStrRank0 + r, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                  OTF2_UNDEFINED_LOCATION_GROUP), "location group");
    Check(OTF2_GlobalDefWriter_WriteLocation(g, r, kStrMaster, OTF2_LOCATION_TYPE_CPU_THREAD, events[r], r), "location");
  }
  for (uint32_t r = 0; r < kRegions; ++r) {
    const OTF2_Paradigm p = r == kMain || r == kSolve ? OTF2_PARADIGM_COMPILER : OTF2_PARADIGM_MPI;
    Check(OTF2_GlobalDefWriter_WriteRegion(g, r, r + 1, r + 1, 0, kRoles[r], p, OTF2_REGION_FLAG_NONE, 0, 0, 0),
          "region");
  }
  const uint64_t locations[kRanks] = {0, 1, 2}, world[kRanks] = {0, 1, 2}, split[2] = {0, 2};
  Check(OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, kRanks, locations), "group");
  Check(OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                        kRanks, world), "group");
  Check(OTF2_GlobalDefWriter_WriteGroup(g, 2, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                        2, split), "group");
  Check(OTF2_GlobalDefWriter_WriteComm(g, 0, kStrWorld, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE), "comm");
  Check(OTF2_GlobalDefWriter_WriteComm(g, 1, kStrSplit, 2, 0, OTF2_COMM_FLAG_NONE), "comm");
  if (variant == kSelfBarriers) {
    Check(OTF2_GlobalDefWriter_WriteGroup(g, 3, 0, OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                          0, NULL), "group");
    Check(OTF2_GlobalDefWriter_WriteComm(g, 2, kStrSelf, 3, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE), "comm");
  }
  Check(OTF2_Archive_CloseGlobalDefWriter(archive, g), "closing definitions");
}

/* Rank 2's improper nesting (times after its last collective, before MPI_Finalize). */
static void ImproperNesting(OTF2_EvtWriter* w) {
  Check(OTF2_EvtWriter_Enter(w, NULL, T(505), kSolve), "enter");
  Check(OTF2_EvtWriter_Enter(w, NULL, T(506), kWait), "enter");
  Check(OTF2_EvtWriter_Leave(w, NULL, T(508), kSolve), "leave"); /* MPI_Wait still open */
  Check(OTF2_EvtWriter_Leave(w, NULL, T(509), kIrecv), "leave"); /* never entered */
}

static void WriteArchive(const char* dir, const char* name, enum Variant variant) {
  OTF2_Archive* archive = OpenArchive(dir, name);
  void (*const ranks[kRanks])(OTF2_EvtWriter*) = {Rank0, Rank1, Rank2};
  uint64_t events[kRanks];
  for (uint32_t r = 0; r < kRanks; ++r) {
    OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive, r);
    Check(OTF2_EvtWriter_Enter(w, NULL, T(0), kMain), "enter");
    ranks[r](w);
    if (variant == kImproper && r == 2) ImproperNesting(w);
    if (variant == kSelfBarriers)
      Collective(w, kBarrier, OTF2_COLLECTIVE_OP_BARRIER, 2, OTF2_UNDEFINED_UINT32, 0, 505 + r, 506 + r);
    Region(w, kFinalize, 510, 520);
    if (variant != kImproper || r != 1) Check(OTF2_EvtWriter_Leave(w, NULL, T(530), kMain), "leave");
    Check(OTF2_EvtWriter_GetNumberOfEvents(w, &events[r]), "event count");
    Check(OTF2_Archive_CloseEvtWriter(archive, w), "closing events");
  }
  Check(OTF2_Archive_CloseEvtFiles(archive), "closing event files");
  Check(OTF2_Archive_OpenDefFiles(archive), "opening definition files");
  for (uint32_t r = 0; r < kRanks; ++r) {
    OTF2_DefWriter* d = OTF2_Archive_GetDefWriter(archive, r);
    Check(OTF2_Archive_CloseDefWriter(archive, d), "closing local definitions");
  }
  Check(OTF2_Archive_CloseDefFiles(archive), "closing definition files");
  WriteDefinitions(archive, events, variant);
  Check(OTF2_Archive_Close(archive), "closing the archive");
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_scorep_like OUTDIR\n");
    return 2;
  }
  WriteArchive(argv[1], "scorep_like", kProper);
  WriteArchive(argv[1], "scorep_improper", kImproper);
  WriteArchive(argv[1], "scorep_self", kSelfBarriers);
  return 0;
}
