"""The lazy registry: names without imports, signature-checked builds, clear errors."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from fuseki.util.errors import FusekiError
from fuseki.util.registry import Registry, RegistryError

SRC = Path(__file__).resolve().parents[2] / "src"


def _shapes() -> Registry:
    reg = Registry("shape", fields={"sides": (3, 4)})
    reg.register("fraction", "fractions:Fraction", "an exact fraction", sides=3)
    return reg


def test_build_imports_and_checks_the_signature() -> None:
    reg = _shapes()
    assert reg.names() == ["fraction"] and reg.available() == {"fraction": "an exact fraction"}
    assert str(reg.build("fraction", numerator=3, denominator=4)) == "3/4"
    assert reg.entry("fraction").fields["sides"] == 3
    assert {"numerator", "denominator"} <= (reg.options("fraction") or set())
    with pytest.raises(RegistryError, match=r"shape 'fraction' cannot be built with colour; it accepts: numerator, denominator"):
        reg.build("fraction", numerator=1, colour="red")


def test_unknown_name_is_a_user_error_listing_the_known_ones() -> None:
    with pytest.raises(RegistryError, match=r"unknown shape 'circle'; known shapes: fraction") as info:
        _shapes().build("circle")
    assert isinstance(info.value, FusekiError) and isinstance(info.value, ValueError)


def test_register_refuses_duplicates_bad_targets_and_bad_fields() -> None:
    reg = _shapes()
    with pytest.raises(ValueError, match="already registered"):
        reg.register("fraction", "fractions:Fraction", "again", sides=3)
    reg.register("fraction", "decimal:Decimal", "replaced", replace=True, sides=4)
    assert str(reg.build("fraction", "1.5")) == "1.5"
    with pytest.raises(ValueError, match="module:attr"):
        reg.register("bad", "fractions.Fraction", "no colon", sides=3)
    with pytest.raises(TypeError, match="callable"):
        reg.register("bad", 42, "not callable", sides=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="sides must be one of 3, 4"):
        reg.register("bad", "fractions:Fraction", "x", sides=5)
    with pytest.raises(ValueError, match="unknown field 'colour'"):
        reg.register("bad", "fractions:Fraction", "x", sides=3, colour="red")
    with pytest.raises(ValueError, match="needs the field"):
        reg.register("bad", "fractions:Fraction", "x")
    assert "bad" not in reg


def test_a_wrong_target_is_a_bug_not_a_user_error() -> None:
    reg = Registry("shape")
    reg.register("ghost", "fractions:NoSuchThing", "points nowhere")
    assert reg.available() == {"ghost": "points nowhere"}  # listing does not import
    with pytest.raises(ImportError, match="fractions has no NoSuchThing"):
        reg.build("ghost")


def test_copy_is_independent() -> None:
    reg = _shapes()
    other = reg.copy()
    other.register("number", "decimal:Decimal", "a decimal", sides=4)
    assert "number" in other and "number" not in reg


def test_every_builtin_target_resolves() -> None:
    """Each "module:attr" string of the real registries names a callable (a typo would fail here, not in use)."""
    from fuseki.agents import AGENTS
    from fuseki.encoders import ENCODERS
    from fuseki.games import GAMES
    from fuseki.nets.registry import NETWORKS

    for reg in (AGENTS, ENCODERS, GAMES, NETWORKS):
        for name in reg.names():
            assert callable(reg.get(name)), (reg.kind, name)


def test_network_outputs() -> None:
    from fuseki.nets.registry import network_outputs

    assert network_outputs("small") == "policy"
    assert network_outputs("q") == "q" and network_outputs("ac") == "ac"
    assert network_outputs("residual-dual") == "policy+value" and network_outputs("residual") == "policy"
    with pytest.raises(RegistryError, match="unknown network 'nope'"):
        network_outputs("nope")


def test_importing_the_agents_loads_neither_numba_nor_torch() -> None:
    """``import fuseki.agents`` and a listing of the agents stay cheap: no Go kernels, no Numba, no torch."""
    code = textwrap.dedent(
        """
        import json, sys
        import fuseki.agents
        from fuseki.encoders import available_encoders
        from fuseki.nets import available_networks
        names = sorted(fuseki.agents.available_agents())
        heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("numba", "torch", "llvmlite")
                       or m.startswith(("fuseki.go", "fuseki.search")))
        print(json.dumps({"names": names, "heavy": heavy,
                          "encoders": sorted(available_encoders()), "networks": sorted(available_networks())}))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env={"PYTHONPATH": str(SRC)}
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["heavy"] == []
    assert {"random", "uniform", "mcts", "policy", "rl", "alphabeta"} <= set(result["names"])
    assert {"oneplane", "zero"} <= set(result["encoders"]) and {"small", "q", "ac"} <= set(result["networks"])
