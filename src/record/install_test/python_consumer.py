"""The installed Python package reads a trace and analyses it (ctest record_consumer_*)."""
import sys

import grainscope

t = grainscope.read(sys.argv[1])
print(len(t.events), "events,", "critical path", t.critpath()["length_ns"], "ns")
