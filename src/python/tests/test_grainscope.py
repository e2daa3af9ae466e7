"""The Python module against the CLI (issue 23): the same traces read both ways give the same
counts and times, and every analysis returns what `grainscope <command> --format json` prints."""
import json
import os
import subprocess

import numpy as np
import pandas as pd
import pytest

import grainscope

CLI = os.environ["GRAINSCOPE_CLI"]
SOURCE = os.environ["GRAINSCOPE_SOURCE_DIR"]
INPUTS = os.path.join(SOURCE, "tests", "golden", "inputs")
FIG4_5 = os.path.join(SOURCE, "examples", "traces", "fig4_5.txt")
TRACES = [FIG4_5] + [os.path.join(INPUTS, f) for f in ("threads.gst", "skew.otf2", "collectives.json",
                                                         "scorep_omp_tasks.otf2")]


def cli_json(*args):
    out = subprocess.run([CLI, *[str(a) for a in args], "--format", "json"], check=True,
                         capture_output=True).stdout
    return json.loads(out)


def records(value):
    """A result with its DataFrames turned back into lists of records, for comparison."""
    if isinstance(value, dict):
        return {k: records(v) for k, v in value.items()}
    if isinstance(value, pd.DataFrame):
        return [{k: records(v) for k, v in row.items()} for row in value.to_dict(orient="records")]
    if isinstance(value, np.generic):
        return value.item()
    return value


def sections(path):
    """`grainscope dump --all` as {section name: rows}."""
    return {s["section"]: s["rows"] for s in cli_json("dump", path, "--all")["sections"]}


@pytest.mark.parametrize("path", TRACES, ids=os.path.basename)
def test_columns_match_the_cli(path):
    t = grainscope.read(path)
    info = cli_json("info", path)
    assert t.event_count == info["events"]
    ev = t.events
    assert len(ev) == info["events"]
    assert list(ev.columns) == ["location", "index", "time_ns", "kind", "arg", "name"]
    assert ev["time_ns"].dtype == np.int64
    for frame, column in [(ev, "location"), (ev, "kind"), (ev, "name"), (t.regions, "name"),
                          (t.regions, "role"), (t.messages, "sender"), (t.collectives, "location")]:
        assert isinstance(frame[column].dtype, pd.CategoricalDtype), column
    # One key for a location: its name, whose codes are the rows of `locations`.
    assert list(t.locations.index) == [loc["name"] for loc in sections(path)["locations"]]
    assert (ev["location"].cat.codes >= 0).all()
    assert len(t.locations) == info["locations"]
    # Every location's events are in time order, and its count is its rows.
    for loc, group in ev.groupby("location", observed=True):
        assert group["time_ns"].is_monotonic_increasing
        assert len(group) == t.locations.loc[loc, "events"]
    dump = sections(path)
    assert len(t.messages) == len(dump["messages"])
    assert len(t.regions) == len(dump["regions"])
    assert len(t.collectives) == sum(len(c["members"]) for c in dump["collectives"])
    # Enter and leave events name rows of `regions`.
    in_region = ev["kind"].isin(["enter", "leave"])
    regions = ev.loc[in_region, "arg"]
    assert regions.max() < len(t.regions)
    assert list(ev.loc[in_region, "name"].astype(str)) == list(t.regions["name"].astype(str)[regions])
    assert ev.loc[~in_region, "name"].isna().all()


def test_event_times_match_the_dump():
    path = os.path.join(INPUTS, "threads.gst")
    t = grainscope.read(path)
    assert t.origin_ns == cli_json("dump", path, "--all")["origin_ns"]
    dump = sections(path)
    ev = t.events
    for name in t.locations.index:
        rows = dump[f"events of {name}"]
        mine = ev[ev["location"] == name]
        # From the origin, as the dump (and every analysis) counts.
        assert list(mine["time_ns"]) == [e["time_ns"] for e in rows]
        assert list(mine["kind"].astype(str)) == [e["kind"] for e in rows]
    # The collectives' member rows: the barrier of 4 threads, its times those of the dump.
    assert list(t.collectives["op"]) == ["barrier"] * 4
    assert list(t.collectives["end_ns"]) == [80, 80, 80, 80]


# Traces whose origin is not 0 on their clock: a join across two time bases would find nothing.
OFFSET_TRACES = [os.path.join(INPUTS, f) for f in ("scorep_like.otf2", "omp_nested.gst")]


@pytest.mark.parametrize("path", OFFSET_TRACES, ids=os.path.basename)
def test_events_join_the_critical_path_on_time(path):
    t = grainscope.read(path)
    assert t.origin_ns != 0
    segments = t.critpath()["path"].reset_index(names="segment")
    assert len(segments) > 0
    events = t.events.assign(location=t.events["location"].astype(str))
    for end in ("start_ns", "end_ns"):
        joined = segments.assign(location=segments["location"].astype(str)).merge(
            events, left_on=["location", end], right_on=["location", "time_ns"])
        # Every segment begins and ends at an event of its location, at the same time.
        assert set(joined["segment"]) == set(segments["segment"]), end


@pytest.mark.parametrize("path", OFFSET_TRACES + [os.path.join(INPUTS, "skew.otf2")], ids=os.path.basename)
def test_calls_and_flat_profile_match_the_region_profile(path):
    t = grainscope.read(path)
    calls = t.calls
    assert (calls["end_ns"] - calls["start_ns"] == calls["inclusive_ns"]).all()
    assert (calls["exclusive_ns"] >= 0).all() and (calls["exclusive_ns"] <= calls["inclusive_ns"]).all()
    # Depth and parent: a call's parent is one level up, on its location, around it.
    inner = calls[calls["parent"] >= 0]
    outer = calls.loc[inner["parent"]].reset_index(drop=True)
    inner = inner.reset_index(drop=True)
    assert (outer["depth"] + 1 == inner["depth"]).all()
    assert (outer["location"] == inner["location"]).all()
    assert ((outer["start_ns"] <= inner["start_ns"]) & (inner["end_ns"] <= outer["end_ns"])).all()
    # The flat profile (from the calls, in Python) against the report's region profile (C++).
    report = t.report()["regions"].groupby("region", observed=True)[["calls", "inclusive_ns", "exclusive_ns"]].sum()
    flat = t.flat_profile().sort_index()
    report = report.sort_index()
    assert list(flat.index.astype(str)) == list(report.index.astype(str))
    assert list(flat["time.inc"]) == list(report["inclusive_ns"])
    assert list(flat["time.exc"]) == list(report["exclusive_ns"])
    assert list(flat["calls"]) == list(report["calls"])


def test_calls_carry_the_instance_ids():
    # Issue 33: one region per call site; each execution of the grain site "block" has its id.
    t = grainscope.read(os.path.join(INPUTS, "instances.gst"))
    c = t.calls
    blocks = c[c["name"] == "block"]
    assert len(blocks) == 8
    assert blocks["region"].nunique() == 1
    assert sorted(blocks["instance_id"].tolist()) == list(range(8))
    assert c[c["name"] != "block"]["instance_id"].isna().all()
    assert str(c["instance_id"].dtype) == "Int64"


def test_comm_matrix_counts_the_messages():
    t = grainscope.read(os.path.join(INPUTS, "skew.otf2"))
    sizes, counts = t.comm_matrix(), t.comm_matrix("count")
    assert counts.to_numpy().sum() == len(t.messages)
    assert sizes.to_numpy().sum() == t.messages["bytes"].sum()
    assert sizes.loc["rank 0", "rank 2"] == 1048576
    with pytest.raises(ValueError):
        t.comm_matrix("bytes")


def test_unknown_keywords_are_type_errors():
    t = grainscope.read(FIG4_5)
    with pytest.raises(TypeError, match="critpath\\(\\) got an unexpected keyword argument 'frobnicate'"):
        t.critpath(frobnicate=1)
    assert len(t.critpath(latency="5us")["path"]) > 0


@pytest.mark.parametrize("command,args", [
    ("info", []), ("report", []), ("taskgraph", []), ("gantt", []), ("critpath", []), ("waits", []),
    ("replay", []), ("compensate", []), ("schedule", ["-p", "2"]), ("predict", ["-p", "1..3"]),
], ids=lambda v: v if isinstance(v, str) else "")
@pytest.mark.parametrize("path", [FIG4_5, os.path.join(INPUTS, "threads.gst"), os.path.join(INPUTS, "skew.otf2")],
                         ids=os.path.basename)
def test_analyses_return_the_cli_json(command, args, path):
    t = grainscope.read(path)
    cli = subprocess.run([CLI, command, path, *args, "--format", "json"], capture_output=True, text=True)
    if cli.returncode != 0:  # the same refusal, with the same reason
        with pytest.raises(grainscope.GrainscopeError) as e:
            t.run(command, *args)
        assert str(e.value) == cli.stderr.strip().splitlines()[-1]
        return
    assert records(t.run(command, *args)) == json.loads(cli.stdout)


def test_named_analyses_and_options():
    t = grainscope.read(FIG4_5)
    cp = t.critpath()
    assert isinstance(cp["profile"], pd.DataFrame) and cp["length_ns"] > 0
    assert t.schedule(2)["makespan"] == cli_json("schedule", "-p", "2", FIG4_5)["makespan"]
    assert records(t.report(top=3)) == cli_json("report", FIG4_5, "--top", "3")
    p = t.predict("1..2")
    assert p["measured"]["processors"] == 2 and isinstance(p["projections"], pd.DataFrame)


def test_errors_name_the_problem(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("not a trace\n")
    with pytest.raises(grainscope.GrainscopeError, match="bad.txt"):
        grainscope.read(bad)
    t = grainscope.read(FIG4_5)
    with pytest.raises(grainscope.GrainscopeError, match="--processors: expected a whole number"):
        t.schedule(0)


def test_version_names_the_commit():
    out = subprocess.run([CLI, "--version"], check=True, capture_output=True, text=True).stdout
    assert out.strip() == f"grainscope {grainscope.__version__} (commit {grainscope.commit})"
