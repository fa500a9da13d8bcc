"""The outside-dependency gate of the test suite: skip on a developer's machine, fail under CI."""

from __future__ import annotations

import needs
import pytest
from needs import need_gnugo, need_module


def test_missing_gnugo_skips_locally_and_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(needs.shutil, "which", lambda name: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="GNU Go is not installed"):
        need_gnugo()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must install it"):
        need_gnugo()


def test_missing_module_skips_locally_and_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="fuseki_no_such_module cannot be imported"):
        need_module("fuseki_no_such_module")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must install it"):
        need_module("fuseki_no_such_module")


def test_present_dependencies_are_returned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    monkeypatch.setattr(needs.shutil, "which", lambda name: "/opt/bin/gnugo" if name == "gnugo" else None)
    assert need_gnugo() == "/opt/bin/gnugo"
    assert need_module("json").dumps([1]) == "[1]"
