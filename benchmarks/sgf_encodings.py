"""How well the lenient SGF reader guesses encodings, on a real collection without ``CA``.

Each file that is not UTF-8 is guessed as it is (fox-9d: UTF-8 with broken
bytes). Each file that is valid UTF-8 with non-ASCII text is encoded again in
GB18030, Big5, Shift_JIS and EUC-KR (where its text can be), and the guess
for those bytes is counted against the encoding that made them. A handful of
European names in ISO-8859-1 are guessed too. No ``CA`` anywhere: the guess
is all there is.

    python benchmarks/sgf_encodings.py /work/shared/data/fox-9d/games.tar.xz \\
        --out benchmarks/results/sgf_encodings_fox9d.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

from fuseki.data.sources import iter_games
from fuseki.go.sgf_parse import Log, guess_encoding

ROOT = Path(__file__).resolve().parent.parent
NAMES = ["Müller", "José Martínez", "Björn Ålund", "Søren", "François Crête", "Ana Ñúñez", "Pål Æsir", "Zoë Brontë"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="+")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    counts: Counter[str] = Counter()
    for _, data in iter_games(args.sources, max_bytes=None):
        if not data.strip(b"\x00"):
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            counts[f"not UTF-8 -> {guess_encoding(data, None, Log())}"] += 1
            continue
        for encoding in ("GB18030", "Big5", "Shift_JIS", "EUC-KR"):
            try:
                again = text.encode(encoding)
            except UnicodeEncodeError:
                continue
            if again != data:  # some text that is not ASCII
                counts[f"{encoding} -> {guess_encoding(again, None, Log())}"] += 1
    for name in NAMES:
        raw = f"(;GM[1]PB[{name}]PW[Jürgen])".encode("latin-1")
        counts[f"ISO-8859-1 names -> {guess_encoding(raw, None, Log())}"] += 1
    result = {
        "command": "python " + " ".join([os.path.relpath(__file__, ROOT), *(argv or sys.argv[1:])]),
        "sources": args.sources,
        "guesses": dict(sorted(counts.items())),
    }
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result["guesses"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
