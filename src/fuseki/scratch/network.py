"""Neural networks from scratch in NumPy: the book's chapter 5, vectorised.

The book builds a feed-forward network from three kinds of objects (listings
5.10-5.25): layers (:class:`DenseLayer`, :class:`ActivationLayer`), a loss
(:class:`MSE`) and a :class:`SequentialNetwork` that trains them with
mini-batch stochastic gradient descent. The names and the update rule are the
book's; the layout is not:

- A mini-batch is one matrix with **one sample per row** (shape ``(n, features)``),
  and every pass is a few matrix products, not a Python loop over samples
  (the book feeds the samples of a batch through the net one at a time).
- ``DenseLayer.weight`` keeps the book's shape ``(output_dim, input_dim)``, so
  a layer computes ``x @ weight.T + bias``.
- The net has one floating-point type (``dtype``): float32 to train (half the
  memory traffic of the book's float64), float64 for gradient checks.
- Every random choice comes from a seeded :class:`numpy.random.Generator`.

The book divides the learning rate by the batch size and sums the per-sample
gradients; here the backward pass starts from the gradient of the *mean* loss
over the batch, which is the same update:

>>> import numpy as np
>>> net = SequentialNetwork.from_sizes([2, 3, 1], rng=np.random.default_rng(0), dtype=np.float64)
>>> [layer.describe() for layer in net.layers]
['DenseLayer (2, 3)', 'ActivationLayer (3, 3)', 'DenseLayer (3, 1)', 'ActivationLayer (1, 1)']
>>> net.predict(np.zeros((4, 2))).shape
(4, 1)

Klein's chapter 2 starts one step earlier, with the perceptron: a weighted
sum with a bias input ``x0 = 1`` and a hard threshold. :class:`Perceptron`
is that neuron with Rosenblatt's learning rule; it learns AND and OR but not
XOR, which a net with one hidden layer learns.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

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

Array = NDArray[np.floating[Any]]


# --------------------------------------------------------------------------- activations


def sigmoid(z: ArrayLike) -> Array:
    """The logistic function ``1 / (1 + exp(-z))``, elementwise.

    Written as ``(1 + tanh(z / 2)) / 2``: the same function, but it neither
    overflows for large negative ``z`` nor needs a Python loop (the book's
    ``np.vectorize``).

    >>> sigmoid(np.array([0.0, 800.0, -800.0])).tolist()
    [0.5, 1.0, 0.0]
    """
    z = np.asarray(z)
    if not np.issubdtype(z.dtype, np.floating):
        z = z.astype(np.float64)
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def sigmoid_prime(z: ArrayLike) -> Array:
    """The derivative of :func:`sigmoid`: ``sigmoid(z) * (1 - sigmoid(z))``.

    >>> float(sigmoid_prime(0.0))
    0.25
    """
    s = sigmoid(z)
    return s * (1.0 - s)


# --------------------------------------------------------------------------- losses


class MSE:
    """Mean squared error, the book's loss (listing 5.10).

    Per sample it is ``0.5 * sum((prediction - label) ** 2)`` over the outputs;
    for a batch (one sample per row) :meth:`loss_function` returns the mean of
    that over the samples. :meth:`loss_derivative` is the book's per-sample
    derivative, ``predictions - labels``.

    >>> MSE.loss_function(np.array([[1.0, 0.0]]), np.array([[0.0, 0.0]]))
    0.5
    """

    @staticmethod
    def loss_function(predictions: Array, labels: Array) -> float:
        diff = predictions - labels
        return float(0.5 * np.einsum("ij,ij->", diff, diff) / len(diff))

    @staticmethod
    def loss_derivative(predictions: Array, labels: Array) -> Array:
        return predictions - labels


# --------------------------------------------------------------------------- layers


class Layer:
    """A layer: a forward pass, a backward pass, and (maybe) parameters.

    ``forward(x)`` maps a batch ``(n, input_dim)`` to ``(n, output_dim)`` and
    keeps what the backward pass needs (the book's ``input_data`` and
    ``output_data``). ``backward(delta)`` takes the gradient of the loss with
    respect to the layer's output, adds the gradients of its parameters to
    ``delta_*`` and returns the gradient with respect to its input (the book's
    ``output_delta``). The book links layers with ``previous``/``next``; here
    :class:`SequentialNetwork` passes the arrays along instead.
    """

    input_dim: int
    output_dim: int

    def __init__(self) -> None:
        self.params: list[Array] = []
        self.input_data: Array | None = None
        self.output_data: Array | None = None

    def forward(self, x: Array) -> Array:
        raise NotImplementedError

    def backward(self, delta: Array) -> Array:
        raise NotImplementedError

    def gradients(self) -> list[Array]:
        """The accumulated gradients, in the order of :attr:`params`."""
        return []

    def clear_deltas(self) -> None:
        """Reset the accumulated gradients (after each mini-batch)."""

    def update_params(self, learning_rate: float) -> None:
        """One gradient-descent step with the accumulated gradients."""

    def describe(self) -> str:
        return f"{type(self).__name__} ({self.input_dim}, {self.output_dim})"


class ActivationLayer(Layer):
    """The sigmoid applied elementwise (listing 5.15); no parameters.

    The backward pass multiplies the incoming delta by ``s * (1 - s)``, using
    the output ``s`` kept from the forward pass instead of evaluating the
    sigmoid again.
    """

    def __init__(self, input_dim: int) -> None:
        super().__init__()
        self.input_dim = self.output_dim = int(input_dim)

    def forward(self, x: Array) -> Array:
        self.input_data = x
        self.output_data = sigmoid(x)
        return self.output_data

    def backward(self, delta: Array) -> Array:
        s = self.output_data
        if s is None:
            raise RuntimeError("backward() before forward()")
        return delta * s * (1.0 - s)


class DenseLayer(Layer):
    """An affine layer ``x @ weight.T + bias`` (listings 5.16-5.19).

    ``init="book"`` draws every weight and bias from a standard normal, as the
    book's ``np.random.randn`` does. ``init="scaled"`` (the default) divides
    the weights by ``sqrt(input_dim)``, so that a unit's input starts with a
    spread near 1 whatever the layer's width and the sigmoids do not start
    saturated; it trains faster and more reliably (``docs/scratch.md``).
    """

    INITS = ("scaled", "book")

    def __init__(
        self,
        input_dim: int,
        output_dim: int,
        rng: np.random.Generator | None = None,
        *,
        init: str = "scaled",
        dtype: DTypeLike = np.float32,
    ) -> None:
        super().__init__()
        if input_dim < 1 or output_dim < 1:
            raise ValueError(f"layer sizes must be positive, got ({input_dim}, {output_dim})")
        if init not in self.INITS:
            raise ValueError(f"unknown init {init!r}; known: {', '.join(self.INITS)}")
        rng = np.random.default_rng() if rng is None else rng
        self.input_dim = int(input_dim)
        self.output_dim = int(output_dim)
        scale = 1.0 / np.sqrt(input_dim) if init == "scaled" else 1.0
        self.weight: Array = (rng.standard_normal((output_dim, input_dim)) * scale).astype(dtype)
        self.bias: Array = rng.standard_normal(output_dim).astype(dtype)
        self.params = [self.weight, self.bias]
        self.delta_w: Array = np.zeros_like(self.weight)
        self.delta_b: Array = np.zeros_like(self.bias)

    def forward(self, x: Array) -> Array:
        self.input_data = x
        self.output_data = x @ self.weight.T + self.bias
        return self.output_data

    def backward(self, delta: Array) -> Array:
        x = self.input_data
        if x is None:
            raise RuntimeError("backward() before forward()")
        self.delta_w += delta.T @ x  # (out, n) @ (n, in): summed over the batch in one product
        self.delta_b += delta.sum(axis=0)
        return delta @ self.weight

    def gradients(self) -> list[Array]:
        return [self.delta_w, self.delta_b]

    def clear_deltas(self) -> None:
        self.delta_w.fill(0)
        self.delta_b.fill(0)

    def update_params(self, learning_rate: float) -> None:
        self.weight -= learning_rate * self.delta_w
        self.bias -= learning_rate * self.delta_b


# --------------------------------------------------------------------------- the network


@dataclass(frozen=True)
class EpochResult:
    """What :meth:`SequentialNetwork.train` reports after each epoch."""

    epoch: int
    train_loss: float  #: mean loss over the epoch's mini-batches
    correct: int | None  #: test samples classified correctly (None without test data)
    total: int | None  #: test samples

    @property
    def accuracy(self) -> float | None:
        return None if not self.total else self.correct / self.total  # type: ignore[operator]


class SequentialNetwork:
    """Layers applied one after another, trained by mini-batch SGD (listings 5.20-5.25).

    >>> rng = np.random.default_rng(1)
    >>> net = SequentialNetwork(dtype=np.float64)
    >>> net.add(DenseLayer(2, 1, rng, dtype=np.float64))
    >>> net.add(ActivationLayer(1))
    >>> x = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    >>> y = np.array([[0], [1], [1], [1]])  # OR
    >>> _ = net.train(x, y, epochs=500, mini_batch_size=4, learning_rate=5.0, rng=rng)
    >>> (net.predict(x) > 0.5).astype(int).ravel().tolist()
    [0, 1, 1, 1]
    """

    def __init__(self, loss: MSE | None = None, *, dtype: DTypeLike = np.float32) -> None:
        self.layers: list[Layer] = []
        self.loss = MSE() if loss is None else loss
        self.dtype = np.dtype(dtype)
        if self.dtype.kind != "f":
            raise ValueError(f"the network's dtype must be a floating type, got {self.dtype}")

    @classmethod
    def from_sizes(
        cls,
        sizes: Sequence[int],
        rng: np.random.Generator | None = None,
        *,
        init: str = "scaled",
        dtype: DTypeLike = np.float32,
    ) -> SequentialNetwork:
        """Dense + sigmoid layers for ``sizes``, like the book's 784-392-196-10.

        >>> net = SequentialNetwork.from_sizes([784, 392, 196, 10], np.random.default_rng(0))
        >>> net.sizes, net.num_params
        ([784, 392, 196, 10], 386718)
        """
        sizes = [int(s) for s in sizes]
        if len(sizes) < 2 or min(sizes) < 1:
            raise ValueError(f"need at least two positive layer sizes, got {sizes}")
        rng = np.random.default_rng() if rng is None else rng
        net = cls(dtype=dtype)
        for n_in, n_out in zip(sizes, sizes[1:]):
            net.add(DenseLayer(n_in, n_out, rng, init=init, dtype=dtype))
            net.add(ActivationLayer(n_out))
        return net

    def add(self, layer: Layer) -> None:
        """Append ``layer``; its input size must match the last layer's output size."""
        if self.layers and self.layers[-1].output_dim != layer.input_dim:
            raise ValueError(
                f"{layer.describe()} takes {layer.input_dim} inputs but the previous layer gives {self.layers[-1].output_dim}"
            )
        for p in layer.params:
            if p.dtype != self.dtype:
                raise ValueError(f"{layer.describe()} holds {p.dtype} parameters; the network uses {self.dtype}")
        self.layers.append(layer)

    @property
    def sizes(self) -> list[int]:
        """Input size, then the output size of each dense layer."""
        dense = [layer for layer in self.layers if isinstance(layer, DenseLayer)]
        return [dense[0].input_dim, *(d.output_dim for d in dense)] if dense else []

    @property
    def num_params(self) -> int:
        return sum(p.size for layer in self.layers for p in layer.params)

    def describe(self) -> str:
        return "\n".join(layer.describe() for layer in self.layers)

    # ----------------------------------------------------------------- passes

    def _as_batch(self, x: ArrayLike) -> Array:
        x = np.asarray(x, dtype=self.dtype)
        if x.ndim == 1:
            x = x[None, :]
        if x.ndim != 2 or (self.layers and x.shape[1] != self.layers[0].input_dim):
            want = self.layers[0].input_dim if self.layers else "?"
            raise ValueError(f"expected a batch of shape (n, {want}), got {x.shape}")
        return x

    def single_forward(self, x: ArrayLike) -> Array:
        """The output for a batch (or one sample); the book's name."""
        out = self._as_batch(x)
        for layer in self.layers:
            out = layer.forward(out)
        return out

    predict = single_forward

    def forward_backward(self, x: ArrayLike, y: ArrayLike) -> float:
        """Forward pass, loss, backward pass on one batch; returns the mean loss.

        The gradients of the mean loss over the batch are *added* to each
        layer's ``delta_*`` (call :meth:`clear_deltas` first for a fresh batch).
        """
        x = self._as_batch(x)
        y = np.asarray(y, dtype=self.dtype).reshape(len(x), -1)
        out = self.single_forward(x)
        loss = self.loss.loss_function(out, y)
        delta = self.loss.loss_derivative(out, y) / np.asarray(len(x), dtype=self.dtype)
        for layer in reversed(self.layers):
            delta = layer.backward(delta)
        return loss

    def clear_deltas(self) -> None:
        for layer in self.layers:
            layer.clear_deltas()

    def update(self, learning_rate: float) -> None:
        for layer in self.layers:
            layer.update_params(learning_rate)

    def train_batch(self, x: Array, y: Array, learning_rate: float) -> float:
        """One SGD step on one mini-batch; returns its mean loss before the step."""
        self.clear_deltas()
        loss = self.forward_backward(x, y)
        self.update(learning_rate)
        return loss

    # ----------------------------------------------------------------- training

    def train(
        self,
        x: ArrayLike,
        y: ArrayLike,
        epochs: int,
        mini_batch_size: int,
        learning_rate: float,
        test_data: tuple[ArrayLike, ArrayLike] | None = None,
        *,
        rng: np.random.Generator | None = None,
        on_epoch: Callable[[EpochResult], None] | None = None,
    ) -> list[EpochResult]:
        """Mini-batch SGD (listing 5.22): shuffle, cut into batches, one step per batch.

        ``x`` holds one sample per row, ``y`` the targets (one-hot rows for
        classification). With ``test_data = (x_test, labels)`` the net is
        evaluated after each epoch. ``on_epoch`` is called with each epoch's
        result (the book prints ``Epoch 0: 6628 / 10000``).
        """
        if epochs < 0 or mini_batch_size < 1:
            raise ValueError(f"need epochs >= 0 and mini_batch_size >= 1, got {epochs} and {mini_batch_size}")
        if not learning_rate > 0:
            raise ValueError(f"the learning rate must be positive, got {learning_rate}")
        x = self._as_batch(x)
        y = np.asarray(y, dtype=self.dtype).reshape(len(x), -1)
        rng = np.random.default_rng() if rng is None else rng
        n = len(x)
        history: list[EpochResult] = []
        for epoch in range(epochs):
            order = rng.permutation(n)
            losses = []
            for k in range(0, n, mini_batch_size):
                batch = order[k : k + mini_batch_size]
                losses.append(self.train_batch(x[batch], y[batch], learning_rate))
            correct = total = None
            if test_data is not None:
                correct = self.evaluate(*test_data)
                total = len(test_data[0])
            result = EpochResult(epoch, float(np.mean(losses)) if losses else float("nan"), correct, total)
            history.append(result)
            if on_epoch is not None:
                on_epoch(result)
        return history

    def evaluate(self, x: ArrayLike, labels: ArrayLike, *, batch_size: int = 10_000) -> int:
        """How many samples the net classifies correctly (listing 5.25).

        ``labels`` are class numbers or one-hot rows; the prediction is the
        output with the largest value.
        """
        labels = np.asarray(labels)
        if labels.ndim == 2:
            labels = labels.argmax(axis=1)
        x = self._as_batch(x)
        correct = 0
        for k in range(0, len(x), batch_size):
            correct += int((self.single_forward(x[k : k + batch_size]).argmax(axis=1) == labels[k : k + batch_size]).sum())
        return correct


# --------------------------------------------------------------------------- the perceptron


class Perceptron:
    """Rosenblatt's perceptron, as in Klein's chapter 2.

    Weights ``w0..wn`` for inputs ``x0..xn`` where ``x0 = 1`` always (so
    ``w0`` is the bias), and a hard threshold: the output is 1 when
    ``w . x >= 0``, else 0. Klein's hand-made AND:

    >>> p = Perceptron.from_weights([-10, 6, 6])
    >>> p.predict([[0, 0], [0, 1], [1, 0], [1, 1]]).tolist()
    [0, 0, 0, 1]

    :meth:`train` learns the weights with the perceptron rule, summed over
    all samples at once (the batch form): ``w += rate * X^T (target - output)``.
    It stops as soon as every sample is right, which happens after finitely
    many steps exactly when the two classes are linearly separable.
    """

    def __init__(self, input_dim: int, *, dtype: DTypeLike = np.float64) -> None:
        self.input_dim = int(input_dim)
        self.weights: Array = np.zeros(self.input_dim + 1, dtype=dtype)  # weights[0] is w0, the bias

    @classmethod
    def from_weights(cls, weights: ArrayLike) -> Perceptron:
        w = np.asarray(weights, dtype=np.float64)
        p = cls(len(w) - 1)
        p.weights[:] = w
        return p

    def _with_bias(self, x: ArrayLike) -> Array:
        x = np.atleast_2d(np.asarray(x, dtype=self.weights.dtype))
        if x.shape[1] != self.input_dim:
            raise ValueError(f"expected inputs of shape (n, {self.input_dim}), got {x.shape}")
        return np.hstack([np.ones((len(x), 1), dtype=x.dtype), x])

    def activation(self, x: ArrayLike) -> Array:
        """The weighted sum ``v = w . x`` (with ``x0 = 1``), before the threshold."""
        return self._with_bias(x) @ self.weights

    def predict(self, x: ArrayLike) -> NDArray[np.int64]:
        return (self.activation(x) >= 0).astype(np.int64)

    def train(self, x: ArrayLike, targets: ArrayLike, *, epochs: int = 100, learning_rate: float = 1.0) -> int | None:
        """Learn from 0/1 ``targets``; return the epochs it took, or None if it never got every sample right."""
        xb = self._with_bias(x)
        t = np.asarray(targets, dtype=self.weights.dtype).ravel()
        for epoch in range(epochs + 1):
            error = t - (xb @ self.weights >= 0)
            if not error.any():
                return epoch
            if epoch < epochs:
                self.weights += learning_rate * (xb.T @ error)
        return None
