"""Labelled blocks from finished games: ``fuseki deadstones make-data`` (spec T3).

Each game is replayed to its final position; every block (string) on it gets
the thesis's features (sets A and B, :mod:`fuseki.deadstones.features`) and
a label from :mod:`fuseki.deadstones.labels`: the dead-stone marks in the SGF
when it has them, else GNU Go's ``final_status_list dead``.

Which games are used: the thesis kept only games that reached the counting
stage (its ``selector`` dropped resignations, §1.1). Here a game is used
when it ended with two passes, or when its last node carries dead-stone
marks; resigned, unfinished and unreadable games are skipped and counted by
reason.

Which blocks are kept: the thesis's static pass decides some blocks before
the network sees them -- a block in atari at the end is dead -- and only
the others become training vectors ("blocks whose status is in question",
§1.1). ``include_atari=False`` (the default) does the same; the count of
atari blocks left out, and how many of them the labeller also calls dead,
go into the summary.

The work is split into chunks of games. Each chunk is written atomically to
``OUT.parts/`` when it is done, so a killed run keeps its finished chunks and
a rerun with the same settings makes only the missing ones; a parts folder
made with other settings is refused. The chunks are then merged into ``OUT``,
one ``.npz`` block dataset (:mod:`fuseki.deadstones.dataset`). Chunks run in
parallel processes, each with its own GNU Go.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import multiprocessing
import os
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from fuseki.data.sources import GameReader, SourceError, list_games
from fuseki.deadstones.dataset import BlockDataset, save_block_dataset
from fuseki.engines.gtp_client import GtpClientError
from fuseki.engines.programs import program_exists, resolve_command
from fuseki.util.atomic import write_json_atomic
from fuseki.util.errors import FusekiError
from fuseki.util.workers import exit_with_parent

__all__ = ["LABELLERS", "MakeDataError", "label_game", "make_block_data"]

LABELLERS = ("auto", "gnugo", "marks")
SETTINGS_FILE = "settings.json"


class MakeDataError(FusekiError, ValueError):
    """A user-level problem with the inputs or the output folder (one line for the command line)."""


class SkipGame(Exception):
    """A game that gives no blocks; ``str(e)`` is the reason, counted in the summary."""


def _parts_dir(out: Path) -> Path:
    return out.with_name(out.name + ".parts")


def label_game(data: bytes, labeller: Any | None, mode: str, include_atari: bool) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """The rows of one game (arrays without ``game``) and its counts; raises :class:`SkipGame`.

    ``labeller`` is a :class:`~fuseki.deadstones.labels.GnuGoLabeller` (or
    ``None`` when ``mode`` is ``"marks"``).
    """
    from fuseki.deadstones.features import FEATURES_A, FEATURES_B, block_features
    from fuseki.deadstones.labels import block_labels, marked_dead_points
    from fuseki.go.sgf import SgfError, read_sgf

    try:
        record = read_sgf(data)
        state = record.replay()
    except (SgfError, ValueError) as e:
        raise SkipGame("bad SGF") from e
    dead = marked_dead_points(record, state) if mode in ("auto", "marks") else None
    source = "marks"
    if dead is None:
        if mode == "marks":
            raise SkipGame("no dead-stone marks")
        if state.resigned is not None or "+R" in record.result.upper():
            raise SkipGame("resigned")
        if not state.is_over():
            raise SkipGame("not finished by two passes")
        try:
            dead = labeller.dead_points(state)
        except ValueError as e:  # a setup position GTP cannot send
            raise SkipGame("setup position") from e
        source = "gnugo"
    blocks, fb = block_features(state, "B")
    if tuple(FEATURES_B[: len(FEATURES_A)]) == tuple(FEATURES_A):
        fa = fb[:, : len(FEATURES_A)]
    else:  # the sets are not nested: compute A on its own
        _, fa = block_features(state, "A")
    labels, split = block_labels([b.points for b in blocks], dead)
    is_dead = np.array(labels, dtype=bool)
    atari = np.array([b.in_atari for b in blocks], dtype=bool)
    keep = np.ones(len(blocks), dtype=bool) if include_atari else ~atari
    counts = {
        "blocks": int(keep.sum()),
        "dead": int(is_dead[keep].sum()),
        "atari_left_out": 0 if include_atari else int(atari.sum()),
        "atari_left_out_dead": 0 if include_atari else int((atari & is_dead).sum()),
        "split_blocks": split,
        f"labelled_by_{source}": 1,
    }
    rows = {
        "features_a": fa[keep],
        "features_b": fb[keep],
        "dead": is_dead[keep].astype(np.uint8),
        "size": np.full(int(keep.sum()), state.size, dtype=np.int8),
        "color": np.array([int(b.color) for b in blocks], dtype=np.int8)[keep],
        "stones": np.array([len(b.points) for b in blocks], dtype=np.int16)[keep],
    }
    return rows, counts


# ---- one chunk, in a worker process ---------------------------------------------------------

_WORKER: dict[str, Any] = {}


def _worker_init(settings: dict[str, Any]) -> None:
    exit_with_parent()
    _WORKER["settings"] = settings
    _WORKER["labeller"] = None


def _labeller() -> Any:
    from fuseki.deadstones.labels import GnuGoLabeller

    if _WORKER.get("labeller") is None:
        _WORKER["labeller"] = GnuGoLabeller(_WORKER["settings"]["gnugo"])
    return _WORKER["labeller"]


def _run_chunk(job: tuple[int, int, list[str], str]) -> dict[str, Any]:
    """Label the games of one chunk and write its part file; return its counts."""
    index, first_game, ids, path = job
    settings = _WORKER["settings"]
    mode = settings["labeller"]
    counts: Counter[str] = Counter()
    parts: list[dict[str, np.ndarray]] = []
    engine = ""
    with GameReader(ids) as reader:
        for offset, game_id in enumerate(ids):
            try:
                data = reader.read(game_id)
                labeller = None if mode == "marks" else _labeller()
                rows, game_counts = label_game(data, labeller, mode, settings["include_atari"])
            except SkipGame as e:
                counts[f"skipped: {e}"] += 1
                continue
            except (OSError, GtpClientError) as e:
                counts["skipped: labeller failed"] += 1
                counts[f"labeller error: {type(e).__name__}"] += 1
                continue
            counts.update(game_counts)
            counts["games"] += 1
            rows["game"] = np.full(len(rows["dead"]), first_game + offset, dtype=np.int32)
            parts.append(rows)
            if labeller is not None and labeller.engine:
                engine = labeller.engine
    keys = ("features_a", "features_b", "dead", "game", "size", "color", "stones")
    if parts:
        arrays = {k: np.concatenate([p[k] for p in parts]) for k in keys}
    else:
        arrays = {
            "features_a": np.zeros((0, 33), np.float32), "features_b": np.zeros((0, 89), np.float32),
            **{k: np.zeros(0, np.int32) for k in ("dead", "game", "size", "color", "stones")},
        }
    meta = {"chunk": index, "counts": dict(counts), "engine": engine}
    save_block_dataset(path, BlockDataset(**arrays, meta=meta))
    return {"chunk": index, "counts": dict(counts), "engine": engine}


def _close_worker() -> None:
    labeller = _WORKER.get("labeller")
    if labeller is not None:
        labeller.close()


# ---- the whole run -------------------------------------------------------------------------------


def make_block_data(
    sources: Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    *,
    labeller: str = "auto",
    gnugo: str | None = None,
    games: int | None = None,
    workers: int = 1,
    chunk_games: int = 100,
    include_atari: bool = False,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Build the block dataset ``out`` from the games in ``sources``; return a summary (JSON-able).

    ``games`` takes the first N games in the sources' deterministic order.
    Resumes from ``out``'s parts folder (see the module docstring).
    """
    from fuseki.deadstones.dataset import BlockDataset, load_block_dataset, save_block_dataset
    from fuseki.deadstones.labels import DEFAULT_GNUGO

    if labeller not in LABELLERS:
        raise MakeDataError(f"unknown labeller {labeller!r}; choose one of {', '.join(LABELLERS)}")
    if chunk_games < 1 or workers < 1:
        raise MakeDataError("chunk games and workers must be at least 1")
    gnugo = gnugo or DEFAULT_GNUGO
    if labeller != "marks" and not program_exists(resolve_command(gnugo)):
        raise MakeDataError(f"the labeller needs GNU Go, and {gnugo.split()[0]!r} is not installed (apt-get install gnugo)")
    emit = progress or (lambda event: None)
    t0 = time.perf_counter()
    try:
        refs = list_games(sources)
    except SourceError as e:
        raise MakeDataError(str(e)) from None
    if games is not None:
        refs = refs[:games]
    if not refs:
        raise MakeDataError("no SGF games in " + ", ".join(map(str, sources)))
    out_path = Path(out)
    parts = _parts_dir(out_path)
    parts.mkdir(parents=True, exist_ok=True)
    settings = {
        "format": "fuseki-block-parts",
        "labeller": labeller,
        "gnugo": gnugo,
        "include_atari": include_atari,
        "chunk_games": chunk_games,
        "games": [r.id for r in refs],
    }
    settings_path = parts / SETTINGS_FILE
    if settings_path.exists():
        try:
            old = json.loads(settings_path.read_text(encoding="utf-8"))
        except ValueError:
            old = None
        if old != settings:
            raise MakeDataError(
                f"{parts} holds a run with other settings or games; remove it or choose another output file"
            )
    else:
        write_json_atomic(settings_path, settings)
    ids = settings["games"]
    chunks = [(i, start, ids[start : start + chunk_games], str(parts / f"chunk_{i:05d}.npz"))
              for i, start in enumerate(range(0, len(ids), chunk_games))]
    done: dict[int, dict[str, Any]] = {}
    for index, _, _, path in chunks:
        if os.path.exists(path):
            try:
                meta = load_block_dataset(path).meta
                done[index] = {"chunk": index, "counts": meta.get("counts", {}), "engine": meta.get("engine", "")}
            except ValueError:
                os.remove(path)  # a damaged part is made again
    todo = [c for c in chunks if c[0] not in done]
    emit({"event": "start", "games": len(ids), "chunks": len(chunks), "kept": len(done), "todo": len(todo)})
    if todo:
        n = max(1, min(workers, len(todo)))
        context = multiprocessing.get_context("spawn")
        with cf.ProcessPoolExecutor(n, mp_context=context, initializer=_worker_init, initargs=(settings,)) as pool:
            futures = [pool.submit(_run_chunk, job) for job in todo]
            try:
                for future in cf.as_completed(futures):
                    result = future.result()
                    done[result["chunk"]] = result
                    emit({"event": "chunk", "chunk": result["chunk"], "done": len(done), "chunks": len(chunks),
                          "counts": result["counts"], "seconds": round(time.perf_counter() - t0, 1)})
            finally:
                for f in futures:
                    f.cancel()
                pool.submit(_close_worker)
    datasets = [load_block_dataset(path) for _, _, _, path in chunks]
    keys = ("features_a", "features_b", "dead", "game", "size", "color", "stones")
    arrays = {k: np.concatenate([getattr(d, k) for d in datasets]) for k in keys}
    totals: Counter[str] = Counter()
    engines = set()
    for result in done.values():
        totals.update(result["counts"])
        if result["engine"]:
            engines.add(result["engine"])
    blocks = int(len(arrays["dead"]))
    meta = {
        "source": [str(s) for s in sources],
        "labeller": labeller,
        "engine": sorted(engines),
        "gnugo_command": gnugo if labeller != "marks" else None,
        "include_atari": include_atari,
        "games_listed": len(ids),
        "counts": dict(sorted(totals.items())),
    }
    save_block_dataset(out_path, BlockDataset(**arrays, meta=meta))
    sizes = Counter(int(s) for s in arrays["size"]) if blocks else Counter()
    return {
        "out": str(out_path),
        "games_listed": len(ids),
        "games_used": int(totals.get("games", 0)),
        "blocks": blocks,
        "dead_blocks": int(arrays["dead"].sum()) if blocks else 0,
        "dead_fraction": round(float(arrays["dead"].mean()), 4) if blocks else None,
        "blocks_by_size": {str(k): v for k, v in sorted(sizes.items())},
        "skipped": {k[len("skipped: "):]: v for k, v in totals.items() if k.startswith("skipped: ")},
        "atari_left_out": int(totals.get("atari_left_out", 0)),
        "atari_left_out_dead": int(totals.get("atari_left_out_dead", 0)),
        "split_blocks": int(totals.get("split_blocks", 0)),
        "labelled_by": {k[len("labelled_by_"):]: v for k, v in totals.items() if k.startswith("labelled_by_")},
        "engine": sorted(engines),
        "chunks": len(chunks),
        "chunks_kept": len(chunks) - len(todo),
        "seconds": round(time.perf_counter() - t0, 1),
    }
