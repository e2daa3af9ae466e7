// The task-graph readers (src/schedule/io). The first byte picks the reader (0 STG, 1 DOT, 2 the
// seed's Task_Graph, 3 JSON; modulo 4), the rest is the file. make_corpus.sh prefixes the seeds.
#include "fuzz/fuzz_util.h"
#include "schedule/io/readers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text = grainscope::fuzz::AsText(data + 1, size - 1);
  switch (data[0] % 4) {
    case 0: (void)grainscope::ReadStg(text, "fuzz.stg"); break;
    case 1: (void)grainscope::ReadDotTaskGraph(text, "fuzz.dot"); break;
    case 2: (void)grainscope::ReadSeedTaskGraph(text, "Task_Graph"); break;
    default: (void)grainscope::ReadJsonTaskGraph(text, "fuzz.json"); break;
  }
  return 0;
}
