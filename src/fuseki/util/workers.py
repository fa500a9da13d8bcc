"""Worker processes that end when the process that started them is gone.

Long jobs (corpus generation, self-play, evaluation, data processing) play
games in pools of spawned worker processes. When the parent is killed (a
`kill`, an out-of-memory kill, a closed terminal), the pool's own shutdown
never runs, and a worker in the middle of a game, often blocked on a GNU Go
pipe, can live on as an orphan with its engines: measured here, two
`fuseki eval` workers and their GNU Go processes were still there 20
minutes after their parent was killed. :func:`exit_with_parent`, called in a
pool's initializer, starts a thread that ends the worker once its parent
has changed; its engines then see their stdin close and exit too.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time

__all__ = ["exit_with_parent"]

_STARTED = False


def exit_with_parent(poll_seconds: float = 1.0) -> None:
    """End this process (status 1) within ``poll_seconds`` of its parent's death. Idempotent.

    Only in a ``multiprocessing`` child: called in a main process (a job run
    with one worker, in-process) it does nothing, since a command left
    running by ``nohup`` after its shell closes is re-parented too.
    """
    global _STARTED
    if _STARTED or multiprocessing.parent_process() is None:
        return
    _STARTED = True
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(poll_seconds)
            if os.getppid() != parent:  # re-parented: the process that started us is gone
                os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()
