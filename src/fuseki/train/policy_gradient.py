"""Policy-gradient learning on self-play experience (book ch. 10), and what the three RL learners share.

The book's update (section 10.2, listings 10.5-10.6) trains the policy with
Keras' categorical cross-entropy against a target vector that holds the
game's reward (+1 or -1) at the chosen move and 0 elsewhere. That loss is

    loss = -reward * log π(a | s)

averaged over a batch: a won game's moves become more likely, a lost game's
less likely (REINFORCE, "Monte Carlo policy gradient"). Keras clips the
probability to ``[1e-7, 1 - 1e-7]`` before the log; we clip the
log-probability the same way, which also stops a lost game from pushing a
probability towards 0 without end (past the clip the gradient is 0).

The optimiser is plain SGD with ``clipnorm`` (listing 10.6): Keras 2, which
the book uses, scales the gradients so that their global norm is at most
``clipnorm`` (``torch.nn.utils.clip_grad_norm_``). One epoch over the
experience (section 10.2: self-play data is noisy, so each game is used
once and more games are played instead).

Book settings (:data:`PG_BOOK`): batch size 1024 (section 10.3.3 recommends
"much larger values, like 1024 or even 2048" than Keras' 32); learning rate
1e-4 and clipnorm 1.0, the defaults of the book's ``train_pg.py`` (the text
names the parameters but gives no values).

:func:`train_rl` is the loop all three learners use (``q_learning`` and
``actor_critic`` give it their own loss): start from an agent file or a
fresh network, check the experience against its encoder, shuffle with a
seed, SGD, and save an agent file (safetensors + JSON) with ``kind`` and the
provenance: the experience files and their checksums, the settings, the
losses, where the weights came from.
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from fuseki.agents.agent_file import load_agent_file, read_agent_info, save_agent
from fuseki.data.experience import ExperienceBuffer, combine_experience
from fuseki.encoders import get_encoder
from fuseki.nets.registry import build_network, network_outputs
from fuseki.util.atomic import sha256_file
from fuseki.util.device import select_device
from fuseki.util.errors import InputError

if TYPE_CHECKING:
    import torch

    from fuseki.data.experience import ExperienceBuffer
    from fuseki.encoders.base import Encoder

__all__ = [
    "KERAS_EPS",
    "PG_BOOK",
    "BookSettings",
    "RLTrainConfig",
    "RLTrainResult",
    "check_experience",
    "experience_paths",
    "init_agent",
    "policy_gradient_loss",
    "sgd_train",
    "start_model",
    "train_policy_gradient",
    "train_rl",
]

#: Keras' ``epsilon()``: categorical cross-entropy clips probabilities to [eps, 1 - eps].
KERAS_EPS = 1e-7

#: A batch's loss: ``(model, batch) -> (total loss, {part name: detached scalar tensor})``; the batch holds
#: ``states`` (float), ``actions``, ``rewards``, ``advantages`` tensors on the device.
LossFn = Callable[[Any, dict[str, Any]], tuple[Any, dict[str, Any]]]


@dataclasses.dataclass(frozen=True)
class BookSettings:
    """The book's optimiser settings for one learner, and where they come from."""

    lr: float
    clipnorm: float | None
    batch_size: int
    epochs: int
    source: str


#: Policy gradient (ch. 10): see the module docstring.
PG_BOOK = BookSettings(
    lr=1e-4,
    clipnorm=1.0,
    batch_size=1024,
    epochs=1,
    source="ch. 10: SGD with clipnorm (listing 10.6), batch 1024-2048 (10.3.3), one epoch (10.2); "
    "lr 1e-4 and clipnorm 1.0 from the book's train_pg.py",
)


@dataclasses.dataclass(frozen=True)
class RLTrainConfig:
    """One RL training run: experience in, agent file out.

    Start from ``start`` (an agent file: ``--from``) or from a fresh network
    ``network`` with ``encoder`` and ``size`` (and ``net_options``). ``lr``,
    ``clipnorm`` and ``batch_size`` default (``None``) to the learner's book
    settings; ``clipnorm=0`` turns clipping off.
    """

    experience: tuple[str, ...]
    out: str
    start: str | None = None
    network: str | None = None
    encoder: str | None = None
    size: int | None = None
    net_options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    lr: float | None = None
    clipnorm: float | None = None
    batch_size: int | None = None
    epochs: int | None = None
    seed: int = 0
    device: str = "auto"
    #: Only write the fresh network as an agent file (no experience, no training).
    init: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "experience", tuple(os.fspath(p) for p in self.experience))
        if not self.experience and not self.init:
            raise InputError("give at least one experience file")
        if self.start is not None and (self.network or self.encoder or self.size or self.net_options):
            raise InputError("start from an agent file (--from) or a fresh network (--network/--encoder/--size), not both")
        if self.start is None and not (self.network and self.encoder and self.size):
            raise InputError("give --from FILE, or --network NAME --encoder NAME --size N for a fresh network")
        if self.lr is not None and not (math.isfinite(self.lr) and self.lr > 0):
            raise InputError(f"the learning rate must be a positive number, got {self.lr}")
        if self.clipnorm is not None and not (math.isfinite(self.clipnorm) and self.clipnorm >= 0):
            raise InputError(f"clipnorm must be a number at least 0 (0: off), got {self.clipnorm}")
        if self.batch_size is not None and self.batch_size < 1:
            raise InputError(f"the batch size must be at least 1, got {self.batch_size}")
        if self.epochs is not None and self.epochs < 1:
            raise InputError(f"epochs must be at least 1, got {self.epochs}")
        if not self.out:
            raise InputError("give the output agent file (--out)")

    def resolved(self, book: BookSettings) -> tuple[float, float | None, int, int]:
        """``(lr, clipnorm or None, batch size, epochs)`` with the book's values where not given."""
        lr = self.lr if self.lr is not None else book.lr
        clip = self.clipnorm if self.clipnorm is not None else book.clipnorm
        return lr, (clip or None), self.batch_size or book.batch_size, self.epochs or book.epochs


@dataclasses.dataclass(frozen=True)
class RLTrainResult:
    """What a run did: the agent file, the data, the settings, the loss of each epoch."""

    out: str
    kind: str
    network: str
    encoder: str
    board_size: int
    positions: int
    games: int
    lr: float
    clipnorm: float | None
    batch_size: int
    epochs: int
    losses: tuple[dict[str, float], ...]
    seconds: float
    device: str
    start: str

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["losses"] = list(self.losses)
        data["seconds"] = round(self.seconds, 3)
        return data

    def describe(self) -> str:
        last = self.losses[-1] if self.losses else {}
        parts = ", ".join(f"{k} {v:.4f}" for k, v in last.items())
        return (
            f"{self.out}: {self.kind} agent ({self.network}, {self.encoder} {self.board_size}x{self.board_size}) "
            f"trained {self.epochs} epoch(s) on {self.positions:,} positions from {self.games:,} games "
            f"in {self.seconds:.1f} s on {self.device} (lr {self.lr:g}, batch {self.batch_size}, "
            f"clipnorm {self.clipnorm if self.clipnorm else 'off'}); last epoch: {parts or '-'}"
        )


# ---- the loss ----------------------------------------------------------------------


def policy_gradient_loss(logits: torch.Tensor, actions: torch.Tensor, rewards: torch.Tensor) -> torch.Tensor:
    """``mean(-reward * log π(action | state))``: Keras' cross-entropy with the reward in the target (listing 10.5).

    >>> import torch
    >>> logits = torch.zeros(2, 4)
    >>> round(float(policy_gradient_loss(logits, torch.tensor([0, 1]), torch.tensor([1.0, 1.0]))), 4)
    1.3863
    """
    import torch

    log_probs = torch.log_softmax(logits.float(), dim=1).gather(1, actions.view(-1, 1)).squeeze(1)
    log_probs = log_probs.clamp(min=math.log(KERAS_EPS), max=math.log1p(-KERAS_EPS))
    return -(rewards * log_probs).mean()


def _pg_loss(model: Any, batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    out = model(batch["states"])
    if not hasattr(out, "dim") or out.dim() != 2:
        raise InputError("policy gradient needs a policy network (one output of move logits)")
    loss = policy_gradient_loss(out, batch["actions"], batch["rewards"])
    return loss, {"loss": loss.detach()}


# ---- the shared loop ---------------------------------------------------------------


def sgd_train(
    model: Any,
    buffer: ExperienceBuffer,
    loss_fn: LossFn,
    *,
    lr: float,
    clipnorm: float | None,
    batch_size: int,
    epochs: int,
    seed: int = 0,
    device: Any = "cpu",
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, float]]:
    """Train ``model`` in place on ``buffer`` with plain SGD (Keras' ``SGD(lr, clipnorm)``); mean parts per epoch.

    Each epoch visits the positions once in an order drawn from ``seed``
    (Keras' ``fit`` shuffles too); each batch's loss is ``loss_fn``'s.
    """
    import torch

    model.to(device)
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    generator = torch.Generator().manual_seed(int(seed))
    n = len(buffer)
    states = torch.from_numpy(buffer.states)
    arrays = {
        "actions": torch.from_numpy(buffer.actions),
        "rewards": torch.from_numpy(buffer.rewards),
        "advantages": torch.from_numpy(buffer.advantages),
    }
    history: list[dict[str, float]] = []
    for epoch in range(1, epochs + 1):
        order = torch.randperm(n, generator=generator)
        sums: dict[str, float] = {}
        started = time.monotonic()
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            batch = {"states": states[idx].to(device=device, dtype=torch.float32)}
            batch.update({k: v[idx].to(device) for k, v in arrays.items()})
            optimizer.zero_grad(set_to_none=True)
            loss, parts = loss_fn(model, batch)
            if not torch.isfinite(loss):
                raise FloatingPointError(f"the loss became {float(loss)} in epoch {epoch}; lower the learning rate")
            loss.backward()
            if clipnorm:
                torch.nn.utils.clip_grad_norm_(model.parameters(), clipnorm)
            optimizer.step()
            for key, value in parts.items():  # summed on the device: no sync per batch
                sums[key] = sums.get(key, 0.0) + value * len(idx)
        row = {key: float(value) / max(n, 1) for key, value in sums.items()}
        history.append(row)
        if progress is not None:
            progress({"event": "epoch", "epoch": epoch, "epochs": epochs, "seconds": time.monotonic() - started, **row})
    model.eval()
    return history


def _file_entry(path: str, buffer: ExperienceBuffer) -> dict[str, Any]:
    return {"path": path, "sha256": sha256_file(path), "positions": len(buffer), "games": buffer.games}


def start_model(config: RLTrainConfig, kind: str) -> tuple[Any, Encoder, str, dict[str, Any], str]:
    """The network to train: ``(model, encoder, network name, options, where it came from)``.

    From ``config.start`` (an agent file whose kind must be ``kind``) or a
    fresh network (seeded by ``config.seed``) whose registry kind must be ``kind``.
    """
    import torch

    from fuseki.util.atomic import sha256_file

    names = {"policy": "a policy network", "q": "a Q network (--network q)", "ac": "an actor-critic network (--network ac)"}
    if config.start is not None:
        info = read_agent_info(config.start)
        if info.kind != kind:
            raise InputError(f"{info.path} is a {info.kind!r} agent file; this learner trains {names[kind]}")
        model, info = load_agent_file(config.start)
        origin = f"{info.path} (sha256 {sha256_file(info.path)[:16]})"
        return model, info.make_encoder(), info.network, dict(info.network_options), origin
    assert config.network and config.encoder and config.size
    if network_outputs(config.network) != kind:
        raise InputError(f"network {config.network!r} is not {names[kind]}")
    encoder = get_encoder(config.encoder, int(config.size))
    torch.manual_seed(int(config.seed))
    options = dict(config.net_options)
    model = build_network(
        config.network, in_planes=encoder.num_planes, size=encoder.size, num_moves=encoder.num_moves, **options
    )
    return model, encoder, config.network, options, f"fresh {config.network} (seed {config.seed})"


def check_experience(buffer: ExperienceBuffer, encoder: Encoder, *, max_action: int | None = None) -> None:
    """Refuse experience made with another encoder, board or plane count, or with moves the network cannot output."""
    if (buffer.encoder, buffer.board_size) != (encoder.name, encoder.size):
        raise InputError(
            f"the experience was encoded with {buffer.encoder!r} on {buffer.board_size}x{buffer.board_size}; "
            f"the network reads {encoder.name!r} on {encoder.size}x{encoder.size}"
        )
    if len(buffer) and tuple(buffer.states.shape[1:]) != tuple(encoder.shape):
        raise InputError(f"the experience states have shape {buffer.states.shape[1:]}, the encoder's are {encoder.shape}")
    limit = encoder.num_moves if max_action is None else max_action
    if len(buffer) and int(buffer.actions.max()) >= limit:
        raise InputError(f"the experience holds move index {int(buffer.actions.max())}; the network has {limit} moves")
    if not len(buffer):
        raise InputError("the experience holds no decisions")


def train_rl(
    config: RLTrainConfig,
    *,
    kind: str,
    book: BookSettings,
    loss_fn: LossFn,
    algorithm: str,
    max_action: Callable[[Encoder], int] | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> RLTrainResult:
    """Load the experience and the start, train with ``loss_fn``, save an agent file of ``kind`` to ``config.out``."""
    started = time.monotonic()
    device = select_device(config.device)
    model, encoder, network, options, origin = start_model(config, kind)
    buffers = [ExperienceBuffer.load(p) for p in config.experience]
    files = [_file_entry(p, b) for p, b in zip(config.experience, buffers)]
    buffer = buffers[0] if len(buffers) == 1 else combine_experience(buffers)
    check_experience(buffer, encoder, max_action=max_action(encoder) if max_action else None)
    lr, clipnorm, batch_size, epochs = config.resolved(book)
    if progress is not None:
        progress(
            {
                "event": "start",
                "kind": kind,
                "positions": len(buffer),
                "games": buffer.games,
                "device": str(device),
                "start": origin,
                "lr": lr,
                "batch_size": batch_size,
                "clipnorm": clipnorm,
            }
        )
    losses = sgd_train(
        model,
        buffer,
        loss_fn,
        lr=lr,
        clipnorm=clipnorm,
        batch_size=batch_size,
        epochs=epochs,
        seed=config.seed,
        device=device,
        progress=progress,
    )
    metadata = {
        "algorithm": algorithm,
        "data": [f["path"] for f in files],
        "experience": files,
        "positions": len(buffer),
        "games": buffer.games,
        "start": origin,
        "optimizer": "sgd",
        "lr": lr,
        "clipnorm": clipnorm,
        "batch_size": batch_size,
        "epochs": epochs,
        "seed": config.seed,
        "losses": losses,
        "book": book.source,
        "device": str(device),
    }
    model.to("cpu")
    save_agent(config.out, model, encoder=encoder, network=network, network_options=options, metadata=metadata, kind=kind)
    return RLTrainResult(
        out=config.out,
        kind=kind,
        network=network,
        encoder=encoder.name,
        board_size=encoder.size,
        positions=len(buffer),
        games=buffer.games,
        lr=lr,
        clipnorm=clipnorm,
        batch_size=batch_size,
        epochs=epochs,
        losses=tuple(losses),
        seconds=time.monotonic() - started,
        device=str(device),
        start=origin,
    )


def init_agent(config: RLTrainConfig, kind: str) -> str:
    """Write an untrained agent file of ``kind`` (the book's ``init_ac_agent.py``): a start for self-play.

    ``config`` names a fresh network (``network``, ``encoder``, ``size``);
    its ``experience`` is ignored. Returns where the weights came from.
    """
    from fuseki.agents.agent_file import save_agent

    if config.start is not None:
        raise InputError("--init makes a fresh agent file; it takes no --from")
    model, encoder, network, options, origin = start_model(config, kind)
    save_agent(config.out, model, encoder=encoder, network=network, network_options=options,
               metadata={"algorithm": "untrained (initial weights)", "start": origin, "seed": config.seed}, kind=kind)
    return origin


def train_policy_gradient(
    config: RLTrainConfig, progress: Callable[[dict[str, Any]], None] | None = None
) -> RLTrainResult:
    """Policy gradient (ch. 10) on the experience files of ``config``; writes a ``policy`` agent file."""
    return train_rl(
        config,
        kind="policy",
        book=PG_BOOK,
        loss_fn=_pg_loss,
        algorithm="policy gradient (REINFORCE: -reward * log pi(a|s), book ch. 10)",
        progress=progress,
    )


def experience_paths(paths: Sequence[str | os.PathLike[str]]) -> tuple[str, ...]:
    """The experience files named on a command line; a folder means its ``experience.npz`` (self-play output)."""
    out: list[str] = []
    for p in paths:
        text = os.fspath(p)
        if os.path.isdir(text):
            merged = os.path.join(text, "experience.npz")
            if not os.path.isfile(merged):
                raise InputError(f"{text}: a folder without experience.npz (is the self-play run finished?)")
            text = merged
        out.append(text)
    return tuple(out)
