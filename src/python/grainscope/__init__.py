"""grainscope from Python: read a trace, get its events as pandas DataFrames, run every analysis.

    import grainscope
    t = grainscope.read("run.otf2")      # .gst, OTF2, Chrome/Kineto JSON, the seed's text, CSV
    t.events                             # DataFrame: location, index, time_ns, kind, arg, name
    t.messages, t.collectives, t.locations, t.regions
    t.calls                              # matched enter/leave pairs, inclusive and exclusive time
    t.flat_profile()                     # time per region name (Pipit's flat_profile)
    t.critpath()["profile"]              # each analysis: the JSON of `grainscope <cmd> -f json`,
    t.waits()["kinds"]                   # lists of records as DataFrames, the rest as values

Every time is in nanoseconds from the trace's origin (`t.origin_ns` on the trace's own clock), in
the frames, the analyses' JSON and the notes alike, so frames join on time directly. Every frame
names a location by one key, `location`: its name, as the analyses' frames name it, a categorical
whose codes are the rows of `t.locations` (indexed by it). Strings are pandas categoricals.

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


def _categorical_strings(frame):
    """String columns as pandas categoricals (a few distinct names, many rows)."""
    for column in frame.columns:
        values = frame[column]
        if values.dtype == object and values.map(lambda v: isinstance(v, str)).all():
            frame[column] = values.astype("category")
    return frame


def _frames(value):
    """JSON lists of records become DataFrames, recursively inside dicts."""
    if isinstance(value, dict):
        return {k: _frames(v) for k, v in value.items()}
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return _categorical_strings(pd.DataFrame.from_records(value))
    return value


def _result(rc, out, err):
    if rc != 0:
        lines = [line for line in err.splitlines() if not line.startswith("note: ")]
        raise GrainscopeError(lines[-1] if lines else f"exit code {rc}")
    result = json.loads(out.decode("utf-8"))
    return _frames(result)


_known_options = {}


def _command_options(command):
    """The long options of `grainscope COMMAND` (cached per command); empty for an unknown one."""
    if command not in _known_options:
        _known_options[command] = set(_grainscope.command_options(command))
    return _known_options[command]


def _options(command, options):
    """Keyword arguments as command-line options: top=5 -> --top 5, all=True -> --all. A keyword
    that is not an option of the command is a TypeError, as for any Python function."""
    args = []
    known = _command_options(command)
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if known and flag[2:] not in known:
            raise TypeError(f"{command}() got an unexpected keyword argument {key!r} "
                            f"(`grainscope {command} --help` lists its options)")
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
    def origin_ns(self):
        """Time zero of every time in the frames and analyses, on the trace's own clock (ns)."""
        return self._native.origin_ns

    @property
    def event_count(self):
        return self._native.event_count

    def _frame(self, name, build):
        if name not in self._cache:
            self._cache[name] = build()
        return self._cache[name]

    @property
    def _location_dtype(self):
        """The `location` key: the locations' names in row order (a name two locations share gets
        " #<row>" on its later rows, so that every location has its own category)."""
        def build():
            seen, names = set(), []
            for row, name in enumerate(self._native.locations()["name"]):
                names.append(name if name not in seen else f"{name} #{row}")
                seen.add(names[-1])
            return pd.CategoricalDtype(categories=names, ordered=True)
        return self._frame("location_dtype", build)

    def _location_key(self, rows):
        """Location rows (any integer dtype; out of range: none) as the `location` categorical."""
        rows = np.asarray(rows).astype(np.int64)
        n = len(self._location_dtype.categories)
        return pd.Categorical.from_codes(np.where((rows >= 0) & (rows < n), rows, -1), dtype=self._location_dtype)

    def _region_names(self, region_rows):
        """The name of each region row in `region_rows` (-1: none) as a categorical."""
        names = self.regions["name"]
        codes = names.cat.codes.to_numpy()[np.maximum(region_rows, 0)] if len(names) else region_rows
        return pd.Categorical.from_codes(np.where(region_rows >= 0, codes, -1), dtype=names.dtype)

    @property
    def events(self):
        """Every event: location (row of `locations`), index (within its location), time_ns (from
        the trace's origin), kind (a category of EVENT_KINDS), arg (by kind: region row, message
        row, collective, string id or sync row), name (the region's, for enter and leave)."""
        def build():
            c = self._native.events()
            c["location"] = self._location_key(c["location"])
            kind = c["kind"]
            c["kind"] = pd.Categorical.from_codes(kind, categories=EVENT_KINDS)
            in_region = np.isin(kind, [EVENT_KINDS.index("enter"), EVENT_KINDS.index("leave")])
            c["name"] = self._region_names(np.where(in_region, c["arg"].astype(np.int64), -1))
            return pd.DataFrame(c, copy=False)
        return self._frame("events", build)

    @property
    def locations(self):
        """One row per location, indexed by `location` (the key every other frame uses): kind, id
        (the number the trace gave it: MPI rank, thread; not a key), group, events."""
        def build():
            c = self._native.locations()
            del c["name"]
            f = _categorical_strings(pd.DataFrame(c))
            f.index = pd.CategoricalIndex(self._location_dtype.categories, dtype=self._location_dtype, name="location")
            return f
        return self._frame("locations", build)

    @property
    def regions(self):
        """One row per region, indexed by `region` (events.arg of enter/leave): name, role, id."""
        def build():
            f = _categorical_strings(pd.DataFrame(self._native.regions()))
            f.index.name = "region"
            return f
        return self._frame("regions", build)

    @property
    def messages(self):
        """One row per message: sender, receiver (`location` keys; missing when unknown), the events
        and times of its ends (-1 when not recorded), tag, bytes, communicator, name."""
        def build():
            c = self._native.messages()
            c["sender"] = self._location_key(c["sender"])
            c["receiver"] = self._location_key(c["receiver"])
            return _categorical_strings(pd.DataFrame(c))
        return self._frame("messages", build)

    @property
    def collectives(self):
        """One row per member of a collective instance."""
        def build():
            c = self._native.collectives()
            c["location"] = self._location_key(c["location"])
            return _categorical_strings(pd.DataFrame(c))
        return self._frame("collectives", build)

    @property
    def calls(self):
        """One row per call (a matched enter/leave pair), in the order calls begin on each
        location: location, region, name, enter and leave (event indices), start_ns, end_ns,
        inclusive_ns, exclusive_ns (less the calls directly inside), depth, parent (row; -1),
        instance_id (nullable Int64: the call's own id where the trace numbers a region's
        executions, as a grain site's `gs_grain_begin_id` does; <NA> elsewhere)."""
        def build():
            c = self._native.calls()
            c["location"] = self._location_key(c["location"])
            c["instance_id"] = pd.arrays.IntegerArray(c["instance_id"], ~c.pop("has_instance_id"))
            f = pd.DataFrame(c, copy=False)
            f.insert(2, "name", self._region_names(c["region"].astype(np.int64)))
            return f
        return self._frame("calls", build)

    def match_events(self):
        """Pipit's name for the matched enter/leave pairs: `calls`, with Pipit's metric names
        time.inc and time.exc beside inclusive_ns and exclusive_ns."""
        f = self.calls.copy()
        f["time.inc"] = f["inclusive_ns"]
        f["time.exc"] = f["exclusive_ns"]
        return f

    def flat_profile(self, metrics=("time.inc", "time.exc"), groupby_column="name", per_location=False):
        """Pipit's flat profile: the calls' metrics summed per region name (or `groupby_column`
        of `match_events()`, e.g. "region"), per location too when per_location; with `calls`."""
        if isinstance(metrics, str):
            metrics = [metrics]
        keys = ["location", groupby_column] if per_location else [groupby_column]
        calls = self.match_events()
        grouped = calls.groupby(keys, observed=True)
        profile = grouped[list(metrics)].sum()
        profile["calls"] = grouped.size()
        return profile.sort_values(list(metrics)[0], ascending=False)

    def comm_matrix(self, output="size"):
        """Pipit's communication matrix: bytes (output="size") or messages ("count") sent from each
        location (row) to each (column), as a DataFrame labelled by `location`; messages with an
        unknown end are left out."""
        if output not in ("size", "count"):
            raise ValueError(f"comm_matrix: output is 'size' or 'count', not {output!r}")
        names = self._location_dtype.categories
        m = self.messages
        matrix = np.zeros((len(names), len(names)), dtype=np.uint64)
        weights = m["bytes"].to_numpy() if output == "size" else np.ones(len(m), dtype=np.uint64)
        sender, receiver = m["sender"].cat.codes.to_numpy(), m["receiver"].cat.codes.to_numpy()
        known = (sender >= 0) & (receiver >= 0)
        np.add.at(matrix, (sender[known], receiver[known]), weights[known])
        return pd.DataFrame(matrix, index=pd.Index(names, name="sender"), columns=pd.Index(names, name="receiver"))

    def time_per_location(self):
        """Where each location's time went (the report's time classes): one row per location."""
        return self.report()["locations"]

    def run(self, command, *args, **options):
        """`grainscope COMMAND <this trace> ARGS... --format json` as a dict of values and DataFrames."""
        argv = [str(a) for a in args] + _options(command, options) + ["--format", "json"]
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
