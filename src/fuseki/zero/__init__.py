"""AlphaGo Zero / AlphaZero for any game of :mod:`fuseki.games`: batched self-play, the learner, the loop, the agent.

``selfplay`` (many games at once, one network call per round), ``learner``
(value MSE + policy cross-entropy + L2, symmetry augmentation), ``loop``
(generations in a resumable run folder), ``workers`` (local processes or Ray
actors), ``klein`` (Klein's Hexapawn experiment), ``demo`` (the book's
chapter 14 demo) and ``rate`` (Elo against fixed anchors). The network, its file and the agents
that play with it are in :mod:`fuseki.agents.zero_agent`. See docs/zero.md.

Importing this package imports nothing heavy; ``learner`` and ``loop``
import torch.
"""
