"""A GTP client that never blocks forever: :class:`GtpClient`.

A match runner talks to engines it does not control. An engine may hang, crash,
print junk or exit in the middle of a game, and the runner must notice each of
these, say which one happened and carry on with the next game. So every read
here has a deadline: a reader thread moves the engine's stdout lines into a
queue and :meth:`GtpClient.send` waits on that queue with a timeout, never on a
bare ``readline``. What can go wrong has its own exception type:

=========================  ===============================================  ==========================
exception                  when                                             the engine afterwards
=========================  ===============================================  ==========================
:class:`GtpError`          the engine answered ``?`` (failure reply)        running, stream in step
:class:`GtpTimeout`        no complete reply within the timeout             killed (stream out of step)
:class:`GtpEngineDied`     the process exited or closed its stdout/stdin    gone; exit code and stderr
:class:`GtpProtocolError`  a reply with the wrong id                        killed (stream out of step)
:class:`GtpClosed`         a command after :meth:`close` or a kill          gone
=========================  ===============================================  ==========================

All of them derive from :class:`GtpClientError`.

>>> with GtpClient("gnugo --mode gtp --level 1", timeout=10) as gtp:  # doctest: +SKIP
...     gtp.boardsize(9)
...     gtp.play("black", "E5")
...     gtp.genmove("white")
'C3'
"""

from __future__ import annotations

import collections
import logging
import math
import os
import queue
import re
import shlex
import signal
import subprocess
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from typing import IO, Any, Final, Self

from fuseki.util.errors import FusekiError

__all__ = [
    "CAPTURE",
    "GtpClient",
    "GtpClientError",
    "GtpClosed",
    "GtpEngineDied",
    "GtpError",
    "GtpProtocolError",
    "GtpTimeout",
]

log = logging.getLogger(__name__)

#: ``stderr=CAPTURE`` (the default) keeps the engine's last stderr lines for error messages.
CAPTURE: Final = "capture"

_EOF: Final = object()  # put on the queue when the engine's stdout closes
_STATUS = re.compile(r"([=?])(\d*)(.*)\Z", re.DOTALL)
_KILL_WAIT = 5.0  # seconds to wait for a process after SIGKILL (it cannot refuse)


class GtpClientError(FusekiError):
    """Base class: anything that went wrong while talking to a GTP engine.

    ``command`` is the command being sent when it happened (``None`` if none).
    """

    def __init__(self, message: str, command: str | None = None) -> None:
        super().__init__(message)
        self.command = command


class GtpError(GtpClientError):
    """The engine answered with a failure (``? message``). The engine is still usable.

    ``message`` is the engine's text, e.g. ``"illegal move"``.
    """

    def __init__(self, message: str, command: str | None = None) -> None:
        super().__init__(f"{command!r} failed: {message}" if command else message, command)
        self.message = message


class GtpTimeout(GtpClientError, TimeoutError):
    """No complete reply in time. The engine has been killed.

    It must be: a late reply would otherwise be read as the answer to the next
    command, and every answer after it would be off by one.
    """

    def __init__(self, message: str, command: str | None = None, timeout: float = 0.0) -> None:
        super().__init__(message, command)
        self.timeout = timeout


class GtpEngineDied(GtpClientError):
    """The engine process exited, or closed its pipes, before replying.

    ``returncode`` is its exit status (negative: killed by that signal; ``None``
    if it closed its output but would not exit and had to be killed), and
    ``stderr_tail`` its last stderr lines when stderr is captured.
    """

    def __init__(
        self,
        message: str,
        command: str | None = None,
        returncode: int | None = None,
        stderr_tail: Sequence[str] = (),
    ) -> None:
        super().__init__(message, command)
        self.returncode = returncode
        self.stderr_tail = list(stderr_tail)


class GtpProtocolError(GtpClientError):
    """The engine broke the protocol in a way that puts replies out of step (a wrong id).

    The engine has been killed, as after a timeout.
    """


class GtpClosed(GtpClientError):
    """A command sent after :meth:`GtpClient.close`, or after the engine was killed."""


def _describe_status(returncode: int | None) -> str:
    if returncode is None:
        return "closed its output"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"was killed by {name}"
    return f"exited with status {returncode}"


def _color_arg(color: object) -> str:
    """``"b"``, ``"black"``, ``1`` or ``Color.BLACK`` -> ``"black"`` (and the same for white).

    Ints 1 and 2 are accepted because :class:`fuseki.go.state.Color` is an
    ``IntEnum`` with those values; importing it here would pull in Numba.
    """
    if isinstance(color, str):
        text = color.strip().lower()
        if text in ("b", "black"):
            return "black"
        if text in ("w", "white"):
            return "white"
    elif isinstance(color, int) and not isinstance(color, bool) and color in (1, 2):
        return "black" if color == 1 else "white"
    raise ValueError(f"{color!r} is not a colour (expected 'black' or 'white')")


def _kill_tree(proc: subprocess.Popen[bytes], own_group: bool) -> None:
    """SIGKILL the engine and, when it leads its own process group, its children too.

    A wrapper script (``sh -c "engine ..."``) would otherwise leave the real
    engine running with our pipes open.
    """
    if proc.poll() is None and own_group:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    if proc.poll() is None:
        try:
            proc.kill()
        except ProcessLookupError:
            pass
    try:
        proc.wait(timeout=_KILL_WAIT)
    except subprocess.TimeoutExpired:  # pragma: no cover - a SIGKILLed process always exits
        log.warning("GTP engine pid %d did not exit after SIGKILL", proc.pid)


def _reap(proc: subprocess.Popen[bytes], own_group: bool) -> None:
    """Finaliser: kill an engine whose client was dropped without :meth:`close`."""
    if proc.poll() is None:
        _kill_tree(proc, own_group)
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            try:
                stream.close()
            except OSError:
                pass


def _pump_stdout(stream: IO[bytes], lines: queue.SimpleQueue[object]) -> None:
    """Reader thread: engine stdout -> queue of decoded lines, then :data:`_EOF`."""
    try:
        for raw in iter(stream.readline, b""):
            lines.put(raw.decode("utf-8", "replace").rstrip("\r\n"))
    except (OSError, ValueError):  # pipe closed under us by a kill or close
        pass
    finally:
        lines.put(_EOF)


def _pump_stderr(stream: IO[bytes], tail: collections.deque[str], lock: threading.Lock) -> None:
    """Reader thread: keep the last lines of the engine's stderr.

    It must be drained: an engine that fills the stderr pipe blocks on its next
    write and never answers.
    """
    try:
        for raw in iter(stream.readline, b""):
            with lock:
                tail.append(raw.decode("utf-8", "replace").rstrip("\r\n"))
    except (OSError, ValueError):
        pass


class GtpClient:
    """One GTP engine, run as a subprocess and driven command by command.

    ``command`` is an argument list, or a string split like a shell would
    (``"gnugo --mode gtp --level 1"``). ``timeout`` is the default number of
    seconds :meth:`send` waits for a complete reply; each call may override it.
    ``stderr`` is :data:`CAPTURE` (keep the last ``stderr_lines`` lines for error
    messages), ``None`` (inherit ours), or anything :class:`subprocess.Popen`
    takes (``subprocess.DEVNULL``, an open file). With ``ids=True`` each command
    is numbered and a reply with another number raises :class:`GtpProtocolError`.

    The engine runs in its own process group so that a kill reaches its
    children. Use the client as a context manager, or call :meth:`close`; a
    client dropped without either still has its engine killed when it is
    garbage-collected.

    Raises :class:`OSError` (e.g. :class:`FileNotFoundError`) if the program
    cannot be started. Methods are safe to call from several threads: one
    command is in flight at a time.
    """

    def __init__(
        self,
        command: Sequence[str] | str,
        *,
        timeout: float = 30.0,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        stderr: Any = CAPTURE,
        stderr_lines: int = 40,
        ids: bool = False,
    ) -> None:
        argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
        if not argv:
            raise ValueError("empty GTP engine command")
        self.timeout = self._check_timeout(timeout)
        self.argv: list[str] = argv
        self.ids = ids
        self._next_id = 1
        self._lock = threading.Lock()
        self._closed: str | None = None  # why sends are refused, once they are
        self._died: GtpEngineDied | None = None
        self._stderr_tail: collections.deque[str] = collections.deque(maxlen=max(1, stderr_lines))
        self._stderr_lock = threading.Lock()
        capture = isinstance(stderr, str) and stderr == CAPTURE
        self._own_group = os.name == "posix"
        self._proc: subprocess.Popen[bytes] = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if capture else stderr,
            cwd=cwd,
            env=None if env is None else dict(env),
            start_new_session=self._own_group,
        )
        self._finalizer = weakref.finalize(self, _reap, self._proc, self._own_group)
        self._lines: queue.SimpleQueue[object] = queue.SimpleQueue()
        name = os.path.basename(argv[0])
        self._stdout_thread = threading.Thread(
            target=_pump_stdout, args=(self._proc.stdout, self._lines), name=f"gtp-stdout-{name}", daemon=True
        )
        self._stdout_thread.start()
        self._stderr_thread: threading.Thread | None = None
        if capture:
            self._stderr_thread = threading.Thread(
                target=_pump_stderr,
                args=(self._proc.stderr, self._stderr_tail, self._stderr_lock),
                name=f"gtp-stderr-{name}",
                daemon=True,
            )
            self._stderr_thread.start()

    # ---- the protocol -------------------------------------------------

    def send(self, command: str, timeout: float | None = None) -> str:
        """Send one command and return the text of the success reply.

        The text is the reply without its ``=`` (and id) and without the blank
        line that ends it; a multi-line reply keeps its inner lines.

        Raises :class:`GtpError` for a ``?`` reply, :class:`GtpTimeout` when no
        complete reply arrives within ``timeout`` seconds (default: the
        client's), :class:`GtpEngineDied` when the engine exits first,
        :class:`GtpProtocolError` for a reply to another command id and
        :class:`GtpClosed` after :meth:`close`. ``ValueError`` for a command
        that is empty or spans lines (it would desynchronise the stream).
        """
        text = self._clean(command)
        limit = self.timeout if timeout is None else self._check_timeout(timeout)
        with self._lock:
            self._check_open(text)
            cid: int | None = None
            line = text
            if self.ids:
                cid = self._next_id
                self._next_id += 1
                line = f"{cid} {text}"
            deadline = time.monotonic() + limit
            log.debug("%s <- %s", self.argv[0], line)
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.write(line.encode("utf-8") + b"\n")
                self._proc.stdin.flush()
            except (OSError, ValueError):  # BrokenPipeError: the engine is gone
                raise self._engine_died(text) from None
            ok, reply = self._read_reply(text, cid, deadline, limit)
            log.debug("%s -> %s%s", self.argv[0], "=" if ok else "?", reply)
        if not ok:
            raise GtpError(reply, text)
        return reply

    def _read_reply(self, command: str, cid: int | None, deadline: float, limit: float) -> tuple[bool, str]:
        """Read lines up to the blank line that ends a reply. Returns (success, text).

        Blank lines before the status line are skipped (some engines send extra
        newlines); so are other lines before it, with a warning, because some
        engines print banners or debug text on stdout.
        """
        ok = True
        body: list[str] | None = None
        while True:
            line = self._next_line(command, deadline, limit)
            if body is None:
                m = _STATUS.match(line)
                if m is None:
                    if line.strip():
                        log.warning("%s: ignored non-GTP output before the reply to %r: %r", self.argv[0], command, line)
                    continue
                ok = m.group(1) == "="
                if cid is not None and m.group(2) and int(m.group(2)) != cid:
                    self._kill(f"the engine answered id {m.group(2)} to command id {cid}")
                    raise GtpProtocolError(
                        f"reply id {m.group(2)} does not match command id {cid} ({command!r}); engine killed", command
                    )
                body = [m.group(3).strip()]
            elif line.strip():
                body.append(line)
            else:
                return ok, "\n".join(body).strip("\n").rstrip()

    def _next_line(self, command: str, deadline: float, limit: float) -> str:
        remaining = deadline - time.monotonic()
        try:
            item = self._lines.get(timeout=remaining) if remaining > 0 else self._lines.get_nowait()
        except queue.Empty:
            self._kill(f"no reply to {command!r} within {limit:g} s")
            raise GtpTimeout(
                f"{self._name} did not answer {command!r} within {limit:g} s; engine killed", command, limit
            ) from None
        if item is _EOF:
            if self._closed is not None:  # killed or closed from another thread
                raise GtpClosed(f"{command!r} was cut short: {self._closed}", command)
            raise self._engine_died(command)
        return item  # type: ignore[return-value]

    # ---- life cycle ---------------------------------------------------

    def close(self, timeout: float = 2.0) -> int | None:
        """Send ``quit``, wait up to ``timeout`` seconds for the engine to exit, else kill it.

        Safe to call more than once and from another thread (a command in
        flight there is cut short by the kill). Never raises for the engine's
        sake. Returns the exit status (``None`` only if it could not be learnt).
        """
        got = self._lock.acquire(timeout=timeout)
        try:
            if self._closed is None and self._died is None and got and self._proc.poll() is None:
                try:
                    self._send_locked_quit(min(timeout, 1.0))
                except GtpClientError:
                    pass
            if self._closed is None:
                self._closed = "the client was closed"
            self._close_stdin()
            try:
                self._proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                log.info("%s did not exit %g s after quit; killing it", self._name, timeout)
                _kill_tree(self._proc, self._own_group)
        finally:
            if got:
                self._lock.release()
        self._join_readers()
        self._finalizer()  # closes the pipes; kills only if somehow still running
        return self._proc.returncode

    def _send_locked_quit(self, timeout: float) -> None:
        """``quit`` while already holding the lock (``send`` would deadlock)."""
        assert self._proc.stdin is not None
        line = f"{self._next_id} quit" if self.ids else "quit"
        try:
            self._proc.stdin.write(line.encode() + b"\n")
            self._proc.stdin.flush()
        except (OSError, ValueError):
            return
        deadline = time.monotonic() + timeout
        try:
            self._read_reply("quit", None, deadline, timeout)
        except GtpClientError:
            pass
        self._closed = "the client was closed"

    def kill(self) -> None:
        """Kill the engine at once (no ``quit``). Later commands raise :class:`GtpClosed`."""
        self._kill("killed by the client")

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pid(self) -> int:
        return self._proc.pid

    @property
    def returncode(self) -> int | None:
        """The engine's exit status once it has exited, else ``None``."""
        return self._proc.poll()

    @property
    def is_alive(self) -> bool:
        """True while commands can be sent: the process runs and nothing has ended the session."""
        return self._closed is None and self._died is None and self._proc.poll() is None

    def stderr_tail(self) -> list[str]:
        """The engine's last stderr lines (empty unless stderr is :data:`CAPTURE`)."""
        with self._stderr_lock:
            return list(self._stderr_tail)

    def __repr__(self) -> str:
        state = "running" if self.is_alive else (self._closed or "dead")
        return f"<GtpClient {shlex.join(self.argv)!r} pid={self._proc.pid} {state}>"

    # ---- internals ----------------------------------------------------

    @property
    def _name(self) -> str:
        return f"GTP engine {os.path.basename(self.argv[0])!r}"

    @staticmethod
    def _check_timeout(timeout: float) -> float:
        t = float(timeout)
        if not (math.isfinite(t) and t > 0):
            raise ValueError(f"timeout must be a positive, finite number of seconds, got {timeout!r}")
        return t

    @staticmethod
    def _clean(command: str) -> str:
        """Validate one command line: GTP is line-based, so an embedded newline would
        send two commands and leave every later reply one step behind."""
        if not isinstance(command, str):
            raise TypeError(f"a GTP command is a str, got {type(command).__name__}")
        if "\n" in command or "\r" in command:
            raise ValueError(f"a GTP command must be one line, got {command!r}")
        text = command.replace("\t", " ").strip()
        if not text:
            raise ValueError("empty GTP command")
        return text

    def _check_open(self, command: str) -> None:
        if self._died is not None:
            raise GtpEngineDied(
                f"{self._name} is not running ({_describe_status(self._died.returncode)} earlier); cannot send {command!r}",
                command,
                self._died.returncode,
                self._died.stderr_tail,
            )
        if self._closed is not None:
            raise GtpClosed(f"cannot send {command!r}: {self._closed}", command)

    def _engine_died(self, command: str) -> GtpEngineDied:
        """Build the error for an engine that went away, after collecting its exit code."""
        self._close_stdin()
        try:
            rc: int | None = self._proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:  # stdout closed but the process lingers
            _kill_tree(self._proc, self._own_group)
            rc = None
        if self._stderr_thread is not None:
            self._stderr_thread.join(timeout=1.0)  # let the last stderr lines arrive
        tail = self.stderr_tail()
        message = f"{self._name} {_describe_status(rc)} while running {command!r}"
        if tail:
            message += "; its last stderr lines:\n    " + "\n    ".join(tail[-10:])
        err = GtpEngineDied(message, command, rc, tail)
        self._died = err
        return err

    def _kill(self, reason: str) -> None:
        if self._closed is None:
            self._closed = f"the engine was killed ({reason})"
        _kill_tree(self._proc, self._own_group)
        self._close_stdin()

    def _close_stdin(self) -> None:
        stdin = self._proc.stdin
        if stdin is not None and not stdin.closed:
            try:
                stdin.close()
            except OSError:
                pass

    def _join_readers(self) -> None:
        for thread in (self._stdout_thread, self._stderr_thread):
            if thread is not None:
                thread.join(timeout=1.0)

    # ---- common commands ----------------------------------------------

    def protocol_version(self) -> str:
        return self.send("protocol_version")

    def name(self) -> str:
        return self.send("name")

    def version(self) -> str:
        return self.send("version")

    def list_commands(self) -> list[str]:
        """The commands the engine knows, one per reply line."""
        return [line.strip() for line in self.send("list_commands").splitlines() if line.strip()]

    def known_command(self, name: str) -> bool:
        return self.send(f"known_command {name}").strip().lower() == "true"

    def boardsize(self, size: int) -> None:
        """Set the board size (GTP also clears the board; send :meth:`clear_board` anyway)."""
        self.send(f"boardsize {int(size)}")

    def clear_board(self) -> None:
        self.send("clear_board")

    def komi(self, komi: float) -> None:
        self.send(f"komi {float(komi):g}")

    def play(self, color: object, vertex: str) -> None:
        """Play ``vertex`` (``"D4"``, ``"pass"``) for ``color``; :class:`GtpError` if the engine refuses."""
        if not vertex.strip() or any(ch.isspace() for ch in vertex.strip()):
            raise ValueError(f"{vertex!r} is not a GTP vertex")
        self.send(f"play {_color_arg(color)} {vertex.strip()}")

    def genmove(self, color: object, timeout: float | None = None) -> str:
        """Ask the engine for a move and return it normalised: ``"D4"``, ``"pass"`` or ``"resign"``."""
        move = self.send(f"genmove {_color_arg(color)}", timeout=timeout).strip()
        low = move.lower()
        return low if low in ("pass", "resign") else move.upper()

    def undo(self) -> None:
        self.send("undo")

    def final_score(self, timeout: float | None = None) -> str:
        """The engine's count, e.g. ``"B+3.5"`` (only engines that implement it)."""
        return self.send("final_score", timeout=timeout)

    def showboard(self) -> str:
        return self.send("showboard")
