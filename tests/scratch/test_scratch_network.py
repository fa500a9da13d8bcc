"""The NumPy networks of ``fuseki.scratch.network``: backprop, the perceptron, SGD on digits."""

from __future__ import annotations

import numpy as np
import pytest

from fuseki.scratch.digits import load_digits_split, one_hot
from fuseki.scratch.network import (
    MSE,
    ActivationLayer,
    DenseLayer,
    Perceptron,
    SequentialNetwork,
    sigmoid,
    sigmoid_prime,
)

X2 = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=np.float64)
AND = np.array([0, 0, 0, 1])
OR = np.array([0, 1, 1, 1])
XOR = np.array([0, 1, 1, 0])


def test_sigmoid_is_stable_and_its_derivative_matches_finite_differences() -> None:
    z = np.linspace(-30, 30, 121)
    assert np.allclose(sigmoid(z), 1 / (1 + np.exp(-z)))
    assert sigmoid(np.array([-1e4, 1e4])).tolist() == [0.0, 1.0]  # no overflow warning, no nan
    h = 1e-6
    assert np.allclose(sigmoid_prime(z), (sigmoid(z + h) - sigmoid(z - h)) / (2 * h), atol=1e-8)
    assert sigmoid(np.zeros(3, dtype=np.float32)).dtype == np.float32


def _loss(net: SequentialNetwork, x: np.ndarray, y: np.ndarray) -> float:
    return net.loss.loss_function(net.single_forward(x), y)


@pytest.mark.parametrize("sizes", [[5, 4, 3], [6, 7, 5, 2]])
def test_backprop_matches_finite_differences(sizes: list[int]) -> None:
    rng = np.random.default_rng(42)
    net = SequentialNetwork.from_sizes(sizes, rng, dtype=np.float64)
    x = rng.standard_normal((8, sizes[0]))
    y = rng.random((8, sizes[-1]))
    net.clear_deltas()
    net.forward_backward(x, y)
    h = 1e-6
    checked = 0
    for layer in net.layers:
        for param, grad in zip(layer.params, layer.gradients()):
            numeric = np.zeros_like(param)
            for i in np.ndindex(param.shape):
                saved = param[i]
                param[i] = saved + h
                up = _loss(net, x, y)
                param[i] = saved - h
                down = _loss(net, x, y)
                param[i] = saved
                numeric[i] = (up - down) / (2 * h)
            assert np.allclose(grad, numeric, rtol=1e-5, atol=1e-9), (layer.describe(), grad, numeric)
            checked += param.size
    assert checked == net.num_params


def test_input_gradient_matches_finite_differences() -> None:
    rng = np.random.default_rng(3)
    layers = [DenseLayer(4, 3, rng, dtype=np.float64), ActivationLayer(3)]
    x = rng.standard_normal((2, 4))
    y = rng.random((2, 3))
    out = x
    for layer in layers:
        out = layer.forward(out)
    delta = MSE.loss_derivative(out, y) / len(x)
    for layer in reversed(layers):
        delta = layer.backward(delta)

    def loss(x: np.ndarray) -> float:
        return MSE.loss_function(sigmoid(x @ layers[0].weight.T + layers[0].bias), y)

    h = 1e-6
    numeric = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        numeric[i] = (loss(x + e) - loss(x - e)) / (2 * h)
    assert np.allclose(delta, numeric, rtol=1e-5, atol=1e-10)


def test_batch_update_equals_the_books_per_sample_sum() -> None:
    """The book sums per-sample gradients and divides the rate by the batch size; so do we, in one product."""
    rng = np.random.default_rng(7)
    net = SequentialNetwork.from_sizes([3, 4, 2], rng, dtype=np.float64)
    x = rng.random((5, 3))
    y = rng.random((5, 2))
    net.clear_deltas()
    for i in range(5):  # the book's loop: one sample at a time, gradients accumulated
        net.forward_backward(x[i : i + 1], y[i : i + 1])
    per_sample = [g.copy() / 5 for layer in net.layers for g in layer.gradients()]
    net.clear_deltas()
    net.forward_backward(x, y)
    batched = [g for layer in net.layers for g in layer.gradients()]
    for a, b in zip(per_sample, batched):
        assert np.allclose(a, b)


def test_layers_are_checked_and_described() -> None:
    rng = np.random.default_rng(0)
    net = SequentialNetwork(dtype=np.float32)
    net.add(DenseLayer(4, 3, rng))
    with pytest.raises(ValueError, match="takes 5 inputs but the previous layer gives 3"):
        net.add(DenseLayer(5, 2, rng))
    with pytest.raises(ValueError, match="float64 parameters"):
        net.add(DenseLayer(3, 2, rng, dtype=np.float64))
    with pytest.raises(ValueError, match="unknown init"):
        DenseLayer(3, 2, rng, init="xavier")
    with pytest.raises(ValueError, match=r"shape \(n, 4\)"):
        net.predict(np.zeros((2, 5)))
    assert net.describe() == "DenseLayer (4, 3)"
    assert net.predict(np.zeros((2, 4))).dtype == np.float32


def test_the_same_seed_gives_the_same_network_and_training() -> None:
    s = load_digits_split(seed=1)
    runs = []
    for _ in range(2):
        rng = np.random.default_rng(5)
        net = SequentialNetwork.from_sizes([64, 16, 10], rng)
        h = net.train(s.x_train[:300], one_hot(s.y_train[:300]), 2, 10, 3.0, (s.x_test, s.y_test), rng=rng)
        runs.append(([r.correct for r in h], net.layers[0].weight.copy()))
    assert runs[0][0] == runs[1][0]
    assert np.array_equal(runs[0][1], runs[1][1])


def test_perceptron_klein_weights_compute_and() -> None:
    p = Perceptron.from_weights([-10, 6, 6])
    assert p.predict(X2).tolist() == AND.tolist()
    assert p.activation(X2).tolist() == [-10, -4, -4, 2]


@pytest.mark.parametrize(("name", "targets"), [("AND", AND), ("OR", OR)])
def test_perceptron_learns_and_and_or(name: str, targets: np.ndarray) -> None:
    p = Perceptron(2)
    epochs = p.train(X2, targets, epochs=100)
    assert epochs is not None and epochs <= 20, name
    assert p.predict(X2).tolist() == targets.tolist()


def test_perceptron_cannot_learn_xor_but_a_hidden_layer_can() -> None:
    p = Perceptron(2)
    assert p.train(X2, XOR, epochs=1000) is None
    assert (p.predict(X2) == XOR).sum() <= 3  # no line separates XOR: at best 3 of 4

    rng = np.random.default_rng(0)
    net = SequentialNetwork.from_sizes([2, 4, 1], rng, dtype=np.float64)
    net.train(X2, XOR[:, None], epochs=3000, mini_batch_size=4, learning_rate=4.0, rng=rng)
    assert (net.predict(X2).ravel() > 0.5).astype(int).tolist() == XOR.tolist()


def test_digits_reach_95_percent_with_a_fixed_seed() -> None:
    """The demo's default: 64-32-10, 30 epochs, batches of 10, rate 3.0, seed 0 (97.2 % measured)."""
    s = load_digits_split(seed=0)
    rng = np.random.default_rng(0)
    net = SequentialNetwork.from_sizes([64, 32, 10], rng)
    history = net.train(s.x_train, one_hot(s.y_train), 30, 10, 3.0, (s.x_test, s.y_test), rng=rng)
    assert history[-1].total == 360
    assert history[-1].accuracy >= 0.95
    assert history[-1].train_loss < history[0].train_loss / 10
    assert net.evaluate(s.x_test, one_hot(s.y_test)) == history[-1].correct  # one-hot labels work too


def test_one_hot_and_split() -> None:
    assert one_hot(np.array([1, 0]), 2).tolist() == [[0, 1], [1, 0]]
    with pytest.raises(ValueError):
        one_hot(np.array([10]))
    a, b = load_digits_split(seed=3), load_digits_split(seed=3)
    assert np.array_equal(a.y_test, b.y_test)
    assert len(a.x_train) + len(a.x_test) == 1797
    assert 0 <= a.x_train.min() and a.x_train.max() <= 1
    assert np.bincount(a.y_test).min() >= 35  # stratified: every digit in the test set
