"""SGF bytes -> sgfmill's coarse game tree, repairing what Go servers get wrong.

sgfmill's own parser is right about valid files and gives up on the rest.
Real collections hold files that other Go programs load without complaint:
a missing ``(`` before the root, a file cut before its closing ``)``, a
property written twice in one node (``AP[GNU Go:3.8]...AP[foxwq]``), names
in GB18030 or in UTF-8 with broken bytes and no ``CA`` to say so. This module
reads them with sgfmill's tokeniser and builds the same tree sgfmill builds
for every file sgfmill accepts; each repair is an :class:`SgfWarning`, and
with ``strict=True`` each one is an :class:`SgfError` instead.

What a repair cannot make safe (garbage in the middle of a file, a value
without a property, an unknown board size) stays an error in both modes.

>>> log = Log(strict=False)
>>> tree = parse_game(b";GM[1]SZ[9];B[ee]", log)
>>> [w.kind for w in log.warnings]
['missing_open', 'missing_close']
>>> print(log.warnings[0])
the file starts with ';' instead of '(;': added the missing '('
"""

from __future__ import annotations

import dataclasses
import re

from sgfmill import sgf_grammar, sgf_properties

from fuseki.util.errors import FusekiError

__all__ = ["KINDS", "Log", "SgfError", "SgfWarning", "guess_encoding", "parse_game"]


class SgfError(FusekiError, ValueError):
    """SGF data that is malformed, or that fuseki cannot replay.

    The message is one line, e.g. ``move 23 (W D4) is illegal: occupied``.
    ``kind`` is the repair that strict reading refused (one of :data:`KINDS`),
    else ``None``.
    """

    def __init__(self, message: str, kind: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind


#: Every kind of warning, with what it is about (docs/sgf.md has the same table).
#: The kinds marked "note" describe valid SGF that is read in a way worth
#: saying; strict reading does not refuse them. The others are repairs.
KINDS: dict[str, str] = {
    "missing_open": "the file starts with ';' instead of '(;'",
    "missing_close": "the file ends before the game tree is closed",
    "truncated": "the file ends inside a property value",
    "duplicate_property": "a property written twice in one node",
    "encoding": "no CA property and the text is not UTF-8: the encoding is guessed",
    "move_in_root": "the root node holds a move",
    "komi_x100": "komi written times 100 (KM[650] for 6.5)",
    "komi_stones": "komi times 100 in stones under Chinese counting (KM[375]: 3.75 stones, 7.5 points)",
    "bad_komi": "komi that is not a number",
    "handicap_placed": "HA[n] without the handicap stones: the fixed points are placed",
    "setup_in_move_node": "setup stones in the same node as a move",
    "implied_pass": "two moves of one colour in a row: the other side passed",
    "resumed": "moves after the game ended by two passes",
    "superko": "a board repeated under rules with superko: replayed with simple ko",
    "setup_after_root": "note: setup stones (AB/AW/AE) in a node after the root",
    "extra_games": "note: the file holds more than one game; the first is read",
}
#: Kinds that strict reading keeps as warnings (valid SGF, nothing repaired).
NOTES = frozenset({"setup_after_root", "extra_games"})


@dataclasses.dataclass(frozen=True)
class SgfWarning:
    """One repair (or note) made while reading or replaying a game.

    ``kind`` is one of :data:`KINDS` (stable: reports count by it);
    ``problem`` says what the file holds, ``repair`` what was done about it.
    ``str()`` is the one-line message.
    """

    kind: str
    problem: str
    repair: str = ""

    def __str__(self) -> str:
        return f"{self.problem}: {self.repair}" if self.repair else self.problem

    @property
    def is_note(self) -> bool:
        return self.kind in NOTES


class Log:
    """Collects the warnings of one read; in strict mode a repair raises :class:`SgfError`."""

    def __init__(self, strict: bool = False, warnings: list[SgfWarning] | None = None) -> None:
        self.strict = strict
        #: The list the warnings go to: a record's own, when a replay adds to it.
        self.warnings: list[SgfWarning] = warnings if warnings is not None else []
        self._seen = set(self.warnings)

    def repair(self, kind: str, problem: str, repair: str) -> None:
        """Record a repair, or refuse it (strict)."""
        assert kind in KINDS, kind
        if self.strict and kind not in NOTES:
            raise SgfError(f"{problem} (strict reading repairs nothing)", kind)
        self.add(SgfWarning(kind, problem, repair))

    def add(self, warning: SgfWarning) -> None:
        """Record a warning once (a replay may find the same one again)."""
        if warning not in self._seen:
            self._seen.add(warning)
            self.warnings.append(warning)


# ---- the game tree ------------------------------------------------------------

#: Properties whose values are lists: written twice, their values are merged.
_LIST_PROPERTIES = frozenset({"AB", "AW", "AE", "AR", "CR", "DD", "LB", "LN", "MA", "SL", "SQ", "TR", "TB", "TW", "VW"})
#: Text properties written twice: joined with a blank line, as comments are elsewhere.
_TEXT_PROPERTIES = frozenset({"C", "GC"})
#: A node that starts a game: ';' then a property identifier and its first '['.
_NODE_START = re.compile(rb";\s*[A-Za-z]+\s*\[")


def parse_game(raw: bytes, log: Log) -> sgf_grammar.Coarse_game_tree:
    """The first game in ``raw`` as a coarse tree (see the module doc); repairs go to ``log``."""
    paren = sgf_grammar._find_start_re.search(raw)
    node = _NODE_START.search(raw)
    if node is not None and (paren is None or node.start() < paren.start()):
        # The root's ';' comes first, with nothing but white space (or a
        # byte-order mark) before it: the opening '(' is missing. Without this,
        # a later '(;' -- a variation -- would be taken for the game.
        if not raw[: node.start()].lstrip(b"\xef\xbb\xbf").strip():
            log.repair("missing_open", "the file starts with ';' instead of '(;'", "added the missing '('")
            raw = b"(" + raw[node.start() :]
            paren = sgf_grammar._find_start_re.search(raw)
    if paren is None:
        if raw and not raw.strip(b"\x00"):
            raise SgfError(f"not an SGF file: {len(raw):,} bytes, all zero")
        raise SgfError(f"not an SGF file: no '(;' in {_preview(raw)}")
    tokens, end = sgf_grammar.tokenise(raw, paren.start())
    tree, closed = _build(tokens, raw, end, log)
    if closed and sgf_grammar._find_start_re.search(raw, end) is not None:
        log.repair("extra_games", "the file holds more than one game: read the first", "")
    return tree


def _build(tokens: list[tuple[str, bytes]], raw: bytes, end: int, log: Log) -> tuple[sgf_grammar.Coarse_game_tree, bool]:
    """sgfmill's ``_parse_sgf_game`` over ``tokens``, repairing a missing end and merging duplicates.

    Returns the tree and whether the file closed it. For every file sgfmill
    parses, the tree is the one sgfmill builds, but for duplicated properties.
    """
    # Why the tokeniser stopped, if it did before the game's last ')':
    # the end of the data, a value cut by the end of the data, or text it cannot read.
    tail = raw[end:].lstrip()
    stop = "end" if not tail else "value" if tail.startswith(b"[") and b"]" not in _unescaped(tail) else "junk"
    stack: list[sgf_grammar.Coarse_game_tree | None] = []
    tree: sgf_grammar.Coarse_game_tree | None = None
    sequence: list[dict[str, list[bytes]]] | None = None
    props: dict[str, list[bytes]] | None = None
    before: list[int] = []  # for each open tree: the nodes on the path before its sequence
    index, n = 0, len(tokens)
    cut = False  # the end of the data inside a property was repaired
    while index < n:
        kind, token = tokens[index]
        index += 1
        if kind == "V":
            raise SgfError("malformed SGF file: unexpected value")
        if kind == "D":
            if token == b";":
                if sequence is None:
                    raise SgfError("malformed SGF file: unexpected node")
                props = {}
                sequence.append(props)
                continue
            if sequence is not None:
                if not sequence:
                    raise SgfError("malformed SGF file: empty sequence")
                assert tree is not None
                tree.sequence = sequence
                sequence = None
            props = None
            if token == b"(":
                before.append(before[-1] + len(tree.sequence) if tree is not None and before else 0)
                stack.append(tree)
                tree = sgf_grammar.Coarse_game_tree()
                sequence = []
                continue
            variation = tree
            before.pop()
            tree = stack.pop()
            if tree is None:
                assert variation is not None
                return variation, True
            assert variation is not None
            tree.children.append(variation)
            continue
        ident = token.decode("ascii")
        values: list[bytes] = []
        while index < n and tokens[index][0] == "V":
            values.append(tokens[index][1])
            index += 1
        if index == n and stop != "junk":
            # The data ends inside this property (after its last complete value, if any).
            shown = _show(tail, 12)
            if not values:
                log.repair("truncated", f"the file ends inside {ident}{shown}", f"dropped the unfinished {ident}")
                cut = True
                break
            if stop == "value":
                log.repair("truncated", f"the file ends inside a value of {ident} ({shown})", "dropped that value")
                cut = True
        if not values:
            raise SgfError("malformed SGF file: property with no values")
        if props is None:
            raise SgfError("malformed SGF file: property value outside a node")
        if ident in props:
            _merge_duplicate(props, ident, values, _where(before, sequence), log)
        else:
            props[ident] = values
    if stop == "junk":
        raise SgfError(f"malformed SGF file: cannot read {_preview(tail)} at byte {len(raw) - len(tail)}")
    if stop == "value" and not cut:
        raise SgfError("malformed SGF file: a value outside a property at the end of the file")
    missing = len(stack)
    if sequence is not None:
        if sequence:
            assert tree is not None
            tree.sequence = sequence
        else:  # a '(' with nothing after it: drop that empty variation
            tree = stack.pop()
    if tree is None:
        raise SgfError("not an SGF file: no node after its '('")
    while stack:
        parent = stack.pop()
        if parent is None:
            break
        parent.children.append(tree)
        tree = parent
    log.repair(
        "missing_close",
        f"the file ends before the game tree is closed ({missing} ')' missing)",
        "closed it",
    )
    return tree, False


def _unescaped(value: bytes) -> bytes:
    """``value`` with every escaped character removed (so that a ']' left in it ends the value)."""
    return re.sub(rb"\\.", b"", value, flags=re.DOTALL)


def _where(before: list[int], sequence: list[dict[str, list[bytes]]] | None) -> str:
    """The current node, for a message: "the root node" or "node 7" (0 is the root, counted along its path)."""
    number = (before[-1] if before else 0) + (len(sequence) - 1 if sequence else 0)
    return "the root node" if number == 0 else f"node {number}"


def _merge_duplicate(props: dict[str, list[bytes]], ident: str, values: list[bytes], where: str, log: Log) -> None:
    """A property given again in the same node: merge lists, join texts, keep the first of anything else.

    A move (``B``/``W``) given twice is not guessed at: its values are kept
    together, as sgfmill does, and the record reader refuses the node.
    """
    old = props[ident]
    shown = f"{ident}{''.join(f'[{_show(v)}]' for v in old)} and {ident}{''.join(f'[{_show(v)}]' for v in values)}"
    problem = f"{ident} is given twice in {where} ({shown})"
    if ident in ("B", "W") or not ident:
        props[ident] = old + values
    elif ident in _LIST_PROPERTIES:
        props[ident] = old + [v for v in values if v not in old]
        log.repair("duplicate_property", problem, "merged the values")
    elif ident in _TEXT_PROPERTIES:
        props[ident] = [old[0] + b"\n\n" + values[0]]
        log.repair("duplicate_property", problem, "joined the texts")
    else:
        log.repair("duplicate_property", problem, f"kept the first, {ident}[{_show(old[0])}]")


# ---- encodings ----------------------------------------------------------------

#: Tried in this order when a file without ``CA`` is not UTF-8. GB18030 first:
#: Chinese servers write most such files, and it decodes almost any double-byte
#: text, so Big5, Shift_JIS and EUC-KR files are often read as GB18030 too
#: (docs/sgf.md: a guess is a guess; ``CA`` settles it).
_GUESSES = ("GB18030", "Big5", "Shift_JIS", "EUC-KR")


def guess_encoding(raw: bytes, ca: bytes | None, log: Log) -> str | None:
    """``None`` to trust ``CA``; else the encoding to read the bytes with.

    Valid UTF-8 is read as UTF-8. Otherwise strict reading takes the SGF
    default, ISO-8859-1, and the lenient reader guesses (a warning): UTF-8
    with some broken bytes, as a server that lost bytes writes it, when most
    of the multi-byte text is valid UTF-8; else the first of :data:`_GUESSES`
    that decodes every byte; else ISO-8859-1.
    """
    if ca is not None:
        try:
            sgf_properties.normalise_charset_name(ca.decode("ascii"))
            return None
        except (LookupError, UnicodeDecodeError):
            pass
    try:
        raw.decode("utf-8")
        return "UTF-8"
    except UnicodeDecodeError:
        pass
    if log.strict:
        return "ISO-8859-1"
    problem = "no CA property and the text is not UTF-8" if ca is None else f"unknown CA[{_show(ca)}]"
    text = raw.decode("utf-8", "replace")
    broken = text.count("\ufffd")
    wide = sum(1 for ch in text if ord(ch) >= 0x800 and ch != "\ufffd")
    lost = text.count("\ufffd?") + text.count("?\ufffd")  # a byte replaced by '?' on the way
    if wide >= broken or (wide and lost and 2 * wide >= broken - 2 * lost):
        log.repair("encoding", problem, f"read as UTF-8 with {broken} broken characters replaced")
        return "UTF-8"
    if _looks_latin1(raw):
        log.repair("encoding", problem, "read as ISO-8859-1 (the SGF default)")
        return "ISO-8859-1"
    for encoding in _GUESSES:
        try:
            raw.decode(encoding)
        except UnicodeDecodeError:
            continue
        log.repair("encoding", problem, f"read as {encoding} (a guess)")
        return encoding
    log.repair("encoding", problem, "read as ISO-8859-1")
    return "ISO-8859-1"


_GB18030_FOUR = re.compile(rb"[\x81-\xfe][\x30-\x39][\x81-\xfe][\x30-\x39]")


def _looks_latin1(raw: bytes) -> bool:
    """Do most bytes >= 0x80 stand alone between ASCII bytes, as accents in European names do?

    The double-byte encodings of East Asian text write a character as two
    such bytes (mostly both >= 0x80), so their text comes in runs of two or
    more; ``Müller`` in ISO-8859-1 has one byte alone. (Three accents in a
    row, ``Ñúñez``, look East Asian: benchmarks/results/sgf_encodings_fox9d.json.)
    """
    # GB18030's four-byte characters have ASCII digits inside: count them as one run.
    raw = _GB18030_FOUR.sub(b"\xff" * 4, raw)
    runs = [len(m.group()) for m in re.finditer(rb"[\x80-\xff]+", raw)]
    alone = sum(1 for n in runs if n == 1)
    return bool(runs) and 2 * alone >= sum(runs)


# ---- small helpers --------------------------------------------------------------


def _show(raw: bytes, limit: int = 20) -> str:
    """A raw value for a message: decoded, one line, not too long."""
    text = raw.decode("latin-1").replace("\n", " ").replace("\r", " ")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _preview(raw: bytes) -> str:
    return repr(_show(raw.lstrip(), 30))
