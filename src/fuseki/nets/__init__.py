"""Neural networks in PyTorch: the book's CNNs and fully connected nets, and a residual CNN.

Every network is built by name through :func:`build_network` so that an
agent file can store the architecture as data (a name and its options) and
rebuild it without unpickling anything::

    net = build_network("small", in_planes=1, size=9, num_moves=81)

The registry lives in :mod:`fuseki.nets.registry`; importing this package
does not import torch until a network is built.
"""

from fuseki.nets.registry import NETWORKS, available_networks, build_network, network_outputs, register_network

__all__ = ["NETWORKS", "available_networks", "build_network", "network_outputs", "register_network"]
