/* Writes tests/golden/inputs/scorep_pthreads.otf2 and scorep_omp_tasks.otf2 (+ .def and
 * directories) with the OTF2 C API, in the shape Score-P gives threaded runs: the records of its
 * pthread adapter (ThreadCreate/Begin/End/Wait, ThreadAcquireLock/ReleaseLock of mutexes inside
 * the pthread_* call regions) and of its OpenMP adapter (a team of ThreadFork/TeamBegin/TeamEnd/
 * Join, ThreadTaskCreate/Switch/Complete, a critical section's lock, an implicit barrier).
 * One process, 1 GHz ticks; times below are ns.
 *
 *   make_scorep_threads OUTDIR
 *
 * scorep_pthreads: the master creates threads 1 and 2 (10-15), works (20-30) and joins them
 * (pthread_join from 40, thread 1 ends at 118, from 122, thread 2 ends at 145). Both threads take
 * one mutex: thread 1 holds it 21-61; thread 2 asks at 25 and gets it at 63, holds it to 91.
 * scorep_omp_tasks: a team of 2. The master creates tasks 1 and 2 (13, 16) and waits for them in
 * a taskwait (18-80), running task 2 itself (19-50); thread 1 runs task 1 (20-79). Both enter a
 * critical section: thread 1 holds its lock 80-94, the master asks at 81 and gets it at 95. Then
 * the implicit barrier: thread 1 arrives at 95, the master at 102; both leave at 110.
 */
#include <stdio.h>
#include <stdlib.h>

#include <otf2/otf2.h>

#define GENERATOR_NAME "make_scorep_threads"
#include "otf2_generator.h"


static void Enter(OTF2_EvtWriter* w, uint64_t t, uint32_t region) { Check(OTF2_EvtWriter_Enter(w, NULL, t, region), "enter"); }
static void Leave(OTF2_EvtWriter* w, uint64_t t, uint32_t region) { Check(OTF2_EvtWriter_Leave(w, NULL, t, region), "leave"); }

/* ---- scorep_pthreads ---- */
enum { kPMain, kPCreate, kPJoin, kPLock, kPUnlock, kPWorker, kPUpdate, kPRegions };
static const char* const kPNames[kPRegions] = {"main", "pthread_create", "pthread_join", "pthread_mutex_lock",
                                               "pthread_mutex_unlock", "worker", "update"};
static const OTF2_Paradigm kPParadigms[kPRegions] = {OTF2_PARADIGM_COMPILER, OTF2_PARADIGM_PTHREAD, OTF2_PARADIGM_PTHREAD,
                                                     OTF2_PARADIGM_PTHREAD, OTF2_PARADIGM_PTHREAD, OTF2_PARADIGM_COMPILER,
                                                     OTF2_PARADIGM_COMPILER};
static const OTF2_RegionRole kPRoles[kPRegions] = {OTF2_REGION_ROLE_FUNCTION, OTF2_REGION_ROLE_THREAD_CREATE,
                                                   OTF2_REGION_ROLE_THREAD_WAIT, OTF2_REGION_ROLE_WRAPPER,
                                                   OTF2_REGION_ROLE_WRAPPER, OTF2_REGION_ROLE_FUNCTION,
                                                   OTF2_REGION_ROLE_FUNCTION};

/* A mutex taken in pthread_mutex_lock [ask, got] and given back in pthread_mutex_unlock [rel, rel + 1]. */
static void Mutex(OTF2_EvtWriter* w, uint64_t ask, uint64_t got, uint64_t rel, uint32_t order) {
  Enter(w, ask, kPLock);
  Check(OTF2_EvtWriter_ThreadAcquireLock(w, NULL, got, OTF2_PARADIGM_PTHREAD, 1, order), "acquire");
  Leave(w, got, kPLock);
  Enter(w, got, kPUpdate);
  Leave(w, rel - 1, kPUpdate);
  Enter(w, rel - 1, kPUnlock);
  Check(OTF2_EvtWriter_ThreadReleaseLock(w, NULL, rel, OTF2_PARADIGM_PTHREAD, 1, order), "release");
  Leave(w, rel + 1, kPUnlock);
}

static void PthreadLocation(OTF2_EvtWriter* w, uint32_t l) {
  if (l == 0) {
    Enter(w, 0, kPMain);
    for (uint64_t k = 1; k <= 2; ++k) {
      Enter(w, 7 + 3 * k, kPCreate);
      Check(OTF2_EvtWriter_ThreadCreate(w, NULL, 8 + 3 * k, 0, k), "thread create");
      Leave(w, 9 + 3 * k, kPCreate);
    }
    Enter(w, 20, kPWorker);
    Leave(w, 30, kPWorker);
    Enter(w, 40, kPJoin);
    Check(OTF2_EvtWriter_ThreadWait(w, NULL, 120, 0, 1), "thread wait");
    Leave(w, 121, kPJoin);
    Enter(w, 122, kPJoin);
    Check(OTF2_EvtWriter_ThreadWait(w, NULL, 150, 0, 2), "thread wait");
    Leave(w, 151, kPJoin);
    Leave(w, 160, kPMain);
  } else if (l == 1) {
    Check(OTF2_EvtWriter_ThreadBegin(w, NULL, 16, 0, 1), "thread begin");
    Enter(w, 16, kPWorker);
    Mutex(w, 20, 21, 61, 1);
    Leave(w, 115, kPWorker);
    Check(OTF2_EvtWriter_ThreadEnd(w, NULL, 118, 0, 1), "thread end");
  } else {
    Check(OTF2_EvtWriter_ThreadBegin(w, NULL, 17, 0, 2), "thread begin");
    Enter(w, 17, kPWorker);
    Mutex(w, 25, 63, 91, 2);
    Leave(w, 140, kPWorker);
    Check(OTF2_EvtWriter_ThreadEnd(w, NULL, 145, 0, 2), "thread end");
  }
}

/* ---- scorep_omp_tasks ---- */
enum { kOMain, kOParallel, kOTaskCreate, kOTask, kOTaskwait, kOCritical, kOSblock, kOBarrier, kORegions };
static const char* const kONames[kORegions] = {
    "main", "!$omp parallel @t.c:10", "!$omp create task @t.c:12", "!$omp task @t.c:12", "!$omp taskwait @t.c:15",
    "!$omp critical @t.c:17", "!$omp critical sblock @t.c:17", "!$omp implicit barrier @t.c:20"};
static const OTF2_RegionRole kORoles[kORegions] = {
    OTF2_REGION_ROLE_FUNCTION, OTF2_REGION_ROLE_PARALLEL,      OTF2_REGION_ROLE_TASK_CREATE,
    OTF2_REGION_ROLE_TASK,     OTF2_REGION_ROLE_TASK_WAIT,     OTF2_REGION_ROLE_CRITICAL,
    OTF2_REGION_ROLE_CRITICAL_SBLOCK, OTF2_REGION_ROLE_IMPLICIT_BARRIER};

static void Task(OTF2_EvtWriter* w, uint32_t gen, uint64_t a, uint64_t b) {
  Check(OTF2_EvtWriter_ThreadTaskSwitch(w, NULL, a, 0, 0, gen), "task switch");
  Enter(w, a, kOTask);
  Leave(w, b - 1, kOTask);
  Check(OTF2_EvtWriter_ThreadTaskComplete(w, NULL, b, 0, 0, gen), "task complete");
}

static void Critical(OTF2_EvtWriter* w, uint64_t ask, uint64_t got, uint64_t rel, uint32_t order) {
  Enter(w, ask, kOCritical);
  Check(OTF2_EvtWriter_ThreadAcquireLock(w, NULL, got, OTF2_PARADIGM_OPENMP, 7, order), "acquire");
  Enter(w, got, kOSblock);
  Leave(w, rel, kOSblock);
  Check(OTF2_EvtWriter_ThreadReleaseLock(w, NULL, rel, OTF2_PARADIGM_OPENMP, 7, order), "release");
  Leave(w, rel, kOCritical);
}

static void OmpLocation(OTF2_EvtWriter* w, uint32_t l) {
  if (l == 0) {
    Enter(w, 0, kOMain);
    Check(OTF2_EvtWriter_ThreadFork(w, NULL, 10, OTF2_PARADIGM_OPENMP, 2), "fork");
  }
  Check(OTF2_EvtWriter_ThreadTeamBegin(w, NULL, 11, 0), "team begin");
  Enter(w, 11, kOParallel);
  if (l == 0) {
    for (uint32_t gen = 1; gen <= 2; ++gen) {
      Enter(w, 9 + 3 * gen, kOTaskCreate);
      Check(OTF2_EvtWriter_ThreadTaskCreate(w, NULL, 10 + 3 * gen, 0, 0, gen), "task create");
      Leave(w, 11 + 3 * gen, kOTaskCreate);
    }
    Enter(w, 18, kOTaskwait);
    Task(w, 2, 19, 50);
    Leave(w, 80, kOTaskwait);
    Critical(w, 81, 95, 100, 2);
    Enter(w, 102, kOBarrier);
  } else {
    Task(w, 1, 20, 79);
    Critical(w, 80, 80, 94, 1);
    Enter(w, 95, kOBarrier);
  }
  Leave(w, 110, kOBarrier);
  Leave(w, 110, kOParallel);
  Check(OTF2_EvtWriter_ThreadTeamEnd(w, NULL, 110, 0), "team end");
  if (l == 0) {
    Check(OTF2_EvtWriter_ThreadJoin(w, NULL, 111, OTF2_PARADIGM_OPENMP), "join");
    Leave(w, 120, kOMain);
  }
}

/* Strings: 0 "", 1..regions the region names, then the names below. */
static void WriteArchive(const char* dir, const char* name, uint32_t locations, uint32_t regions,
                         const char* const* region_names, const OTF2_RegionRole* roles, const OTF2_Paradigm* paradigms,
                         OTF2_Paradigm paradigm, void (*location)(OTF2_EvtWriter*, uint32_t),
                         const char* const* location_names) {
  OTF2_Archive* archive = OpenArchive(dir, name);
  uint64_t events[3] = {0, 0, 0};
  for (uint32_t l = 0; l < locations; ++l) {
    OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive, l);
    location(w, l);
    Check(OTF2_EvtWriter_GetNumberOfEvents(w, &events[l]), "event count");
    Check(OTF2_Archive_CloseEvtWriter(archive, w), "closing events");
  }
  Check(OTF2_Archive_CloseEvtFiles(archive), "closing event files");
  Check(OTF2_Archive_OpenDefFiles(archive), "opening definition files");
  for (uint32_t l = 0; l < locations; ++l)
    Check(OTF2_Archive_CloseDefWriter(archive, OTF2_Archive_GetDefWriter(archive, l)), "closing local definitions");
  Check(OTF2_Archive_CloseDefFiles(archive), "closing definition files");

  OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(archive);
  Check(OTF2_GlobalDefWriter_WriteString(g, 0, ""), "string");
  for (uint32_t r = 0; r < regions; ++r) Check(OTF2_GlobalDefWriter_WriteString(g, r + 1, region_names[r]), "string");
  const uint32_t str_machine = regions + 1, str_process = regions + 2, str_location = regions + 3;
  Check(OTF2_GlobalDefWriter_WriteString(g, str_machine, "machine"), "string");
  Check(OTF2_GlobalDefWriter_WriteString(g, str_process, "Process"), "string");
  for (uint32_t l = 0; l < locations; ++l)
    Check(OTF2_GlobalDefWriter_WriteString(g, str_location + l, location_names[l]), "string");
  Check(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, 200, OTF2_UNDEFINED_TIMESTAMP), "clock");
  Check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, str_machine, str_machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE),
        "node");
  Check(OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, str_process, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP), "location group");
  for (uint32_t l = 0; l < locations; ++l)
    Check(OTF2_GlobalDefWriter_WriteLocation(g, l, str_location + l, OTF2_LOCATION_TYPE_CPU_THREAD, events[l], 0),
          "location");
  for (uint32_t r = 0; r < regions; ++r) {
    const OTF2_Paradigm p = paradigms != NULL ? paradigms[r] : r == 0 ? OTF2_PARADIGM_COMPILER : paradigm;
    Check(OTF2_GlobalDefWriter_WriteRegion(g, r, r + 1, r + 1, 0, roles[r], p, OTF2_REGION_FLAG_NONE, 0, 0, 0), "region");
  }
  Check(OTF2_Archive_CloseGlobalDefWriter(archive, g), "closing definitions");
  Check(OTF2_Archive_Close(archive), "closing the archive");
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_scorep_threads OUTDIR\n");
    return 2;
  }
  static const char* const kPLocations[3] = {"Master thread", "Pthread thread 1", "Pthread thread 2"};
  static const char* const kOLocations[2] = {"Master thread", "OMP thread 1"};
  WriteArchive(argv[1], "scorep_pthreads", 3, kPRegions, kPNames, kPRoles, kPParadigms, OTF2_PARADIGM_PTHREAD,
               PthreadLocation, kPLocations);
  WriteArchive(argv[1], "scorep_omp_tasks", 2, kORegions, kONames, kORoles, NULL, OTF2_PARADIGM_OPENMP, OmpLocation,
               kOLocations);
  return 0;
}
