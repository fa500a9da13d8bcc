"""The GTP client: replies, every way an engine can fail, and the real GNU Go.

Most tests drive ``fake_gtp_engine.py``, which hangs, dies or breaks the
protocol on request. Each failure test also checks the time taken, because the
point of the client is that nothing blocks for long.
"""

from __future__ import annotations

import gc
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from fuseki.engines.gtp_client import (
    GtpClient,
    GtpClientError,
    GtpClosed,
    GtpEngineDied,
    GtpError,
    GtpProtocolError,
    GtpTimeout,
)


def _gone(pid: int, within: float = 5.0) -> bool:
    """True once ``pid`` no longer runs (absent, or a zombie waiting for its reaper)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.02)
    return False


# ---- ordinary replies -----------------------------------------------------


def test_replies_without_status_and_blank_line(fake_engine):
    with GtpClient(fake_engine(), timeout=10) as gtp:
        assert gtp.send("echo hello world") == "hello world"
        assert gtp.send("  echo\tpadded  ") == "padded"
        assert gtp.send("echo") == ""
        assert gtp.name() == "fake"
        assert gtp.version() == "0.1"
        assert gtp.protocol_version() == "2"


def test_multi_line_reply_keeps_inner_lines(fake_engine):
    with GtpClient(fake_engine(), timeout=10) as gtp:
        assert gtp.send("multi") == "first\n  second\nthird"
        assert gtp.list_commands() == ["name", "version", "echo", "play", "genmove", "quit"]
        assert gtp.send("echo after") == "after"


def test_crlf_line_ends(fake_engine):
    with GtpClient(fake_engine(), timeout=10) as gtp:
        assert gtp.send("crlf") == "crlf"
        assert gtp.send("echo next") == "next"


def test_ids_are_sent_and_checked(fake_engine):
    with GtpClient(fake_engine(), timeout=10, ids=True) as gtp:
        assert gtp.send("echo one") == "one"
        assert gtp.send("echo two") == "two"
        with pytest.raises(GtpError):
            gtp.send("fail")
        assert gtp.send("echo three") == "three"


def test_string_command_is_split_like_a_shell(fake_engine):
    argv = fake_engine("--genmove=q16")
    command = " ".join(f"'{a}'" for a in argv)
    with GtpClient(command, timeout=10) as gtp:
        assert gtp.argv == argv
        assert gtp.genmove("b") == "Q16"


def test_helpers(fake_engine):
    with GtpClient(fake_engine(), timeout=10) as gtp:
        assert gtp.known_command("play") is True
        assert gtp.known_command("frobnicate") is False
        gtp.boardsize(9)
        gtp.clear_board()
        gtp.komi(6.5)
        gtp.play("black", "E5")
        gtp.play("W", "pass")
        gtp.play(1, "D4")  # Color.BLACK is the IntEnum 1
        assert gtp.genmove("white") == "D4"
        with pytest.raises(ValueError):
            gtp.play("red", "E5")
        with pytest.raises(ValueError):
            gtp.play("black", "E5 E6")


@pytest.mark.parametrize(("answer", "expected"), [("PASS", "pass"), ("Resign", "resign"), ("c3", "C3")])
def test_genmove_normalises(fake_engine, answer, expected):
    with GtpClient(fake_engine(f"--genmove={answer}"), timeout=10) as gtp:
        assert gtp.genmove("b") == expected


# ---- failures that leave the engine usable -------------------------------


def test_failure_reply_raises_gtp_error_and_stream_stays_in_step(fake_engine):
    with GtpClient(fake_engine(), timeout=10) as gtp:
        with pytest.raises(GtpError) as info:
            gtp.send("fail")
        assert info.value.message == "deliberate failure"
        assert info.value.command == "fail"
        with pytest.raises(GtpError, match="unknown command"):
            gtp.send("frobnicate")
        assert gtp.send("echo still here") == "still here"
        assert gtp.is_alive


def test_refused_play_is_a_gtp_error(fake_engine):
    with GtpClient(fake_engine("--refuse-play"), timeout=10) as gtp, pytest.raises(GtpError, match="illegal move"):
        gtp.play("b", "D4")


def test_junk_before_a_reply_is_skipped(fake_engine):
    with GtpClient(fake_engine("--banner"), timeout=10) as gtp:
        assert gtp.send("echo first") == "first"  # after the banner line
        assert gtp.send("garbage") == "ok"  # after junk, NUL and invalid UTF-8
        assert gtp.send("echo next") == "next"


@pytest.mark.parametrize("bad", ["echo a\necho b", "echo a\r", "", "   "])
def test_commands_that_would_desynchronise_are_refused(fake_engine, bad):
    with GtpClient(fake_engine(), timeout=10) as gtp:
        with pytest.raises(ValueError):
            gtp.send(bad)
        assert gtp.send("echo fine") == "fine"


def test_bad_timeout_values(fake_engine):
    with pytest.raises(ValueError):
        GtpClient(fake_engine(), timeout=0)
    with GtpClient(fake_engine(), timeout=10) as gtp:
        for bad in (0, -1, float("inf"), float("nan")):
            with pytest.raises(ValueError):
                gtp.send("echo x", timeout=bad)
        assert gtp.send("echo ok") == "ok"


def test_stderr_flood_does_not_block(fake_engine):
    with GtpClient(fake_engine(), timeout=10, stderr_lines=5) as gtp:
        assert gtp.send("stderrspam") == "ok"
        assert gtp.send("echo next") == "next"
        time.sleep(0.1)
        assert gtp.stderr_tail() == ["x" * 99] * 5


# ---- timeouts --------------------------------------------------------------


def test_timeout_kills_the_engine(fake_engine):
    gtp = GtpClient(fake_engine(), timeout=10)
    gtp.send("echo warm")
    t0 = time.monotonic()
    with pytest.raises(GtpTimeout) as info:
        gtp.send("sleep 30", timeout=0.3)
    assert time.monotonic() - t0 < 3
    assert info.value.command == "sleep 30"
    assert info.value.timeout == 0.3
    assert isinstance(info.value, TimeoutError)
    assert gtp.returncode is not None  # killed: a late reply would desynchronise the stream
    assert not gtp.is_alive
    with pytest.raises(GtpClosed, match="killed"):
        gtp.send("echo too late")
    gtp.close()


def test_default_timeout_applies(fake_engine):
    with GtpClient(fake_engine(), timeout=0.3) as gtp:
        gtp.send("echo warm", timeout=10)  # the engine's start-up counts toward its first reply
        assert gtp.send("sleep 0.05") == "slept"
        with pytest.raises(GtpTimeout):
            gtp.send("sleep 30")


def test_per_call_timeout_can_be_longer(fake_engine):
    with GtpClient(fake_engine(), timeout=0.2) as gtp:
        assert gtp.send("sleep 0.5", timeout=5) == "slept"


def test_reply_that_never_ends_times_out(fake_engine):
    with GtpClient(fake_engine(), timeout=10) as gtp:
        gtp.send("echo warm")
        t0 = time.monotonic()
        with pytest.raises(GtpTimeout):
            gtp.send("partial", timeout=0.3)
        assert time.monotonic() - t0 < 3


# ---- the engine dies ---------------------------------------------------------


def test_engine_exit_raises_engine_died_with_status_and_stderr(fake_engine):
    gtp = GtpClient(fake_engine(), timeout=10)
    t0 = time.monotonic()
    with pytest.raises(GtpEngineDied) as info:
        gtp.send("die 3")
    assert time.monotonic() - t0 < 5
    err = info.value
    assert err.returncode == 3
    assert err.command == "die 3"
    assert "dying with status 3" in err.stderr_tail
    assert "exited with status 3" in str(err) and "dying with status 3" in str(err)
    assert gtp.returncode == 3 and not gtp.is_alive
    with pytest.raises(GtpEngineDied):  # and again, at once, for later commands
        gtp.send("echo anyone")
    gtp.close()


def test_engine_killed_by_a_signal(fake_engine):
    with GtpClient(fake_engine(), timeout=10) as gtp:
        with pytest.raises(GtpEngineDied) as info:
            gtp.send("signal")
        assert info.value.returncode == -signal.SIGTERM
        assert "SIGTERM" in str(info.value)


def test_engine_that_crashes_at_start(fake_engine):
    with GtpClient(fake_engine("--crash-at-start"), timeout=10) as gtp:
        with pytest.raises(GtpEngineDied) as info:
            gtp.name()
        assert info.value.returncode == 7
        assert "cannot load the network weights" in str(info.value)


def test_engine_that_closes_stdout_but_keeps_running(fake_engine):
    gtp = GtpClient(fake_engine(), timeout=10)
    pid = gtp.pid
    t0 = time.monotonic()
    with pytest.raises(GtpEngineDied, match="closed its output"):
        gtp.send("closeout")
    assert time.monotonic() - t0 < 5
    assert _gone(pid)
    gtp.close()


def test_wrong_reply_id_is_a_protocol_error(fake_engine):
    gtp = GtpClient(fake_engine(), timeout=10, ids=True)
    gtp.send("echo one")
    with pytest.raises(GtpProtocolError):
        gtp.send("wrongid")
    assert gtp.returncode is not None
    with pytest.raises(GtpClosed):
        gtp.send("echo two")
    gtp.close()


def test_missing_program_raises_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        GtpClient([str(tmp_path / "no-such-engine")])
    with pytest.raises(ValueError):
        GtpClient([])


def test_all_errors_share_a_base_class():
    for cls in (GtpError, GtpTimeout, GtpEngineDied, GtpProtocolError, GtpClosed):
        assert issubclass(cls, GtpClientError)


# ---- closing -------------------------------------------------------------------


def test_close_sends_quit_and_returns_the_status(fake_engine):
    gtp = GtpClient(fake_engine(), timeout=10)
    gtp.send("echo hi")
    assert gtp.close() == 0
    assert gtp.close() == 0  # idempotent
    with pytest.raises(GtpClosed):
        gtp.send("echo hi")


def test_close_kills_an_engine_that_ignores_quit(fake_engine):
    gtp = GtpClient(fake_engine("--ignore-quit"), timeout=10)
    gtp.send("echo hi")
    t0 = time.monotonic()
    status = gtp.close(timeout=0.5)
    assert time.monotonic() - t0 < 4
    assert status == -signal.SIGKILL


def test_close_after_death_and_after_timeout_does_not_raise(fake_engine):
    a = GtpClient(fake_engine(), timeout=10)
    with pytest.raises(GtpEngineDied):
        a.send("die 1")
    assert a.close() == 1
    b = GtpClient(fake_engine(), timeout=10)
    with pytest.raises(GtpTimeout):
        b.send("sleep 30", timeout=0.2)
    assert b.close() == -signal.SIGKILL


def test_context_manager_closes_on_error(fake_engine):
    with pytest.raises(RuntimeError), GtpClient(fake_engine(), timeout=10) as gtp:
        raise RuntimeError("boom")
    assert gtp.returncode == 0


def test_close_from_another_thread_cuts_a_command_short(fake_engine):
    gtp = GtpClient(fake_engine(), timeout=30)
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            gtp.send("sleep 30")
        except BaseException as e:  # noqa: BLE001 - collected for the assertion
            errors.append(e)

    thread = threading.Thread(target=worker)
    thread.start()
    time.sleep(0.3)
    t0 = time.monotonic()
    gtp.close(timeout=0.3)
    thread.join(timeout=5)
    assert not thread.is_alive()
    assert time.monotonic() - t0 < 5
    assert len(errors) == 1 and isinstance(errors[0], GtpClientError)


def test_kill_reaches_the_engines_children(fake_engine):
    gtp = GtpClient(fake_engine("--spawn-child"), timeout=10)
    child = int(gtp.send("childpid"))
    assert child > 0 and not _gone(child, within=0.1)
    gtp.kill()
    assert _gone(gtp.pid)
    assert _gone(child)
    with pytest.raises(GtpClosed):
        gtp.send("echo hi")
    gtp.close()


def test_dropped_client_has_its_engine_killed(fake_engine):
    gtp = GtpClient(fake_engine(), timeout=10)
    gtp.send("echo hi")
    pid = gtp.pid
    del gtp
    gc.collect()
    assert _gone(pid)


def test_repr_shows_the_state(fake_engine):
    gtp = GtpClient(fake_engine(), timeout=10)
    assert "running" in repr(gtp)
    gtp.close()
    assert "closed" in repr(gtp)


# ---- the real GNU Go -------------------------------------------------------------


@pytest.mark.gnugo
def test_real_gnugo_session(gnugo):
    with GtpClient([gnugo, "--mode", "gtp", "--level", "0"], timeout=30) as gtp:
        assert gtp.name() == "GNU Go"
        assert gtp.version()
        assert gtp.protocol_version() == "2"
        commands = gtp.list_commands()
        assert {"all_legal", "list_stones", "play", "genmove", "quit"} <= set(commands)
        assert gtp.known_command("all_legal")
        assert not gtp.known_command("no_such_command")
        gtp.boardsize(9)
        gtp.clear_board()
        gtp.komi(7.5)
        gtp.play("black", "E5")
        move = gtp.genmove("white")
        assert move == "pass" or (move[0] in "ABCDEFGHJ" and 1 <= int(move[1:]) <= 9 and move != "E5")
        with pytest.raises(GtpError, match="illegal move"):
            gtp.play("black", "E5")  # occupied
        with pytest.raises(GtpError):
            gtp.boardsize(99)
        assert "E5" in gtp.send("list_stones black").split()
        board = gtp.showboard()
        assert "A B C D E F G H J" in board
    assert gtp.returncode == 0


@pytest.mark.gnugo
def test_real_gnugo_with_ids(gnugo):
    with GtpClient([gnugo, "--mode", "gtp"], timeout=30, ids=True) as gtp:
        gtp.boardsize(5)
        gtp.play("b", "C3")
        assert gtp.send("list_stones black") == "C3"


@pytest.mark.gnugo
def test_real_gnugo_killed_from_outside(gnugo):
    gtp = GtpClient([gnugo, "--mode", "gtp"], timeout=30)
    gtp.boardsize(9)
    os.kill(gtp.pid, signal.SIGKILL)
    t0 = time.monotonic()
    with pytest.raises(GtpEngineDied) as info:
        gtp.send("list_stones black")
    assert time.monotonic() - t0 < 5
    assert info.value.returncode == -signal.SIGKILL
    gtp.close()


def test_timeout_is_a_timeout_error():
    err = GtpTimeout("x", "genmove b", 1.0)
    assert isinstance(err, TimeoutError) and isinstance(err, OSError)
