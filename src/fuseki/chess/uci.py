"""A UCI chess engine around a Zero network: PUCT search in a thread, answering GUIs and match runners.

``fuseki uci --model FILE`` runs :class:`UciEngine` on stdin/stdout. The
protocol is the Universal Chess Interface (Huber & Meyer-Kahlen, 2000/2006);
what is implemented:

- ``uci`` (id, options, ``uciok``), ``isready`` (``readyok`` once the
  network is loaded; answered at once during a search), ``ucinewgame``
  (forgets the tree), ``debug``, ``register`` (accepted, no effect),
  ``quit``;
- ``position startpos|fen FEN [moves m1 m2 ...]``: the game's history is
  kept, so the network sees its 8 history steps and repetitions;
- ``go`` with ``movetime``, ``wtime btime winc binc movestogo``, ``nodes``,
  ``depth``, ``infinite`` and ``ponder`` (searched as infinite until
  ``ponderhit`` turns the clock limits on, or ``stop``); several limits:
  the first one reached ends the search. A plain ``go`` runs the
  ``Simulations`` option's budget;
- ``stop``: the search runs in its own thread in steps of one network call
  (``Batch`` leaves), so ``bestmove`` follows within one step;
- ``info`` lines about once a second and at the end: ``depth`` (plies of the
  principal variation, the most visited path), ``nodes`` (simulations of
  this search), ``nps``, ``score cp`` (the root value through
  :func:`fuseki.chess.scores.value_to_cp`; ``score mate`` when the principal
  variation ends in checkmate), ``time`` and ``pv``;
- ``setoption`` for ``Threads`` (torch's threads), ``Simulations``,
  ``Batch``, ``CPuct`` and ``Move Overhead``.

``go depth N`` stops when the principal variation is ``N`` plies long or
ends in a finished game; ``go nodes N`` after ``N`` simulations. An
``infinite`` search stops growing its tree at :data:`MAX_INFINITE_NODES`
simulations and then waits for ``stop``.

Every problem with a command (unknown, malformed, an illegal move in
``position``) is answered with one ``info string error: ...`` line and
changes nothing; the engine never prints a traceback on stdout. After a
``position`` that failed, ``go`` answers ``bestmove (none)``, as it does in
a finished game.
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TextIO

import chess

from fuseki.chess.scores import value_to_cp
from fuseki.games.chess import ChessGame, ChessState
from fuseki.util.errors import InputError
from fuseki.util.safetensors_header import HeaderFormat, read_header

__all__ = ["GoLimits", "MAX_INFINITE_NODES", "UciEngine", "UciError", "UciOptions", "check_chess_model", "parse_go", "parse_position"]

#: An infinite search stops adding simulations here and waits for ``stop``: a node of the tree (a python-chess
#: board, its legal moves, the edge arrays) takes about 5.5 KB (measured), so this is about 1.1 GB.
MAX_INFINITE_NODES = 200_000
#: Clock play without ``movestogo`` plans for this many more moves.
DEFAULT_MOVES_TO_GO = 30


class UciError(ValueError):
    """A command the engine cannot follow; answered as ``info string error: ...``."""


# ---- the model file, checked without torch ------------------------------------------

_ZERO_HEADER = HeaderFormat(
    error=InputError,
    metadata_key="fuseki_zero",
    name="Zero network file",
    short="Zero network file",
    owner="Zero network",
    metadata="metadata",
    max_header=100_000_000,
    foreign_magic={b"PK": "a zip file: a torch checkpoint?", b"\x89HDF": "an HDF5 file"},
    name_missing=True,
)


def check_chess_model(path: str | Path) -> dict[str, Any]:
    """The Zero file's metadata if it is a network for chess; :class:`InputError` (one line) otherwise.

    Reads the header only, so ``fuseki uci`` refuses a wrong file at once,
    before torch is loaded.
    """
    info, _ = read_header(Path(path), _ZERO_HEADER)
    if info.get("game") != "chess":
        raise InputError(f"{path}: a Zero network for {info.get('game')!r}, not chess (train one with `fuseki zero train chess`)")
    return info


# ---- parsing --------------------------------------------------------------------------


@dataclasses.dataclass
class GoLimits:
    """The limits of one ``go`` (seconds for times)."""

    movetime: float | None = None
    wtime: float | None = None
    btime: float | None = None
    winc: float = 0.0
    binc: float = 0.0
    movestogo: int | None = None
    nodes: int | None = None
    depth: int | None = None
    infinite: bool = False
    ponder: bool = False

    @property
    def has_clock(self) -> bool:
        return self.wtime is not None or self.btime is not None

    @property
    def bounded(self) -> bool:
        """Whether any limit (other than the default budget) was given."""
        return self.movetime is not None or self.has_clock or self.nodes is not None or self.depth is not None


_GO_MS = {"movetime", "wtime", "btime", "winc", "binc"}
_GO_INT = {"movestogo", "nodes", "depth", "mate"}


def parse_go(tokens: list[str]) -> GoLimits:
    """The limits of ``go``'s arguments (``tokens`` after ``go``); :class:`UciError` for bad ones.

    >>> parse_go("wtime 60000 btime 59000 winc 1000 binc 1000 movestogo 20".split())
    GoLimits(movetime=None, wtime=60.0, btime=59.0, winc=1.0, binc=1.0, movestogo=20, nodes=None, depth=None, infinite=False, ponder=False)
    """
    limits = GoLimits()
    i = 0
    while i < len(tokens):
        key = tokens[i]
        if key in ("infinite", "ponder"):
            setattr(limits, key, True)
            i += 1
            continue
        if key == "searchmoves":
            raise UciError("go searchmoves is not supported")
        if key not in _GO_MS and key not in _GO_INT:
            raise UciError(f"go: unknown parameter {key!r}")
        if i + 1 >= len(tokens):
            raise UciError(f"go: {key} needs a number")
        try:
            number = int(tokens[i + 1])
        except ValueError:
            raise UciError(f"go: {key} needs a whole number, got {tokens[i + 1]!r}") from None
        if key == "mate":
            raise UciError("go mate is not supported")
        if key in _GO_MS:
            # a clock may run below zero in some GUIs (an engine over its time); a movetime must be positive
            if key == "movetime" and number <= 0:
                raise UciError(f"go: movetime must be positive, got {number}")
            value: float = number / 1000.0
            setattr(limits, key, value)
        else:
            if number < 1:
                raise UciError(f"go: {key} must be at least 1, got {number}")
            setattr(limits, key, number)
        i += 2
    return limits


def parse_position(tokens: list[str], *, claim_draws: bool = False) -> ChessState:
    """The state of ``position``'s arguments, with its history; :class:`UciError` for a bad FEN or move.

    >>> parse_position("startpos moves e2e4 e7e5".split()).fen()
    'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2'
    """
    if not tokens:
        raise UciError("position needs startpos or fen")
    if "moves" in tokens:
        cut = tokens.index("moves")
        head, moves = tokens[:cut], tokens[cut + 1 :]
    else:
        head, moves = tokens, []
    if head == ["startpos"]:
        fen = chess.STARTING_FEN
    elif head and head[0] == "fen" and len(head) > 1:
        fen = " ".join(head[1:])
    else:
        raise UciError(f"position: expected startpos or fen FEN, got {' '.join(head)!r}")
    try:
        board = chess.Board(fen)
    except ValueError as e:
        raise UciError(f"position: bad FEN {fen!r} ({e})") from None
    status = board.status()
    if status != chess.STATUS_VALID:
        raise UciError(f"position: the FEN {fen!r} is not a legal position ({status!r})")
    state = ChessState(board, claim_draws=claim_draws)
    for k, text in enumerate(moves):
        try:
            move = chess.Move.from_uci(text)
        except ValueError:
            raise UciError(f"position: move {k + 1} {text!r} is not a UCI move") from None
        try:
            state = state.play(move)
        except ValueError:
            raise UciError(f"position: move {k + 1} {text} is illegal in {state.fen()}") from None
    return state


# ---- options --------------------------------------------------------------------------


@dataclasses.dataclass
class UciOptions:
    """The engine's settings; ``setoption`` changes them."""

    threads: int = 1
    simulations: int = 400
    batch: int = 8
    c_puct: float = 1.5
    move_overhead_ms: int = 30


#: name -> (attribute, kind, minimum, maximum) of the spin options, and the string ones.
_SPIN = {
    "threads": ("threads", 1, 256),
    "simulations": ("simulations", 1, 100_000_000),
    "batch": ("batch", 1, 1024),
    "move overhead": ("move_overhead_ms", 0, 10_000),
}


def _option_lines(o: UciOptions) -> list[str]:
    return [
        f"option name Threads type spin default {o.threads} min 1 max 256",
        f"option name Simulations type spin default {o.simulations} min 1 max 100000000",
        f"option name Batch type spin default {o.batch} min 1 max 1024",
        f"option name CPuct type string default {o.c_puct}",
        f"option name Move Overhead type spin default {o.move_overhead_ms} min 0 max 10000",
    ]


# ---- the search -----------------------------------------------------------------------


def time_budget(limits: GoLimits, turn: chess.Color, overhead: float) -> float | None:
    """Seconds to think under ``limits`` (None: no time limit).

    ``movetime`` less the overhead; on a clock, the remaining time over the
    moves to go (``movestogo``, else 30) plus three quarters of the
    increment, never more than the remaining time less the overhead.
    """
    if limits.movetime is not None:
        return max(0.001, limits.movetime - overhead)
    if not limits.has_clock:
        return None
    remaining = limits.wtime if turn == chess.WHITE else limits.btime
    inc = limits.winc if turn == chess.WHITE else limits.binc
    if remaining is None:  # only the other side's clock given: play by its measure
        remaining = limits.btime if turn == chess.WHITE else limits.wtime
    assert remaining is not None
    to_go = limits.movestogo or DEFAULT_MOVES_TO_GO
    budget = remaining / to_go + 0.75 * inc
    budget = min(budget, remaining - overhead, 0.5 * remaining if to_go > 1 else remaining)
    return max(0.001, budget - overhead)


class Searcher:
    """PUCT with the network, run in steps of one network call until a limit or ``stop``."""

    def __init__(self, game: ChessGame, network: Any, options: UciOptions, device: str = "cpu") -> None:
        # Imported here: search/ and torch load with the network, after ``uci`` has been answered.
        from fuseki.search.evaluators import NetworkEvaluator

        self.game = game
        self.evaluator = NetworkEvaluator(game, network, device=device)
        self.options = options
        self.puct: Any = None
        self.reset()

    def reset(self) -> None:
        from fuseki.search.puct import PUCT, PUCTConfig

        self.puct = PUCT(self.game, self.evaluator, PUCTConfig(simulations=1, c_puct=self.options.c_puct, batch_size=self.options.batch))

    def configure(self) -> None:
        """Take changed options (between searches): a new c_puct or batch means a new tree."""
        cfg = self.puct.config
        if cfg.c_puct != self.options.c_puct or cfg.batch_size != self.options.batch:
            self.reset()

    def run(
        self,
        state: ChessState,
        limits: GoLimits,
        stop: threading.Event,
        pondering: Callable[[], bool],
        clock_start: Callable[[], float],
        emit: Callable[[str], None],
    ) -> chess.Move | None:
        """Search ``state`` until a limit or ``stop``; emits ``info`` lines; returns the best move (None: game over)."""
        started = time.perf_counter()
        if state.is_over():
            return None
        moves = state.legal_moves()
        overhead = self.options.move_overhead_ms / 1000.0
        budget = time_budget(limits, state.board.turn, overhead)
        node_limit = limits.nodes
        if not limits.bounded and not limits.infinite and not limits.ponder:
            node_limit = self.options.simulations
        done = 0
        next_info = started + 1.0
        result = None
        while not stop.is_set():
            ponder = pondering()
            if done < MAX_INFINITE_NODES and (ponder or node_limit is None or done < node_limit):
                step = self.options.batch if node_limit is None or ponder else min(self.options.batch, node_limit - done)
                result = self.puct.search(state, simulations=step)
                done += result.iterations
            elif limits.infinite or ponder:
                time.sleep(0.005)  # the tree is as large as it may grow: wait for stop (or ponderhit)
            else:
                break
            now = time.perf_counter()
            if now >= next_info:
                emit(self._info(state, result, done, now - started))
                next_info = now + 1.0
            if ponder or limits.infinite:
                continue
            if budget is not None and now - clock_start() >= budget:
                break
            if node_limit is not None and done >= node_limit:
                break
            if limits.depth is not None:
                pv, finished = self.principal_variation(state)
                if len(pv) >= limits.depth or finished:
                    break
            if limits.has_clock and len(moves) == 1:
                break  # one legal move: no use spending the clock
        if result is None:  # stopped before the first step: one quick step so there is a move to give
            result = self.puct.search(state, simulations=1)
            done += result.iterations
        emit(self._info(state, result, done, time.perf_counter() - started))
        return result.move

    def principal_variation(self, state: ChessState) -> tuple[list[chess.Move], bool]:
        """The most visited path from the root, and whether it ends in a finished game."""
        node = self.puct.root
        pv: list[chess.Move] = []
        while node is not None and node.expanded and len(node.moves) and len(pv) < 64:
            i = max(range(len(node.moves)), key=lambda k: (node.n[k], node.prior[k]))
            if node.n[i] <= 0:
                break
            pv.append(node.moves[i])
            node = node.children[i]
        finished = node is not None and node.returns is not None
        return pv, finished

    def _info(self, state: ChessState, result: Any, done: int, seconds: float) -> str:
        pv, finished = self.principal_variation(state)
        if not pv and result.move is not None:
            pv = [result.move]
        score = f"cp {value_to_cp(result.value)}"
        if finished and pv:
            end = state
            for m in pv:
                end = end.play(m)
            if end.board.is_checkmate():  # an odd length: the side to move mates; even: it is mated
                score = f"mate {(len(pv) + 1) // 2 if len(pv) % 2 else -(len(pv) // 2)}"
        nps = int(done / seconds) if seconds > 0 else 0
        return (
            f"info depth {max(1, len(pv))} nodes {done} nps {nps} score {score} time {int(seconds * 1000)} "
            f"pv {' '.join(m.uci() for m in pv)}"
        )


# ---- the engine -----------------------------------------------------------------------


class UciEngine:
    """The UCI loop: commands from a text stream, answers to ``out``, the search in a thread.

    ``load`` builds the network (called once, in a background thread, so
    that ``uci`` is answered at once); it returns ``(network, game)``.
    """

    def __init__(
        self,
        load: Callable[[], Any],
        out: TextIO,
        *,
        name: str = "fuseki",
        options: UciOptions | None = None,
        device: str = "cpu",
        set_threads: Callable[[int], None] | None = None,
    ) -> None:
        self.out = out
        self.name = name
        self.options = options or UciOptions()
        self.device = device
        self._set_threads = set_threads
        self._write_lock = threading.Lock()
        self._state: ChessState | None = ChessState.from_fen(chess.STARTING_FEN)
        self._searcher: Searcher | None = None
        self._load_error: str | None = None
        self._loaded = threading.Event()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._ponder = False
        self._clock_start = 0.0
        self._loader = threading.Thread(target=self._load, args=(load,), name="uci-load", daemon=True)
        self._loader.start()

    # -- output --------------------------------------------------------------------------

    def send(self, line: str) -> None:
        with self._write_lock:
            self.out.write(line + "\n")
            self.out.flush()

    def error(self, message: str) -> None:
        self.send(f"info string error: {message}")

    # -- loading ---------------------------------------------------------------------------

    def _load(self, load: Callable[[], Any]) -> None:
        try:
            network, game = load()
            if self._set_threads is not None:
                self._set_threads(self.options.threads)
            self._searcher = Searcher(game, network, self.options, self.device)
        except Exception as e:  # noqa: BLE001 (any failure to load is reported on the protocol, not as a traceback)
            self._load_error = str(e).splitlines()[0] if str(e) else type(e).__name__
        finally:
            self._loaded.set()

    def _ready(self) -> Searcher | None:
        self._loaded.wait()
        if self._searcher is None:
            self.error(f"the network could not be loaded: {self._load_error}")
        return self._searcher

    # -- the loop --------------------------------------------------------------------------

    def serve(self, lines: Iterable[str]) -> int:
        """Answer ``lines`` until ``quit`` or their end; the exit status (0, or 2 when the network failed to load)."""
        for line in lines:
            if not self.handle(line):
                break
        self._finish_search()
        self._loaded.wait()
        return 0 if self._searcher is not None else 2

    def handle(self, line: str) -> bool:
        """One command; False after ``quit``. Never raises for bad input."""
        tokens = line.split()
        if not tokens:
            return True
        command, args = tokens[0], tokens[1:]
        try:
            if command == "quit":
                self._finish_search()
                return False
            handler = getattr(self, f"_cmd_{command}", None)
            if handler is None:
                raise UciError(f"unknown command {command!r}")
            handler(args)
        except UciError as e:
            self.error(str(e))
        except Exception as e:  # noqa: BLE001 (a bug must not kill the GUI's game: say it on the protocol)
            self.error(f"{command} failed: {type(e).__name__}: {e}")
        return True

    def _cmd_uci(self, args: list[str]) -> None:
        import fuseki

        self.send(f"id name {self.name} {fuseki.__version__}")
        self.send("id author the fuseki authors")
        for line in _option_lines(self.options):
            self.send(line)
        self.send("uciok")

    def _cmd_isready(self, args: list[str]) -> None:
        self._ready()
        self.send("readyok")

    def _cmd_debug(self, args: list[str]) -> None:
        pass

    def _cmd_register(self, args: list[str]) -> None:
        pass

    def _cmd_ucinewgame(self, args: list[str]) -> None:
        self._finish_search()
        searcher = self._ready()
        if searcher is not None:
            searcher.reset()
        self._state = ChessState.from_fen(chess.STARTING_FEN)

    def _cmd_setoption(self, args: list[str]) -> None:
        if not args or args[0] != "name":
            raise UciError("setoption: expected 'setoption name NAME [value VALUE]'")
        if "value" in args:
            cut = args.index("value")
            name, value = " ".join(args[1:cut]), " ".join(args[cut + 1 :])
        else:
            name, value = " ".join(args[1:]), ""
        key = name.lower()
        if self._thread is not None and self._thread.is_alive():
            raise UciError(f"setoption {name}: not during a search")
        if key in _SPIN:
            attr, lo, hi = _SPIN[key]
            try:
                number = int(value)
            except ValueError:
                raise UciError(f"setoption {name}: {value!r} is not a whole number") from None
            if not lo <= number <= hi:
                raise UciError(f"setoption {name}: {number} is outside {lo}..{hi}")
            setattr(self.options, attr, number)
            if key == "threads" and self._set_threads is not None:
                self._set_threads(number)
        elif key == "cpuct":
            try:
                c = float(value)
            except ValueError:
                raise UciError(f"setoption CPuct: {value!r} is not a number") from None
            if not (math.isfinite(c) and c > 0):
                raise UciError(f"setoption CPuct: must be a positive number, got {value}")
            self.options.c_puct = c
        else:
            raise UciError(f"setoption: no option named {name!r}")
        if self._searcher is not None:
            self._searcher.configure()

    def _cmd_position(self, args: list[str]) -> None:
        self._finish_search()
        try:
            self._state = parse_position(args, claim_draws=True)
        except UciError:
            self._state = None
            raise

    def _cmd_go(self, args: list[str]) -> None:
        if self._thread is not None and self._thread.is_alive():
            raise UciError("go: a search is already running (send stop first)")
        try:
            limits = parse_go(args)
        except UciError as e:
            self.error(str(e))
            self.send("bestmove (none)")  # a GUI waits for bestmove after every go
            return
        searcher = self._ready()
        state = self._state
        if searcher is None or state is None or state.is_over():
            if state is None:
                self.error("go: no valid position (the last position command failed)")
            elif state.is_over():
                outcome = state.outcome()
                self.send(f"info string the game is over ({outcome.termination.name.lower() if outcome else 'over'})")
            self.send("bestmove (none)")
            return
        self._stop.clear()
        self._ponder = limits.ponder
        self._clock_start = time.perf_counter()
        self._thread = threading.Thread(target=self._search, args=(searcher, state, limits), name="uci-search", daemon=True)
        self._thread.start()

    def _search(self, searcher: Searcher, state: ChessState, limits: GoLimits) -> None:
        try:
            move = searcher.run(state, limits, self._stop, lambda: self._ponder, lambda: self._clock_start, self.send)
        except Exception as e:  # noqa: BLE001 (report and give a move, so the GUI's game goes on)
            self.error(f"search failed: {type(e).__name__}: {e}")
            moves = state.legal_moves()
            move = moves[0] if moves else None
        self.send(f"bestmove {move.uci() if move is not None else '(none)'}")

    def _cmd_stop(self, args: list[str]) -> None:
        self._finish_search()

    def _cmd_ponderhit(self, args: list[str]) -> None:
        if self._ponder:
            self._clock_start = time.perf_counter()
            self._ponder = False

    def _finish_search(self) -> None:
        """Stop a running search and wait for its ``bestmove``."""
        thread = self._thread
        if thread is not None:
            self._ponder = False
            self._stop.set()
            thread.join()
            self._thread = None
