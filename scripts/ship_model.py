"""Write a trained agent file into the package's models folder, with the provenance a shipped model carries.

    python scripts/ship_model.py RUN/agent.safetensors --name NAME --data TEXT --data-license LICENSE \
        --source FILE [--source FILE ...] --accuracy EVAL.json [--note KEY=TEXT ...] [--out-dir DIR]

A run's ``agent.safetensors`` (``fuseki train supervised``) records how it was
trained, but not what a user of a shipped model needs to know besides: which
games it learned from and under which license (``data``, ``data_license``),
the archives by SHA-256 (``sources``), and its accuracy measured on games it
never saw (``accuracy``: the JSON of ``fuseki train evaluate --json`` on
held-out shards). This script adds those keys and writes
``src/fuseki/models/NAME.safetensors`` through the agent-file API, so the
shipped file is rebuilt the same way each time rather than by a snippet typed
once. The network and its training record are copied unchanged.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from fuseki.agents.agent_file import AgentFileError, load_agent_file, save_agent
from fuseki.util.atomic import sha256_file

MODELS = Path(__file__).resolve().parents[1] / "src" / "fuseki" / "models"


def _accuracy(path: Path) -> dict[str, Any]:
    """The ``accuracy`` record from ``fuseki train evaluate --json`` output (its last JSON line)."""
    try:
        text = path.read_text(encoding="utf-8").strip()
        ev = json.loads(text) if text.startswith("{") and text.endswith("}") else json.loads(text.splitlines()[-1])
    except (OSError, ValueError, IndexError) as e:
        raise SystemExit(f"ship_model: {path}: not the JSON of `fuseki train evaluate --json`: {e}") from None
    missing = [k for k in ("positions", "top1", "top5", "split", "shards") if k not in ev]
    if missing:
        raise SystemExit(f"ship_model: {path}: lacks {', '.join(missing)} (is it `fuseki train evaluate --json`?)")
    if ev["split"] != "test":
        raise SystemExit(f"ship_model: {path}: measured on the {ev['split']!r} split; a shipped accuracy is on held-out games")
    return {
        "test_positions": int(ev["positions"]),
        "test_top1": round(float(ev["top1"]), 4),
        "test_top5": round(float(ev["top5"]), 4),
        "board_size": int(ev.get("board_size", 0)) or None,
        "measured_on": Path(str(ev["shards"])).name,
        "split_sha256": ev.get("split_sha256"),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="ship_model.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("agent", help="the run's agent file (RUN/agent.safetensors)")
    ap.add_argument("--name", required=True, help="model name: the file becomes NAME.safetensors")
    ap.add_argument("--data", required=True, help="what the network learned from, in words")
    ap.add_argument("--data-license", required=True, help="the license of those games (e.g. GPL-3.0)")
    ap.add_argument("--source", action="append", default=[], required=True, help="an archive the games came from")
    ap.add_argument("--accuracy", required=True, type=Path, help="`fuseki train evaluate --json` on held-out shards")
    ap.add_argument("--note", action="append", default=[], metavar="KEY=TEXT", help="another metadata entry")
    ap.add_argument("--out-dir", type=Path, default=MODELS, help=f"where to write (default {MODELS})")
    args = ap.parse_args(argv)
    if not args.name or "/" in args.name or args.name.endswith(".safetensors"):
        ap.error(f"--name is a bare model name, got {args.name!r}")
    try:
        model, info = load_agent_file(args.agent)
    except AgentFileError as e:
        print(f"ship_model: {e}", file=sys.stderr)
        return 1
    sources = []
    for s in args.source:
        p = Path(s)
        if not p.is_file():
            print(f"ship_model: --source {s}: no such file", file=sys.stderr)
            return 1
        sources.append(f"{p.name} (sha256 {sha256_file(p)})")
    meta = dict(info.training)
    meta.update(
        data=args.data,
        data_license=args.data_license,
        sources=sources,
        accuracy=_accuracy(args.accuracy),
        shipped_from=f"{args.agent} (sha256 {sha256_file(args.agent)})",
    )
    for note in args.note:
        key, sep, text = note.partition("=")
        if not sep or not key:
            ap.error(f"--note takes KEY=TEXT, got {note!r}")
        meta[key] = text
    args.out_dir.mkdir(parents=True, exist_ok=True)
    out = args.out_dir / f"{args.name}.safetensors"
    save_agent(
        out,
        model,
        encoder=info.make_encoder(),
        network=info.network,
        network_options=info.network_options,
        metadata=meta,
        kind=info.kind,
        game=info.game,
    )
    print(json.dumps({"wrote": str(out), "bytes": out.stat().st_size, "accuracy": meta["accuracy"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
