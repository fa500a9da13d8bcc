"""NumPy networks from scratch: the book's chapter 5 and Klein's perceptron.

- :mod:`fuseki.scratch.network`: ``Perceptron``, ``DenseLayer``,
  ``ActivationLayer``, ``MSE``, ``SequentialNetwork`` (mini-batch SGD).
- :mod:`fuseki.scratch.mnist`: the IDX reader for MNIST (plain or gzip).
- :mod:`fuseki.scratch.digits`: scikit-learn's bundled 8×8 digits, split and one-hot.

``fuseki scratch-demo`` trains one of these nets; see ``docs/scratch.md``.
"""

from fuseki.scratch.network import (
    MSE,
    ActivationLayer,
    DenseLayer,
    EpochResult,
    Layer,
    Perceptron,
    SequentialNetwork,
    sigmoid,
    sigmoid_prime,
)

__all__ = [
    "MSE",
    "ActivationLayer",
    "DenseLayer",
    "EpochResult",
    "Layer",
    "Perceptron",
    "SequentialNetwork",
    "sigmoid",
    "sigmoid_prime",
]
