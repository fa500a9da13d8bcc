"""Parsers of the GUI analysis formats, written from their documentation, not from our code.

- Leela Zero ``lz-analyze``: KataGo's docs/GTP_Extensions.md describes it
  (``info move E4 visits 1178 winrate 4802 prior 2211 lcb 4781 order 0 pv
  E4 E3 ...``): ``winrate``, ``prior`` and ``lcb`` are 10000 times a
  fraction, rounded to an integer in [0, 10000]; ``order`` 0 is the best.
- KataGo ``kata-analyze``: the same document; floats, fields in any order,
  unknown fields allowed; after the moves, ``ownership`` and BoardHeight *
  BoardWidth floats in [-1, 1], row-major from the top left (A19 first),
  for the current player.
- Sabaki ``analyze``: docs/guides/engine-analysis-integration.md; ``info
  <keyvalue>... pv <vertex>...`` repeated; ``winrate`` an integer (percent
  times 100) or, with a ``.``, a fraction; optional ``scoreLead``.
- GoGui ``gfx``: analyze.xml; one command per line, ``INFLUENCE`` point/value
  pairs, ``LABEL`` point/text pairs, ``VAR`` ``b|w point`` moves, ``TEXT``.

Imported by the tests as ``from analysis_formats import ...`` (``tests/`` is
on ``sys.path``, as for ``needs``).
"""

from __future__ import annotations

import re
from typing import Any

VERTEX = re.compile(r"^(pass|[A-HJ-Z](?:[1-9]|1[0-9]|2[0-5]))$", re.IGNORECASE)
#: Keys that end a PV: the start of the next move, or the trailing sections of a KataGo line.
SECTIONS = ("info", "ownership", "rootInfo", "pvVisits", "ownershipStdev", "pvEdgeVisits", "movesOwnership")
GOGUI_TYPES = {
    "bwboard", "cboard", "dboard", "eplist", "gfx", "hstring", "hpstring", "none", "param", "plist",
    "pspairs", "pstring", "sboard", "string", "var", "varb", "varc", "varp", "varpo", "varw",
}


def parse_info_line(line: str) -> dict[str, Any]:
    """Tokens of one analysis update: ``{"moves": [{key: value, "pv": [...]}, ...], "ownership": [...],
    "rootInfo": {...}}``. Values stay strings; the callers check them per format."""
    tokens = line.split()
    out: dict[str, Any] = {"moves": []}
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok == "info":
            move: dict[str, Any] = {}
            i += 1
            while i < len(tokens) and tokens[i] not in SECTIONS:
                key = tokens[i]
                if key == "pv":
                    i += 1
                    pv = []
                    while i < len(tokens) and tokens[i] not in SECTIONS:
                        pv.append(tokens[i])
                        i += 1
                    move["pv"] = pv
                    continue
                if i + 1 >= len(tokens):
                    raise ValueError(f"key {key!r} without a value in {line!r}")
                if key in move:
                    raise ValueError(f"key {key!r} twice in one move")
                move[key] = tokens[i + 1]
                i += 2
            if i < len(tokens) and tokens[i] == "pvVisits":
                i += 1
                counts = []
                while i < len(tokens) and tokens[i] not in SECTIONS:
                    counts.append(int(tokens[i]))
                    i += 1
                move["pvVisits"] = counts
            out["moves"].append(move)
        elif tok == "ownership":
            i += 1
            values = []
            while i < len(tokens) and tokens[i] not in SECTIONS:
                values.append(float(tokens[i]))
                i += 1
            out["ownership"] = values
        elif tok == "rootInfo":
            i += 1
            root = {}
            while i + 1 < len(tokens) and tokens[i] not in SECTIONS:
                root[tokens[i]] = tokens[i + 1]
                i += 2
            out["rootInfo"] = root
        else:
            raise ValueError(f"unexpected token {tok!r} in {line!r}")
    return out


def _check_common(moves: list[dict[str, Any]]) -> None:
    assert moves, "an update with no move"
    orders = [int(m["order"]) for m in moves if "order" in m]
    assert orders == list(range(len(orders)))
    for m in moves:
        assert VERTEX.match(m["move"]), m["move"]
        assert int(m["visits"]) >= 0
        pv = m.get("pv")
        assert pv is not None, "every move has a pv key"
        assert all(VERTEX.match(v) for v in pv), pv
        if pv:
            assert pv[0].upper() == m["move"].upper()


def parse_lz(line: str) -> list[dict[str, Any]]:
    """An ``lz-analyze`` line as a list of moves with typed values; asserts the format."""
    parsed = parse_info_line(line)
    assert set(parsed) == {"moves"}, "lz-analyze has no ownership"
    moves = parsed["moves"]
    _check_common(moves)
    out = []
    for m in moves:
        for key in ("winrate", "prior", "lcb"):
            assert re.fullmatch(r"\d+", m[key]), (key, m[key])
            assert 0 <= int(m[key]) <= 10000
        out.append({**m, "visits": int(m["visits"]), "winrate": int(m["winrate"]) / 10000,
                    "prior": int(m["prior"]) / 10000, "lcb": int(m["lcb"]) / 10000})
    return out


def parse_kata(line: str, size: int | None = None) -> dict[str, Any]:
    """A ``kata-analyze`` line: moves with float values, and ownership when present."""
    parsed = parse_info_line(line)
    _check_common(parsed["moves"])
    for m in parsed["moves"]:
        for key in ("winrate", "prior", "lcb"):
            x = float(m[key])
            assert 0.0 <= x <= 1.0, (key, x)
            m[key] = x
        for key in ("scoreMean", "scoreLead", "scoreStdev"):
            if key in m:
                m[key] = float(m[key])
        m["visits"] = int(m["visits"])
    if "ownership" in parsed and size is not None:
        assert len(parsed["ownership"]) == size * size
        assert all(-1.0 <= v <= 1.0 for v in parsed["ownership"])
    return parsed


def parse_sabaki(line: str) -> list[dict[str, Any]]:
    """An ``analyze`` line as Sabaki reads it: winrate as percent*100 or, with a dot, a fraction."""
    moves = parse_info_line(line)["moves"]
    _check_common(moves)
    for m in moves:
        w = m["winrate"]
        m["winrate"] = float(w) if "." in w else int(w) / 10000
        assert 0.0 <= m["winrate"] <= 1.0
        if "scoreLead" in m:
            m["scoreLead"] = float(m["scoreLead"])
    return moves


def parse_gfx(reply: str) -> dict[str, Any]:
    """A GoGui ``gfx`` reply: {"INFLUENCE": {vertex: value}, "LABEL": {vertex: text}, "VAR": [(color, vertex)],
    "TEXT": str}."""
    out: dict[str, Any] = {}
    for line in reply.splitlines():
        if not line.strip():
            continue
        command, _, rest = line.strip().partition(" ")
        args = rest.split()
        if command == "INFLUENCE":
            assert len(args) % 2 == 0
            out["INFLUENCE"] = {args[i].upper(): float(args[i + 1]) for i in range(0, len(args), 2)}
        elif command == "LABEL":
            assert len(args) % 2 == 0
            out["LABEL"] = {args[i].upper(): args[i + 1] for i in range(0, len(args), 2)}
        elif command == "VAR":
            assert len(args) % 2 == 0
            out["VAR"] = [(args[i].lower(), args[i + 1].upper()) for i in range(0, len(args), 2)]
            assert all(c in ("b", "w") and VERTEX.match(v) for c, v in out["VAR"])
        elif command == "TEXT":
            out["TEXT"] = rest
        elif command in ("BLACK", "WHITE", "CIRCLE", "MARK", "SQUARE", "TRIANGLE", "COLOR"):
            out[command] = args
        else:
            raise ValueError(f"not a gfx command: {command!r}")
    return out
