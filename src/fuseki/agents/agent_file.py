"""Agent files: one safetensors file that holds a trained network and everything needed to rebuild it.

The book (ch. 8) saves a ``DeepLearningAgent`` as an HDF5 file: the Keras
model (architecture and weights) plus an ``encoder`` group with the encoder's
name and board size. We keep the idea, one file per agent, and change the
container:

- the weights are a `safetensors <https://huggingface.co/docs/safetensors>`_
  file: raw tensors behind a JSON header, read without running any code.
  Loading never unpickles (no ``torch.load``), so a downloaded agent file
  cannot execute anything;
- the architecture is data, not code: a network name from
  :mod:`fuseki.nets.registry` and its options, rebuilt with
  :func:`~fuseki.nets.registry.build_network`;
- everything else is one JSON object stored in the safetensors header's
  ``__metadata__`` under the key ``"fuseki_agent"``: the encoder and board
  size, the network, the training provenance (data, date, epochs, accuracy)
  and the fuseki and torch versions. See ``docs/agents.md``.

Any safetensors reader can list the tensors and the metadata of an agent
file; :func:`read_agent_info` does it without torch.

A file is found by path, or by name in the models folders
(:func:`models_dirs`: ``$FUSEKI_MODELS``, then the package's
``fuseki/models/``). Every problem with a file (missing, truncated, foreign,
from a newer fuseki, weights that do not fit) raises :class:`AgentFileError`,
a ``ValueError`` whose message is one line for the command line.

>>> import torch, tempfile, os
>>> from fuseki.encoders import get_encoder
>>> from fuseki.nets.registry import available_networks, register_network
>>> if "doctest-linear" not in available_networks():
...     register_network("doctest-linear", lambda in_planes, size, num_moves: torch.nn.Sequential(
...         torch.nn.Flatten(), torch.nn.Linear(in_planes * size * size, num_moves)), "a doctest net")
>>> enc = get_encoder("oneplane", 5)
>>> net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(25, 25))
>>> path = os.path.join(tempfile.mkdtemp(), "tiny.safetensors")
>>> save_agent(path, net, encoder=enc, network="doctest-linear", metadata={"data": "none", "epochs": 0})
>>> model, info = load_agent_file(path)
>>> info.encoder, info.board_size, info.network, info.training["epochs"]
('oneplane', 5, 'doctest-linear', 0)
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import fuseki
from fuseki.encoders import get_encoder
from fuseki.games import available_games
from fuseki.nets.registry import build_network
from fuseki.util import models
from fuseki.util.atomic import write_atomic
from fuseki.util.errors import FusekiError
from fuseki.util.models import MODELS_ENV, models_dirs  # noqa: F401 (re-exported)
from fuseki.util.safetensors_header import HeaderFormat, check_format_version, read_header

if TYPE_CHECKING:
    from fuseki.encoders.base import Encoder

__all__ = [
    "AgentFileError",
    "AgentFileInfo",
    "FORMAT_VERSION",
    "METADATA_KEY",
    "SUFFIX",
    "V1_GAME",
    "available_models",
    "load_agent_file",
    "models_dirs",
    "read_agent_info",
    "resolve_agent_path",
    "save_agent",
]

#: The ``__metadata__`` key that holds our JSON object.
METADATA_KEY = "fuseki_agent"
#: The version of the metadata layout this fuseki writes (and the newest it reads).
#: 1: Go only; 2: adds ``game`` (a :func:`fuseki.games.make_game` name). A version 1
#: file still loads, as a Go agent.
FORMAT_VERSION = 2
#: The game of a version 1 file, which predates the ``game`` field: every such file is a Go agent.
V1_GAME = "go"
#: The file name suffix of agent files (they are plain safetensors files).
SUFFIX = ".safetensors"

#: Headers longer than this are not ours (safetensors itself stops at 100 MB).
_MAX_HEADER = 100 * 1024 * 1024
#: Magic numbers of files people may mistake for agent files, for a better message.
_FOREIGN_MAGIC = {
    b"\x89HDF\r\n\x1a\n": "it is an HDF5 file (the book's Keras/h5py agent format)",
    b"PK\x03\x04": "it is a zip archive, such as a torch.save pickle; fuseki never loads pickles",
    b"\x80": "it is a Python pickle; fuseki never loads pickles",
}
_REQUIRED = ("format_version", "kind", "encoder", "board_size", "in_planes", "num_moves", "network")


class AgentFileError(FusekiError, ValueError):
    """An agent file that cannot be used: missing, truncated, foreign, too new, or not matching its network.

    The message names the file and says what is wrong in one line.
    """


_HEADER_FORMAT = HeaderFormat(
    error=AgentFileError,
    metadata_key=METADATA_KEY,
    name="fuseki agent file",
    short="agent file",
    owner="fuseki agent",
    metadata=f"{METADATA_KEY} metadata",
    max_header=_MAX_HEADER,
    foreign_magic=_FOREIGN_MAGIC,
)


@dataclasses.dataclass(frozen=True)
class AgentFileInfo:
    """What an agent file's metadata says (the JSON object under ``fuseki_agent``)."""

    #: The file it was read from ("" for an info not read from a file).
    path: str
    format_version: int
    #: What the network computes: ``"policy"`` (move logits) for now.
    kind: str
    #: Encoder registry name and the board size it was built for.
    encoder: str
    board_size: int
    in_planes: int
    num_moves: int
    #: Network registry name and the options it was built with.
    network: str
    network_options: dict[str, Any]
    #: Training provenance: ``data``, ``date``, ``epochs``, ``accuracy`` and whatever else the trainer recorded.
    training: dict[str, Any]
    fuseki_version: str = ""
    torch_version: str = ""
    #: When the file was written (UTC, ISO 8601).
    created: str = ""
    #: The game the agent plays (a :func:`fuseki.games.make_game` name); ``"go"`` for version 1 files.
    game: str = V1_GAME

    def make_encoder(self, size: int | None = None) -> Encoder:
        """The encoder this network reads (``get_encoder(encoder, board_size)``), or on ``size`` for
        a network that plays any size (:attr:`any_size`)."""
        return get_encoder(self.encoder, self.board_size if size is None else size)

    @property
    def any_size(self) -> bool:
        """Whether the network plays every board size: no weight of it depends on the size.

        A convolutional network whose policy is one logit a point
        (``residual`` with ``policy_head="conv"``) runs on any board; a dense
        layer over the board ties a network to the size it was trained on.
        Read from the network itself, not declared: it is rebuilt (without
        memory, on torch's ``meta`` device) at the trained size and at
        another, and the two must have the same shapes everywhere.
        """
        return _any_size(
            self.game, self.kind, self.encoder, self.board_size, self.network, json.dumps(self.network_options, sort_keys=True)
        )

    def plays(self, size: int) -> bool:
        """Whether the network plays a ``size`` board: its own size, or any for an :attr:`any_size` network."""
        return int(size) == self.board_size or self.any_size

    def to_dict(self) -> dict[str, Any]:
        """The metadata object as stored (without ``path``)."""
        out = dataclasses.asdict(self)
        del out["path"]
        return {"format": "fuseki-agent", **out}


@functools.lru_cache(maxsize=64)
def _any_size(game: str, kind: str, encoder: str, size: int, network: str, options: str) -> bool:
    """:attr:`AgentFileInfo.any_size`, once per network design (building even on ``meta`` costs milliseconds)."""
    if game != "go" or kind != "policy":  # board sizes are Go's; the policy agent is what reads other sizes
        return False
    import torch

    other = size - 2 if size > 7 else size + 2
    shapes = []
    for n in (size, other):
        try:
            enc = get_encoder(encoder, n)
            with torch.device("meta"):
                net = build_network(network, in_planes=enc.num_planes, size=n, num_moves=enc.num_moves, **json.loads(options))
        except (ValueError, TypeError, RuntimeError, NotImplementedError):  # not buildable there: one size
            return False
        shapes.append({k: tuple(v.shape) for k, v in net.state_dict().items()})
    return shapes[0] == shapes[1]


# ---- finding files -------------------------------------------------------


def available_models() -> dict[str, Path]:
    """Agent files in the models folders by name (file name without ``.safetensors``); earlier folders win."""
    found: dict[str, Path] = {}
    for folder in models.models_dirs():
        if folder.is_dir():
            for path in sorted(folder.glob(f"*{SUFFIX}")):
                found.setdefault(path.name[: -len(SUFFIX)], path)
    return dict(sorted(found.items()))


def resolve_agent_path(path_or_name: str | os.PathLike[str]) -> Path:
    """The agent file meant by a path or by a name in the models folders.

    An existing path wins. Otherwise a bare name (no folder part) is looked up
    as ``NAME`` and ``NAME.safetensors`` in each of :func:`models_dirs`.
    """
    text = os.fspath(path_or_name)
    if not text.strip():
        raise AgentFileError("no agent file given (an empty name)")
    path = Path(text).expanduser()
    if path.is_dir():
        raise AgentFileError(f"{text}: is a directory, not an agent file")
    if path.is_file():
        return path
    is_name = os.sep not in text and (os.altsep is None or os.altsep not in text)
    if is_name:
        for folder in models.models_dirs():
            for candidate in (folder / text, folder / (text + SUFFIX)):
                if candidate.is_file():
                    return candidate
    names = ", ".join(available_models()) or "none"
    where = "; models folders: " + ", ".join(str(d) for d in models.models_dirs()) if is_name else ""
    raise AgentFileError(f"{text}: no such agent file (models by name: {names}{where})")


# ---- writing -------------------------------------------------------------


def save_agent(
    path: str | os.PathLike[str],
    model: Any,
    *,
    encoder: Encoder,
    network: str,
    network_options: Mapping[str, Any] | None = None,
    metadata: Mapping[str, Any] | None = None,
    kind: str = "policy",
    game: str = "go",
) -> None:
    """Write ``model`` and its description to ``path`` as one agent file (atomically).

    ``network`` and ``network_options`` must rebuild ``model`` through
    :func:`~fuseki.nets.registry.build_network` with the encoder's planes,
    board size and move count: this is checked here, so that a file that
    saves always loads. ``metadata`` is the training provenance (``data``,
    ``date``, ``epochs``, ``accuracy``, anything JSON); ``date`` defaults to
    today (UTC). ``game`` names the game the agent plays (``"go"``, ...:
    :func:`fuseki.games.available_games`); an unknown name raises ``ValueError``.
    """
    import safetensors.torch
    import torch

    if game not in available_games():
        raise ValueError(f"unknown game {game!r} for an agent file; known games: {', '.join(available_games())}")
    options = dict(network_options or {})
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    training = dict(metadata or {})
    training.setdefault("date", now.date().isoformat())
    info = AgentFileInfo(
        path="",
        format_version=FORMAT_VERSION,
        kind=kind,
        encoder=encoder.name,
        board_size=int(encoder.size),
        in_planes=int(encoder.num_planes),
        num_moves=int(encoder.num_moves),
        network=network,
        network_options=options,
        training=training,
        fuseki_version=fuseki.__version__,
        torch_version=torch.__version__,
        created=now.isoformat().replace("+00:00", "Z"),
        game=game,
    )
    try:
        text = json.dumps(info.to_dict(), sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise ValueError(f"agent metadata and network options must be plain JSON (no NaN): {e}") from None
    # Clones: safetensors refuses tensors that share memory (tied weights, views).
    tensors = {k: v.detach().to("cpu").contiguous().clone() for k, v in model.state_dict().items()}
    with torch.random.fork_rng(devices=[]):  # the reference's random weights must not move a training run's RNG
        reference = build_network(
            network, in_planes=info.in_planes, size=info.board_size, num_moves=info.num_moves, **options
        )
    problem = _mismatch(reference.state_dict(), tensors)
    if problem:
        raise ValueError(f"the model is not network {network!r} with options {options}: {problem}")
    data = safetensors.torch.save(tensors, metadata={METADATA_KEY: text, "format": "pt"})
    write_atomic(path, data)


# ---- reading -------------------------------------------------------------


def read_agent_info(path_or_name: str | os.PathLike[str]) -> AgentFileInfo:
    """The metadata of an agent file, read from its header alone (no torch, no weights)."""
    path = resolve_agent_path(path_or_name)
    info, _ = _read_header(path)
    return info


def load_agent_file(path_or_name: str | os.PathLike[str]) -> tuple[Any, AgentFileInfo]:
    """The network of an agent file, rebuilt and loaded (in eval mode, on the CPU), and its metadata."""
    import safetensors
    import safetensors.torch

    from fuseki.nets.denormals import flush_subnormal_weights
    from fuseki.nets.registry import build_network

    path = resolve_agent_path(path_or_name)
    info, _ = _read_header(path)
    try:
        encoder = info.make_encoder()
    except ValueError as e:
        n = info.board_size
        raise AgentFileError(f"{path}: needs encoder {info.encoder!r} on {n}x{n}: {e}") from None
    if (encoder.num_planes, encoder.num_moves) != (info.in_planes, info.num_moves):
        raise AgentFileError(
            f"{path}: encoder {info.encoder!r} now has {encoder.num_planes} planes and {encoder.num_moves} moves, "
            f"the file was trained with {info.in_planes} and {info.num_moves}"
        )
    try:
        model = build_network(
            info.network,
            in_planes=info.in_planes,
            size=info.board_size,
            num_moves=info.num_moves,
            **info.network_options,
        )
    except ValueError as e:
        raise AgentFileError(f"{path}: cannot rebuild its network: {e}") from None
    try:
        tensors = safetensors.torch.load_file(str(path), device="cpu")
    except (safetensors.SafetensorError, OSError, RuntimeError, ValueError) as e:
        raise AgentFileError(f"{path}: corrupt agent file: {e}") from None
    problem = _mismatch(model.state_dict(), tensors)
    if problem:
        raise AgentFileError(
            f"{path}: the weights do not fit network {info.network!r} with options {info.network_options}: {problem}"
        )
    model.load_state_dict(tensors, strict=True)
    # Weight decay leaves many weights subnormal, which slows every product with them on x86 by 10x or more
    # (fuseki.nets.denormals); zero is the same weight at float32 precision.
    flush_subnormal_weights(model)
    model.eval()
    return model, info


def _mismatch(expected: Mapping[str, Any], tensors: Mapping[str, Any]) -> str:
    """Why ``tensors`` cannot be loaded into a state dict like ``expected`` ("" if it can)."""
    missing = sorted(set(expected) - set(tensors))
    extra = sorted(set(tensors) - set(expected))
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"missing {_few(missing)}")
        if extra:
            parts.append(f"unexpected {_few(extra)}")
        return "; ".join(parts)
    for key, ref in expected.items():
        if tuple(ref.shape) != tuple(tensors[key].shape):
            return f"{key} has shape {tuple(tensors[key].shape)}, the network needs {tuple(ref.shape)}"
    return ""


def _few(names: list[str], limit: int = 3) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _read_header(path: Path) -> tuple[AgentFileInfo, dict[str, Any]]:
    """Parse and check the safetensors header and our metadata; returns the info and the raw header."""
    obj, header = read_header(path, _HEADER_FORMAT)
    return _info_from_json(path, obj), header


def _info_from_json(path: Path, obj: dict[str, Any]) -> AgentFileInfo:
    version = check_format_version(path, obj, _HEADER_FORMAT, FORMAT_VERSION, "agent file format")
    required = _REQUIRED if version == 1 else (*_REQUIRED, "game")
    missing = [k for k in required if k not in obj]
    if missing:
        raise AgentFileError(f"{path}: corrupt agent file: its metadata lacks {', '.join(missing)}")
    ints = ("board_size", "in_planes", "num_moves")
    bad = [k for k in ints if not isinstance(obj[k], int) or isinstance(obj[k], bool) or obj[k] < 1]
    bad += [k for k in ("kind", "encoder", "network") if not isinstance(obj[k], str)]
    if version >= 2 and (not isinstance(obj["game"], str) or not obj["game"]):
        bad.append("game")
    bad += [k for k in ("network_options", "training") if not isinstance(obj.get(k, {}), dict)]
    if bad:
        raise AgentFileError(f"{path}: corrupt agent file: bad metadata field {', '.join(bad)}")
    return AgentFileInfo(
        path=str(path),
        format_version=version,
        kind=obj["kind"],
        encoder=obj["encoder"],
        board_size=obj["board_size"],
        in_planes=obj["in_planes"],
        num_moves=obj["num_moves"],
        network=obj["network"],
        network_options=dict(obj.get("network_options", {})),
        training=dict(obj.get("training", {})),
        fuseki_version=str(obj.get("fuseki_version", "")),
        torch_version=str(obj.get("torch_version", "")),
        created=str(obj.get("created", "")),
        game=V1_GAME if version == 1 else obj["game"],
    )
