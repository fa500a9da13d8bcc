"""The AlphaGo agent: :class:`~fuseki.search.go.alphago_search.AlphaGoSearch` with a model folder's networks.

A model is the folder ``fuseki alphago train --out DIR`` makes: ``model.json``
names the SL policy (the search's priors, as in the paper: it found the SL
policy better than the RL policy there), the RL policy, the value network
and the rollout policy. ``--bot alphago --model DIR`` plays it in ``fuseki
play``, ``gtp``, ``serve``, ``match`` (through ``gtp``) and ``eval``
(``alphago:model=DIR,seconds=5``). Without ``model`` the agent plays the
shipped 9×9 model (``fuseki/models/alphago-9x9``) when it is installed.

Options: ``seconds`` or ``playouts`` (simulations; default 1,600), ``lam``
(λ, 0.5), ``c_puct`` (5), ``rollout`` (``policy``, ``heavy``, ``light``),
``priors`` (``sl`` or ``rl``), ``expand_visits``, ``batch``,
``virtual_loss``, ``resign_below`` (0.1), ``device`` (``auto``: the GPU when
there is one), ``seed``.

The evaluator puts the two networks on one device and runs each queue of
leaves as one batch per network (on a CPU with one thread per small batch,
:mod:`fuseki.nets.inference`).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from fuseki.util.errors import InputError

__all__ = ["AlphaGoAgent", "AlphaGoModel", "DEFAULT_MODEL", "load_alphago_model", "make_alphago"]

#: The shipped 9×9 model's folder name in the models folders.
DEFAULT_MODEL = "alphago-9x9"
DEFAULT_PLAYOUTS = 1600


class AlphaGoModel:
    """The four parts of a model folder, loaded (networks on ``device``)."""

    def __init__(self, folder: Path, device: str = "auto", priors: str = "sl") -> None:
        import torch

        from fuseki.agents.agent_file import load_agent_file
        from fuseki.search.go.rollout_policy import RolloutPolicy
        from fuseki.util.device import select_device

        manifest_path = folder / "model.json"
        if not manifest_path.is_file():
            raise InputError(f"{folder} is no AlphaGo model: it has no model.json (make one with `fuseki alphago train`)")
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
            files = manifest["files"]
        except (OSError, ValueError, KeyError) as e:
            raise InputError(f"{manifest_path} is not an AlphaGo model file: {e}") from None
        if priors not in ("sl", "rl"):
            raise InputError(f"priors must be 'sl' or 'rl', got {priors!r}")
        self.folder = folder
        self.manifest = manifest
        self.board_size = int(manifest["board_size"])
        self.device = select_device(device)
        key = "sl_policy" if priors == "sl" else "rl_policy"
        for part in (key, "value", "rollout"):
            if part not in files or not (folder / files[part]).is_file():
                raise InputError(f"{folder}: the model has no {part.replace('_', ' ')} file (model.json, files.{part})")
        self.policy, pinfo = load_agent_file(folder / files[key])
        self.value, vinfo = load_agent_file(folder / files["value"])
        if pinfo.board_size != self.board_size or vinfo.board_size != self.board_size:
            raise InputError(f"{folder}: the networks are for another board size than model.json says")
        if pinfo.in_planes != 48 or vinfo.in_planes != 49:
            raise InputError(f"{folder}: the policy must read 48 planes and the value network 49")
        self.policy.to(self.device).eval()
        self.value.to(self.device).eval()
        self.rollout = RolloutPolicy.load(folder / files["rollout"])
        self._torch = torch

    def evaluate(self, planes: np.ndarray, need_priors: bool, need_values: bool) -> tuple[np.ndarray, np.ndarray]:
        """The search's evaluator: policy softmax over the points and value in [-1, 1], one batch each."""
        from fuseki.nets.inference import inference

        torch = self._torch
        b = planes.shape[0]
        priors = np.zeros((b, self.board_size * self.board_size), dtype=np.float32)
        values = np.zeros(b, dtype=np.float32)
        # One CPU thread whatever the batch: a search's batches are small, and torch's pool spins against the
        # search's own work and the machine's other programs (71 ms a call against a few, measured here).
        with inference(self.device, 1):
            x = torch.from_numpy(planes).to(self.device, dtype=torch.float32)
            if need_priors:
                priors = torch.softmax(self.policy(x[:, :48]).float(), dim=1).cpu().numpy()
            if need_values:
                values = self.value(x).float().cpu().numpy()
        return priors, values


def _resolve_model(model: str | None) -> Path:
    from fuseki.util.models import models_dirs

    if model is None:
        for d in models_dirs():
            if (Path(d) / DEFAULT_MODEL / "model.json").is_file():
                return Path(d) / DEFAULT_MODEL
        raise InputError(f"the alphago bot needs --model DIR (the shipped {DEFAULT_MODEL} model is not installed)")
    path = Path(model)
    if path.is_dir():
        return path
    for d in models_dirs():
        if (Path(d) / model / "model.json").is_file():
            return Path(d) / model
    raise InputError(f"no AlphaGo model folder {model!r} (a folder made by `fuseki alphago train`)")


def load_alphago_model(model: str | None, device: str = "auto", priors: str = "sl") -> AlphaGoModel:
    return AlphaGoModel(_resolve_model(model), device=device, priors=priors)


class AlphaGoAgent:
    """An :class:`~fuseki.agents.base.Agent` that plays AlphaGo's search; it passes and resigns by itself."""

    self_terminating = True

    def __init__(
        self,
        model: AlphaGoModel,
        config: Any,
        playouts: int | None,
        seconds: float | None,
        resign_below: float | None,
        name: str = "alphago",
    ) -> None:
        from fuseki.search.go.alphago_search import AlphaGoSearch

        self.model = model
        self.search = AlphaGoSearch(model.evaluate, model.rollout, config)
        self.playouts = playouts
        self.seconds = seconds
        self.resign_below = resign_below
        self.name = name
        self.board_size = model.board_size
        self.last_info: Any = None

    def select_move(self, state: Any) -> Any:
        from fuseki.go.state import Move, Point

        if state.is_over():
            raise ValueError("the game is over: there is no move to select")
        if state.size != self.board_size:
            raise InputError(f"this AlphaGo model plays {self.board_size}x{self.board_size} only, not {state.size}x{state.size}")
        info = self.search.search(state, playouts=self.playouts, seconds=self.seconds)
        self.last_info = info
        n = state.size
        if self._should_resign(state, info):
            return Move.resign()
        if info.move == n * n:
            return Move.pass_turn()
        return Move.play(Point(info.move // n, info.move % n))

    def _should_resign(self, state: Any, info: Any) -> bool:
        if self.resign_below is None or math.isnan(info.winrate):
            return False
        if state.move_number < state.size * state.size // 4:
            return False
        if max((c.visits for c in info.children), default=0) < 100:
            return False
        return info.winrate < self.resign_below

    def analyze(self, state: Any) -> dict[str, Any]:
        info = self.last_info
        if info is None:
            info = self.search.search(state, playouts=self.playouts, seconds=self.seconds)
            self.last_info = info
        return {
            "winrate": info.winrate,
            "playouts": info.simulations,
            "evaluations": info.evaluations,
            "seconds": info.seconds,
            "playouts_per_second": info.simulations_per_second,
            "tree_nodes": info.tree_nodes,
            "reused_visits": info.reused_visits,
            "top": [(c.move, c.visits, c.value) for c in info.children[:5]],
        }

    def reset(self) -> None:
        self.search.clear()

    def __repr__(self) -> str:
        return f"AlphaGoAgent(model={str(self.model.folder)!r}, playouts={self.playouts}, seconds={self.seconds})"


def make_alphago(
    model: str | None = None,
    playouts: int | None = None,
    seconds: float | None = None,
    lam: float = 0.5,
    c_puct: float = 5.0,
    rollout: str = "policy",
    priors: str = "sl",
    expand_visits: int | None = None,
    batch: int = 16,
    virtual_loss: float = 3.0,
    resign_below: float | None = 0.1,
    device: str = "auto",
    seed: int | None = None,
) -> AlphaGoAgent:
    """The registry's ``alphago``: AlphaGo's search with a model folder's networks (see the module notes)."""
    from fuseki.search.go.alphago_search import AlphaGoConfig

    if playouts is not None and int(playouts) < 1:
        raise InputError(f"playouts must be at least 1, got {playouts}")
    if seconds is not None and not (isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds > 0):
        raise InputError(f"seconds must be a positive number, got {seconds!r}")
    if playouts is None and seconds is None:
        playouts = DEFAULT_PLAYOUTS
    config = AlphaGoConfig(
        c_puct=float(c_puct),
        lam=float(lam),
        rollout=rollout,
        expand_visits=expand_visits,
        batch=int(batch),
        virtual_loss=float(virtual_loss),
        seed=seed,
    )
    loaded = load_alphago_model(model, device=device, priors=priors)
    name = "alphago" if lam == 0.5 and rollout == "policy" else f"alphago(lam={lam:g},rollout={rollout})"
    return AlphaGoAgent(
        loaded, config, None if playouts is None else int(playouts), None if seconds is None else float(seconds), resign_below, name=name
    )
