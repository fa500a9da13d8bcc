"""Dead-stone model files: a trained block classifier as one safetensors file with JSON metadata.

Same pattern as :mod:`fuseki.agents.agent_file`: the weights (and the input
scaling) are raw tensors in a `safetensors` file, read without running any
code (never ``torch.load``, never a pickle), and everything needed to rebuild
and judge the network is one JSON object in the header's ``__metadata__``
under ``"fuseki_deadstones"``:

- ``shape`` (``"33-32-1"``) and ``feature_set`` (``"A"`` or ``"B"``): enough
  to rebuild :class:`~fuseki.deadstones.mlp.DeadStoneMLP`;
- ``algorithm``, ``epochs``, ``best_epoch``, ``train_rms``, ``test_rms``,
  ``blocks_correct``, ``games_correct``: how it was trained and how well;
- ``data``: provenance of the block dataset (its meta, file checksum, ...);
- ``fuseki_version``, ``torch_version``, ``created``.

Every problem with a file (missing, empty, truncated, foreign, too new,
weights that do not fit the shape) raises :class:`DeadStoneModelError`, a
``ValueError`` with a one-line message.

>>> import os, tempfile, numpy as np
>>> from fuseki.deadstones.mlp import DeadStoneMLP
>>> clf = DeadStoneClassifier(DeadStoneMLP("33-2-1", seed=1))
>>> path = os.path.join(tempfile.mkdtemp(), "dead.safetensors")
>>> save_classifier(path, clf, algorithm="irprop+", epochs=0)
>>> back = load_classifier(path)
>>> back.feature_set, back.info.shape, back.predict(np.zeros((2, 33), np.float32)).shape
('A', '33-2-1', (2,))
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

import fuseki
from fuseki.deadstones.mlp import FEATURE_SETS, DeadStoneMLP, feature_set_for, parse_shape
from fuseki.util.atomic import write_atomic
from fuseki.util.errors import FusekiError
from fuseki.util.safetensors_header import HeaderFormat, check_format_version, read_header

__all__ = [
    "FORMAT_VERSION",
    "METADATA_KEY",
    "DeadStoneClassifier",
    "DeadStoneModelError",
    "ModelInfo",
    "load_classifier",
    "read_model_info",
    "save_classifier",
]

#: The ``__metadata__`` key of our JSON object.
METADATA_KEY = "fuseki_deadstones"
#: The metadata layout this fuseki writes (and the newest it reads).
FORMAT_VERSION = 1
_MAX_HEADER = 16 * 1024 * 1024
_FOREIGN_MAGIC = {
    b"PK\x03\x04": "a zip archive (an .npz or a torch.save pickle); fuseki never loads pickles",
    b"\x80": "a Python pickle; fuseki never loads pickles",
    b"\x89HDF\r\n\x1a\n": "an HDF5 file",
    b"\x93NUMPY": "a .npy array",
}


class DeadStoneModelError(FusekiError, ValueError):
    """A dead-stone model file that cannot be used; the message names the file and the problem in one line."""


_HEADER_FORMAT = HeaderFormat(
    error=DeadStoneModelError,
    metadata_key=METADATA_KEY,
    name="dead-stone model file",
    short="dead-stone model file",
    owner="dead-stone model",
    metadata="metadata",
    max_header=_MAX_HEADER,
    foreign_magic=_FOREIGN_MAGIC,
    name_missing=True,
)


@dataclasses.dataclass(frozen=True)
class ModelInfo:
    """The metadata of a dead-stone model file."""

    shape: str
    feature_set: str
    algorithm: str = ""
    epochs: int = 0
    best_epoch: int | None = None
    train_rms: float | None = None
    test_rms: float | None = None
    blocks_correct: float | None = None
    games_correct: float | None = None
    #: Provenance of the training data: dataset meta, checksum, split, ...
    data: dict[str, Any] = dataclasses.field(default_factory=dict)
    #: Anything else the trainer recorded (seed, settings, ...).
    training: dict[str, Any] = dataclasses.field(default_factory=dict)
    format_version: int = FORMAT_VERSION
    fuseki_version: str = ""
    torch_version: str = ""
    created: str = ""
    #: The file it was read from ("" when not read from a file).
    path: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The object as stored (without ``path``)."""
        out = dataclasses.asdict(self)
        del out["path"]
        return {"format": "fuseki-deadstones", **out}


class DeadStoneClassifier:
    """A trained block classifier: ``predict(features)`` is P(dead) for each block.

    ``features`` are the raw block features of :attr:`feature_set`, one row
    per block; the network scales them itself.
    """

    def __init__(self, net: DeadStoneMLP, *, feature_set: str | None = None, info: ModelInfo | None = None) -> None:
        fs = feature_set or net.feature_set
        if fs is None:
            raise ValueError(f"a {net.shape_text} network has {net.num_inputs} inputs: name its feature set")
        if fs in FEATURE_SETS and FEATURE_SETS[fs] != net.num_inputs:
            raise ValueError(f"feature set {fs} has {FEATURE_SETS[fs]} features, the network takes {net.num_inputs}")
        self.net = net.eval()
        self.feature_set: str = fs
        self.info = info or ModelInfo(shape=net.shape_text, feature_set=fs)

    @property
    def shape(self) -> str:
        """The network's shape, ``"33-32-1"``."""
        return self.net.shape_text

    @property
    def num_features(self) -> int:
        """Features per block the classifier reads."""
        return self.net.num_inputs

    @torch.no_grad()
    def predict(self, features: np.ndarray) -> np.ndarray:
        """P(dead) per block, float64 ``[n]``, for ``features`` ``[n, num_features]`` (one row is also accepted)."""
        x = np.asarray(features)
        if x.ndim == 1:
            x = x[None, :]
        if x.ndim != 2 or x.shape[1] != self.num_features:
            raise ValueError(
                f"the classifier reads {self.num_features} features per block (set {self.feature_set}), "
                f"got an array of shape {list(np.shape(features))}"
            )
        if not np.issubdtype(x.dtype, np.number) or not np.all(np.isfinite(x)):
            raise ValueError("block features must be finite numbers")
        out = self.net(torch.from_numpy(np.ascontiguousarray(x, dtype=np.float64)))
        return out.numpy().astype(np.float64, copy=False)

    def predict_dead(self, features: np.ndarray, threshold: float = 0.5) -> np.ndarray:
        """True for the blocks called dead (P(dead) > ``threshold``)."""
        return self.predict(features) > threshold

    def save(self, path: str | os.PathLike[str], **metadata: Any) -> None:
        """:func:`save_classifier` with this classifier."""
        save_classifier(path, self, **metadata)


def save_classifier(
    path: str | os.PathLike[str],
    classifier: DeadStoneClassifier | DeadStoneMLP,
    *,
    feature_set: str | None = None,
    algorithm: str = "",
    epochs: int = 0,
    best_epoch: int | None = None,
    train_rms: float | None = None,
    test_rms: float | None = None,
    blocks_correct: float | None = None,
    games_correct: float | None = None,
    data: Mapping[str, Any] | None = None,
    training: Mapping[str, Any] | None = None,
) -> None:
    """Write a classifier (or a bare network) and its description to ``path`` atomically."""
    import safetensors.torch

    if isinstance(classifier, DeadStoneClassifier):
        clf = classifier
    else:
        clf = DeadStoneClassifier(classifier, feature_set=feature_set)
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    info = ModelInfo(
        shape=clf.shape,
        feature_set=feature_set or clf.feature_set,
        algorithm=algorithm,
        epochs=int(epochs),
        best_epoch=None if best_epoch is None else int(best_epoch),
        train_rms=_opt_float(train_rms),
        test_rms=_opt_float(test_rms),
        blocks_correct=_opt_float(blocks_correct),
        games_correct=_opt_float(games_correct),
        data=dict(data or {}),
        training=dict(training or {}),
        fuseki_version=fuseki.__version__,
        torch_version=torch.__version__,
        created=now.isoformat().replace("+00:00", "Z"),
    )
    try:
        text = json.dumps(info.to_dict(), sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise ValueError(f"dead-stone model metadata must be plain JSON (no NaN): {e}") from None
    tensors = {k: v.detach().to("cpu").contiguous().clone() for k, v in clf.net.state_dict().items()}
    blob = safetensors.torch.save(tensors, metadata={METADATA_KEY: text, "format": "pt"})
    write_atomic(path, blob)


def read_model_info(path: str | os.PathLike[str]) -> ModelInfo:
    """The metadata of a model file, from its header alone (no weights read)."""
    info, _ = _read_header(Path(path))
    return info


def load_classifier(path: str | os.PathLike[str]) -> DeadStoneClassifier:
    """Rebuild the classifier saved in ``path`` (on the CPU, in eval mode)."""
    import safetensors
    import safetensors.torch

    p = Path(path)
    info, header = _read_header(p)
    dtypes = {entry.get("dtype") for key, entry in header.items() if key != "__metadata__" and isinstance(entry, dict)}
    dtype = torch.float32 if dtypes == {"F32"} else torch.float64
    net = DeadStoneMLP(info.shape, seed=None, dtype=dtype)
    try:
        tensors = safetensors.torch.load_file(str(p), device="cpu")
    except (safetensors.SafetensorError, OSError, RuntimeError, ValueError) as e:
        raise DeadStoneModelError(f"{p}: corrupt dead-stone model file: {e}") from None
    expected = net.state_dict()
    missing = sorted(set(expected) - set(tensors))
    extra = sorted(set(tensors) - set(expected))
    if missing or extra:
        raise DeadStoneModelError(
            f"{p}: the weights do not fit a {info.shape} network "
            f"(missing {missing or 'none'}, unexpected {extra or 'none'})"
        )
    for key, ref in expected.items():
        if tuple(ref.shape) != tuple(tensors[key].shape):
            raise DeadStoneModelError(
                f"{p}: {key} has shape {tuple(tensors[key].shape)}, a {info.shape} network needs {tuple(ref.shape)}"
            )
    net.load_state_dict({k: v.to(dtype) for k, v in tensors.items()}, strict=True)
    return DeadStoneClassifier(net, feature_set=info.feature_set, info=info)


def _opt_float(value: float | None) -> float | None:
    return None if value is None else float(value)


def _read_header(path: Path) -> tuple[ModelInfo, dict[str, Any]]:
    """Parse and check the safetensors header and our metadata."""
    obj, header = read_header(path, _HEADER_FORMAT)
    return _info_from_json(path, obj), header


def _info_from_json(path: Path, obj: dict[str, Any]) -> ModelInfo:
    check_format_version(path, obj, _HEADER_FORMAT, FORMAT_VERSION, "model format")
    shape, fs = obj.get("shape"), obj.get("feature_set")
    if not isinstance(shape, str) or not isinstance(fs, str):
        raise DeadStoneModelError(f"{path}: corrupt dead-stone model file: its metadata lacks shape or feature_set")
    try:
        sizes = parse_shape(shape)
    except ValueError as e:
        raise DeadStoneModelError(f"{path}: corrupt dead-stone model file: {e}") from None
    if fs in FEATURE_SETS and FEATURE_SETS[fs] != sizes[0]:
        raise DeadStoneModelError(f"{path}: corrupt dead-stone model file: feature set {fs} does not fit shape {shape}")
    if fs not in FEATURE_SETS and feature_set_for(sizes[0]) is not None:
        raise DeadStoneModelError(f"{path}: corrupt dead-stone model file: unknown feature set {fs!r}")
    fields = {f.name for f in dataclasses.fields(ModelInfo)} - {"path"}
    kwargs = {k: v for k, v in obj.items() if k in fields}
    for key in ("data", "training"):
        if not isinstance(kwargs.get(key, {}), dict):
            raise DeadStoneModelError(f"{path}: corrupt dead-stone model file: {key} is not an object")
    return ModelInfo(**kwargs, path=str(path))
