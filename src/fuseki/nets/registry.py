"""The registry of network architectures by name.

``build_network(name, in_planes=..., size=..., num_moves=..., **options)``
returns a ``torch.nn.Module`` reading a float tensor of shape
``(batch, in_planes, size, size)``. What it returns is the entry's
``outputs`` field (:func:`network_outputs`), so a trainer or an agent loader
can refuse a network of the wrong kind before building it:

=================  =============================================================
``policy``         move logits ``(batch, num_moves)``
``q``              ``forward(board, action_onehot) -> (batch,)`` action values
``ac``             ``(logits, value)``: the book's actor-critic network
``policy+value``   ``(logits, value)``: a two-headed network (AlphaGo Zero)
``value``          ``value (batch,)`` in [-1, 1] for the player to move (AlphaGo's value network)
=================  =============================================================

Options that an architecture does not take are an error, so a stored agent
file cannot silently rebuild a different network. The built-in architectures
are registered below as ``"module:attr"`` strings: importing this module does
not import torch; building a network does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fuseki.util.registry import Registry

__all__ = ["NETWORKS", "OUTPUTS", "available_networks", "build_network", "network_outputs", "register_network"]

NetworkFactory = Callable[..., Any]

#: What a network's forward pass returns (see the table above).
OUTPUTS = ("policy", "q", "ac", "policy+value", "value")

#: Every architecture by name, with its ``outputs``.
NETWORKS = Registry("network", fields={"outputs": OUTPUTS})


def register_network(name: str, factory: NetworkFactory | str, help: str, *, outputs: str = "policy") -> None:
    """Make ``build_network(name, ...)`` call ``factory(in_planes=, size=, num_moves=, **options)``.

    ``factory`` is a ``"module:attr"`` string (imported on first build) or the
    factory itself; ``outputs`` says what its forward pass returns (:data:`OUTPUTS`).
    """
    NETWORKS.register(name, factory, help, outputs=outputs)


def available_networks() -> dict[str, str]:
    """Registered architecture names and one-line help, sorted by name (imports no torch)."""
    return NETWORKS.available()


def network_outputs(name: str) -> str:
    """What network ``name`` computes: ``"policy"``, ``"q"``, ``"ac"``, ``"policy+value"`` or ``"value"``.

    Unknown names raise :class:`~fuseki.util.registry.RegistryError` listing the known ones.
    """
    return str(NETWORKS.entry(name).fields["outputs"])


def build_network(name: str, *, in_planes: int, size: int, num_moves: int, **options: Any) -> Any:
    """Build architecture ``name``; unknown names or options raise ``ValueError`` naming what is accepted."""
    NETWORKS.entry(name)  # an unknown name before any option
    return NETWORKS.build(name, in_planes=in_planes, size=size, num_moves=num_moves, **options)


register_network(
    "fc",
    "fuseki.nets.book:fc_network",
    "the book's fully connected net (listing 6.14): dense 1000 and 500, sigmoid; options hidden, activation",
)
register_network(
    "cnn",
    "fuseki.nets.book:cnn_network",
    "the book's ch. 6 CNN (listing 6.25): 2 convs 3x3 of 48, max-pool, dense 512, dropout 0.5",
)
register_network(
    "small",
    "fuseki.nets.book:small_network",
    "the book's small CNN (small.py): conv 7x7 48, 3 x conv 5x5 32, dense 512",
)
register_network(
    "medium",
    "fuseki.nets.book:medium_network",
    "the book's medium CNN (medium.py): 2 x conv 5x5 64, 3 x conv 3x3 64, dense 512",
)
register_network(
    "large",
    "fuseki.nets.book:large_network",
    "the book's large CNN (large.py): 7 convs (7x7, then 5x5) of 64..32, dense 1024",
)
register_network(
    "residual",
    "fuseki.nets.residual:residual_network",
    "residual CNN with batch norm and a policy head; options blocks (4), channels (64), "
    "policy_head (dense; conv: one logit a point, plays any board size)",
)
register_network(
    "residual-dual",
    "fuseki.nets.residual:dual_residual_network",
    "AlphaGo Zero's two-headed residual CNN, returns (logits, value); options blocks (4), channels (64), value_hidden (256)",
    outputs="policy+value",
)
register_network(
    "q",
    "fuseki.nets.rl:q_network",
    "the book's Q network (listing 11.4): conv 5x5 and 3x3 of 64, dense 512, + one-hot action, dense 256, tanh; "
    "options layers, board_hidden, hidden",
    outputs="q",
)
register_network(
    "ac",
    "fuseki.nets.rl:ac_network",
    "the book's actor-critic network (listing 12.5): 3 convs 3x3 of 64, dense 512, policy and value heads of 512; "
    "options layers, board_hidden, policy_hidden, value_hidden",
    outputs="ac",
)
register_network(
    "conv-dual",
    "fuseki.nets.dual:conv_dual_network",
    "the book's ch. 14 demo network (listing 14.14): plain 3x3 ReLU convs, policy and value heads, returns (logits, value); "
    "options layers (4), channels (64), value_hidden (256)",
    outputs="policy+value",
)
register_network(
    "mlp-dual",
    "fuseki.nets.dual:mlp_dual_network",
    "Klein's HexapawnZero MLP (ch. 5): dense ReLU layers, policy and value heads, returns (logits, value); "
    "options layers (5), hidden (128)",
    outputs="policy+value",
)
register_network(
    "alphago-policy",
    "fuseki.nets.alphago:alphago_policy_network",
    "AlphaGo's SL/RL policy network (book ch. 13): conv 5x5, 3x3 convs, 1x1 output with a bias per point; "
    "options layers (13), filters (192)",
)
register_network(
    "alphago-value",
    "fuseki.nets.alphago:alphago_value_network",
    "AlphaGo's value network (book ch. 13): the policy body, one more 3x3 conv, 1x1 conv, dense 256, tanh; "
    "options layers (13), filters (192), hidden (256)",
    outputs="value",
)
