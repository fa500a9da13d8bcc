"""The processor: shards, manifest, split by game, skipped games, resume, stale files."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from sgf_corpus import random_game, write_games

from fuseki.data.processor import (
    LOCK_FILE,
    ProcessError,
    encode_game,
    game_fingerprint,
    load_manifest,
    process_games,
    read_game,
    verify_shard,
)
from fuseki.data.sampler import Split, is_test_game, read_test_list
from fuseki.util.runs import RunMismatch
from fuseki.encoders import get_encoder
from fuseki.go import Color, GameState, Move, Point, game_to_sgf, read_sgf, save_sgf

REPO = Path(__file__).resolve().parents[2]


def folder_files(folder: Path) -> dict[str, bytes]:
    """Every file of a shard folder but the lock, name -> bytes."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.name != LOCK_FILE}


def shard_arrays(folder: Path, split: str) -> tuple[np.ndarray, np.ndarray]:
    manifest = load_manifest(folder)
    entries = [e for e in manifest["shards"] if e["split"] == split]
    xs = [np.load(folder / e["files"]["features"]["name"]) for e in entries]
    ys = [np.load(folder / e["files"]["labels"]["name"]) for e in entries]
    return np.concatenate(xs), np.concatenate(ys)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    write_games(root / "games", 10, size=9, seed=1, moves=12)
    save_sgf(root / "games" / "bad.sgf", b"(;GM[1]FF[4]SZ[9];B[ee] %% ;W[cc])")  # beyond repair
    save_sgf(root / "games" / "illegal.sgf", b"(;GM[1]FF[4]SZ[9];B[ee];W[dd];B[ee])")  # occupied
    save_sgf(root / "games" / "big.sgf", game_to_sgf(random_game(13, 5, 6)))  # another board size
    return root / "games"


def test_shards_hold_every_move_as_uint8_features_and_int16_labels(corpus, tmp_path):
    out = tmp_path / "out"
    summary = process_games([corpus], out, encoder="oneplane", size=9, test_fraction=0.3, seed=2, shard_games=4)
    manifest = load_manifest(out)
    assert manifest["complete"] and manifest["encoder"] == "oneplane" and manifest["board_size"] == 9
    assert manifest["feature_shape"] == [1, 9, 9] and manifest["feature_dtype"] == "uint8"
    for entry in manifest["shards"]:
        assert verify_shard(out, entry) is None
        x = np.load(out / entry["files"]["features"]["name"])
        y = np.load(out / entry["files"]["labels"]["name"])
        assert x.dtype == np.uint8 and x.shape == (entry["positions"], 1, 9, 9)
        assert y.dtype == np.int16 and y.shape == (entry["positions"],)
        meta = json.loads((out / entry["files"]["games"]["name"]).read_text())
        encoder = get_encoder("oneplane", 9)
        for game in meta["games"]:  # each game's rows are its positions, move by move
            data = Path(game["game"]).read_bytes()
            assert hashlib.sha256(data).hexdigest() == game["sha256"]
            record = read_sgf(data)
            rows = slice(game["first"], game["first"] + game["positions"])
            assert game["positions"] == len(record.moves) == 12
            assert y[rows].tolist() == [m.move.point.row * 9 + m.move.point.col for m in record.moves]
            assert np.array_equal(x[rows][3], encoder.encode(list(record.states())[3]))
    # train and test never share a game, and together they are the sample
    split = Split.load(out / "split.json")
    games = {side: {g["game"] for e in manifest["shards"] if e["split"] == side
                    for g in json.loads((out / e["files"]["games"]["name"]).read_text())["games"]}
             for side in ("train", "test")}
    skipped = {s["game"] for s in manifest["skipped"]}
    assert not games["train"] & games["test"]
    assert games["train"] | games["test"] | skipped == set(split.train) | set(split.test)
    assert summary["positions"] == 12 * 10 and summary["bytes_per_position"] < 100


def test_bad_illegal_and_other_size_games_are_skipped_and_counted(corpus, tmp_path):
    summary = process_games([corpus], tmp_path / "out", encoder="oneplane", size=9, test_fraction=0.0)
    assert summary["skipped"] == 3
    assert summary["skipped_by_kind"] == {"bad_sgf": 1, "board_size": 1, "illegal_move": 1}
    reasons = {Path(s["game"]).name: s["reason"] for s in load_manifest(tmp_path / "out")["skipped"]}
    assert "illegal" in reasons["illegal.sgf"] and "move 3" in reasons["illegal.sgf"]
    assert "malformed SGF file: cannot read '%% ;W[cc])'" in reasons["bad.sgf"]
    assert reasons["big.sgf"] == "board size 13, expected 9"
    assert summary["train_games"] == 10


def test_files_from_a_server_are_read_with_repairs_and_counted(tmp_path):
    # Fox's forms: handicap stones in the second node, HA without stones, komi x100,
    # AP twice, no closing ')', two white moves in a row; and one that cannot be replayed.
    games = tmp_path / "games"
    games.mkdir()
    (games / "setup.sgf").write_bytes(b"(;GM[1]SZ[9]KM[650]HA[2]AP[a]AP[b];AB[gc][cg];W[ee];B[dd];W[ff])")
    (games / "implied.sgf").write_bytes(b"(;GM[1]SZ[9]KM[0]HA[2];W[ee];B[dd];W[ff];W[fd]")
    (games / "occupied.sgf").write_bytes(b"(;GM[1]SZ[9]HA[2];W[gc])")  # on an implied handicap stone
    summary = process_games([games], tmp_path / "out", encoder="oneplane", size=9, test_fraction=0.0)
    assert summary["positions"] == 3 + 4 and summary["skipped_by_kind"] == {"illegal_move": 1}
    assert summary["repaired_by_kind"] == {
        "duplicate_property": 1, "handicap_placed": 2, "implied_pass": 1, "komi_x100": 1, "missing_close": 1,
        "setup_after_root": 1,
    }
    manifest = load_manifest(tmp_path / "out")
    (skip,) = manifest["skipped"]
    assert skip["reason"] == "move 1 (W G7) is illegal: occupied"
    meta = json.loads((tmp_path / "out" / manifest["shards"][0]["files"]["games"]["name"]).read_text())
    repairs = {Path(g["game"]).name: g.get("repairs") for g in meta["games"]}
    assert repairs == {
        "implied.sgf": ["missing_close", "handicap_placed", "implied_pass"],
        "setup.sgf": ["duplicate_property", "komi_x100", "setup_after_root"],
    }
    assert meta["skipped"][0]["repairs"] == ["handicap_placed"]
    x, y = shard_arrays(tmp_path / "out", "train")
    assert len(x) == len(y) == 7 and 3 * 9 + 5 in y.tolist()  # implied.sgf's last move, W F6
    # It is played after Black's implied pass; the handicap stone at G7 is there.
    board = read_sgf((games / "implied.sgf").read_bytes()).replay()
    assert board.color_at(Point(3, 5)) is Color.WHITE and board.color_at(Point(2, 6)) is Color.BLACK


def test_last_partial_shard_is_kept(corpus, tmp_path):
    process_games([corpus], tmp_path / "out", encoder="oneplane", size=9, test_fraction=0.0, shard_games=6)
    manifest = load_manifest(tmp_path / "out")
    assert [e["games"] for e in manifest["shards"]] == [6, 6, 1]  # 13 games, none dropped
    assert manifest["totals"]["train"]["positions"] == 120


def test_handicap_game_is_encoded_from_the_position_after_setup():
    state = random_game(9, seed=3, moves=5, handicap=3)
    data = game_to_sgf(state)
    assert b"AB[" in data and b"HA[3]" in data
    record = read_sgf(data)
    x, y = encode_game(data, get_encoder("oneplane", 9), 9)
    assert len(y) == 5
    setup = np.zeros((9, 9), dtype=np.uint8)
    for p in record.setup_black:
        setup[p.row, p.col] = 2  # White to move: Black's handicap stones are the opponent's
    assert np.array_equal(x[0, 0], setup)
    first = record.moves[0]
    assert first.color.name == "WHITE" and y[0] == first.move.point.row * 9 + first.move.point.col


def test_passes_are_labels_only_for_encoders_with_a_pass_class():
    state = GameState.new(9).apply_moves([Move.play(Point(4, 4)), Move.pass_turn(), Move.play(Point(2, 2))])
    data = game_to_sgf(state)
    _, y = encode_game(data, get_encoder("oneplane", 9), 9)
    assert y.tolist() == [40, 20]
    _, y = encode_game(data, get_encoder("zero", 9), 9)
    assert y.tolist() == [40, 81, 20]


def test_moves_after_the_game_ended_by_two_passes_are_left_out():
    # On KGS, players who dispute the score resume after two passes; the game ended there.
    data = b"(;GM[1]FF[4]SZ[9]RU[Japanese];B[ee];W[];B[];W[cc];B[gg])"
    _, y = encode_game(data, get_encoder("zero", 9), 9)
    assert y.tolist() == [40, 81, 81]


def test_a_move_out_of_turn_is_played_after_an_implied_pass():
    x, y = encode_game(b"(;GM[1]FF[4]SZ[9];B[ee];B[cc])", get_encoder("oneplane", 9), 9)
    assert y.tolist() == [40, 20]  # the implied white pass is no example
    # Black's C7 is seen from Black's side, with Black's E5 on the board: one plane, +1 own stones.
    assert x[1][0][4, 4] == 1


def test_stale_files_are_never_picked_up(corpus, tmp_path):
    clean = tmp_path / "clean"
    process_games([corpus], clean, encoder="oneplane", size=9, seed=4, shard_games=5)
    out = tmp_path / "stale"
    out.mkdir()
    junk = np.ones((1024, 1, 9, 9))  # the book's float64 files of an earlier run
    np.save(out / "KGS-2019-train_features_0.npy", junk)
    np.save(out / "KGS-2019-train_labels_0.npy", np.ones(1024))
    np.save(out / "train-00000.features.npy", junk)  # a shard name, but not in any manifest
    (out / "train-00007.labels.npy").write_bytes(b"garbage")
    summary = process_games([corpus], out, encoder="oneplane", size=9, seed=4, shard_games=5)
    assert summary["ignored_files"] == [
        "KGS-2019-train_features_0.npy",
        "KGS-2019-train_labels_0.npy",
        "train-00007.labels.npy",
    ]
    produced = {k: v for k, v in folder_files(out).items() if k not in summary["ignored_files"]}
    assert produced == folder_files(clean)  # the shard-named stale file was overwritten, not used
    x, _ = shard_arrays(out, "train")
    assert x.dtype == np.uint8 and len(x) == load_manifest(clean)["totals"]["train"]["positions"]


def test_resume_redoes_only_missing_or_corrupt_shards(corpus, tmp_path):
    out = tmp_path / "out"
    kw = dict(encoder="oneplane", size=9, seed=5, shard_games=3, test_fraction=0.2)
    first = process_games([corpus], out, **kw)
    before = folder_files(out)
    again = process_games([corpus], out, **kw)
    assert again["shards_made"] == 0 and again["shards_kept"] == first["shards"]
    manifest = load_manifest(out)
    victim = manifest["shards"][1]["files"]["features"]["name"]
    data = bytearray((out / victim).read_bytes())
    data[-1] ^= 1  # same size, other content: only the checksum sees it
    (out / victim).write_bytes(bytes(data))
    (out / manifest["shards"][2]["files"]["labels"]["name"]).unlink()
    (out / ".train-00000.features.npy.abc123.tmp").write_bytes(b"left by a kill")
    third = process_games([corpus], out, **kw)
    assert third["shards_made"] == 2 and sorted(third["shards_redone"]) == sorted(
        [manifest["shards"][1]["name"], manifest["shards"][2]["name"]]
    )
    assert third["removed_temp_files"] == 1 and third["ignored_files"] == []
    assert folder_files(out) == before


def test_a_second_run_on_the_same_folder_is_refused(corpus, tmp_path):
    from fuseki.data.processor import run_folder
    from fuseki.util.runs import RunFolderBusy

    out = tmp_path / "out"
    with run_folder(out).locked(), pytest.raises(RunFolderBusy, match="in use by another run"):
        process_games([corpus], out, encoder="oneplane", size=9, shard_games=3)
    assert not (out / "manifest.json").exists()


def test_another_plan_in_the_same_folder_is_refused(corpus, tmp_path):
    out = tmp_path / "out"
    process_games([corpus], out, encoder="oneplane", size=9, shard_games=3)
    with pytest.raises(RunMismatch, match="encoder differs"):
        process_games([corpus], out, encoder="sevenplane", size=9, shard_games=3)
    with pytest.raises(RunMismatch, match="sample of games differs"):
        process_games([corpus], out, encoder="oneplane", size=9, shard_games=3, seed=1, games=5)


# ---- the command, killed and resumed ----------------------------------------------


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "fuseki", "data", "process", *args]


def test_cli_killed_midway_resumes_to_the_same_shards(tmp_path):
    src = tmp_path / "games"
    write_games(src, 40, size=9, seed=9, moves=30)
    args = ["--encoder", "sevenplane", "--size", "9", "--shard-games", "2", "--test-fraction", "0.2", "--seed", "3",
            "--json"]
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    killed = tmp_path / "killed"
    proc = subprocess.Popen(cli(str(src), "--out", str(killed), "--workers", "1", *args), env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if load_manifest(killed)["shards"]:
                    break
            except ProcessError:
                pass  # no manifest yet
            time.sleep(0.002)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    partial = load_manifest(killed)
    assert not partial["complete"] and 1 <= len(partial["shards"]) < partial["planned_shards"]

    resumed = subprocess.run(cli(str(src), "--out", str(killed), "--workers", "1", *args), env=env,
                             capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout.strip().splitlines()[-1])
    assert summary["complete"] and summary["shards_kept"] >= len(partial["shards"])
    assert summary["shards_made"] == summary["shards"] - summary["shards_kept"] > 0

    # An uninterrupted run, and in two worker processes: the same files, byte for byte.
    whole = tmp_path / "whole"
    straight = process_games([src], whole, encoder="sevenplane", size=9, shard_games=2, test_fraction=0.2, seed=3,
                             workers=2)
    assert straight["workers"] == 2 and straight["complete"]
    assert folder_files(killed) == folder_files(whole)  # manifest, split and every shard


def test_cli_user_errors(tmp_path, capsys):
    from fuseki.cli import main

    assert main(["data", "process", str(tmp_path / "missing"), "--encoder", "oneplane", "--out", str(tmp_path)]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    assert main(["data", "process", str(tmp_path), "--encoder", "nope", "--out", str(tmp_path / "o")]) == 2
    assert "unknown encoder 'nope'" in capsys.readouterr().err


def test_cli_json_summary_is_the_last_line(corpus, tmp_path, capsys):
    from fuseki.cli import main

    out = tmp_path / "out"
    assert main(["data", "process", str(corpus), "--encoder", "oneplane", "--size", "9", "--out", str(out),
                 "--games", "8", "--workers", "1", "--json"]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out.strip().splitlines()[-1])
    assert summary["train_games"] + summary["test_games"] + summary["skipped"] == 8
    assert "shard 1/" in captured.err  # progress goes to stderr
    assert main(["data", "process", str(corpus), "--encoder", "oneplane", "--size", "9", "--out", str(out),
                 "--games", "8", "--workers", "1"]) == 0
    assert "kept from an earlier run" in capsys.readouterr().out


def _copy_with_other_headers(src: Path, dst: Path) -> None:
    """The same game under another name, komi, player and comment: only the moves agree."""
    text = src.read_bytes().decode()
    root_end = text.index(";", text.index(";") + 1)  # the second node starts the moves
    headers = "PB[somebody]PW[somebody else]KM[0.5]C[the same game, filed again]"
    dst.write_bytes((re.sub(r"KM\[[^]]*\]", "", text[:root_end]) + headers + text[root_end:]).encode())


def test_fingerprint_is_the_moves_and_setup_only(tmp_path):
    a = random_game(9, 5, 20)
    (tmp_path / "a.sgf").write_bytes(game_to_sgf(a))
    _copy_with_other_headers(tmp_path / "a.sgf", tmp_path / "a2.sgf")
    first = game_fingerprint(read_game((tmp_path / "a.sgf").read_bytes()))
    assert game_fingerprint(read_game((tmp_path / "a2.sgf").read_bytes())) == first
    b = random_game(9, 5, 19).play(Move.pass_turn())  # the same 19 moves, then something else
    assert game_fingerprint(read_sgf(game_to_sgf(b))) != first
    handicap = GameState.new(9, "chinese", handicap=2).play(Point(4, 4))
    no_handicap = GameState.new(9, "chinese").play(Point(4, 4))
    assert game_fingerprint(read_sgf(game_to_sgf(handicap))) != game_fingerprint(read_sgf(game_to_sgf(no_handicap)))


@pytest.mark.parametrize("workers", [1, 2])
def test_doubles_of_test_games_are_left_out_of_training(tmp_path, workers):
    games = tmp_path / "games"
    paths = write_games(games, 6, size=9, seed=7, moves=15)
    _copy_with_other_headers(paths[0], games / "copy-of-0.sgf")  # a double of the test game
    _copy_with_other_headers(paths[1], games / "copy-of-1.sgf")  # a double of a train game: kept
    test_id = str(paths[0].resolve())
    out = tmp_path / "out"
    summary = process_games(
        [games], out, encoder="oneplane", size=9, test_games=[test_id], workers=workers, shard_games=3
    )
    manifest = load_manifest(out)
    assert manifest["test_doubles"].startswith("left out of training")
    assert summary["skipped_by_kind"] == {"test_double": 1}
    (skip,) = manifest["skipped"]
    assert skip["game"] == str((games / "copy-of-0.sgf").resolve())
    assert skip["reason"] == f"the same moves as test game {test_id}"
    assert summary["test_games"] == 1 and summary["train_games"] == 6  # 5 + the train game's double
    # Every train game's fingerprint differs from the test game's, and it is recorded.
    train = [
        g
        for e in manifest["shards"]
        if e["split"] == "train"
        for g in json.loads((out / e["files"]["games"]["name"]).read_text())["games"]
    ]
    test_print = game_fingerprint(read_game(paths[0].read_bytes()))
    assert len(train) == 6 and all(g["moves_sha256"] != test_print for g in train)


def test_a_folder_made_before_test_doubles_were_left_out_is_refused(corpus, tmp_path):
    out = tmp_path / "out"
    process_games([corpus], out, encoder="oneplane", size=9, test_fraction=0.3, seed=2, shard_games=4)
    manifest = json.loads((out / "manifest.json").read_text())
    del manifest["test_doubles"]
    (out / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(RunMismatch, match="test doubles differs"):
        process_games([corpus], out, encoder="oneplane", size=9, test_fraction=0.3, seed=2, shard_games=4)


def _named(tmp_path: Path, name: str, black: str, white: str, seed: int) -> Path:
    path = tmp_path / name
    text = game_to_sgf(random_game(9, seed, 12)).decode()
    path.write_text(text.replace("(;", f"(;PB[{black}]PW[{white}]", 1))
    return path


@pytest.mark.parametrize("workers", [1, 2])
def test_players_keeps_only_the_matching_players_moves(tmp_path, workers):
    games = tmp_path / "games"
    games.mkdir()
    _named(games, "a.sgf", "GNU Go 3.8 level 10", "GNU Go 3.8 level 1", 1)  # Black's 6 moves
    _named(games, "b.sgf", "GNU Go 3.8 level 2", "GNU Go 3.8 level 9", 2)  # White's 6 moves
    _named(games, "c.sgf", "GNU Go 3.8 level 3", "GNU Go 3.8 level 4", 3)  # neither: skipped
    out = tmp_path / "out"
    summary = process_games(
        [games], out, encoder="oneplane", size=9, test_fraction=0.0, workers=workers, players=r"level (9|10)$"
    )
    assert summary["positions"] == 12 and summary["skipped_by_kind"] == {"players": 1}
    assert load_manifest(out)["players"] == r"level (9|10)$"
    x, y = shard_arrays(out, "train")
    enc = get_encoder("oneplane", 9)
    expected = []
    for name in ("a.sgf", "b.sgf"):
        record = read_sgf((games / name).read_bytes())
        state = record.initial_state()
        for color, move in record.moves:
            mover = record.black if color.letter == "B" else record.white
            if mover.endswith(("level 9", "level 10")):
                expected.append((enc.encode(state), move.point.row * 9 + move.point.col))
            state = state.play(move)
    by_label = sorted((int(label), features.tobytes()) for features, label in zip(x, y))
    assert by_label == sorted((label, f.astype(np.uint8).tobytes()) for f, label in expected)
    # Another pattern is another plan: the folder is refused rather than mixed.
    with pytest.raises(RunMismatch, match="players differs"):
        process_games([games], out, encoder="oneplane", size=9, test_fraction=0.0, players="level 1$")


def test_players_pattern_errors_are_one_line(tmp_path, capsys):
    from fuseki.cli import main

    games = tmp_path / "games"
    games.mkdir()
    _named(games, "a.sgf", "x", "y", 1)
    assert main(["data", "process", str(games), "--encoder", "oneplane", "--size", "9",
                 "--out", str(tmp_path / "o"), "--players", "level (9"]) == 2
    err = capsys.readouterr().err
    assert "bad players pattern 'level (9'" in err and "Traceback" not in err


def test_a_copy_of_the_sources_elsewhere_gives_the_same_split_and_its_test_list(corpus, tmp_path):
    copy = tmp_path / "elsewhere" / "renamed"
    shutil.copytree(corpus, copy)
    a = process_games([corpus], tmp_path / "a", encoder="oneplane", size=9, test_fraction=0.3, seed=2)
    b = process_games([copy], tmp_path / "b", encoder="oneplane", size=9, test_fraction=0.3, seed=2)
    assert a["test_games"] == b["test_games"] > 0
    sa = json.loads((tmp_path / "a" / "split.json").read_text())
    sb = json.loads((tmp_path / "b" / "split.json").read_text())
    assert sa["test_names"] == sb["test_names"] == [Path(g).name for g in sa["test"]]
    assert [Path(g).name for g in sa["train"]] == [Path(g).name for g in sb["train"]]
    # The first run's split file fixes the test set of a run on the copy.
    fixed = process_games(
        [copy], tmp_path / "c", encoder="oneplane", size=9, seed=5, test_games=read_test_list(tmp_path / "a" / "split.json")
    )
    sc = json.loads((tmp_path / "c" / "split.json").read_text())
    assert sc["test_names"] == sa["test_names"] and sc["fixed_test"] and fixed["test_games"] == a["test_games"]


def test_a_fixed_test_list_reports_training_games_that_drawn_splits_hold_out(tmp_path, capsys):
    from fuseki.cli import main

    games = tmp_path / "games"
    write_games(games, 12, size=9, seed=3, moves=8)
    refs = sorted(games.glob("*.sgf"))
    fraction = 0.3
    on_hash_test = [p for p in refs if is_test_game(p.name, fraction)]
    assert 0 < len(on_hash_test) < len(refs) - 1  # the seed gives both kinds
    fixed = next(p for p in refs if p not in on_hash_test)
    listed = tmp_path / "test.txt"
    listed.write_text(fixed.name + "\n")
    out = tmp_path / "out"
    assert main(["data", "process", str(games), "--encoder", "oneplane", "--size", "9", "--test-fraction", str(fraction),
                 "--test-games", str(listed), "--out", str(out), "--json", "--quiet"]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out.strip().splitlines()[-1])
    assert summary["train_games_on_hash_test_side"] == len(on_hash_test)
    assert f"warning: {len(on_hash_test)} of the 11 training games are test games of every drawn split" in captured.err
    # A drawn split never trains on them, and says nothing.
    drawn = process_games([games], tmp_path / "drawn", encoder="oneplane", size=9, test_fraction=fraction)
    assert drawn["train_games_on_hash_test_side"] == 0
