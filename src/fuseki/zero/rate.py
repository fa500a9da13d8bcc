"""An Elo curve of a Zero run against fixed anchors: every generation's network plays the same opponents.

Gate games rate each candidate only against the network before it, so the
curve they give drifts: a chain of small, noisy differences. A rating
against *fixed* anchors (a random player, the MCTS engine at 1,000 playouts,
GNU Go at level 1: issue 18's three) puts every generation on one scale.

For each chosen generation ``g`` and each anchor, ``games`` games are played
by the arena's evaluation (:func:`fuseki.arena.evaluate.evaluate`): colours
alternating, area scoring with a dead-stone estimate, seeds per game, GTP
engines' failures as forfeits, SGF files in a folder of their own
(``RUN_DIR/rate/gen-0003_vs_random/``). The anchors also play each other
(``anchor_games`` games a pair), which fixes their distances. All records
are fitted together by Bradley–Terry (:func:`fuseki.arena.ratings.fit_ratings`,
one virtual draw a pair), the first anchor rated 0, with 95 % intervals from
the Fisher information.

The generation plays as the registry's ``zero`` agent (``--bot zero``):
PUCT with ``simulations`` a move, its first ``temperature_moves`` moves
drawn by visit counts (seeded per game) so that games against a
deterministic anchor differ; how many games were distinct is counted from
the SGF files.

Everything resumes: a finished game is a file, and is never played again;
more generations or more games later play only what is missing.
``rate.json`` holds the settings that decide the games (refused if they
change); ``ratings.json`` and ``elo.png`` are written after each
generation, the curve so far (``"complete": false`` until the last one).
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fuseki.arena.eval_settings import EvalSettings
from fuseki.arena.evaluate import evaluate
from fuseki.arena.ratings import Ratings, fit_ratings
from fuseki.arena.specs import parse_agent_spec
from fuseki.util.atomic import write_atomic, write_json_atomic
from fuseki.util.errors import InputError
from fuseki.util.progress import ProgressCallback
from fuseki.util.runs import RunFolder

__all__ = ["RATE_DIR", "Anchor", "RateSettings", "anchor_of", "parse_anchors", "plot_anchor_curve", "run_rate"]

RATE_DIR = "rate"
SETTINGS_FILE = "rate.json"


@dataclasses.dataclass(frozen=True)
class Anchor:
    """A fixed opponent: its short name (in tables and the picture) and its arena agent spec."""

    name: str
    spec: str


def anchor_of(text: str) -> Anchor:
    """An anchor from its short name or an arena spec.

    - ``random``: the book's random bot;
    - ``mcts:N``: the MCTS engine at ``N`` playouts a move (``mcts:playouts=N``);
    - ``gnugo:L``: GNU Go at level ``L`` over GTP (``gtp:gnugo --mode gtp --level L``);
    - anything else an arena agent spec as ``fuseki eval`` takes it
      (``mcts:playouts=200,rave=false``, ``gtp:...``, an agent file).

    >>> anchor_of("mcts:1000").spec, anchor_of("gnugo:1").spec
    ('mcts:playouts=1000', 'gtp:gnugo --mode gtp --level 1')
    """
    text = text.strip()
    head, sep, tail = text.partition(":")
    if sep and tail.isdigit():
        if head == "mcts":
            return Anchor(text, f"mcts:playouts={int(tail)}")
        if head == "gnugo":
            return Anchor(text, f"gtp:gnugo --mode gtp --level {int(tail)}")
    parse_agent_spec(text)  # one-line error for a spec that names nothing
    return Anchor(text, text)


def parse_anchors(short: str | None, specs: Sequence[str] = ()) -> list[Anchor]:
    """``--anchors random,mcts:1000,gnugo:1`` (short names) and ``--anchor SPEC`` (any arena spec, repeatable)."""
    anchors = [anchor_of(a) for a in (short.split(",") if short else []) if a.strip()]
    anchors += [anchor_of(s) for s in specs]
    if not anchors:
        raise InputError("give at least one anchor: --anchors random,mcts:1000,gnugo:1 or --anchor SPEC")
    names = [a.name for a in anchors]
    if len(set(names)) != len(names):
        raise InputError(f"an anchor is given twice: {', '.join(names)}")
    return anchors


@dataclasses.dataclass(frozen=True)
class RateSettings:
    """What decides a rating's games (``rate.json``): the anchors, the Zero agent's search, the board and the seed."""

    anchors: tuple[Anchor, ...]
    simulations: int = 200
    temperature_moves: int = 4
    c_puct: float = 1.5
    size: int = 9
    komi: float = 7.5
    seed: int = 0
    move_time: float = 10.0

    def __post_init__(self) -> None:
        if self.simulations < 1 or self.temperature_moves < 0:
            raise InputError("simulations must be at least 1 and temperature moves 0 or more")

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["anchors"] = [dataclasses.asdict(a) for a in self.anchors]
        return d


def _folder(path: Path) -> RunFolder:
    return RunFolder(path, SETTINGS_FILE, "a rating with other settings", "a rating settings file", "use the same settings")


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9.=-]+", "-", name).strip("-") or "anchor"


def _zero_spec(model: Path, settings: RateSettings) -> str:
    text = str(model.resolve())
    if "," in text:
        raise InputError(f"the run folder's path {text!r} has a comma, which an agent spec cannot hold; move or link it")
    return f"zero:model={text},simulations={settings.simulations},c_puct={settings.c_puct},temperature_moves={settings.temperature_moves}"


def _distinct(folder: Path) -> int:
    """How many of the pair's games differ in their moves (from the SGF files)."""
    seen = set()
    for sgf in sorted(folder.glob("game_*.sgf")):
        seen.add(tuple(re.findall(r";\s*([BW])\[([a-z]{0,2})\]", sgf.read_text(encoding="utf-8", errors="replace"))))
    return len(seen)


def _run_game_info(run_dir: Path) -> tuple[int, float | None]:
    """The board size (and komi, when the run set one) of a Zero run on Go; an error for any other game."""
    path = run_dir / "zero.json"
    if not path.exists():
        raise InputError(f"{run_dir} is not a Zero run folder (no zero.json)")
    settings = json.loads(path.read_text(encoding="utf-8"))["settings"]
    if settings["game"] != "go":
        raise InputError(f"{run_dir} is a {settings['game']} run; the anchors (random, MCTS, GNU Go) play Go")
    options = settings.get("game_options", {})
    return int(options.get("size", 9)), options.get("komi")


def available_generations(run_dir: Path) -> list[int]:
    """The generations of a run that have a network file (0 is the random start)."""
    return sorted(int(p.stem.split("-")[1]) for p in run_dir.glob("gen-[0-9][0-9][0-9][0-9].safetensors"))


def run_rate(
    run_dir: str | Path,
    anchors: Sequence[Anchor],
    games: int,
    *,
    generations: Sequence[int] | None = None,
    anchor_games: int | None = None,
    simulations: int = 200,
    temperature_moves: int = 4,
    c_puct: float = 1.5,
    seed: int = 0,
    move_time: float = 10.0,
    workers: int = 1,
    progress: ProgressCallback | None = None,
    command: str | None = None,
) -> dict[str, Any]:
    """Play what is missing of every generation against every anchor (and the anchors among themselves); fit; plot.

    Returns the ratings JSON (also ``RUN_DIR/rate/ratings.json``; the picture is ``RUN_DIR/rate/elo.png``).
    """
    run_dir = Path(run_dir)
    size, komi = _run_game_info(run_dir)
    have = available_generations(run_dir)
    chosen = sorted(set(generations)) if generations is not None else have
    missing = [g for g in chosen if g not in have]
    if missing:
        raise InputError(f"{run_dir} has no network of generation {', '.join(map(str, missing))} (it has {have[0]}..{have[-1]})")
    if games < 1:
        raise InputError(f"games must be at least 1, got {games}")
    if not chosen:
        raise InputError("give at least one generation to rate")
    anchor_games = games if anchor_games is None else anchor_games
    settings = RateSettings(
        tuple(anchors), simulations, temperature_moves, c_puct, size, 7.5 if komi is None else float(komi), seed, move_time
    )
    rate_dir = run_dir / RATE_DIR
    folder = _folder(rate_dir)
    started = time.perf_counter()
    with folder.locked():
        theirs = folder.saved_settings()
        mine = settings.to_dict()
        if theirs is not None:
            # Anchors may be added later; the ones there must be the same.
            there = {a["name"]: a["spec"] for a in theirs.get("anchors", [])}
            folder.check({k: v for k, v in theirs.items() if k != "anchors"}, {k: v for k, v in mine.items() if k != "anchors"})
            for a in anchors:
                if a.name in there and there[a.name] != a.spec:
                    raise InputError(f"anchor {a.name!r} is {there[a.name]!r} in this rating, not {a.spec!r}")
            mine["anchors"] = [{"name": n, "spec": s} for n, s in {**there, **{a.name: a.spec for a in anchors}}.items()]
        folder.write({"settings": mine})
    pairs: list[dict[str, Any]] = []

    def play(label_a: str, spec_a: str, label_b: str, spec_b: str, n: int) -> None:
        if n <= 0:
            return
        sgf_dir = rate_dir / f"{_slug(label_a)}_vs_{_slug(label_b)}"
        eval_settings = EvalSettings(agent_a=spec_a, agent_b=spec_b, size=size, komi=settings.komi, seed=seed, move_time=move_time)
        prefix = f"{label_a} vs {label_b}: "
        summary = evaluate(
            eval_settings,
            n,
            sgf_dir=sgf_dir,
            workers=workers,
            progress=None if progress is None else (lambda e: progress(e.within(prefix))),
        )
        m = summary.match
        pairs.append(
            {
                "a": label_a,
                "b": label_b,
                "games": m.games,
                "a_wins": m.a_wins,
                "b_wins": m.b_wins,
                "draws": m.draws,
                "forfeits": m.forfeits,
                "a_score": m.a_wins + 0.5 * m.draws,
                "b_score": m.b_wins + 0.5 * m.draws,
                "distinct_games": _distinct(sgf_dir),
                "folder": str(sgf_dir.relative_to(run_dir)),
            }
        )

    def write(done: list[int]) -> dict[str, Any]:
        """Fit every record so far and write ``ratings.json`` and ``elo.png`` for the generations ``done``."""
        ratings = fit_ratings([(p["a"], p["b"], p["a_score"], p["b_score"]) for p in pairs], anchor=anchors[0].name)
        result = {
            "format": "fuseki-zero-rate",
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "command": command,
            "run": str(run_dir),
            "settings": settings.to_dict(),
            "games_per_pair": games,
            "anchor_games": anchor_games,
            "complete": done == chosen,
            "generations": [{"generation": g, "elo": ratings.rating(f"gen {g}"), "ci95": _ci(ratings, f"gen {g}")} for g in done],
            "anchors": [{"name": a.name, "spec": a.spec, "elo": ratings.rating(a.name), "ci95": _ci(ratings, a.name)} for a in anchors],
            "ratings": ratings.to_dict(),
            "pairs": pairs,
            "seconds_this_run": time.perf_counter() - started,
        }
        with folder.locked():
            write_json_atomic(rate_dir / "ratings.json", result)
            plot_anchor_curve(
                ratings, done, [a.name for a in anchors], rate_dir / "elo.png", title=f"fuseki zero: {run_dir.name} against fixed anchors"
            )
        return result

    for i, a in enumerate(anchors):
        for b in anchors[i + 1 :]:
            play(a.name, a.spec, b.name, b.spec, anchor_games)
    # After each generation the curve so far is written ("complete": false until the last): a rating of many
    # generations runs for hours, and its picture is worth having before the end, or after a kill.
    done: list[int] = []
    result: dict[str, Any] = {}
    for g in chosen:
        spec = _zero_spec(run_dir / f"gen-{g:04d}.safetensors", settings)
        for a in anchors:
            play(f"gen {g}", spec, a.name, a.spec, games)
        done.append(g)
        result = write(done)
    return result


def _ci(ratings: Ratings, name: str) -> list[float]:
    i = ratings.names.index(name)
    return [round(float(ratings.lower[i]), 2), round(float(ratings.upper[i]), 2)]


def plot_anchor_curve(ratings: Ratings, generations: Sequence[int], anchors: Sequence[str], path: str | Path, *, title: str) -> None:
    """Elo of each generation with its 95 % interval; each anchor a horizontal line (its interval shaded)."""
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=(7.5, 4.5))
    ax = fig.add_subplot(1, 1, 1)
    idx = [ratings.names.index(f"gen {g}") for g in generations]
    elo = ratings.elo[idx]
    ax.errorbar(
        list(generations),
        elo,
        yerr=[elo - ratings.lower[idx], ratings.upper[idx] - elo],
        fmt="o-",
        capsize=4,
        color="tab:blue",
        label="generation",
    )
    colours = ["tab:grey", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown"]
    for k, name in enumerate(anchors):
        i = ratings.names.index(name)
        colour = colours[k % len(colours)]
        ax.axhline(ratings.elo[i], color=colour, linestyle="--", linewidth=1.2, label=f"{name} ({ratings.elo[i]:+.0f})")
        if ratings.upper[i] > ratings.lower[i]:
            ax.axhspan(ratings.lower[i], ratings.upper[i], color=colour, alpha=0.08)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("generation")
    ax.set_ylabel(f"Elo ({anchors[0]} = 0; 95 % intervals)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    write_atomic(path, buf.getvalue())
