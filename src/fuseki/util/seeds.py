"""One way to derive the seed of a part of a run (a game, a side, an attempt, a reply).

Corpus generation, self-play, evaluation and the web UI all need seeds for
parts of a run that do not depend on which worker plays a game or in which
order. Each used to derive them its own way (BLAKE2b, NumPy's
``SeedSequence``, SHA-256); one function keeps them comparable and keeps a
fourth copy from appearing.

>>> derive_seed(0, 1) == derive_seed(0, 1) != derive_seed(1, 1)
True
>>> derive_seed(7, "C3", "D4") != derive_seed(7, "C3")
True
"""

from __future__ import annotations

import hashlib

__all__ = ["MAX_SEED", "derive_seed"]

#: Derived seeds lie in ``[1, MAX_SEED]``: 31 bits, which every engine and NumPy accept.
MAX_SEED = 2**31 - 1


def derive_seed(seed: int, *path: int | str) -> int:
    """A seed in ``[1, 2**31 - 1]`` for ``path`` (game number, side, attempt, moves ...) under ``seed``.

    A hash, so that neighbouring games get unrelated seeds and the values are
    the same on every platform and Python version. Never 0 (some engines read
    0 as "seed from the clock"). Integers in ``path`` are written in decimal,
    strings as they are, joined by ``:`` (a GTP vertex never holds one).
    """
    parts = [str(int(seed))] + [x if isinstance(x, str) else str(int(x)) for x in path]
    value = int.from_bytes(hashlib.blake2b(":".join(parts).encode("utf-8"), digest_size=8).digest(), "big")
    return value % MAX_SEED + 1
