"""P-values for the strength comparisons that the docs state, read from the result files.

The docs say that one bot "beat" another, that a part of the MCTS is "worth
something", that the levels of GNU Go differ. Each such sentence rests on win
counts saved in ``benchmarks/results/``; this script reads those counts back
(it plays no games) and computes the test that fits:

- two bots in their own games (``A vs B``): the exact binomial test of A's
  wins at 1/2, :func:`fuseki.util.stats.binomial_test`;
- two bots (or two settings) each against the same third party, in separate
  games: Fisher's exact test of the two win counts,
  :func:`fuseki.util.stats.fisher_exact`.

Both are given two-sided and one-sided (in the direction the doc claims).
Two figures have no result file (policy gradient from scratch, 40/100, docs/rl.md;
the corpus's win rates by level, docs/corpus.md): their counts are taken from
the doc and marked ``"untraced"``.

    .venv/bin/python benchmarks/claim_pvalues.py --out benchmarks/results/claim_pvalues.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from fuseki.util.stats import binomial_test, fisher_exact

RESULTS = Path(__file__).resolve().parent / "results"
POLICY = "policy_vs_gnugo_9x9"


def _sig(p: float) -> float:
    """Four significant digits (a p-value of 1e-10 stays 1e-10 instead of rounding to 0)."""
    return float(f"{p:.4g}")


def _load(rel: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((RESULTS / rel).read_text())
    return data


def _match(rel: str) -> tuple[int, int]:
    """(A's wins, games) of a ``fuseki match``/``fuseki eval`` result file (no draws in any of them)."""
    data = _load(rel)
    if data.get("draws"):
        raise SystemExit(f"{rel}: draws, which these tests do not handle")
    return int(data["a_wins"]), int(data["games"])


def _variants(rel: str) -> dict[str, tuple[int, int]]:
    """Variant -> (wins, games) of an ablation summary."""
    out: dict[str, tuple[int, int]] = {}
    for v in _load(rel)["variants"]:
        if v.get("draws"):
            raise SystemExit(f"{rel}: draws in {v['variant']}")
        out[v["variant"]] = (int(v["wins"]), int(v["games"]))
    return out


def head_to_head(claim: str, doc: str, source: str, wins: int, games: int, direction: str) -> dict[str, Any]:
    """A against B in their own games: binomial test of A's wins at 1/2."""
    return {
        "claim": claim,
        "doc": doc,
        "source": source,
        "test": "exact binomial, p = 1/2",
        "wins": wins,
        "games": games,
        "p_two_sided": _sig(binomial_test(wins, games)),
        "p_one_sided": _sig(binomial_test(wins, games, alternative=direction)),
        "one_sided_alternative": direction,
    }


def two_counts(
    claim: str, doc: str, sources: list[str], a: tuple[int, int], b: tuple[int, int], direction: str
) -> dict[str, Any]:
    """A's and B's win counts against the same opponent, in separate games: Fisher's exact test."""
    return {
        "claim": claim,
        "doc": doc,
        "source": sources,
        "test": "Fisher exact (two independent win counts)",
        "a": {"wins": a[0], "games": a[1]},
        "b": {"wins": b[0], "games": b[1]},
        "p_two_sided": _sig(fisher_exact(a[0], a[1], b[0], b[1])),
        "p_one_sided": _sig(fisher_exact(a[0], a[1], b[0], b[1], alternative=direction)),
        "one_sided_alternative": f"A's win rate {direction} than B's",
    }


ZERO_RATING = "zero_go9/snapshot/rate/ratings.json"
# The go9 run's settings changed at generation 103 (docs/zero.md, "The window and the learning rate"): the rated
# generations trained the old way since the curve levelled off, and those trained the new way.
ZERO_BEFORE = (90, 100, 102)
ZERO_AFTER = (105, 108, 110, 115, 120)


def _zero_pooled(pairs: list[dict[str, Any]], generations: tuple[int, ...], anchor: str) -> tuple[int, int]:
    """The generations' pooled wins and games against one anchor (draws, if any, count as lost)."""
    rows = [p for p in pairs if p["b"] == anchor and p["a"] in {f"gen {g}" for g in generations}]
    if len(rows) != len(generations):
        raise SystemExit(f"{ZERO_RATING}: expected a record of each of {generations} against {anchor}, found {len(rows)}")
    return sum(int(p["a_wins"]) for p in rows), sum(int(p["games"]) for p in rows)


def _zero_amendment() -> list[dict[str, Any]]:
    """go9, 200 simulations a move: the amended generations against the fixed anchors, beside the last old ones."""
    pairs = _load(ZERO_RATING)["pairs"]
    return [
        two_counts(
            f"go9 at 200 simulations against {anchor}: generations {', '.join(map(str, ZERO_AFTER))} (window 20, "
            f"lr 0.002) vs generations {', '.join(map(str, ZERO_BEFORE))} (window 4, lr 0.02), pooled",
            "docs/zero.md", [ZERO_RATING],
            _zero_pooled(pairs, ZERO_AFTER, anchor), _zero_pooled(pairs, ZERO_BEFORE, anchor), "greater")
        for anchor in ("gnugo:1", "mcts:1000")
    ]


def figures() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    ab = "mcts_ab/v2_vs_v1.json"
    v2 = _load(ab)
    out.append(head_to_head("MCTS v2 beat v1 in self-play (3,000 playouts a move)", "docs/mcts.md", ab,
                            int(v2["a_wins"]), int(v2["games"]), "greater"))
    s = "mcts_vs_gnugo10_9x9/summary_0ae0e08.json"
    strength = _load(s)
    out.append(head_to_head("MCTS v2 (5 s a move, median 114,650 playouts) against GNU Go level 10: above 50 %",
                            "docs/mcts.md, README.md", s, int(strength["wins"]), int(strength["games"]), "greater"))
    for rel, label in (("mcts_ablation_9x9/summary.json", "GNU Go level 1"),
                       ("mcts_ablation_9x9_clock/summary.json", "GNU Go with a clock (level-10 moves)")):
        variants = _variants(rel)
        full = variants["full"]
        for name, counts in variants.items():
            if name != "full":
                out.append(two_counts(f"MCTS ablation, 1,000 playouts a move, against {label}: full engine vs {name}",
                                      "docs/mcts.md", [rel], full, counts, "greater"))
    p = POLICY
    pairs = [
        ("MCTS 2,000 playouts a move: policy-9x9 root priors vs none, against GNU Go level 10 (clock)",
         "docs/training.md", "mcts2000-prior-level10.json", "mcts2000-level10.json", "greater"),
        ("mcts (2,000 playouts a move, no priors) vs the policy bot (cubed, no search), against GNU Go level 10 (clock)",
         "README.md", "mcts2000-level10.json", "policy-cube-level10-clock.json", "greater"),
        ("policy: cubed probabilities vs plain softmax, against GNU Go level 1",
         "docs/training.md", "policy-cube-level1.json", "policy-level1.json", "greater"),
        ("policy: cubed probabilities vs plain softmax, against GNU Go level 10 (clock)",
         "docs/training.md", "policy-cube-level10-clock.json", "policy-level10-clock.json", "greater"),
        ("GNU Go level 1 vs level 10 (clock), seen by the cubed policy: wins against level 1 vs against level 10",
         "docs/training.md", "policy-cube-level1.json", "policy-cube-level10-clock.json", "greater"),
        ("GNU Go level 1 vs level 10 (clock), seen by the plain softmax: wins against level 1 vs against level 10",
         "docs/training.md", "policy-level1.json", "policy-level10-clock.json", "greater"),
        ("policy without the clip (clip=0) vs with the book's clip, against GNU Go level 1",
         "docs/training.md", "policy-cube-noclip-level1.json", "policy-cube-level1.json", "less"),
        ("PG v1 vs v0 (supervised policy-9x9), both cubed, against GNU Go with a clock (level-10 moves)",
         "docs/rl.md", "pg-v1-cube-level1-clock.json", "policy-cube-level1-clock.json", "less"),
        ("PG v1 vs v0 (supervised policy-9x9), both plain softmax, against GNU Go with a clock",
         "docs/rl.md", "pg-v1-level1-clock.json", "policy-level1-clock.json", "less"),
        ("MCTS 5 s a move: AlphaGo's SL policy as root priors vs none, against GNU Go level 10 (no difference shown)",
         "docs/alphago.md", "mcts-prior-5s-level10.json", "mcts-5s-level10.json", "greater"),
    ]
    for claim, doc, a, b, direction in pairs:
        out.append(two_counts(claim, doc, [f"{p}/{a}", f"{p}/{b}"], _match(f"{p}/{a}"), _match(f"{p}/{b}"), direction))
    out.append(head_to_head("MCTS 2,000 playouts a move, no priors, against GNU Go level 10: about half",
                            "docs/training.md", f"{p}/mcts2000-level10.json", *_match(f"{p}/mcts2000-level10.json"),
                            "greater"))
    out.extend(_zero_amendment())
    levels = two_counts("GNU Go 3.8 level 10 vs level 1 in the 9x9 corpus: win rates differ (552/969 vs 429/1,016)",
                        "docs/corpus.md", ["untraced"], (552, 969), (429, 1016), "greater")
    levels["note"] = ("counts from docs/corpus.md (`fuseki data stats corpus/gnugo9`); the corpus is not on this machine. "
                      "Games between levels are not independent trials (a game's win is the other level's loss), "
                      "so read the p-value as a rough guide")
    out.append(levels)
    untraced = head_to_head("policy gradient from scratch: v1 vs v0, 1 round of 1,000 games (made it worse)",
                            "docs/rl.md", "untraced", 40, 100, "less")
    untraced["note"] = "no result file survives (runs/ was lost); the count 40/100 is the doc's, commit aa6b180"
    out.append(untraced)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="write the JSON here (default: print it)")
    args = ap.parse_args(argv)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False,
                            cwd=RESULTS).stdout.strip()
    result = {
        "command": "python benchmarks/claim_pvalues.py" + (f" --out {args.out}" if args.out else ""),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
        "commit": commit,
        "about": "p-values of the docs' strength comparisons, from the win counts in benchmarks/results/",
        "figures": figures(),
    }
    text = json.dumps(result, indent=2, ensure_ascii=False) + "\n"
    if args.out:
        args.out.write_text(text)
    else:
        sys.stdout.write(text)
    for f in result["figures"]:
        print(f"{f['p_two_sided']:>10.3g} {f['p_one_sided']:>10.3g}  {f['claim']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
