"""Shared fixtures of the ``fuseki bench`` tests: the command run in-process, its JSON result, a bad flag."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from fuseki import cli

CliRun = Callable[[list[str]], tuple[int, str, str]]


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> CliRun:
    """``run_cli(ARGV)``: ``fuseki ARGV`` in-process, with only the bench command registered (the others
    are not under test); ``(exit status, stdout, stderr)``."""
    monkeypatch.setattr(cli, "COMMANDS", {"bench": cli.COMMANDS["bench"]})

    def run(argv: list[str]) -> tuple[int, str, str]:
        rc = cli.main(argv)
        out, err = capsys.readouterr()
        return rc, out, err

    return run


@pytest.fixture
def last_json() -> Callable[[str], dict]:
    """``last_json(stdout)``: the JSON object on the last line (``--json``)."""

    def parse(out: str) -> dict:
        return json.loads(out.strip().splitlines()[-1])

    return parse


@pytest.fixture
def run_json(run_cli: CliRun, last_json: Callable[[str], dict]) -> Callable[[list[str]], tuple[dict, str, str]]:
    """``run_json(ARGV)``: ``fuseki ARGV`` (with ``--json``) that must exit 0; ``(the JSON result, stdout, stderr)``."""

    def run(argv: list[str]) -> tuple[dict, str, str]:
        rc, out, err = run_cli(argv)
        assert rc == 0, err
        return last_json(out), out, err

    return run


@pytest.fixture
def usage_error(run_cli: CliRun) -> Callable[[list[str]], None]:
    """``usage_error(ARGV)``: checks that ``fuseki ARGV`` exits 2 with one error line and prints nothing else."""

    def check(argv: list[str]) -> None:
        rc, out, err = run_cli(argv)
        assert rc == 2
        assert out == ""
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("fuseki bench: error:")

    return check
