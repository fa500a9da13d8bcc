"""Run folders (fuseki.util.runs): the lock refuses a second run and dies with its process; settings; pools."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any, ClassVar

import pytest

from fuseki.util.errors import FusekiError
from fuseki.util.runs import (
    LOCK_FILE,
    ChunkPlan,
    RunFolder,
    RunFolderBusy,
    RunMismatch,
    WorkerPool,
    chunk_count,
    chunk_items,
    field_defaults,
    settings_diffs,
)

SRC = Path(__file__).resolve().parents[2] / "src"

#: A process that holds a run folder's lock until it is killed; it prints "locked" once it has it.
HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from fuseki.util.runs import RunFolder

    folder = RunFolder(Path(sys.argv[1]), "run.json", "a run with other settings", "a run settings file", "hint")
    with folder.locked():
        print("locked", flush=True)
        time.sleep(120)
    """
)


def folder_at(path: Path) -> RunFolder:
    return RunFolder(path, "run.json", "a run with other settings", "a run settings file",
                     "use another --out or the same settings")


@pytest.fixture
def holder(tmp_path):
    """Start a process that holds the lock of ``tmp_path / "run"``; yields the process (killed at the end)."""
    procs: list[subprocess.Popen[str]] = []

    def start() -> subprocess.Popen[str]:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
        proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path / "run")], stdout=subprocess.PIPE,
                                text=True, env=env)
        procs.append(proc)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
        return proc

    yield start
    for proc in procs:
        proc.kill()
        proc.wait()


# ---- the lock --------------------------------------------------------------------------


def test_a_second_run_on_a_folder_another_process_holds_is_refused_at_once(tmp_path, holder):
    holder()
    t0 = time.monotonic()
    with pytest.raises(RunFolderBusy) as info, folder_at(tmp_path / "run").locked():
        pytest.fail("a second run got the lock")
    assert time.monotonic() - t0 < 2.0  # no waiting
    message = str(info.value)
    assert "\n" not in message and str(tmp_path / "run") in message and "in use by another run" in message
    assert isinstance(info.value, FusekiError)


def test_a_run_killed_with_sigkill_leaves_no_lock_that_blocks_the_next(tmp_path, holder):
    proc = holder()
    proc.send_signal(signal.SIGKILL)  # no clean-up code runs
    proc.wait(10)
    assert (tmp_path / "run" / LOCK_FILE).exists()  # the file stays; its lock went with the process
    with folder_at(tmp_path / "run").locked():
        pass


def test_a_second_run_in_another_thread_is_refused_and_the_lock_is_free_after(tmp_path):
    folder = folder_at(tmp_path / "run")
    inside, release = threading.Event(), threading.Event()

    def first() -> None:
        with folder.locked():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=first)
    thread.start()
    try:
        assert inside.wait(10)
        with pytest.raises(RunFolderBusy), folder_at(tmp_path / "run").locked():
            pytest.fail("a second run got the lock")
    finally:
        release.set()
        thread.join()
    with folder.locked():  # released when the first run ended
        pass


def test_a_file_where_the_folder_should_be_is_a_mismatch(tmp_path):
    (tmp_path / "run").write_text("not a folder")
    with pytest.raises(RunMismatch, match="exists and is not a folder"), folder_at(tmp_path / "run").locked():
        pass


# ---- settings ------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Settings:
    size: int = 9
    komi: float = 7.5
    clock: bool = False
    seed: int = 0

    LEGACY: ClassVar[dict[str, Any]] = {"clock": True}


def test_a_mismatch_names_every_differing_setting_and_how_to_go_on(tmp_path):
    folder = folder_at(tmp_path / "run")
    with folder.locked():
        folder.write({"settings": {"size": 9, "komi": 6.5, "clock": True, "seed": 0, "extra": 1}})
        theirs = folder.saved_settings()
        assert theirs is not None
        mine = dataclasses.asdict(Settings(size=13))
        with pytest.raises(RunMismatch) as info:
            folder.check(theirs, mine, defaults=field_defaults(Settings))
    message = str(info.value)
    assert message == (
        f"{tmp_path / 'run'} holds a run with other settings (size: 9 there, 13 now; komi: 6.5 there, 7.5 now; "
        "clock: True there, False now; extra: 1 there, not set now); use another --out or the same settings"
    )
    assert isinstance(info.value, ValueError) and isinstance(info.value, FusekiError)


def test_the_legacy_default_lets_an_old_settings_file_resume(tmp_path):
    folder = folder_at(tmp_path / "run")
    with folder.locked():
        folder.write({"settings": {"size": 9, "komi": 7.5, "seed": 0}})  # written before ``clock`` existed
        theirs = folder.saved_settings()
        assert theirs is not None
        # Old runs sent a clock: the file stands for clock=True, so a run with a clock resumes ...
        folder.check(theirs, dataclasses.asdict(Settings(clock=True)), defaults=field_defaults(Settings))
        # ... and one without is refused, naming the setting.
        with pytest.raises(RunMismatch, match="clock: True there, False now"):
            folder.check(theirs, dataclasses.asdict(Settings()), defaults=field_defaults(Settings))


def test_field_defaults_are_the_dataclass_defaults_then_legacy():
    assert field_defaults(Settings) == {"size": 9, "komi": 7.5, "clock": True, "seed": 0}


def test_labels_and_hidden_keys():
    diffs = settings_diffs({"a": 1, "sha": "x"}, {"a": 2, "sha": "y"}, labels={"a": "a differs", "sha": "games differ"},
                           hidden={"sha"})
    assert diffs == ["a differs: 1 there, 2 now", "games differ"]
    assert settings_diffs({"a": 1}, {"a": 1}) == []


def test_a_settings_file_that_is_not_one_is_a_mismatch(tmp_path):
    folder = folder_at(tmp_path / "run")
    folder.path.mkdir()
    folder.settings_path.write_text("{not json")
    with pytest.raises(RunMismatch, match="run.json is not a run settings file"):
        folder.read()
    folder.settings_path.write_text(json.dumps({"settings": [1, 2]}))
    with pytest.raises(RunMismatch, match="'settings' is not an object"):
        folder.saved_settings()
    folder.settings_path.unlink()
    assert folder.read() is None and folder.saved_settings() is None


def test_settings_are_written_atomically_and_read_back(tmp_path):
    folder = folder_at(tmp_path / "run")
    with folder.locked():
        folder.write({"settings": {"seed": 3}, "runs": []})
    assert folder.read() == {"settings": {"seed": 3}, "runs": []}
    assert [p.name for p in folder.path.iterdir() if p.name.endswith(".tmp")] == []


# ---- the plan -----------------------------------------------------------------------------------


def test_chunk_plan_from_files_present(tmp_path):
    for n in (1, 3):
        (tmp_path / f"item_{n}").write_text("done")

    def finished(n: int) -> str | None:
        path = tmp_path / f"item_{n}"
        return path.read_text() if path.exists() else None

    plan = ChunkPlan.scan(range(1, 5), finished)
    assert plan.done == {1: "done", 3: "done"} and plan.todo == [2, 4]


def test_chunks():
    assert chunk_count(0, 3) == 0 and chunk_count(7, 3) == 3 and chunk_count(6, 3) == 2
    assert [chunk_items(i, 3, 7) for i in (1, 2, 3)] == [[1, 2, 3], [4, 5, 6], [7]]


# ---- the pool -----------------------------------------------------------------------------------


def _fail_on_3(x: int) -> int:
    if x == 3:
        raise ValueError("item 3 is bad")
    return x


_OFFSET = 0


def _set_offset(value: int) -> None:
    global _OFFSET
    _OFFSET = value


def _add_offset(x: int) -> tuple[int, int]:
    return x + _OFFSET, os.getpid()


def test_the_pool_runs_every_item_in_spawned_workers_after_their_initializer():
    with WorkerPool(2, _set_offset, (100,)) as pool:
        results = list(pool.map_unordered(_add_offset, range(6), window=3))
    assert sorted(r for r, _ in results) == [100, 101, 102, 103, 104, 105]
    assert os.getpid() not in {pid for _, pid in results}


def test_a_failing_item_ends_the_run_with_its_error():
    with pytest.raises(ValueError, match="item 3 is bad"), WorkerPool(2) as pool:
        list(pool.map_unordered(_fail_on_3, range(6)))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie has exited; it only waits to be reaped
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_pool_workers_exit_when_their_parent_is_killed(tmp_path):
    script = tmp_path / "parent.py"
    script.write_text(textwrap.dedent(
        """
        import os, time
        from fuseki.util.runs import WorkerPool

        def busy(x):
            print(os.getpid(), flush=True)
            time.sleep(60)  # in the middle of a game

        if __name__ == "__main__":
            with WorkerPool(1) as pool:
                list(pool.map_unordered(busy, [0]))
        """
    ))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert parent.stdout is not None
        worker = int(parent.stdout.readline())
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and _alive(worker):
            time.sleep(0.05)
        assert not _alive(worker), f"worker {worker} outlived its parent"
    finally:
        parent.kill()
