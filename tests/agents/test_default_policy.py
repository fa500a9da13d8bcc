"""The default bot of each board size (``fuseki play``, ``fuseki gtp``) and the shipped policy networks.

The real ``policy-9x9`` and ``policy-19x19`` are trained apart from the
code, so these tests search a folder of tiny stand-ins of those names only,
or hide every model (``no_shipped_models``) to see the fallback to MCTS.
Either way they pass whether or not the real files are there.
"""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest

from needs import need_module  # noqa: E402

torch = need_module("torch")  # skips here, fails under CI

from fuseki import cli  # noqa: E402
from fuseki.agents import make_agent  # noqa: E402
from fuseki.agents.agent_file import save_agent  # noqa: E402
from fuseki.agents.base import agent_board_sizes  # noqa: E402
from fuseki.agents.by_size import (  # noqa: E402
    DEFAULT_BOTS,
    OTHER_SIZES,
    BySizeAgent,
    default_bot_for,
    resolve_default,
)
from fuseki.agents.deep_learning import (  # noqa: E402
    DEFAULT_POLICY_MODELS,
    ShippedPolicyAgent,
    default_policy_installed,
    default_policy_path,
    default_policy_paths,
)
from fuseki.encoders import get_encoder  # noqa: E402
from fuseki.go.state import GameState  # noqa: E402
from fuseki.commands.play import default_bot  # noqa: E402
from fuseki.gtp.engine import GtpEngine  # noqa: E402
from fuseki.nets.registry import available_networks, build_network, register_network  # noqa: E402

NET = "test-default-policy-linear"
#: The shipped network that plays every board, 13x13's default bot.
ANY_SIZE = DEFAULT_BOTS[13].options["model"]

if NET not in available_networks():
    register_network(
        NET,
        lambda in_planes, size, num_moves: torch.nn.Sequential(
            torch.nn.Flatten(), torch.nn.Linear(in_planes * size * size, num_moves)
        ),
        "a test net",
    )

#: A 9x9 and a 19x19 vertex as GTP writes them.
VERTEX_9X9 = re.compile(r"[A-HJ][1-9]")
VERTEX_19X19 = re.compile(r"[A-HJ-T](1[0-9]|[1-9])")


def tiny_policy_file(folder: Path, size: int) -> Path:
    """A small policy agent file for ``size`` named like the shipped one."""
    torch.manual_seed(size)
    enc = get_encoder("oneplane", size)
    net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(enc.num_planes * size * size, enc.num_moves))
    path = folder / f"{DEFAULT_POLICY_MODELS[size]}.safetensors"
    save_agent(path, net, encoder=enc, network=NET, metadata={"data": "none"})
    return path


def tiny_any_size_policy_file(folder: Path) -> Path:
    """A small policy with a head of one logit a point (it plays every size), named like the shipped ``policy-any``."""
    torch.manual_seed(13)
    enc = get_encoder("sevenplane", 19)
    options = {"blocks": 1, "channels": 8, "policy_head": "conv"}
    net = build_network("residual", in_planes=enc.num_planes, size=19, num_moves=enc.num_moves, **options)
    path = folder / f"{ANY_SIZE}.safetensors"
    save_agent(path, net, encoder=enc, network="residual", network_options=options, metadata={"data": "none"})
    return path


@pytest.fixture(scope="module")
def tiny_policies(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    """Small 9x9 and 19x19 policies named like the shipped ones, and an any-size ``policy-any``, in one folder.

    The dict holds the two of :data:`DEFAULT_POLICY_MODELS`; ``policy-any`` (13x13's default) lies beside them.
    """
    folder = tmp_path_factory.mktemp("models")
    tiny_any_size_policy_file(folder)
    return {size: tiny_policy_file(folder, size) for size in (9, 19)}


def any_size_file(policies: dict[int, Path]) -> Path:
    """The tiny ``policy-any`` beside the fixture's other policies."""
    return policies[9].parent / f"{ANY_SIZE}.safetensors"


@pytest.fixture
def shipped(tiny_policies: dict[int, Path], monkeypatch: pytest.MonkeyPatch) -> dict[int, Path]:
    """The tiny policies installed as ``policy-9x9`` and ``policy-19x19``, and nothing else."""
    import fuseki.util.models as models

    folder = tiny_policies[9].parent
    monkeypatch.setattr(models, "models_dirs", lambda: [folder])
    return tiny_policies


@pytest.fixture
def shipped_9x9_only(tiny_policies: dict[int, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Only ``policy-9x9`` installed (a checkout where the 19x19 network is missing)."""
    import fuseki.util.models as models

    (tmp_path / tiny_policies[9].name).write_bytes(tiny_policies[9].read_bytes())
    monkeypatch.setattr(models, "models_dirs", lambda: [tmp_path])
    return tmp_path / tiny_policies[9].name


def play(argv: list[str], lines: list[str], monkeypatch: pytest.MonkeyPatch, capsys) -> tuple[int, str, str]:
    """``fuseki play ARGV`` with scripted input: (exit status, stdout, stderr)."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in lines)))
    rc = cli.main(["play", *argv])
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def gtp(argv: list[str], commands: str, monkeypatch: pytest.MonkeyPatch, capsys) -> tuple[int, list[str], str]:
    """``fuseki gtp ARGV`` on ``commands``: (exit status, replies, stderr)."""
    out = io.BytesIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(commands.encode()), encoding="utf-8"))
    monkeypatch.setattr(sys, "stdout", stdout)
    rc = cli.main(["gtp", *argv])
    stdout.flush()
    replies = [r for r in out.getvalue().decode().split("\n\n") if r.strip()]
    return rc, replies, capsys.readouterr().err


# ---- the helpers and the registry --------------------------------------------------


def test_installed_are_found_in_the_models_folders(shipped: dict[int, Path]) -> None:
    assert default_policy_paths() == shipped
    assert default_policy_path(9) == shipped[9] and default_policy_path(19) == shipped[19]
    assert default_policy_path(13) is None
    assert default_policy_installed() and default_policy_installed(19) and not default_policy_installed(13)


def test_not_installed(no_shipped_models: Path) -> None:
    assert default_policy_paths() == {} and default_policy_path(9) is None
    assert not default_policy_installed() and not default_policy_installed(9)


def test_policy_without_a_model_plays_the_shipped_network_of_each_size(shipped: dict[int, Path]) -> None:
    bot = make_agent("policy", seed=1, mode="argmax")
    assert isinstance(bot, ShippedPolicyAgent) and bot.board_sizes == (9, 19)
    assert agent_board_sizes(bot) == (9, 19)
    for size in (9, 19):
        state = GameState.new(size)
        move = bot.select_move(state)
        assert state.is_legal(move) and move.point is not None
        net = bot.agent_for(size)
        assert net.info is not None and Path(net.info.path) == shipped[size] and net.board_size == size
        assert net.mode == "argmax"  # the options reach every size's network
        assert bot.predict([state]).shape == (1, size * size)
    with pytest.raises(ValueError, match="policy plays 9x9 and 19x19 only, not 13x13"):
        bot.select_move(GameState.new(13))
    with pytest.raises(ValueError, match="one board size a batch"):
        bot.predict([GameState.new(9), GameState.new(19)])


def test_policy_without_a_model_checks_its_options_before_loading(shipped: dict[int, Path]) -> None:
    with pytest.raises(ValueError, match="temperature must be a positive number"):
        make_agent("policy", temperature=-1.0)


def test_policy_without_a_model_or_a_shipped_one_says_what_is_there(no_shipped_models: Path) -> None:
    with pytest.raises(ValueError, match="needs a model.*'policy-9x9', 'policy-19x19'.*not installed"):
        make_agent("policy")


# ---- the default bot of each size ---------------------------------------------------------


def test_the_table_of_default_bots() -> None:
    assert default_bot_for(9) == DEFAULT_BOTS[9] and (DEFAULT_BOTS[9].bot, dict(DEFAULT_BOTS[9].options)) == (
        "mcts",
        {"seconds": 5.0},
    )
    assert DEFAULT_BOTS[19].bot == "policy" and DEFAULT_BOTS[19].options["model"] == DEFAULT_POLICY_MODELS[19]
    assert (DEFAULT_BOTS[13].bot, DEFAULT_BOTS[13].options["model"]) == ("policy", "policy-any")
    for size in (13, 19):  # the networks were measured taking their most probable move
        assert default_bot_for(size) == DEFAULT_BOTS[size] and DEFAULT_BOTS[size].options["mode"] == "argmax"
    assert default_bot_for(7) == OTHER_SIZES and OTHER_SIZES.bot == "mcts"
    for choice in (*DEFAULT_BOTS.values(), OTHER_SIZES):
        assert choice.evidence  # every choice says which measurement made it


def test_default_bot_by_size(shipped: dict[int, Path], capsys) -> None:
    assert default_bot(9) == ("mcts", {"seconds": 5.0})
    assert default_bot(19) == ("policy", {"model": str(shipped[19]), "mode": "argmax"})
    assert default_bot(13) == ("policy", {"model": str(any_size_file(shipped)), "mode": "argmax"})
    assert default_bot(7) == ("mcts", {})
    assert capsys.readouterr().err == ""


def test_a_missing_19x19_network_falls_back_to_mcts_and_says_why(shipped_9x9_only: Path, capsys) -> None:
    assert default_bot(19) == ("mcts", {})
    assert capsys.readouterr().err.strip() == (
        "fuseki: the shipped policy network policy-19x19 is not installed; playing mcts on 19x19"
    )


@pytest.mark.parametrize("broken", ["wrong size", "unreadable"])
def test_a_19x19_network_that_cannot_play_falls_back_the_same_for_every_command(
    broken: str, tiny_policies: dict[int, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys
) -> None:
    import fuseki.util.models as models
    from fuseki.web.models import resolve_default_bot

    target = tmp_path / tiny_policies[19].name
    if broken == "wrong size":  # a 9x9 network installed under the 19x19 name
        target.write_bytes(tiny_policies[9].read_bytes())
        reason = "the shipped policy network policy-19x19 was trained on 9x9"
    else:  # a truncated download
        target.write_bytes(tiny_policies[19].read_bytes()[:100])
        reason = "the shipped policy network cannot be read ("
    monkeypatch.setattr(models, "models_dirs", lambda: [tmp_path])
    chosen = resolve_default(19)
    assert (chosen.bot, chosen.options, chosen.model_path) == ("mcts", {}, None)
    assert chosen.fallback is not None and chosen.fallback.startswith(reason)
    assert default_bot(19) == ("mcts", {})  # the command line
    assert capsys.readouterr().err.startswith(f"fuseki: {reason}")
    assert resolve_default_bot(19, {}) == ("mcts", {})  # the web game


def test_the_resolved_default_names_the_model_and_its_file(shipped: dict[int, Path]) -> None:
    chosen = resolve_default(19)
    assert (chosen.bot, chosen.options, chosen.fallback) == (
        "policy",
        {"model": "policy-19x19", "mode": "argmax"},
        None,
    )
    assert chosen.model_path == shipped[19]
    chosen = resolve_default(13)
    assert (chosen.bot, chosen.model_path, chosen.fallback) == ("policy", any_size_file(shipped), None)
    assert resolve_default(9).model_path is None and resolve_default(9).options == {"seconds": 5.0}


def test_a_by_size_agent_builds_each_sizes_bot_once(tiny_policies: dict[int, Path]) -> None:
    built: list[int] = []

    def build(size: int):
        built.append(size)
        return make_agent("mcts", playouts=30, seed=1) if size == 9 else make_agent("random", seed=1)

    bot = BySizeAgent(build, size=19)
    engine = GtpEngine(bot, stdout=io.StringIO())
    assert engine.size == 19 and built == []  # nothing built before a move or a search is wanted
    assert engine.handle("boardsize 9") == "= " and bot.size == 9
    assert engine._searcher() is bot.agent and built == [9]  # the clock finds the 9x9 bot's search
    assert VERTEX_9X9.fullmatch(engine.handle("genmove b")[2:])
    assert engine.handle("boardsize 7") == "= "
    assert engine._searcher() is None  # random does not search
    assert engine.handle("genmove w").startswith("= ")
    assert engine.handle("boardsize 9") == "= " and engine.handle("genmove b").startswith("= ")
    assert built == [9, 7] and bot.built() == {7: "random", 9: "mcts"}


def test_the_engine_warms_the_search_kernels_when_some_sizes_bot_searches() -> None:
    quiet = GtpEngine(BySizeAgent(lambda size: make_agent("random"), searches=False), stdout=io.StringIO())
    assert quiet.warm_up() == 0.0  # no bot of any size searches: nothing to compile
    built: list[int] = []

    def build(size: int):
        built.append(size)
        return make_agent("random")

    eager = GtpEngine(BySizeAgent(build, searches=True), stdout=io.StringIO())
    assert eager.warm_up() > 0.0  # the 19x19 bot does not search, but the 9x9 one will: warm before the clock
    assert built == []  # and no bot is built before the first command (a network load kept controllers waiting)


# ---- fuseki play ------------------------------------------------------------------------


def test_play_on_9x9_defaults_to_mcts(shipped: dict[int, Path], monkeypatch, capsys) -> None:
    rc, out, err = play(["--color", "black", "--seed", "1"], ["quit"], monkeypatch, capsys)
    assert rc == 0
    assert "against mcts on 9x9" in out
    assert err == ""


def test_play_on_19x19_defaults_to_the_19x19_policy(shipped: dict[int, Path], monkeypatch, capsys) -> None:
    rc, out, err = play(["--size", "19", "--color", "white", "--seed", "1"], ["quit"], monkeypatch, capsys)
    assert rc == 0, err
    assert "against policy on 19x19" in out
    assert re.search(r"Move 1: Black \(policy\) plays ([A-HJ-T](1[0-9]|[1-9])|pass)\.", out), out
    assert err == ""


def test_play_on_13x13_defaults_to_the_any_size_policy(shipped: dict[int, Path], monkeypatch, capsys) -> None:
    rc, out, err = play(["--size", "13", "--color", "white", "--seed", "1"], ["quit"], monkeypatch, capsys)
    assert rc == 0, err
    assert "against policy on 13x13" in out
    assert re.search(r"Move 1: Black \(policy\) plays ([A-HJ-N](1[0-3]|[1-9])|pass)\.", out), out
    assert err == ""


def test_play_on_13x13_without_policy_any_falls_back_to_mcts(shipped_9x9_only: Path, monkeypatch, capsys) -> None:
    rc, out, err = play(["--size", "13"], ["quit"], monkeypatch, capsys)
    assert rc == 0
    assert "against mcts on 13x13" in out
    assert err.strip() == "fuseki: the shipped policy network policy-any is not installed; playing mcts on 13x13"


def test_play_on_another_size_is_mcts(shipped: dict[int, Path], monkeypatch, capsys) -> None:
    rc, out, err = play(["--size", "7"], ["quit"], monkeypatch, capsys)
    assert rc == 0
    assert "against mcts on 7x7" in out
    assert err == ""


def test_play_on_19x19_without_its_network_falls_back_to_mcts(shipped_9x9_only: Path, monkeypatch, capsys) -> None:
    rc, out, err = play(["--size", "19"], ["quit"], monkeypatch, capsys)
    assert rc == 0
    assert "against mcts on 19x19" in out
    assert err.strip() == "fuseki: the shipped policy network policy-19x19 is not installed; playing mcts on 19x19"


def test_play_with_an_unreadable_shipped_policy_falls_back_to_mcts(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    (tmp_path / f"{DEFAULT_POLICY_MODELS[19]}.safetensors").write_bytes(b"\x00" * 4)
    monkeypatch.setenv("FUSEKI_MODELS", str(tmp_path))
    rc, out, err = play(["--size", "19"], ["quit"], monkeypatch, capsys)
    assert rc == 0
    assert "against mcts on 19x19" in out
    assert "the shipped policy network cannot be read" in err


def test_play_bot_policy_without_a_model_uses_the_shipped_ones(shipped: dict[int, Path], monkeypatch, capsys) -> None:
    rc, out, _ = play(["--bot", "policy", "--color", "white", "--seed", "2"], ["quit"], monkeypatch, capsys)
    assert rc == 0
    assert "Move 1: Black (policy) plays" in out
    rc, _, err = play(["--bot", "policy", "--size", "13"], ["quit"], monkeypatch, capsys)
    assert rc == 2
    assert "--size 13: policy plays 9x9 and 19x19 only" in err and "use --size 9 or --size 19" in err


def test_play_with_a_9x9_model_on_19x19_is_refused(shipped: dict[int, Path], monkeypatch, capsys) -> None:
    rc, _, err = play(["--model", str(shipped[9]), "--size", "19"], ["quit"], monkeypatch, capsys)
    assert rc == 2
    assert "--size 19: policy plays 9x9 only" in err and "use --size 9" in err


# ---- fuseki gtp ----------------------------------------------------------------------


def test_gtp_plays_each_sizes_default_bot(shipped: dict[int, Path], monkeypatch, capsys) -> None:
    commands = (
        "boardsize 19\ngenmove w\nboardsize 9\nplay b E5\ngenmove w\nboardsize 13\ngenmove b\n"
        "boardsize 19\ngenmove b\nboardsize 7\ngenmove b\nquit\n"
    )
    rc, replies, err = gtp(["--never-resign", "--seed", "1", "--playouts", "50"], commands, monkeypatch, capsys)
    assert rc == 0, err
    assert replies[0] == "= " and VERTEX_19X19.fullmatch(replies[1][2:]), replies[1]  # the 19x19 network
    assert replies[2] == "= " and replies[3] == "= " and VERTEX_9X9.fullmatch(replies[4][2:]), replies[4]
    assert replies[5] == "= " and re.fullmatch(r"[A-HJ-N](1[0-3]|[1-9])", replies[6][2:]), replies[6]  # policy-any
    assert replies[7] == "= " and VERTEX_19X19.fullmatch(replies[8][2:]), replies[8]
    assert replies[9] == "= " and re.fullmatch(r"[A-G][1-7]", replies[10][2:]), replies[10]  # 7x7: mcts, any size
    # --playouts is the searches' budget; a network has none, and says so once for each size it plays.
    assert err.strip().splitlines() == [
        f"fuseki: the default bot on {size}x{size} (policy) does not search: --playouts does not apply"
        for size in (19, 13)
    ]


def test_gtp_without_the_shipped_policy_plays_mcts_on_19x19(no_shipped_models: Path, monkeypatch, capsys) -> None:
    rc, replies, err = gtp(["--playouts", "30"], "boardsize 19\ngenmove b\nquit\n", monkeypatch, capsys)
    assert rc == 0
    assert replies[0] == "= " and VERTEX_19X19.fullmatch(replies[1][2:]), replies
    assert "policy-19x19 is not installed; playing mcts on 19x19" in err


def test_gtp_set_without_bot_is_refused(shipped: dict[int, Path], monkeypatch, capsys) -> None:
    rc, _, err = gtp(["--set", "mode=argmax"], "quit\n", monkeypatch, capsys)
    assert rc == 2
    assert "--set needs --bot" in err


def test_the_engine_starts_on_the_policys_board(tiny_policies: dict[int, Path]) -> None:
    engine = GtpEngine(make_agent("policy", model=str(tiny_policies[9]), seed=1), stdout=io.StringIO())
    assert engine.size == 9
    assert VERTEX_9X9.fullmatch(engine.handle("genmove b")[2:])


def test_the_policy_bot_answers_9x9_and_19x19_and_refuses_others(shipped: dict[int, Path]) -> None:
    engine = GtpEngine(make_agent("policy", seed=1), stdout=io.StringIO())
    assert engine.size == 19
    assert VERTEX_19X19.fullmatch(engine.handle("genmove b")[2:])
    assert engine.handle("boardsize 13") == "? unacceptable size: policy plays 9x9 and 19x19 only, not 13x13"
    assert engine.handle("boardsize 9") == "= " and VERTEX_9X9.fullmatch(engine.handle("genmove b")[2:])
