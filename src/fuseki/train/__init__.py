"""Training: supervised move prediction (ch. 6-7); later policy gradient, Q, actor-critic and the Zero loop.

:mod:`fuseki.train.supervised` trains a network from :mod:`fuseki.nets` on the
shards of ``fuseki data process``; the command is ``fuseki train supervised``
(docs/training.md). Importing this package does not import torch.
"""
