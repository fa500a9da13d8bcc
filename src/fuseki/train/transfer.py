"""Start a supervised run from another network's weights, and train only part of it.

A network trained on one board, or with one kind of head, already holds most
of what another needs: the convolutional trunk of a 19×19 policy reads shapes
that are the same on 13×13, and only its dense head is tied to 361 points.
Training a new head (and, if wanted, the last blocks) on top of that trunk
costs a fraction of a full run, which is what makes it possible on a CPU: the
frozen layers run forward only, with no gradients kept.

:func:`init_from_agent` copies every layer of an agent file whose tensors'
names and shapes match the new network's (the rest keep their fresh
initialisation) and
says which were copied; :func:`freeze` stops the gradients of the parameters
whose names start with given prefixes and returns the batch-norm layers that
must stay in evaluation mode, so that their running statistics, learned on
the original data, are not moved by the new run.

>>> from fuseki.nets import build_network
>>> net = build_network("residual", in_planes=7, size=9, num_moves=81, blocks=2, channels=8, policy_head="conv")
>>> fixed = freeze(net, ["stem", "tower.0"])
>>> sorted({name.split(".")[0] for name, p in net.named_parameters() if p.requires_grad})
['policy', 'tower']
>>> len(fixed)  # the stem's batch norm and the block's two
3
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from torch import nn

from fuseki.agents.agent_file import load_agent_file, resolve_agent_path
from fuseki.util.atomic import sha256_file
from fuseki.util.errors import InputError

__all__ = ["freeze", "init_from_agent", "parameter_prefixes"]


def init_from_agent(model: nn.Module, path_or_name: str, *, encoder: str) -> dict[str, Any]:
    """Copy the tensors of agent file ``path_or_name`` that fit ``model`` into it; what was copied.

    A layer's tensors are copied when the file has each of them with the same
    name and shape (a layer is copied whole or not at all). The
    agent file must have been trained on the same ``encoder`` (the same input
    planes: a trunk that reads other planes means nothing here), and at least
    one tensor must fit, else :class:`InputError`. The returned record (path,
    SHA-256, the source's network and board, how many tensors were copied and
    the names left fresh) goes into the run's metadata, so a model made this
    way says what it was made from.
    """
    try:
        path = resolve_agent_path(path_or_name)
        source, info = load_agent_file(path)
    except ValueError as e:
        raise InputError(f"--init: {e}") from None
    if info.encoder != encoder:
        raise InputError(
            f"--init {path_or_name}: it was trained on encoder {info.encoder!r}, these shards use {encoder!r}"
        )
    theirs = source.state_dict()
    mine = model.state_dict()
    # A layer is copied whole or not at all: a batch norm's counter without its weights would say it learned.
    layers: dict[str, list[str]] = {}
    for name in mine:
        layers.setdefault(name.rpartition(".")[0], []).append(name)
    copied = {
        name: theirs[name]
        for names in layers.values()
        if all(name in theirs and theirs[name].shape == mine[name].shape for name in names)
        for name in names
    }
    fresh = sorted(name for name in mine if name not in copied)
    if not copied:
        raise InputError(f"--init {path_or_name}: none of its tensors fits this network (no name with the same shape)")
    model.load_state_dict({**mine, **copied})
    return {
        "path": str(path),
        "sha256": sha256_file(path),
        "network": info.network,
        "network_options": dict(info.network_options),
        "board_size": info.board_size,
        "copied": len(copied),
        "fresh": fresh,
        "source_training": {k: info.training[k] for k in ("data", "sources", "accuracy") if k in info.training},
    }


def parameter_prefixes(model: nn.Module) -> list[str]:
    """The module paths one can freeze: every module that holds parameters (``stem``, ``tower.0``, ...)."""
    names = set()
    for name, _ in model.named_parameters():
        parts = name.split(".")[:-1]
        for i in range(1, len(parts) + 1):
            names.add(".".join(parts[:i]))
    return sorted(names)


def _matches(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def freeze(model: nn.Module, prefixes: Sequence[str]) -> list[nn.Module]:
    """Stop the gradients of the parameters under ``prefixes``; the batch norms to keep in eval mode.

    A prefix names a module path (``stem``, ``tower.3``, ``tower``), matched at
    dot boundaries, so ``tower.1`` does not take ``tower.10``. A prefix that
    names nothing is an :class:`InputError` listing what can be named. A batch
    norm whose parameters are all frozen is returned: the caller sets it to
    ``eval()`` after every ``model.train()``.
    """
    params = dict(model.named_parameters())
    for prefix in prefixes:
        if not any(_matches(name, prefix) for name in params):
            known = ", ".join(p for p in parameter_prefixes(model) if p.count(".") <= 1)
            raise InputError(f"--freeze {prefix!r} names no part of this network; parts: {known}")
    for name, p in params.items():
        if any(_matches(name, prefix) for prefix in prefixes):
            p.requires_grad_(False)
    if all(not p.requires_grad for p in params.values()):
        raise InputError("--freeze leaves nothing to train")
    fixed: list[nn.Module] = []
    for _, module in model.named_modules():
        if isinstance(module, nn.modules.batchnorm._BatchNorm):
            own = list(module.parameters(recurse=False))
            if own and all(not p.requires_grad for p in own):
                fixed.append(module)
    return fixed
