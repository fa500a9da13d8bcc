"""The allocator setting that keeps a finished game's memory in the process."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

CODE = "import fuseki.go, fuseki.go._malloc as m; print(m._done)"


def run(env_extra: dict[str, str]) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    env.pop("FUSEKI_KEEP_MALLOC", None)
    env.update(env_extra)
    return subprocess.run([sys.executable, "-c", CODE], env=env, capture_output=True, text=True, check=True).stdout.strip()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc only")
def test_applied_on_import_and_can_be_turned_off() -> None:
    assert run({}) == "True"
    assert run({"FUSEKI_KEEP_MALLOC": "1"}) == "False"
    assert run({"MALLOC_TRIM_THRESHOLD_": "1000000"}) == "False"  # the user's own setting wins
