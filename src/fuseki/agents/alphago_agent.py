"""The AlphaGo agent: :class:`~fuseki.search.go.alphago_search.AlphaGoSearch` with a model folder's networks.

A model is the folder ``fuseki alphago train --out DIR`` makes: ``model.json``
names the SL policy (the search's priors, as in the paper: it found the SL
policy better than the RL policy there), the RL policy, the value network
and the rollout policy. ``--bot alphago --model DIR`` plays it in ``fuseki
play``, ``gtp``, ``serve``, ``match`` (through ``gtp``) and ``eval``
(``alphago:model=DIR,seconds=5``). Without ``model`` the agent plays the
shipped 9×9 model (``fuseki/models/alphago-9x9``) when it is installed.

Only the SL policy (or, with ``priors=rl``, the RL policy) is required:
``fuseki alphago model --policy FILE --out DIR`` makes a folder of a policy
alone, and ``model.json`` may leave out ``value``, ``rollout`` and
``rl_policy``. Such a model plays the configurations that need no missing
part: ``lam=0`` needs no value network, ``rollout=heavy`` or ``light`` no
rollout policy. Asking for a missing part is an :class:`InputError` that says
what to play instead. A model whose policy plays every board size (a
one-logit-a-point head) and that has no value network plays every size too
(:attr:`AlphaGoModel.board_size` is then ``None``).

Options: ``seconds`` or ``playouts`` (simulations; default 1,600), ``lam``
(λ; default 0.5, or 0 for a model without a value network), ``c_puct`` (5),
``fpu_reduction`` (0: an unvisited child is worth its parent's value),
``rollout`` (``policy``, ``heavy``, ``light``; default ``policy``, or
``heavy`` for a model without a rollout policy), ``priors`` (``sl`` or
``rl``), ``expand_visits``, ``batch``, ``virtual_loss``, ``resign_below``
(0.1), ``device`` (``auto``: the GPU when there is one), ``seed``. The
defaults depend on the model only where an option is left out: a ``lam`` or
``rollout`` given explicitly is played as given or refused.

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

__all__ = [
    "AlphaGoAgent",
    "AlphaGoModel",
    "DEFAULT_MODEL",
    "PARTS",
    "default_settings",
    "load_alphago_model",
    "make_alphago",
    "plays_every_size",
    "settings_for",
]

#: The shipped 9×9 model's folder name in the models folders.
DEFAULT_MODEL = "alphago-9x9"
DEFAULT_PLAYOUTS = 1600


#: The parts a ``model.json`` may name; only the policy the priors come from is required.
PARTS = ("sl_policy", "rl_policy", "value", "rollout")


class AlphaGoModel:
    """The parts of a model folder that it has, loaded (networks on ``device``).

    ``value`` and ``rollout`` are None when ``model.json`` names no such file:
    the search can run without them (``lam=0``; ``rollout=heavy``), and
    :func:`make_alphago` refuses the settings that would need them.
    """

    def __init__(self, folder: Path, device: str = "auto", priors: str = "sl") -> None:
        import torch

        from fuseki.agents.agent_file import load_agent_file
        from fuseki.search.go.rollout_policy import RolloutPolicy
        from fuseki.util.device import select_device

        manifest_path = folder / "model.json"
        if not manifest_path.is_file():
            raise InputError(
                f"{folder} is no AlphaGo model: it has no model.json (make one with `fuseki alphago train` or `fuseki alphago model`)"
            )
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
            files = manifest["files"]
        except (OSError, ValueError, KeyError) as e:
            raise InputError(f"{manifest_path} is not an AlphaGo model file: {e}") from None
        if priors not in ("sl", "rl"):
            raise InputError(f"priors must be 'sl' or 'rl', got {priors!r}")
        self.folder = folder
        self.manifest = manifest
        #: The size the model was made for; :attr:`board_size` is ``None`` when it plays every size.
        self.trained_size = int(manifest["board_size"])
        self.board_size: int | None = self.trained_size
        self.device = select_device(device)
        key = "sl_policy" if priors == "sl" else "rl_policy"
        if not isinstance(files, dict):
            raise InputError(f"{manifest_path}: files must be an object naming the parts' files")
        if key not in files:
            other = "rl" if priors == "sl" else "sl"
            raise InputError(f"{folder}: the model has no {key.replace('_', ' ')} file (model.json, files.{key}); try priors={other}")
        for part in PARTS:
            # A part model.json names must be there: a listed file that is gone is a broken folder, not a smaller model.
            if part in files and not (folder / files[part]).is_file():
                raise InputError(f"{folder}: the model has no {part.replace('_', ' ')} file (model.json, files.{part})")
        self.policy, pinfo = load_agent_file(folder / files[key])
        if pinfo.board_size != self.trained_size:
            raise InputError(f"{folder}: the policy is for {pinfo.board_size}x{pinfo.board_size}, model.json says {self.trained_size}")
        if pinfo.in_planes != 48:
            raise InputError(f"{folder}: the policy must read 48 planes (the alphago encoder), it reads {pinfo.in_planes}")
        self.policy.to(self.device).eval()
        self.value: Any = None
        if "value" in files:
            self.value, vinfo = load_agent_file(folder / files["value"])
            if vinfo.board_size != self.trained_size or vinfo.in_planes != 49:
                n = self.trained_size
                raise InputError(f"{folder}: the value network must read 49 planes of {n}x{n}")
            self.value.to(self.device).eval()
        if plays_every_size(pinfo, has_value=self.value is not None):
            self.board_size = None
        self.rollout: RolloutPolicy | None = RolloutPolicy.load(folder / files["rollout"]) if "rollout" in files else None
        self._torch = torch

    @property
    def has_value(self) -> bool:
        return self.value is not None

    @property
    def has_rollout(self) -> bool:
        return self.rollout is not None

    def evaluate(self, planes: np.ndarray, need_priors: bool, need_values: bool) -> tuple[np.ndarray, np.ndarray]:
        """The search's evaluator: policy softmax over the points and value in [-1, 1], one batch each."""
        from fuseki.nets.batcher import fast_layout
        from fuseki.nets.inference import inference

        torch = self._torch
        if need_values and self.value is None:
            raise InputError(f"{self.folder}: this model has no value network: play it with lam=0")
        b = planes.shape[0]
        priors = np.zeros((b, planes.shape[-2] * planes.shape[-1]), dtype=np.float32)
        values = np.zeros(b, dtype=np.float32)
        # One CPU thread whatever the batch: a search's batches are small, and torch's pool spins against the
        # search's own work and the machine's other programs (71 ms a call against a few, measured here).
        with inference(self.device, 1):
            # Channels-last for a batch of 4 or more: 1.24x at batch 4, 1.58x at 16 for the policy and value
            # together on one Ice Lake thread (fuseki.nets.batcher.fast_layout).
            x = fast_layout(torch.from_numpy(planes).to(self.device, dtype=torch.float32), self.device)
            if need_priors:
                priors = torch.softmax(self.policy(x[:, :48]).float(), dim=1).cpu().numpy()
            if need_values:
                values = self.value(x).float().cpu().numpy()
        return priors, values


def plays_every_size(policy_info: Any, *, has_value: bool) -> bool:
    """Whether a model of this policy (an :class:`~fuseki.agents.agent_file.AgentFileInfo`) plays every board size.

    A policy with no weight tied to the board (a one-logit-a-point head:
    ``AgentFileInfo.any_size``) gives priors on every size, and the heavy or
    light playouts and the rollout policy's local patterns read any board; a
    value network's dense layers do not, so with one the model keeps its size.
    """
    return bool(policy_info.any_size) and not has_value


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
    raise InputError(f"no AlphaGo model folder {model!r} (a folder made by `fuseki alphago train` or `fuseki alphago model`)")


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
        if self.board_size is not None and state.size != self.board_size:
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
    lam: float | None = None,
    c_puct: float = 5.0,
    rollout: str | None = None,
    fpu_reduction: float = 0.0,
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
    loaded = load_alphago_model(model, device=device, priors=priors)
    lam, rollout = settings_for(loaded, lam, rollout)
    config = AlphaGoConfig(
        c_puct=float(c_puct),
        lam=lam,
        fpu_reduction=float(fpu_reduction),
        rollout=rollout,
        expand_visits=expand_visits,
        batch=int(batch),
        virtual_loss=float(virtual_loss),
        seed=seed,
    )
    name = "alphago" if lam == 0.5 and rollout == "policy" else f"alphago(lam={lam:g},rollout={rollout})"
    return AlphaGoAgent(
        loaded, config, None if playouts is None else int(playouts), None if seconds is None else float(seconds), resign_below, name=name
    )


def default_settings(has_value: bool, has_rollout: bool) -> tuple[float, str]:
    """The ``lam`` and ``rollout`` a model with these parts plays when they are left out."""
    return (0.5 if has_value else 0.0), ("policy" if has_rollout else "heavy")


def settings_for(model: AlphaGoModel, lam: float | None, rollout: str | None) -> tuple[float, str]:
    """``lam`` and ``rollout`` for ``model``: the defaults its parts allow, or the given ones if it has what they need.

    Left out, λ is 0.5 with a value network and 0 without; the rollout is the
    rollout policy when the model has one, else the heavy playout. Given, a
    setting that needs a missing part is refused, never changed.
    """
    default_lam, default_rollout = default_settings(model.has_value, model.has_rollout)
    if lam is None:
        lam = default_lam
    if isinstance(lam, bool) or not isinstance(lam, (int, float)) or not 0.0 <= float(lam) <= 1.0:
        raise InputError(f"lam must be a number from 0 to 1, got {lam!r}")
    lam = float(lam)
    if rollout is None:
        rollout = default_rollout
    if lam > 0.0 and not model.has_value:
        raise InputError(f"{model.folder}: this model has no value network: play it with lam=0")
    if rollout == "policy" and lam < 1.0 and not model.has_rollout:
        raise InputError(f"{model.folder}: this model has no rollout policy: play it with rollout=heavy (or light)")
    return lam, str(rollout)
