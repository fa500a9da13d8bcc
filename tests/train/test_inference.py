"""Small-batch inference runs on one CPU thread and gives the caller's threads back."""

from __future__ import annotations

import pytest

from needs import need_module  # noqa: E402

torch = need_module("torch")  # skips here, fails under CI

from fuseki.nets.inference import SMALL_BATCH, inference  # noqa: E402


def test_a_small_cpu_batch_runs_on_one_thread_and_the_count_comes_back():
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with inference("cpu", 1):
            assert torch.get_num_threads() == 1 and torch.is_inference_mode_enabled()
        assert torch.get_num_threads() == 2
        with inference("cpu", SMALL_BATCH + 1):  # a real batch keeps the pool
            assert torch.get_num_threads() == 2
        with pytest.raises(RuntimeError):
            with inference("cpu", 1):
                raise RuntimeError("the model failed")
        assert torch.get_num_threads() == 2 and not torch.is_inference_mode_enabled()
    finally:
        torch.set_num_threads(before)
