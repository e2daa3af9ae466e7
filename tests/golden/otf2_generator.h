/* What the golden OTF2 generators (make_scorep_like.c, make_scorep_threads.c) share: libotf2's
 * flush callbacks and the error check. Define GENERATOR_NAME (the program's name, for messages)
 * before including. */
#ifndef GRAINSCOPE_TESTS_GOLDEN_OTF2_GENERATOR_H_
#define GRAINSCOPE_TESTS_GOLDEN_OTF2_GENERATOR_H_

#include <stdio.h>
#include <stdlib.h>

#include <otf2/otf2.h>

static OTF2_FlushType PreFlush(void* u, OTF2_FileType f, OTF2_LocationRef l, void* c, bool final) {
  (void)u, (void)f, (void)l, (void)c, (void)final;
  return OTF2_FLUSH;
}
static OTF2_TimeStamp PostFlush(void* u, OTF2_FileType f, OTF2_LocationRef l) {
  (void)u, (void)f, (void)l;
  return 0;
}
static const OTF2_FlushCallbacks kFlush = {PreFlush, PostFlush};

static void Check(OTF2_ErrorCode rc, const char* what) {
  if (rc != OTF2_SUCCESS) {
    fprintf(stderr, GENERATOR_NAME ": %s: %s\n", what, OTF2_Error_GetName(rc));
    exit(1);
  }
}

/* A new archive DIR/NAME.otf2 that Score-P 8.4 is said to have written, its event files open. */
static OTF2_Archive* OpenArchive(const char* dir, const char* name) {
  OTF2_Archive* archive = OTF2_Archive_Open(dir, name, OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                            OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (archive == NULL) {
    fprintf(stderr, GENERATOR_NAME ": cannot create %s/%s.otf2\n", dir, name);
    exit(1);
  }
  Check(OTF2_Archive_SetFlushCallbacks(archive, &kFlush, NULL), "flush callbacks");
  Check(OTF2_Archive_SetSerialCollectiveCallbacks(archive), "collective callbacks");
  Check(OTF2_Archive_SetCreator(archive, "Score-P 8.4 (imitated by grainscope's " GENERATOR_NAME ")"), "creator");
  Check(OTF2_Archive_OpenEvtFiles(archive), "opening event files");
  return archive;
}

#endif
