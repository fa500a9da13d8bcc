"""A small GTP engine that misbehaves on request, for testing the GTP client.

Run as a script: ``python fake_gtp_engine.py [options]``. Ordinary commands
answer as GTP says; special commands make it sleep, die, print junk or break
the protocol, so that each failure the client must survive can be produced on
demand. Options set behaviour that is not tied to one command:

``--crash-at-start``  print to stderr and exit 7 before reading anything
``--banner``          print a non-GTP line on stdout at start
``--ignore-quit``     answer ``quit`` but keep running (and hang at end of input)
``--refuse-play``     answer every ``play`` with ``? illegal move``
``--genmove=V``       what ``genmove`` answers (default ``d4``)
``--spawn-child``     start a ``sleep`` child first; ``childpid`` reports its pid
``--touch=PATH``      create the file PATH at start (a test reads which command lines were started)

It also answers ``list_stones`` (always empty) and ``all_legal`` (every point),
so that it can pose as a broken GNU Go for the differential test.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def main(argv: list[str]) -> int:
    opts = {a.split("=", 1)[0]: (a.split("=", 1) + [""])[1] for a in argv}
    if "--crash-at-start" in opts:
        print("fatal: cannot load the network weights", file=sys.stderr, flush=True)
        return 7
    if opts.get("--touch"):
        open(opts["--touch"], "a").close()
    child = None
    if "--spawn-child" in opts:
        child = subprocess.Popen(["sleep", "60"])
    out = sys.stdout
    if "--banner" in opts:
        out.write("Fake engine 0.1 ready, have fun\n")
        out.flush()
    size = 19

    def reply(text: str, cid: str, ok: bool = True) -> None:
        out.write(f"{'=' if ok else '?'}{cid} {text}\n\n")
        out.flush()

    for line in sys.stdin:
        parts = line.split()
        if not parts:
            continue
        cid = ""
        if parts[0].isdigit():
            cid, parts = parts[0], parts[1:]
        cmd, args = parts[0], parts[1:]
        if cmd == "name":
            reply("fake", cid)
        elif cmd == "version":
            reply("0.1", cid)
        elif cmd == "protocol_version":
            reply("2", cid)
        elif cmd == "list_commands":
            reply("name\nversion\necho\nplay\ngenmove\nquit", cid)
        elif cmd == "known_command":
            reply("true" if args and args[0] in ("name", "version", "play", "genmove") else "false", cid)
        elif cmd == "echo":
            reply(" ".join(args), cid)
        elif cmd == "fail":
            reply("deliberate failure", cid, ok=False)
        elif cmd == "sleep":
            time.sleep(float(args[0]))
            reply("slept", cid)
        elif cmd == "die":
            print(f"dying with status {args[0]}", file=sys.stderr, flush=True)
            return int(args[0])
        elif cmd == "signal":
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(10)
        elif cmd == "garbage":
            out.flush()
            out.buffer.write(b"debug: thinking very hard\n\x00\xff\xfe not even UTF-8\n")
            out.buffer.flush()
            reply("ok", cid)
        elif cmd == "multi":
            reply("first\n  second\nthird", cid)
        elif cmd == "crlf":
            out.write(f"={cid} crlf\r\n\r\n")
            out.flush()
        elif cmd == "partial":
            out.write(f"={cid} partial\n")  # no blank line: the reply never ends
            out.flush()
            time.sleep(60)
        elif cmd == "closeout":
            out.flush()
            os.close(1)  # stdout gone, process still alive
            time.sleep(60)
            return 0
        elif cmd == "wrongid":
            reply("wrong", str(int(cid or "0") + 1))
        elif cmd == "stderrspam":
            for _ in range(20000):
                sys.stderr.write("x" * 99 + "\n")  # 2 MB: far more than a pipe holds
            sys.stderr.flush()
            reply("ok", cid)
        elif cmd == "childpid":
            reply(str(child.pid if child else -1), cid)
        elif cmd == "boardsize":
            size = int(args[0])
            reply("", cid)
        elif cmd in ("clear_board", "komi", "undo"):
            reply("", cid)
        elif cmd == "play":
            if "--refuse-play" in opts:
                reply("illegal move", cid, ok=False)
            else:
                reply("", cid)
        elif cmd == "genmove":
            reply(opts.get("--genmove") or "d4", cid)
        elif cmd == "list_stones":
            reply("", cid)
        elif cmd == "all_legal":
            reply(" ".join(f"{COLUMNS[c]}{r}" for r in range(1, size + 1) for c in range(size)), cid)
        elif cmd == "captures":
            reply("0", cid)
        elif cmd == "quit":
            reply("", cid)
            if "--ignore-quit" not in opts:
                return 0
        else:
            reply("unknown command", cid, ok=False)
    if "--ignore-quit" in opts:
        time.sleep(60)  # a stubborn engine: end of input does not make it exit
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
