"""The IDX reader of ``fuseki.scratch.mnist`` on small files written here byte by byte."""

from __future__ import annotations

import gzip
import struct
from pathlib import Path

import numpy as np
import pytest

from fuseki.scratch.mnist import load_mnist, read_idx, write_idx


def idx_bytes(array: np.ndarray, code: int) -> bytes:
    """IDX by hand (not through write_idx): magic 00 00 code ndim, big-endian sizes, big-endian data."""
    header = bytes([0, 0, code, array.ndim]) + b"".join(struct.pack(">I", n) for n in array.shape)
    return header + array.astype(array.dtype.newbyteorder(">")).tobytes()


def images(n: int, rows: int = 3, cols: int = 2, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, size=(n, rows, cols), dtype=np.uint8)


def test_ubyte_images_and_labels(tmp_path: Path) -> None:
    imgs = images(4)
    labels = np.array([7, 2, 1, 0], dtype=np.uint8)
    (tmp_path / "i").write_bytes(idx_bytes(imgs, 0x08))
    (tmp_path / "l").write_bytes(idx_bytes(labels, 0x08))
    got = read_idx(tmp_path / "i")
    assert got.dtype == np.uint8 and got.shape == (4, 3, 2)
    assert np.array_equal(got, imgs)
    assert read_idx(tmp_path / "l").tolist() == [7, 2, 1, 0]
    # The magic numbers MNIST's page gives: 2051 for images, 2049 for labels.
    assert struct.unpack(">I", (tmp_path / "i").read_bytes()[:4])[0] == 2051
    assert struct.unpack(">I", (tmp_path / "l").read_bytes()[:4])[0] == 2049


@pytest.mark.parametrize(
    ("code", "dtype"),
    [(0x09, np.int8), (0x0B, np.int16), (0x0C, np.int32), (0x0D, np.float32), (0x0E, np.float64)],
)
def test_other_types_are_big_endian(tmp_path: Path, code: int, dtype: type) -> None:
    a = np.array([[-3, 1, 2], [100, -100, 0]], dtype=dtype)
    (tmp_path / "a").write_bytes(idx_bytes(a, code))
    got = read_idx(tmp_path / "a")
    assert got.dtype == np.dtype(dtype) and got.dtype.isnative
    assert np.array_equal(got, a)


def test_gzip_is_detected_by_content(tmp_path: Path) -> None:
    imgs = images(5, 28, 28)
    (tmp_path / "train-images-idx3-ubyte.gz").write_bytes(gzip.compress(idx_bytes(imgs, 0x08)))
    (tmp_path / "no-suffix").write_bytes(gzip.compress(idx_bytes(imgs, 0x08)))
    assert np.array_equal(read_idx(tmp_path / "train-images-idx3-ubyte.gz"), imgs)
    assert np.array_equal(read_idx(tmp_path / "no-suffix"), imgs)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x00\x00\x08", "too short for the 4-byte magic number"),
        (b"PK\x03\x04rest", "not an IDX file: magic number 0x504b0304"),
        (bytes([0, 0, 0x07, 1, 0, 0, 0, 1, 5]), "not an IDX file"),  # unknown type code
        (bytes([0, 1, 0x08, 1, 0, 0, 0, 1, 5]), "not an IDX file"),  # first bytes not zero
        (bytes([0, 0, 0x08, 0]), "0 dimensions"),
        (bytes([0, 0, 0x08, 3, 0, 0, 0, 2]), "header of 3 dimensions needs 16"),
        (bytes([0, 0, 0x08, 1, 0, 0, 0, 4, 1, 2]), "truncated: shape 4 of uint8 needs 4 data bytes, found 2"),
        (bytes([0, 0, 0x08, 1, 0, 0, 0, 1, 1, 2]), "1 bytes after the data"),
    ],
)
def test_malformed_files_raise_value_error(tmp_path: Path, data: bytes, message: str) -> None:
    (tmp_path / "bad").write_bytes(data)
    with pytest.raises(ValueError, match=message.replace("(", r"\(")) as info:
        read_idx(tmp_path / "bad")
    assert str(tmp_path / "bad") in str(info.value)


def test_truncated_image_file_names_the_sizes(tmp_path: Path) -> None:
    data = idx_bytes(images(10, 28, 28), 0x08)
    (tmp_path / "cut").write_bytes(data[:-100])
    with pytest.raises(ValueError, match=r"truncated: shape 10x28x28 of uint8 needs 7,840 data bytes, found 7,740"):
        read_idx(tmp_path / "cut")


def test_broken_gzip_is_a_value_error(tmp_path: Path) -> None:
    packed = gzip.compress(idx_bytes(images(50, 28, 28), 0x08))
    (tmp_path / "cut.gz").write_bytes(packed[: len(packed) // 2])
    with pytest.raises(ValueError, match="broken gzip data"):
        read_idx(tmp_path / "cut.gz")
    (tmp_path / "junk.gz").write_bytes(b"\x1f\x8b" + b"\xff" * 30)
    with pytest.raises(ValueError, match="broken gzip data"):
        read_idx(tmp_path / "junk.gz")


def test_write_idx_round_trip(tmp_path: Path) -> None:
    a = np.arange(24, dtype=np.int16).reshape(2, 3, 4) - 5
    write_idx(tmp_path / "a.gz", a)
    assert (tmp_path / "a.gz").read_bytes()[:2] == b"\x1f\x8b"
    assert np.array_equal(read_idx(tmp_path / "a.gz"), a)
    write_idx(tmp_path / "a", a)
    assert (tmp_path / "a").read_bytes() == idx_bytes(a, 0x0B)
    with pytest.raises(ValueError, match="cannot hold"):
        write_idx(tmp_path / "b", np.zeros(2, dtype=np.uint32))


def _mnist_dir(root: Path, n_train: int = 20, n_test: int = 10, gz: bool = False) -> Path:
    rng = np.random.default_rng(1)
    suffix = ".gz" if gz else ""
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        write_idx(root / f"{prefix}-images-idx3-ubyte{suffix}", images(n, 28, 28, seed=n))
        write_idx(root / f"{prefix}-labels-idx1-ubyte{suffix}", rng.integers(0, 10, n, dtype=np.uint8))
    return root


@pytest.mark.parametrize("gz", [False, True])
def test_load_mnist(tmp_path: Path, gz: bool) -> None:
    data = load_mnist(_mnist_dir(tmp_path, gz=gz))
    assert data.x_train.shape == (20, 784) and data.x_test.shape == (10, 784)
    assert data.x_train.dtype == np.float32 and 0 <= data.x_train.min() and data.x_train.max() <= 1
    assert data.y_train.dtype == np.int64 and data.y_train.max() <= 9
    assert data.num_features == 784


def test_load_mnist_checks_the_files_fit(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no t10k-images-idx3-ubyte"):
        write_idx(tmp_path / "train-images-idx3-ubyte", images(2, 28, 28))
        write_idx(tmp_path / "train-labels-idx1-ubyte", np.zeros(2, np.uint8))
        load_mnist(tmp_path)
    write_idx(tmp_path / "t10k-images-idx3-ubyte", images(3, 28, 28))
    write_idx(tmp_path / "t10k-labels-idx1-ubyte", np.zeros(2, np.uint8))
    with pytest.raises(ValueError, match="test: 3 images but 2 labels"):
        load_mnist(tmp_path)
    write_idx(tmp_path / "t10k-labels-idx1-ubyte", np.array([1, 2, 12], np.uint8))
    with pytest.raises(ValueError, match="label 12 is not a digit"):
        load_mnist(tmp_path)
