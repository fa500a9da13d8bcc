"""AlphaGo Zero / AlphaZero for any game of :mod:`fuseki.games`: batched self-play, the learner, the loop, the agent.

``selfplay`` (many games at once, one network call per round), ``learner``
(value MSE + policy cross-entropy + L2, symmetry augmentation), ``agent``
(the network file and :class:`~fuseki.zero.agent.ZeroAgent`) and ``loop``
(generations in a resumable run folder). See docs/zero.md.

Importing this package imports nothing heavy; ``learner``, ``agent`` and
``loop`` import torch.
"""
