"""A pool worker ends soon after the process that started it is killed (fuseki.util.workers)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

PARENT = textwrap.dedent(
    """
    import concurrent.futures as cf, functools, multiprocessing, os, sys, time
    from fuseki.util.workers import exit_with_parent

    if __name__ == "__main__":
        init = functools.partial(exit_with_parent, 0.1) if sys.argv[1] == "watch" else None
        pool = cf.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), initializer=init)
        print(pool.submit(os.getpid).result(), flush=True)
        pool.submit(time.sleep, 60)  # the worker is busy, as in the middle of a game
        time.sleep(60)
    """
)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie has exited; it only waits for init to reap it
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _worker_after_parent_killed(tmp_path, mode: str, wait: float) -> tuple[int, bool]:
    script = tmp_path / "parent.py"
    script.write_text(PARENT)
    parent = subprocess.Popen([sys.executable, str(script), mode], stdout=subprocess.PIPE, text=True)
    try:
        worker = int(parent.stdout.readline())
        parent.send_signal(signal.SIGKILL)  # no shutdown code runs
        parent.wait(10)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and _alive(worker):
            time.sleep(0.05)
        return worker, _alive(worker)
    finally:
        parent.kill()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_watched_worker_exits_when_its_parent_is_killed(tmp_path):
    worker, alive = _worker_after_parent_killed(tmp_path, "watch", wait=10.0)
    assert not alive, f"worker {worker} outlived its parent"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_without_the_watch_the_busy_worker_is_orphaned(tmp_path):
    worker, alive = _worker_after_parent_killed(tmp_path, "plain", wait=1.0)
    try:
        assert alive  # what the watch is for: a busy worker does not notice by itself
    finally:
        if _alive(worker):
            os.kill(worker, signal.SIGKILL)


def test_the_main_process_is_never_watched():
    import threading

    from fuseki.util.workers import exit_with_parent

    exit_with_parent(0.01)
    assert "exit-with-parent" not in [t.name for t in threading.enumerate()]
