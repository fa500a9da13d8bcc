"""Turn SGF games into training shards: ``uint8`` features, ``int16`` labels, a manifest.

This is the book's ``GoDataProcessor`` (ch. 7) without its defects:

=============================================  ==========================================
the book's ``GoDataProcessor``                  here
=============================================  ==========================================
float64 features (``np.zeros``), 3-4 GB per     ``uint8`` features, ``int16`` labels: 83
1,000 games, float32 one-hot labels on          bytes a position (one-plane, 9×9), 363
consolidation                                   (19×19); floats only at batch time
``glob('*_features_*.npy')`` picks up files of  only files listed in ``manifest.json`` are
earlier runs (other samples, other encoders)    ever read; other files are reported
the last partial 1,024-position chunk of each   shards hold a fixed number of *games*; the
archive is dropped (``while len >= chunksize``) last, smaller shard is kept
the test generator reads the ``train`` files    shards are named and listed by split
"already processed" compares a name without     resume trusts a shard only when its
``.npy`` with ``os.path.isfile``: never true    SHA-256 checksums in the manifest match
one process per archive; a crash loses it all   a process pool over shards; every write
                                                is atomic; killed runs resume; a second
                                                run on the same folder is refused
=============================================  ==========================================

Layout of an output folder::

    manifest.json               what is there: encoder, board size, plan, shards + SHA-256
    split.json                  the train and test game ids (see fuseki.data.sampler)
    train-00000.features.npy    uint8 (n, planes, size, size)
    train-00000.labels.npy      int16 (n,): the move's point index (row * size + col)
    train-00000.games.json      the shard's games: id, SHA-256 of the SGF, positions; skipped games
    ...
    test-00000.features.npy ...

A shard holds the positions of ``shard_games`` consecutive games of one side
of the split (in drawing order), so the work units, and therefore the files,
are the same however many workers run and however often the run is killed and
resumed. SGF files are read leniently (:mod:`fuseki.go.sgf`): setup stones in
any node, implied handicap stones and passes, komi written times 100 and the
other repairs of docs/sgf.md; each game lists its repairs and the manifest
counts them by kind (``repaired_by_kind``). Games that cannot be used are
skipped and listed with the reason: malformed SGF beyond repair, an illegal
move, another board size. A handicap
game is encoded from the position after its setup stones, with White to move.
A pass is a label only for encoders that have a pass class (``num_moves >
size * size``); for the others that position is left out, as in the book.

>>> import tempfile, pathlib
>>> from fuseki.go import GameState, game_to_sgf
>>> src, out = pathlib.Path(tempfile.mkdtemp()), pathlib.Path(tempfile.mkdtemp())
>>> state = GameState.new(5).apply_moves([(2, 2), (1, 1), (3, 3)])
>>> (src / "g.sgf").write_bytes(game_to_sgf(state)) > 0
True
>>> _ = (src / "bad.sgf").write_bytes(b"(;SZ[5];B[zz])")
>>> summary = process_games([src], out, encoder=register_test_encoder(), size=5, test_fraction=0.0)
>>> summary["positions"], summary["skipped"]
(3, 1)
>>> sorted(p.name for p in out.iterdir())  # doctest: +NORMALIZE_WHITESPACE
['.fuseki.lock', 'manifest.json', 'split.json', 'train-00000.features.npy',
 'train-00000.games.json', 'train-00000.labels.npy']
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import io
import json
import os
import pickle
import re
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from fuseki.data.sampler import Split, is_test_game, sample_games
from fuseki.data.sources import DEFAULT_MAX_BYTES, GameReader, list_games
from fuseki.encoders import available_encoders, get_encoder, register_encoder
from fuseki.util.atomic import TEMP_SUFFIX, sha256_file, write_atomic, write_json_atomic
from fuseki.util.errors import FusekiError, InputError
from fuseki.util.progress import Progress, ProgressCallback
from fuseki.util.runs import LOCK_FILE, RunFolder, WorkerPool

__all__ = [
    "FORMAT",
    "MANIFEST",
    "SPLIT_FILE",
    "VERSION",
    "ProcessError",
    "ShardPlan",
    "SkipGame",
    "TEST_DOUBLES",
    "encode_game",
    "encode_record",
    "encode_shard",
    "fingerprint_test_games",
    "game_fingerprint",
    "load_manifest",
    "plan_shards",
    "process_games",
    "read_game",
    "register_test_encoder",
    "sha256_file",
    "verify_shard",
]

FORMAT = "fuseki-shards"
VERSION = 1
MANIFEST = "manifest.json"
SPLIT_FILE = "split.json"
#: The lock file name before run folders shared one (:data:`fuseki.util.runs.LOCK_FILE`): not a stray file.
OLD_LOCK_FILE = ".fuseki-process.lock"
FEATURE_DTYPE = np.uint8
LABEL_DTYPE = np.int16

#: What :func:`encode_game` says about a game it cannot use.
SKIP_KINDS = ("bad_sgf", "illegal_move", "board_size", "test_double", "players")


class ProcessError(FusekiError, ValueError):
    """A shard folder that cannot be read, or a bad players pattern.

    A folder of another plan raises :class:`~fuseki.util.runs.RunMismatch`;
    one another run is writing to, :class:`~fuseki.util.runs.RunFolderBusy`.
    """


class SkipGame(Exception):
    """A game that is skipped, with its kind (one of :data:`SKIP_KINDS`) and a one-line reason."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


@dataclasses.dataclass(frozen=True)
class ShardPlan:
    """One work unit: the games of one shard."""

    name: str  #: ``train-00003``
    split: str  #: ``train`` or ``test``
    index: int
    games: tuple[str, ...]

    def file(self, kind: str) -> str:
        """``features``, ``labels`` or ``games`` -> that file's name."""
        return f"{self.name}.{kind}.json" if kind == "games" else f"{self.name}.{kind}.npy"


def plan_shards(split: Split, shard_games: int) -> list[ShardPlan]:
    """Cut each side of ``split`` into shards of ``shard_games`` games (the last may be smaller)."""
    if shard_games < 1:
        raise InputError(f"games per shard must be at least 1, got {shard_games}")
    plans = []
    for side in ("train", "test"):
        ids = split.side(side)
        for index, start in enumerate(range(0, len(ids), shard_games)):
            plans.append(ShardPlan(f"{side}-{index:05d}", side, index, tuple(ids[start : start + shard_games])))
    return plans


# ---- encoding one game -------------------------------------------------------


_OPENING = re.compile(r"^opening: (\d+) random moves?\s*$", re.MULTILINE)


def random_opening_moves(comment: str) -> int:
    r"""The number of random opening moves a generated game's root comment declares (0 if none).

    >>> random_opening_moves("seed: 7\nopening: 3 random moves")
    3
    >>> random_opening_moves("a game from KGS")
    0
    """
    m = _OPENING.search(comment or "")
    return int(m.group(1)) if m else 0


def read_game(data: bytes) -> Any:
    """The :class:`~fuseki.go.sgf.GameRecord` of an SGF file; :class:`SkipGame` if it is malformed."""
    from fuseki.go.sgf import SgfError, read_sgf

    try:
        return read_sgf(data)
    except SgfError as e:
        raise SkipGame("bad_sgf", str(e)) from None


def game_fingerprint(record: Any) -> str:
    """SHA-256 of what a game teaches: board size, setup stones and the moves, nothing else.

    Two files of the same game (another name, date, comment, komi or result)
    have the same fingerprint. The processor uses it to keep the doubles of
    test games out of training: a generated corpus repeats games (GNU Go is
    nearly deterministic at a given level; 208 of the 5,000 games of the
    9×9 corpus repeat an earlier one), and a KGS archive can list a game twice.
    """
    from fuseki.go.coords import to_gtp

    size = record.size
    parts = [
        f"SZ{size}",
        "AB" + ",".join(sorted(to_gtp(pt, size) for pt in record.setup_black)),
        "AW" + ",".join(sorted(to_gtp(pt, size) for pt in record.setup_white)),
        "AE" + ",".join(sorted(to_gtp(pt, size) for pt in record.setup_empty)),
        *(f"{color.letter}{move.gtp(size)}" for color, move in record.moves),
    ]
    return hashlib.sha256(";".join(parts).encode("ascii")).hexdigest()


def encode_game(data: bytes, encoder: Any, size: int, players: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The positions of one SGF game: ``(features uint8 (n, *encoder.shape), labels int16 (n,))``.

    Position ``i`` is the board before the ``i``-th move (from the point of view
    of the player to move) and its label is that move's point. The game is
    replayed under the rules its ``RU`` names. Moves after the game ended by
    two passes (a disputed score, resumed) are left out, and so are the random
    opening moves of a generated game (``fuseki data generate`` writes
    ``opening: K random moves`` into the root comment): no player chose them,
    so they are no examples to learn from. With ``players`` (a regular
    expression), only the moves of a player whose name (``PB``/``PW``) it
    matches are examples: ``"level (9|10)$"`` learns GNU Go's strongest
    levels from a mixed corpus, with their opponents' moves as context. Raises
    :class:`SkipGame` for a game that cannot be used.
    """
    return encode_record(read_game(data), encoder, size, players)


def encode_record(record: Any, encoder: Any, size: int, players: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`encode_game` for a game already read."""
    from fuseki.go.sgf import SgfError
    from fuseki.go.state import Color

    learn = {Color.BLACK: True, Color.WHITE: True}
    if players is not None:
        pattern = re.compile(players)
        learn = {Color.BLACK: bool(pattern.search(record.black)), Color.WHITE: bool(pattern.search(record.white))}
        if not any(learn.values()):
            raise SkipGame("players", f"neither {record.black!r} nor {record.white!r} matches {players!r}")
    if record.size != size:
        raise SkipGame("board_size", f"board size {record.size}, expected {size}")
    n_points = size * size
    pass_label = n_points if encoder.num_moves > n_points else None
    features = np.empty((len(record.moves), *encoder.shape), dtype=FEATURE_DTYPE)
    labels = np.empty(len(record.moves), dtype=LABEL_DTYPE)
    n = 0
    skip = random_opening_moves(record.comment)
    try:
        # The replay puts setup stones where the file has them and plays the
        # implied pass before a move out of turn (record.warnings says so).
        for step in record.steps():
            if step.resumed:
                # Moves after two passes: on KGS the players disputed the score and
                # resumed. The game as played ends at the passes; keep that part.
                break
            color, move = step.move
            if move.is_play:
                label: int | None = move.point.row * size + move.point.col
            else:
                label = pass_label
            if label is not None and step.number > skip and learn[color]:
                planes = encoder.encode(step.before)
                if planes.dtype != FEATURE_DTYPE:
                    converted = planes.astype(FEATURE_DTYPE)
                    if not np.array_equal(converted, planes):
                        raise ValueError(f"encoder {encoder.name!r} gave values that do not fit uint8")
                    planes = converted
                features[n] = planes
                labels[n] = label
                n += 1
    except SgfError as e:
        kind = "bad_sgf" if str(e).startswith("impossible setup position") else "illegal_move"
        raise SkipGame(kind, str(e)) from None
    return features[:n], labels[:n]


# ---- one shard (runs in a worker process) ---------------------------------------

_ENCODERS: dict[tuple[str, int], Any] = {}
#: In a worker: fingerprint -> id of the test game, for the train shards (see :func:`_init_worker`).
_TEST_FINGERPRINTS: dict[str, str] = {}


def _encoder(name: str, size: int) -> Any:
    key = (name, size)
    if key not in _ENCODERS:
        from fuseki.encoders import get_encoder

        _ENCODERS[key] = get_encoder(name, size)
    return _ENCODERS[key]


def _init_worker(
    name: str, size: int, encoder: Any, modules: Sequence[str], test_fingerprints: dict[str, str]
) -> None:
    """Give a spawned worker (which starts bare) the test games' fingerprints and
    the encoder: the parent's own object when it pickles, else the modules that
    register it by name."""
    _TEST_FINGERPRINTS.clear()
    _TEST_FINGERPRINTS.update(test_fingerprints)
    if encoder is not None:
        _ENCODERS[(name, size)] = encoder
        return
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError:
            pass  # get_encoder will say what is missing


def _npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(array), allow_pickle=False)
    return buffer.getvalue()


def _file_entry(name: str, data: bytes) -> dict[str, Any]:
    return {"name": name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def encode_shard(
    out_dir: str,
    encoder_name: str,
    size: int,
    plan: ShardPlan,
    games: Sequence[tuple[str, bytes]],
    test_fingerprints: Mapping[str, str] | None = None,
    players: str | None = None,
) -> dict[str, Any]:
    """Encode one shard's games, write its three files atomically, return its manifest entry.

    In a train shard, a game whose :func:`game_fingerprint` is in
    ``test_fingerprints`` (fingerprint -> test game id) is skipped as a
    ``test_double``: the same game must not be both trained and tested on.
    """
    encoder = _encoder(encoder_name, size)
    doubles = test_fingerprints if plan.split == "train" and test_fingerprints else {}
    feature_parts, label_parts, kept, skipped = [], [], [], []
    repaired: Counter[str] = Counter()  # games by kind of repair (docs/sgf.md), kept or skipped
    first = 0
    for game_id, data in games:
        digest = hashlib.sha256(data).hexdigest()
        record = None
        try:
            record = read_game(data)
            fingerprint = game_fingerprint(record)
            if fingerprint in doubles:
                raise SkipGame("test_double", f"the same moves as test game {doubles[fingerprint]}")
            features, labels = encode_record(record, encoder, size, players)
        except SkipGame as e:
            skipped.append({"game": game_id, "kind": e.kind, "reason": e.reason, "sha256": digest})
            if record is not None:
                skipped[-1]["repairs"] = _repairs(record)
                repaired.update(skipped[-1]["repairs"])
            continue
        feature_parts.append(features)
        label_parts.append(labels)
        kept.append(
            {"game": game_id, "sha256": digest, "moves_sha256": fingerprint, "first": first, "positions": len(labels)}
        )
        if record.warnings:
            kept[-1]["repairs"] = _repairs(record)
            repaired.update(kept[-1]["repairs"])
        first += len(labels)
    features = (
        np.concatenate(feature_parts) if feature_parts else np.empty((0, *encoder.shape), dtype=FEATURE_DTYPE)
    )
    labels = np.concatenate(label_parts) if label_parts else np.empty(0, dtype=LABEL_DTYPE)
    meta = {
        "name": plan.name,
        "split": plan.split,
        "encoder": encoder_name,
        "board_size": size,
        "positions": int(len(labels)),
        "games": kept,
        "skipped": skipped,
    }
    blobs = {
        "features": _npy_bytes(features),
        "labels": _npy_bytes(labels),
        "games": (json.dumps(meta, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8"),
    }
    files = {}
    for kind, data in blobs.items():
        name = plan.file(kind)
        write_atomic(Path(out_dir) / name, data)
        files[kind] = _file_entry(name, data)
    return {
        "name": plan.name,
        "split": plan.split,
        "index": plan.index,
        "games": len(plan.games),
        "encoded_games": len(kept),
        "positions": int(len(labels)),
        "files": files,
        "skipped": [{k: s[k] for k in ("game", "kind", "reason")} for s in skipped],
        "repaired": dict(sorted(repaired.items())),
    }


def _repairs(record: Any) -> list[str]:
    """The kinds of the record's warnings, each once, in the order found (docs/sgf.md)."""
    return list(dict.fromkeys(w.kind for w in record.warnings))


def _encode_shard_job(
    job: tuple[str, str, int, ShardPlan, list[tuple[str, bytes]], str | None],
) -> dict[str, Any]:
    *args, players = job
    return encode_shard(*args, test_fingerprints=_TEST_FINGERPRINTS, players=players)


# ---- manifest ----------------------------------------------------------------


def verify_shard(out_dir: str | os.PathLike[str], entry: dict[str, Any], checksums: bool = True) -> str | None:
    """``None`` if the shard's files are there as the manifest says, else what is wrong."""
    for kind in ("features", "labels", "games"):
        f = entry["files"][kind]
        path = Path(out_dir) / f["name"]
        try:
            size = path.stat().st_size
        except OSError:
            return f"{f['name']} is missing"
        if size != f["bytes"]:
            return f"{f['name']} has {size} bytes, the manifest says {f['bytes']}"
        if checksums and sha256_file(path) != f["sha256"]:
            return f"{f['name']} does not match its SHA-256 in the manifest"
    return None


def load_manifest(out_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """Read ``manifest.json`` of a shard folder; raises :class:`ProcessError` if it is not one."""
    path = Path(out_dir) / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ProcessError(f"{out_dir} has no {MANIFEST}: not a shard folder (run `fuseki data process`)") from None
    except (OSError, ValueError) as e:
        raise ProcessError(f"cannot read {path}: {e}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ProcessError(f"{path} is not a {FORMAT} manifest")
    if manifest.get("version") != VERSION:
        raise ProcessError(f"{path} has format version {manifest.get('version')}, this fuseki reads {VERSION}")
    return manifest


#: Manifest fields that must match for a run to resume in a folder.
_PLAN_KEYS = (
    "format",
    "version",
    "encoder",
    "board_size",
    "feature_shape",
    "shard_games",
    "split_sha256",
    "test_doubles",
    "players",
)
#: The manifest's ``test_doubles``: what happens to a train game that is a test game again.
TEST_DOUBLES = "left out of training (same size, setup stones and moves as a test game)"


def _manifest(header: dict[str, Any], plans: list[ShardPlan], done: dict[str, dict[str, Any]]) -> dict[str, Any]:
    shards = [done[p.name] for p in plans if p.name in done]
    skipped = [s for entry in shards for s in entry["skipped"]]
    totals = {
        side: {
            "shards": sum(1 for e in shards if e["split"] == side),
            "games": sum(e["encoded_games"] for e in shards if e["split"] == side),
            "positions": sum(e["positions"] for e in shards if e["split"] == side),
        }
        for side in ("train", "test")
    }
    return {
        **header,
        "complete": len(shards) == len(plans),
        "planned_shards": len(plans),
        "shards": shards,
        "totals": totals,
        "bytes": sum(f["bytes"] for e in shards for k, f in e["files"].items() if k != "games"),
        "skipped": skipped,
        "skipped_by_kind": dict(sorted(Counter(s["kind"] for s in skipped).items())),
        # Games by kind of repair of the lenient SGF reader (shards made before it have none).
        "repaired_by_kind": dict(sorted(sum((Counter(e.get("repaired", {})) for e in shards), Counter()).items())),
    }


def run_folder(out_dir: str | os.PathLike[str]) -> RunFolder:
    """The shard folder: ``manifest.json`` is its settings file, checked on the keys of :data:`_PLAN_KEYS`."""
    return RunFolder(
        Path(out_dir),
        MANIFEST,
        holds="shards of another plan",
        file_kind=f"a {FORMAT} manifest",
        hint="use another output folder",
    )


# ---- the run -----------------------------------------------------------------


def process_games(
    sources: Iterable[str | os.PathLike[str]],
    out_dir: str | os.PathLike[str],
    *,
    encoder: str,
    size: int,
    games: int | None = None,
    test_fraction: float = 0.1,
    seed: int = 0,
    workers: int = 1,
    shard_games: int = 100,
    test_games: Sequence[str] | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    verify: bool = True,
    progress: ProgressCallback | None = None,
    players: str | None = None,
) -> dict[str, Any]:
    """Sample games from ``sources``, encode them into shards in ``out_dir``; return a summary.

    Resumes a run that was stopped: shards already in ``out_dir``'s manifest
    whose files match their checksums (all of them are re-hashed unless
    ``verify`` is false; sizes are always checked) are kept, the others are
    (re)made. The folder must hold the same plan -- encoder, board size, games
    per shard and the same split -- or :class:`~fuseki.util.runs.RunMismatch`
    is raised; :class:`~fuseki.util.runs.RunFolderBusy` when another run is
    writing to it. ``progress`` gets a :class:`~fuseki.util.progress.Progress`
    in this process after each shard (``extra``: its manifest entry's numbers).
    ``players`` (a regular expression) keeps only the moves of the players
    whose names match as examples (:func:`encode_game`).
    """
    t0 = time.perf_counter()
    if players is not None:
        try:
            re.compile(players)
        except re.error as e:
            raise ProcessError(f"bad players pattern {players!r}: {e}") from None

    enc = get_encoder(encoder, size)
    out = Path(out_dir)
    folder = run_folder(out)
    sources = [str(Path(s).resolve()) for s in sources]
    refs = list_games(sources, max_bytes=max_bytes)
    names = {r.id: r.portable for r in refs}
    split = sample_games(
        [r.id for r in refs], games, test_fraction=test_fraction, seed=seed, test_games=test_games, names=names
    )
    plans = plan_shards(split, shard_games)
    # With a fixed test list the rest of the draw is training data, even games the hash rule holds out of
    # every drawn split: other runs on these sources test on them, so a comparison with those runs would
    # measure this run on games it learned. Counted and reported, not silently mixed in.
    train_on_hash_test = (
        sum(is_test_game(names.get(g, g), test_fraction) for g in split.train) if split.fixed_test else 0
    )
    # The test games' portable names too: `--test-games` of this file then
    # finds them wherever the sources lie on the next machine.
    split_dict = {**split.to_dict(), "test_names": [names[g] for g in split.test]}
    split_bytes = (json.dumps(split_dict, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
    header = {
        "format": FORMAT,
        "version": VERSION,
        "encoder": encoder,
        "board_size": size,
        "feature_shape": list(enc.shape),
        "feature_dtype": np.dtype(FEATURE_DTYPE).name,
        "label_dtype": np.dtype(LABEL_DTYPE).name,
        "num_moves": int(enc.num_moves),
        "label": "row * size + col of the move played; size * size is pass",
        "shard_games": shard_games,
        "seed": seed,
        "test_fraction": test_fraction,
        "games_requested": games,
        "sources": sources,
        "split_file": SPLIT_FILE,
        "split_sha256": hashlib.sha256(split_bytes).hexdigest(),
        "split_games": {"train": len(split.train), "test": len(split.test)},
        "test_doubles": TEST_DOUBLES,
        "players": players,
    }
    with folder.locked():
        done, redo = _resume(folder, header, plans, verify)
        removed = _remove_own_temp_files(out)
        known = {MANIFEST, SPLIT_FILE, LOCK_FILE, OLD_LOCK_FILE} | {p.file(k) for p in plans for k in ("features", "labels", "games")}
        ignored = sorted(p.name for p in out.iterdir() if p.name not in known)
        write_atomic(out / SPLIT_FILE, split_bytes)
        write_json_atomic(out / MANIFEST, _manifest(header, plans, done))
        todo = [p for p in plans if p.name not in done]
        workers = max(1, min(workers, len(todo)))  # a worker with no shard would only cost its start-up
        fingerprints = fingerprint_test_games(split.test) if any(p.split == "train" for p in todo) else {}
        games_done = _run(out, encoder, size, enc, todo, workers, header, plans, done, progress, fingerprints, players)
    wall = time.perf_counter() - t0
    manifest = _manifest(header, plans, done)
    positions = manifest["totals"]["train"]["positions"] + manifest["totals"]["test"]["positions"]
    return {
        "out": str(out),
        "encoder": encoder,
        "board_size": size,
        "complete": manifest["complete"],
        "shards": len(manifest["shards"]),
        "shards_kept": len(plans) - len(todo),
        "shards_made": len(todo),
        "shards_redone": redo,
        "train_games": manifest["totals"]["train"]["games"],
        "test_games": manifest["totals"]["test"]["games"],
        "positions": positions,
        "skipped": len(manifest["skipped"]),
        "skipped_by_kind": manifest["skipped_by_kind"],
        "repaired_by_kind": manifest["repaired_by_kind"],
        "bytes": manifest["bytes"],
        "bytes_per_position": round(manifest["bytes"] / positions, 2) if positions else None,
        "games_this_run": games_done,
        "seconds": round(wall, 3),
        "games_per_second": round(games_done / wall, 1) if wall > 0 else None,
        "workers": workers,
        "ignored_files": ignored,
        "removed_temp_files": removed,
        "train_games_on_hash_test_side": train_on_hash_test,
    }


#: How a plan mismatch names each key: ``encoder differs: 'oneplane' there, 'sevenplane' now``.
_PLAN_LABELS = {
    **{key: f"{key.replace('_', ' ')} differs" for key in _PLAN_KEYS},
    "split_sha256": "the sample of games differs (other sources, --games, --seed, --test-fraction or --test-games)",
}


def _resume(
    folder: RunFolder, header: dict[str, Any], plans: list[ShardPlan], verify: bool
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Shards of an earlier run in the folder that can be kept, and the names of those that cannot."""
    out = folder.path
    if not (out / MANIFEST).exists():
        return {}, []
    old = load_manifest(out)
    folder.check(
        {key: old.get(key) for key in _PLAN_KEYS},
        {key: header[key] for key in _PLAN_KEYS},
        labels=_PLAN_LABELS,
        hidden={"split_sha256"},
    )
    planned = {p.name: p for p in plans}
    done, redo = {}, []
    for entry in old.get("shards", []):
        plan = planned.get(entry.get("name"))
        if plan is None or entry.get("games") != len(plan.games):
            continue
        if verify_shard(out, entry, checksums=verify) is None:
            done[plan.name] = entry
        else:
            redo.append(plan.name)
    return done, redo


def fingerprint_test_games(test_ids: Sequence[str]) -> dict[str, str]:
    """Fingerprint -> id (the first in drawing order) of each readable test game."""
    found: dict[str, str] = {}
    with GameReader(test_ids) as reader:
        for game_id in test_ids:
            try:
                found.setdefault(game_fingerprint(read_game(reader.read(game_id))), game_id)
            except SkipGame:
                pass  # its test shard lists it as skipped
    return found


def _remove_own_temp_files(out: Path) -> int:
    """Delete ``.NAME.*.tmp`` files that an interrupted :func:`write_atomic` left behind."""
    removed = 0
    for path in out.iterdir():
        if path.name.startswith(".") and path.name.endswith(TEMP_SUFFIX) and path.is_file():
            path.unlink()
            removed += 1
    return removed


def _run(
    out: Path,
    encoder: str,
    size: int,
    enc: Any,
    todo: list[ShardPlan],
    workers: int,
    header: dict[str, Any],
    plans: list[ShardPlan],
    done: dict[str, dict[str, Any]],
    progress: ProgressCallback | None,
    fingerprints: dict[str, str],
    players: str | None,
) -> int:
    """Encode the shards of ``todo``; return how many games were read."""
    if not todo:
        return 0

    def record(entry: dict[str, Any]) -> None:
        done[entry["name"]] = entry
        write_json_atomic(out / MANIFEST, _manifest(header, plans, done))
        if progress is not None:
            numbers = {k: entry[k] for k in ("name", "split", "games", "encoded_games", "positions")}
            progress(Progress(
                len(done), len(plans), "shard",
                f"shard {len(done)}/{len(plans)} {entry['name']}: {entry['encoded_games']} games, "
                f"{entry['positions']} positions, {len(entry['skipped'])} skipped",
                {**numbers, "skipped": len(entry["skipped"])},
            ))

    def ready(reader: GameReader) -> Iterable[tuple[int, list[tuple[str, bytes]]]]:
        for i, plan in enumerate(todo):
            yield i, [(g, reader.read(g)) for g in plan.games]

    games = sum(len(p.games) for p in todo)
    reader = GameReader(g for p in todo for g in p.games)
    if workers <= 1:
        with reader:
            for i, shard in ready(reader):
                record(encode_shard(str(out), encoder, size, todo[i], shard, fingerprints, players))
        return games
    modules = sorted({"fuseki.encoders", type(enc).__module__} - {"__main__", "__mp_main__"})
    try:
        shipped = enc if type(enc).__module__ not in ("__main__", "__mp_main__") and pickle.dumps(enc) else None
    except Exception:  # an encoder that does not pickle is built by name in each worker
        shipped = None
    init = (encoder, size, shipped, modules, fingerprints)
    with reader, WorkerPool(workers, _init_worker, init) as pool:
        jobs = ((str(out), encoder, size, todo[i], shard, players) for i, shard in ready(reader))
        # Two shards a worker at most are read ahead: few shards' games are in memory at a time.
        for entry in pool.map_unordered(_encode_shard_job, jobs, window=2 * workers):
            record(entry)
    return games


def register_test_encoder() -> str:
    """Register (once) and return the name of a tiny one-plane encoder, for tests and doctests.

    It is not registered unless this is called, so users never see it.
    """
    name = _StonesEncoder.name
    if name not in available_encoders():
        register_encoder(name, _StonesEncoder, "doctest only: 1 plane, stones of the player to move = 1, other = 2")
    return name


class _StonesEncoder:
    """A minimal encoder (for doctests): one plane, 1 = player to move, 2 = opponent."""

    name = "_test_stones"

    def __init__(self, size: int) -> None:
        self.size = size
        self.num_planes = 1
        self.shape = (1, size, size)
        self.num_points = size * size
        self.num_moves = size * size

    def encode(self, state: Any) -> np.ndarray:
        stones = state.stones()
        me = int(state.next_player)
        out = np.where(stones == me, 1, np.where(stones == 0, 0, 2)).astype(np.uint8)
        return out.reshape(self.shape)

    def encode_point(self, point: Any) -> int:
        return point.row * self.size + point.col

    def decode_point_index(self, index: int) -> Any:
        from fuseki.go.coords import Point

        if not 0 <= index < self.num_points:
            raise ValueError(f"index {index} is not a point")
        return Point(index // self.size, index % self.size)
