"""``fuseki.bench.common``: the rounds, the medians, the fresh-process probe, the record and the table."""

from __future__ import annotations

import dataclasses
import doctest
import json
import math
import subprocess
from collections.abc import Callable

import pytest

from fuseki.bench import common


@dataclasses.dataclass
class Runner:
    name: str
    warmup: Callable[[], None]


@dataclasses.dataclass
class Rate:
    rate: float
    cpu_rate: float = math.nan


def test_measure_rounds_warms_up_then_rotates():
    events: list[str] = []
    runners = [Runner(n, lambda n=n: events.append(f"warm {n}")) for n in "abc"]
    messages: list[str] = []

    def run_one(r: Runner) -> str:
        events.append(r.name)
        return f"{r.name}{len(events)}"

    stints = common.measure_rounds(runners, 3, run_one, messages.append)
    assert events == ["warm a", "warm b", "warm c", "a", "b", "c", "b", "c", "a", "c", "a", "b"]
    assert list(stints) == ["a", "b", "c"] and [len(v) for v in stints.values()] == [3, 3, 3]
    assert stints["a"][0] == "a4"
    assert messages[:4] == ["warming up a", "warming up b", "warming up c", "round 1/3: a"]
    assert messages[-1] == "round 3/3: b"


def test_median_rates():
    stints = {"a": [Rate(1.0, 2.0), Rate(3.0, 4.0), Rate(2.0)], "b": [Rate(5.04)]}
    rates, cpu = common.median_rates(stints, ["a", "b", "c"])
    assert rates == {"a": 2.0, "b": 5.0, "c": None}
    assert cpu == {"a": 3.0, "b": None, "c": None}


def test_ratio_and_formats():
    assert common.ratio(1.0, 3.0) == 0.333
    assert common.ratio(None, 1.0) is None and common.ratio(1.0, 0.0) is None
    assert [common.fmt_ratio(x) for x in (None, 2.5, 25.25, 2500.0)] == ["-", "2.50x", "25.2x", "2,500x"]
    assert common.fmt_rate(None) == "-" and common.fmt_rate(12345.6) == "12,346"


def test_format_table_alignment():
    lines = common.format_table(("name", "n", "note"), [("ab", "1", "x"), ("c", "100", "long")], right={1})
    assert lines == ["name    n  note", "ab      1  x", "c     100  long"]
    assert common.format_table(("a", "b"), [("x", "1")]) == ["a  b", "x  1"]


def test_busy_contenders():
    assert common.busy_contenders({"a": 80.0, "b": 95.0, "c": None}, {"a": 100.0, "b": 100.0, "c": 1.0},
                                  ["a", "b", "c"]) == ["a"]


def test_run_probe_adds_the_process_time_and_rounds():
    snippet = "import json, sys; print('noise'); print(json.dumps({'x_s': 0.12345, 'arg': float(sys.argv[1])}))"
    out = common.run_probe(snippet, ["2"])
    assert out["x_s"] == 0.123 and out["arg"] == 2.0 and out["process_s"] > 0


def test_run_probe_failure_is_one_line():
    with pytest.raises(RuntimeError, match="the JIT start-up probe failed: ValueError: boom"):
        common.run_probe("raise ValueError('boom')")


def test_source_info_has_the_watched_keys():
    info = common.source_info({"go_engine_modified": "src/fuseki/go", "search_modified": "src/fuseki/search"})
    if info is not None:  # None outside a git checkout
        assert list(info) == ["commit", "go_engine_modified", "search_modified"]
        assert len(info["commit"]) == 40


def test_module_doctests():
    failures, _ = doctest.testmod(common)
    assert failures == 0


def test_finish_record_stamps_writes_and_prints(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert common.finish_record({"x": 1}, "benchmarks/demo.py", ["--n", "3"], out) == 0
    written = json.loads(out.read_text())
    printed = json.loads(capsys.readouterr().out)
    assert written == printed
    assert written["x"] == 1
    assert written["command"] == "python benchmarks/demo.py --n 3"
    assert written["date"].startswith("20") and written["date"].endswith("+00:00")


def test_commit_of_marks_local_changes(tmp_path):
    def git(*argv):
        subprocess.run(["git", "-C", str(tmp_path), *argv], check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "f").write_text("a")
    git("add", "f")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "c")
    clean = common.commit_of(tmp_path)
    assert len(clean) >= 7 and not clean.endswith("+")
    (tmp_path / "f").write_text("b")
    assert common.commit_of(tmp_path) == clean + "+"
