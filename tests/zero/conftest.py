"""One torch thread for the Zero tests: their networks are tiny, and on a shared 2-core machine two threads
made a training step ten times slower (measured); the loop itself runs on one thread by default too."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def one_torch_thread() -> Iterator[None]:
    try:
        import torch  # optional: the tests that need it skip without it
    except ImportError:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
