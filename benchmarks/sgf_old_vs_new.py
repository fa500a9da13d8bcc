"""The lenient SGF reader against the reader before it: the same games, bit for bit?

For every game in the sources, this replays the main line with the old
reader (``src/fuseki/go/sgf.py`` at ``--old``, taken from git) and with the
reader of the working tree (lenient, the default), and compares every
position: the stones, the player to move, the prisoners, and the record's
moves, komi, handicap and setup. Each file falls in one class:

- ``identical``: both readers load it and every position is the same;
- ``changed_by_repair``: both load it, positions or fields differ, and the
  new reader says why (a warning such as ``komi_x100`` or ``handicap_placed``:
  the old reader read ``KM[650]`` as 650 points, or replayed a handicap game
  without its stones);
- ``mismatch``: both load it, they differ and the new reader warns of nothing
  (a bug; there must be none);
- ``new_only``: only the new reader loads it (a repair);
- ``lost``: only the old reader loads it (a bug; there must be none);
- ``refused_by_both``.

``--digests FILE`` also writes, per file, a SHA-256 of the old reader's
replay (of :func:`replay_facts`), or ``refused``, so that a test can check the
new reader against the old one without git (tests/go/test_sgf_old_replays.py).

    python benchmarks/sgf_old_vs_new.py benchmarks/results tests \\
        --out benchmarks/results/sgf_old_vs_new_shipped.json \\
        --digests benchmarks/results/sgf_old_replays.json
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from fuseki.data.sources import iter_games
from fuseki.go.sgf import SgfError, read_sgf
from fuseki.go.state import Color

ROOT = Path(__file__).resolve().parent.parent
#: main before the lenient reader (the merge-base of branch sg).
OLD_COMMIT = "2087f002a2e5dc4c50d7c69171d08a94a1a73d94"


def old_reader(commit: str) -> Any:
    """The ``fuseki.go.sgf`` module as it was at ``commit``, imported under another name."""
    source = subprocess.run(["git", "show", f"{commit}:src/fuseki/go/sgf.py"], cwd=ROOT, check=True, capture_output=True).stdout
    folder = Path(tempfile.mkdtemp(prefix="old_sgf_"))
    path = folder / "fuseki_old_sgf.py"
    path.write_bytes(source)
    spec = importlib.util.spec_from_file_location("fuseki_old_sgf", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def replay_facts(record: Any) -> list[Any]:
    """Everything a replay shows, as plain values: fields, then each position."""
    facts: list[Any] = [
        record.size,
        record.komi,
        record.handicap,
        sorted(record.setup_black),
        sorted(record.setup_white),
        sorted(record.setup_empty),
        [(int(m.color), m.move.gtp(record.size)) for m in record.moves],
    ]
    for state in record.states():
        facts.append(
            (
                state.stones().tobytes().hex(),
                int(state.next_player),
                state.captures(Color.BLACK),
                state.captures(Color.WHITE),
            )
        )
    return facts


def digest(facts: list[Any] | str) -> str:
    return hashlib.sha256(json.dumps(facts, default=str).encode()).hexdigest()


def read_old(module: Any, data: bytes) -> list[Any] | str:
    try:
        return replay_facts(module.read_sgf(data))
    except module.SgfError as e:
        return f"refused: {e}"


def read_new(data: bytes) -> tuple[list[Any] | str, list[str]]:
    record = None
    try:
        record = read_sgf(data)
        return replay_facts(record), [w.kind for w in record.warnings]
    except SgfError as e:
        return f"refused: {e}", [w.kind for w in record.warnings] if record is not None else []


def relative(game_id: str) -> str:
    """A game id relative to the repository, where it is inside it (digests travel with the repository)."""
    path, sep, member = game_id.partition("!")
    try:
        path = os.path.relpath(path, ROOT) if Path(path).resolve().is_relative_to(ROOT) else path
    except ValueError:
        pass
    return path + sep + member


def _head() -> str:
    """The working tree's commit, with ``+changes`` when it differs from it."""
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "src"], cwd=ROOT, capture_output=True, text=True).stdout
    return head + ("+changes" if dirty.strip() else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="+")
    parser.add_argument("--old", default=OLD_COMMIT, help="the commit of the old reader")
    parser.add_argument("--out", required=True, help="the comparison, as JSON")
    parser.add_argument("--digests", help="also write the old reader's replay digests here")
    args = parser.parse_args(argv)
    old = old_reader(args.old)
    t0 = time.perf_counter()
    classes: Counter[str] = Counter()
    changed_kinds: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    digests: dict[str, str] = {}
    for game_id, data in iter_games(args.sources):
        before = read_old(old, data)
        after, kinds = read_new(data)
        old_ok, new_ok = isinstance(before, list), isinstance(after, list)
        # The warnings that can change a replay (an encoding, a duplicated AP or a note cannot).
        repairs = [k for k in kinds if k not in ("setup_after_root", "extra_games", "encoding", "duplicate_property")]
        if old_ok and new_ok:
            if before == after:
                cls = "identical"
            elif repairs:
                cls = "changed_by_repair"
                changed_kinds.update(set(repairs))
            else:
                cls = "mismatch"
        elif new_ok:
            cls = "new_only"
        elif old_ok:
            cls = "lost"
        else:
            cls = "refused_by_both"
        classes[cls] += 1
        if cls != "identical" and len(examples.setdefault(cls, [])) < 10:
            examples[cls].append(relative(game_id))
        digests[relative(game_id)] = digest(before) if old_ok else "refused"
    result = {
        "command": "python " + " ".join([os.path.relpath(__file__, ROOT), *(argv or sys.argv[1:])]),
        "old_reader": f"src/fuseki/go/sgf.py at {args.old}",
        "new_reader": f"src/fuseki/go/sgf.py at {_head()}, lenient (the default)",
        "sources": args.sources,
        "games": sum(classes.values()),
        "classes": dict(classes.most_common()),
        "changed_by_repair_kinds": dict(changed_kinds.most_common()),
        "examples": examples,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    if args.digests:
        payload = {"old_reader": result["old_reader"], "facts": "see benchmarks/sgf_old_vs_new.py", "digests": digests}
        Path(args.digests).write_text(json.dumps(payload, indent=0, sort_keys=True) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "examples"}))
    return 1 if classes["mismatch"] or classes["lost"] else 0


if __name__ == "__main__":
    sys.exit(main())
