// How a trace reader treats the defects real tools write that it knows how to repair: what
// `--strict` changes. Passed by ReadTrace to the reader (importer.h), never global.
#pragma once

namespace grainscope {

struct ReadOptions {
  // false (the default): repair and count (improper nesting, a lost OTF2 location file: the
  // diagnostics say what was done). true: refuse the trace as grainscope did before it repaired,
  // with the message naming the first defect.
  bool strict = false;
  // Threads for reading the parts of a multi-file trace (a rank directory): 0 means
  // GRAINSCOPE_THREADS, else one per hardware thread (base/parallel.h). The trace read is the same
  // whatever the number.
  unsigned threads = 0;
};

}  // namespace grainscope
