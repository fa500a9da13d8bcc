"""Handwritten digits that need no download: scikit-learn's bundled 8×8 set.

``sklearn.datasets.load_digits`` ships 1,797 images of 8×8 pixels with
values 0-16 (a copy of the UCI "optical recognition of handwritten digits"
test set). It stands in for MNIST when there is no internet: the same task,
ten classes, at 64 inputs instead of 784.

>>> split = load_digits_split(seed=0)
>>> split.x_train.shape, split.x_test.shape, split.x_train.dtype
((1437, 64), (360, 64), dtype('float32'))
>>> one_hot([2, 0], 3).tolist()
[[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from fuseki.util.errors import InputError

__all__ = ["DigitsSplit", "load_digits_split", "one_hot"]


@dataclass(frozen=True)
class DigitsSplit:
    """Training and test images (one per row, scaled to [0, 1]) and their labels 0-9.

    The same container holds MNIST (:data:`fuseki.scratch.mnist.MnistData`).
    """

    x_train: NDArray[np.float32]
    y_train: NDArray[np.int64]
    x_test: NDArray[np.float32]
    y_test: NDArray[np.int64]

    @property
    def num_features(self) -> int:
        return int(self.x_train.shape[1])


def one_hot(labels: ArrayLike, num_classes: int = 10, dtype: DTypeLike = np.float32) -> NDArray[np.floating]:
    """Rows with a 1 at each label's position (the book's ``encode_label``, for a whole array)."""
    labels = np.asarray(labels)
    if labels.ndim != 1 or (labels.size and (labels.min() < 0 or labels.max() >= num_classes)):
        raise InputError(f"labels must be a 1-d array of classes 0..{num_classes - 1}")
    out = np.zeros((len(labels), num_classes), dtype=dtype)
    out[np.arange(len(labels)), labels.astype(np.int64)] = 1
    return out


def load_digits_split(test_fraction: float = 0.2, seed: int = 0) -> DigitsSplit:
    """The 8×8 digits, split into training and test sets with the same share of each digit.

    Pixels are divided by 16 so that they lie in [0, 1], like the book's MNIST
    vectors. The split depends only on ``seed``.
    """
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    if not 0 < test_fraction < 1:
        raise InputError(f"test_fraction must lie strictly between 0 and 1, got {test_fraction}")
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=test_fraction, random_state=seed, stratify=y)
    return DigitsSplit(x_train, y_train, x_test, y_test)
