"""Shared fixtures of the dead-stone tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture
def one_thread() -> Iterator[None]:
    """Tiny tensors: one torch thread avoids oversubscription on a busy machine.

    Test modules that train or run the MLPs opt in with
    ``pytestmark = pytest.mark.usefixtures("one_thread")``.
    """
    import torch

    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)
