"""Make an AlphaGo model folder from networks trained elsewhere: ``fuseki alphago model``.

``fuseki alphago train`` makes a model of all four parts in one run. A
policy trained on its own (``fuseki train supervised`` on 48 AlphaGo
planes, e.g. the 19×19 policy of strong human games) is worth searching with
before any value network or rollout policy exists: AlphaGo's search with
``lam=0`` and ``rollout=heavy`` needs only the priors. :func:`make_model_folder`
copies the files it is given into a folder and writes the ``model.json``
that :class:`~fuseki.agents.alphago_agent.AlphaGoModel` reads, with the
board size taken from the policy and the policy's provenance (path,
SHA-256, network, training metadata) recorded, so the folder says where
its networks came from.

Every file is checked before anything is written (a policy of 48 AlphaGo
planes, a value network of 49 planes for the same board, a rollout policy
file this fuseki reads), and ``model.json`` is written last, so a folder
that a failure leaves behind is no model.
"""

from __future__ import annotations

import datetime
import os
import shutil
from pathlib import Path
from typing import Any

from fuseki.agents.alphago_agent import default_settings, plays_every_size
from fuseki.util.atomic import sha256_file, write_json_atomic
from fuseki.util.errors import InputError

__all__ = ["MODEL_FILE", "make_model_folder"]

MODEL_FILE = "model.json"
FILES = {"sl_policy": "sl_policy.safetensors", "value": "value.safetensors", "rollout": "rollout.safetensors"}


def _check_policy(path: Path) -> tuple[Any, dict[str, Any]]:
    from fuseki.agents.agent_file import load_agent_file

    _, info = load_agent_file(path)  # loads the weights too: a file whose tensors do not fit fails now, not at play time
    if info.game != "go" or info.kind != "policy" or info.encoder != "alphago" or info.in_planes != 48:
        raise InputError(
            f"{path}: not an AlphaGo policy (it is a {info.game} {info.kind} network on the {info.encoder!r} encoder, "
            f"{info.in_planes} planes; train one on --encoder alphago)"
        )
    return info, _provenance(path, info)


def _check_value(path: Path, size: int) -> dict[str, Any]:
    from fuseki.agents.agent_file import load_agent_file

    _, info = load_agent_file(path)
    if info.kind != "value" or info.in_planes != 49:
        raise InputError(f"{path}: not an AlphaGo value network (a {info.kind} network reading {info.in_planes} planes, not 49)")
    if info.board_size != size:
        raise InputError(f"{path}: the value network is for {info.board_size}x{info.board_size}, the policy for {size}x{size}")
    return _provenance(path, info)


def _provenance(path: Path, info: Any) -> dict[str, Any]:
    return {
        "path": str(path.resolve()),
        "sha256": sha256_file(path),
        "network": info.network,
        "network_options": info.network_options,
        "encoder": info.encoder,
        "created": info.created,
        "fuseki_version": info.fuseki_version,
        "training": info.training,
    }


def _top1(training: dict[str, Any]) -> float | None:
    final = training.get("final")
    if isinstance(final, dict) and isinstance(final.get("test_top1"), (int, float)):
        return float(final["test_top1"])
    return None


def make_model_folder(
    out: str | os.PathLike[str],
    policy: str | os.PathLike[str],
    *,
    value: str | os.PathLike[str] | None = None,
    rollout: str | os.PathLike[str] | None = None,
    komi: float = 7.5,
    rules: str = "chinese",
    note: str | None = None,
) -> dict[str, Any]:
    """Copy ``policy`` (and ``value``, ``rollout`` when given) into ``out`` and write its ``model.json``; returns it.

    ``out`` may exist but must not already hold a model. Raises
    :class:`InputError` (or :class:`~fuseki.agents.agent_file.AgentFileError`)
    with one line for anything that does not fit.
    """
    from fuseki.agents.agent_file import resolve_agent_path
    from fuseki.search.go.rollout_policy import RolloutPolicy

    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{folder} is a file, not a folder")
    if (folder / MODEL_FILE).exists():
        raise InputError(f"{folder} already holds a model ({MODEL_FILE}): give another --out")
    sources: dict[str, Path] = {"sl_policy": resolve_agent_path(policy)}
    info, prov = _check_policy(sources["sl_policy"])
    size = int(info.board_size)
    provenance = {"sl_policy": prov}
    if value is not None:
        sources["value"] = resolve_agent_path(value)
        provenance["value"] = _check_value(sources["value"], size)
    if rollout is not None:
        sources["rollout"] = Path(rollout)
        r = RolloutPolicy.load(sources["rollout"])
        rpath = sources["rollout"]
        provenance["rollout"] = {"path": str(rpath.resolve()), "sha256": sha256_file(rpath), "metadata": r.metadata}
    folder.mkdir(parents=True, exist_ok=True)
    files = {part: FILES[part] for part in sources}
    for part, src in sources.items():
        tmp = folder / (files[part] + ".tmp")
        shutil.copyfile(src, tmp)
        tmp.replace(folder / files[part])
    lam, rollout_default = default_settings("value" in files, "rollout" in files)
    plays = f"lam={lam:g}, rollout={rollout_default}"
    # Recorded for people and tools that read model.json; AlphaGoModel reads it again from the network.
    any_size = plays_every_size(info, has_value="value" in files)
    made = f"Made by `fuseki alphago model` from {sources['sl_policy'].name} ({', '.join(files)})"
    metrics: dict[str, Any] = {}
    top1 = _top1(info.training)
    if top1 is not None:
        metrics["sl_test_top1"] = top1
    manifest = {
        "format": "fuseki-alphago-model",
        "version": 1,
        "board_size": size,
        "komi": float(komi),
        "rules": rules,
        "files": files,
        "sha256": {part: provenance[part]["sha256"] for part in files},  # a copy hashes as its source
        "sources": provenance,
        "metrics": metrics,
        "any_size": any_size,
        "note": note
        or f"{made}: it plays {plays} by default"
        + (f", on every board size (its policy has no weight tied to the board; made on {size}x{size})." if any_size else "."),
        "created": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    write_json_atomic(folder / MODEL_FILE, manifest)
    return manifest
