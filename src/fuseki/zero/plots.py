"""The Zero loop's pictures: the loss curves over generations, and (with gating) the Elo of each candidate.

Drawn after every generation from ``state.json`` alone, so a resumed run
redraws them whole. matplotlib renders on the Agg canvas (no display); the
PNG is written atomically (:func:`fuseki.arena.ratings.rating_curve` does the
same for the Elo curve).
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from fuseki.arena.ratings import Ratings, rating_curve
from fuseki.util.atomic import write_atomic

__all__ = ["plot_elo", "plot_losses"]


def plot_losses(state: Mapping[str, Any], path: str | os.PathLike[str], *, title: str = "Zero training loss") -> None:
    """Total, value and policy loss (the last epoch's means) of every generation of ``state``."""
    history = state["history"]
    if not history:
        raise ValueError("no generation has finished: there is no loss to plot")
    gens = [h["generation"] for h in history]
    fig = Figure(figsize=(7.0, 4.0))
    ax = fig.add_subplot(1, 1, 1)
    for key, label in (("loss", "total"), ("value_loss", "value (MSE)"), ("policy_loss", "policy (cross-entropy)")):
        ax.plot(gens, [h["train"][key] for h in history], "o-", label=label)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("generation")
    ax.set_ylabel("loss (last epoch, training window)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    write_atomic(path, buf.getvalue())


def plot_elo(state: Mapping[str, Any], path: str | os.PathLike[str], *, title: str = "Zero: Elo of each candidate") -> Ratings | None:
    """The Bradley–Terry Elo of each gated candidate from its gate games (gen 0 = 0); None without gate results."""
    by_round: dict[int, list[tuple[str, str, float, float]]] = {}
    for h in state["history"]:
        gate = h.get("gate")
        if not gate:
            continue
        won = gate["wins"] + 0.5 * gate["draws"]
        lost = gate["losses"] + 0.5 * gate["draws"]
        by_round[int(h["generation"])] = [(f"gen {gate['candidate']}", f"gen {gate['best']}", won, lost)]
    if not by_round:
        return None
    return rating_curve(by_round, path, title=title)
