"""MNIST's IDX files: read (and write) them with NumPy.

The IDX format (LeCun, Cortes and Burges, the MNIST page) is a 4-byte magic
number, one big-endian 32-bit size per dimension, then the data in C order:

===========  ==========================================================
bytes        meaning
===========  ==========================================================
0, 1         always 0
2            the type code: 0x08 ubyte, 0x09 byte, 0x0B int16, 0x0C int32,
             0x0D float32, 0x0E float64 (all big-endian)
3            the number of dimensions
4 ...        each dimension's size, big-endian uint32
then         the data
===========  ==========================================================

So the training images start ``00 00 08 03`` (magic 2051: ubyte, three
dimensions 60000 × 28 × 28) and the labels ``00 00 08 01`` (magic 2049).
Files may be gzip-compressed as they are distributed (``*.gz``); the reader
looks at the first bytes, not at the name. A file that is too short, too
long or not IDX at all raises :class:`ValueError` with the reason.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "labels-idx1-ubyte.gz")
>>> write_idx(path, np.array([5, 0, 4], dtype=np.uint8))
>>> read_idx(path).tolist()
[5, 0, 4]
"""

from __future__ import annotations

import gzip
import os
import struct
import zlib
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from fuseki.scratch.digits import DigitsSplit
from fuseki.util.errors import InputError

__all__ = ["IDX_TYPES", "MnistData", "find_mnist_files", "load_mnist", "parse_idx", "read_idx", "write_idx"]

#: IDX type code -> big-endian NumPy dtype.
IDX_TYPES: dict[int, np.dtype] = {
    0x08: np.dtype(">u1"),
    0x09: np.dtype(">i1"),
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}
_CODE_OF = {dt.newbyteorder("="): code for code, dt in IDX_TYPES.items()}
_GZIP_MAGIC = b"\x1f\x8b"

#: The four files of MNIST, under their distributed names (``.gz`` optional;
#: the Kaggle copies write ``train-images.idx3-ubyte``, also accepted).
MNIST_FILES = {
    "train_images": "train-images-idx3-ubyte",
    "train_labels": "train-labels-idx1-ubyte",
    "test_images": "t10k-images-idx3-ubyte",
    "test_labels": "t10k-labels-idx1-ubyte",
}


def parse_idx(data: bytes, name: str = "<bytes>") -> NDArray:
    """The array held by the IDX bytes ``data`` (already decompressed), in native byte order."""
    if len(data) < 4:
        raise InputError(f"{name}: not an IDX file: {len(data)} bytes, too short for the 4-byte magic number")
    zero, code, ndim = struct.unpack(">HBB", data[:4])
    if zero != 0 or code not in IDX_TYPES:
        raise InputError(
            f"{name}: not an IDX file: magic number 0x{data[:4].hex()} "
            "(expected 00 00, a type code 08/09/0B/0C/0D/0E, and the number of dimensions)"
        )
    if ndim == 0:
        raise InputError(f"{name}: IDX file with 0 dimensions")
    header = 4 + 4 * ndim
    if len(data) < header:
        raise InputError(f"{name}: truncated: {len(data)} bytes, but the header of {ndim} dimensions needs {header}")
    shape = struct.unpack(f">{ndim}I", data[4:header])
    dtype = IDX_TYPES[code]
    expected = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    found = len(data) - header
    if found < expected:
        raise InputError(
            f"{name}: truncated: shape {'x'.join(map(str, shape))} of {dtype.name} needs {expected:,} data bytes, found {found:,}"
        )
    if found > expected:
        raise InputError(
            f"{name}: {found - expected:,} bytes after the data of shape {'x'.join(map(str, shape))} (malformed header?)"
        )
    array = np.frombuffer(data, dtype=dtype, offset=header).reshape(shape)
    return array.astype(dtype.newbyteorder("="))  # a writable copy in native order


def read_idx(path: str | os.PathLike[str]) -> NDArray:
    """Read an IDX file, plain or gzip-compressed.

    Raises :class:`ValueError` for a file that is not IDX, truncated, or a
    broken gzip stream, and :class:`OSError` when it cannot be read.
    """
    path = Path(path)
    raw = path.read_bytes()
    if raw[:2] == _GZIP_MAGIC:
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:  # BadGzipFile is an OSError
            raise InputError(f"{path}: broken gzip data: {e}") from None
    return parse_idx(raw, str(path))


def write_idx(path: str | os.PathLike[str], array: NDArray, *, compress: bool | None = None) -> None:
    """Write ``array`` as IDX (gzip-compressed when ``compress``, or by default when the name ends in ``.gz``)."""
    array = np.asarray(array)
    code = _CODE_OF.get(array.dtype.newbyteorder("="))
    if code is None:
        raise InputError(f"IDX cannot hold {array.dtype}; types: uint8, int8, int16, int32, float32, float64")
    if not 1 <= array.ndim <= 255:
        raise InputError(f"IDX needs 1 to 255 dimensions, got {array.ndim}")
    data = (
        struct.pack(f">HBB{array.ndim}I", 0, code, array.ndim, *array.shape)
        + np.ascontiguousarray(array, dtype=IDX_TYPES[code]).tobytes()
    )
    path = Path(path)
    if compress is None:
        compress = path.name.endswith(".gz")
    path.write_bytes(gzip.compress(data, mtime=0) if compress else data)


#: MNIST as the network wants it: one image per row (784 floats in [0, 1]) and
#: labels 0-9; the same container as the digits split.
MnistData = DigitsSplit


def find_mnist_files(directory: str | os.PathLike[str]) -> dict[str, Path]:
    """The four MNIST files in ``directory``, by role; a clear error naming what is missing."""
    directory = Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"{directory}: no such directory")
    found: dict[str, Path] = {}
    for role, base in MNIST_FILES.items():
        dotted = base.replace("-idx", ".idx")
        for candidate in (base, base + ".gz", dotted, dotted + ".gz"):
            if (directory / candidate).is_file():
                found[role] = directory / candidate
                break
        else:
            raise FileNotFoundError(f"{directory}: no {base} (or {base}.gz); expected the four MNIST IDX files there")
    return found


def load_mnist(directory: str | os.PathLike[str]) -> MnistData:
    """Read MNIST's four IDX files from ``directory`` and check that they fit together.

    Images become rows of ``height * width`` float32 values in [0, 1] (the
    book's 784-long vectors, divided by 255); labels become int64.
    """
    files = find_mnist_files(directory)
    arrays = {role: read_idx(path) for role, path in files.items()}
    out = {}
    for part in ("train", "test"):
        images, labels = arrays[f"{part}_images"], arrays[f"{part}_labels"]
        if images.ndim != 3 or images.dtype != np.uint8:
            raise InputError(f"{files[f'{part}_images']}: expected uint8 images n x rows x columns, got {images.dtype} {images.shape}")
        if labels.ndim != 1 or labels.dtype != np.uint8:
            raise InputError(f"{files[f'{part}_labels']}: expected a uint8 vector of labels, got {labels.dtype} {labels.shape}")
        if len(images) != len(labels):
            raise InputError(f"{part}: {len(images):,} images but {len(labels):,} labels")
        if labels.size and labels.max() > 9:
            raise InputError(f"{files[f'{part}_labels']}: label {labels.max()} is not a digit")
        out[f"x_{part}"] = images.reshape(len(images), -1).astype(np.float32) / np.float32(255)
        out[f"y_{part}"] = labels.astype(np.int64)
    if out["x_train"].shape[1] != out["x_test"].shape[1]:
        raise InputError(f"training images have {out['x_train'].shape[1]} pixels but test images {out['x_test'].shape[1]}")
    return MnistData(**out)
