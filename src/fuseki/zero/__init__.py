"""AlphaGo Zero / AlphaZero for any game of :mod:`fuseki.games`: batched self-play, the learner, the loop, the agent.

``selfplay`` (many games at once, one network call per round), ``learner``
(value MSE + policy cross-entropy + L2, symmetry augmentation) and ``loop``
(generations in a resumable run folder). The network, its file and the agents
that play with it are in :mod:`fuseki.agents.zero_agent`. See docs/zero.md.

Importing this package imports nothing heavy; ``learner`` and ``loop``
import torch.
"""
