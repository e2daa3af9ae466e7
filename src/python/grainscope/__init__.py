"""grainscope from Python: read a trace, get its events as pandas DataFrames, run every analysis.

    import grainscope
    t = grainscope.read("run.otf2")      # .gst, OTF2, Chrome/Kineto JSON, the seed's text
    t.events                             # DataFrame: location, index, time_ns, kind, arg
    t.messages, t.collectives, t.locations, t.regions
    t.critpath()["profile"]              # each analysis: the JSON of `grainscope <cmd> -f json`,
    t.waits()["kinds"]                   # lists of records as DataFrames, the rest as values

The columns come from grainscope's own storage in one copy each (numpy arrays, no Python object
per event). The analyses run the grainscope command line's code in this process on the trace
already read, so their results are those of `grainscope <command> TRACE --format json`, with the
same names (docs/json.md). A failing command raises GrainscopeError with its one-line reason.
"""
import json

import numpy as np
import pandas as pd

from . import _grainscope

__version__ = _grainscope.__version__
commit = _grainscope.commit
EVENT_KINDS = list(_grainscope.event_kind_names())


class GrainscopeError(RuntimeError):
    """A grainscope command failed: the message is its one-line reason."""


def _frames(value):
    """JSON lists of records become DataFrames, recursively inside dicts."""
    if isinstance(value, dict):
        return {k: _frames(v) for k, v in value.items()}
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return pd.DataFrame.from_records(value)
    return value


def _result(rc, out, err):
    if rc != 0:
        lines = [line for line in err.splitlines() if not line.startswith("note: ")]
        raise GrainscopeError(lines[-1] if lines else f"exit code {rc}")
    result = json.loads(out.decode("utf-8"))
    return _frames(result)


def _options(options):
    """Keyword arguments as command-line options: top=5 -> --top 5, all=True -> --all."""
    args = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            args.append(flag)
        elif value is False or value is None:
            continue
        elif isinstance(value, (list, tuple)):
            for v in value:
                args += [flag, str(v)]
        else:
            args += [flag, str(value)]
    return args


class Trace:
    """A trace as grainscope's readers modelled it (use grainscope.read)."""

    def __init__(self, native):
        self._native = native
        self._cache = {}

    def __repr__(self):
        return f"<grainscope.Trace {self.path!r}: {self.format}, {self.event_count} events>"

    @property
    def path(self):
        return self._native.path

    @property
    def format(self):
        return self._native.format

    @property
    def event_count(self):
        return self._native.event_count

    def _frame(self, name, build):
        if name not in self._cache:
            self._cache[name] = build()
        return self._cache[name]

    @property
    def events(self):
        """Every event: location (row of `locations`), index (within its location), time_ns (from
        the trace's origin's clock), kind (a category of EVENT_KINDS), arg (by kind: region row,
        message row, collective, string id or sync row)."""
        def build():
            c = self._native.events()
            c["kind"] = pd.Categorical.from_codes(c["kind"], categories=EVENT_KINDS)
            return pd.DataFrame(c, copy=False)
        return self._frame("events", build)

    @property
    def locations(self):
        return self._frame("locations", lambda: pd.DataFrame(self._native.locations()))

    @property
    def regions(self):
        return self._frame("regions", lambda: pd.DataFrame(self._native.regions()))

    @property
    def messages(self):
        return self._frame("messages", lambda: pd.DataFrame(self._native.messages()))

    @property
    def collectives(self):
        """One row per member of a collective instance."""
        return self._frame("collectives", lambda: pd.DataFrame(self._native.collectives()))

    def run(self, command, *args, **options):
        """`grainscope COMMAND <this trace> ARGS... --format json` as a dict of values and DataFrames."""
        argv = [str(a) for a in args] + _options(options) + ["--format", "json"]
        return _result(*self._native.run(command, argv))

    def info(self, **options):
        return self.run("info", **options)

    def report(self, **options):
        return self.run("report", **options)

    def taskgraph(self, **options):
        return self.run("taskgraph", **options)

    def gantt(self, **options):
        return self.run("gantt", **options)

    def critpath(self, **options):
        return self.run("critpath", **options)

    def waits(self, **options):
        return self.run("waits", **options)

    def replay(self, **options):
        return self.run("replay", **options)

    def compensate(self, **options):
        return self.run("compensate", **options)

    def schedule(self, processors, **options):
        return self.run("schedule", "-p", processors, **options)

    def predict(self, processors, actual=(), **options):
        """processors: N or "A..B"; actual: paths of runs of the same program to compare with."""
        return self.run("predict", "-p", processors, actual=list(actual), **options)


def read(path, format="auto", strict=False):
    """Reads a trace (a .gst file or directory, an OTF2 archive, Chrome/Kineto JSON, the seed's
    text); raises GrainscopeError naming what is wrong with it."""
    try:
        return Trace(_grainscope.read(str(path), format, strict))
    except RuntimeError as e:
        raise GrainscopeError(str(e)) from None


def run_cli(*args):
    """Any grainscope command line, in this process: (exit code, stdout bytes, stderr text)."""
    return _grainscope.run_cli(["grainscope"] + [str(a) for a in args])


__all__ = ["read", "Trace", "GrainscopeError", "run_cli", "EVENT_KINDS", "__version__", "commit"]
