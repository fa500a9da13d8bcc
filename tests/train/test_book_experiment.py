"""The book's move-prediction experiment (`fuseki train book`): outputs, the table, resume, errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "data"))
from sgf_corpus import write_games  # noqa: E402

from fuseki.cli import main  # noqa: E402
from fuseki.train.book_experiment import BOOK_ROWS, format_results, run_book_experiment, shards_folder  # noqa: E402


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("book-corpus")
    write_games(folder, 20, size=7, seed=5, moves=20)
    return folder


def test_rows_cover_the_books_listings_and_figures() -> None:
    listings = {row.listing for row in BOOK_ROWS}
    assert {"6.14", "6.25-6.26", "7.21-7.22", "7.27", "7.28", "8.9"} <= listings
    figures = {row.key: row.book_test_top1 for row in BOOK_ROWS}
    # The two real test figures the book prints (ch. 6); ch. 7's 84.6 % is on training data, so it has none.
    assert figures["fc"] == pytest.approx(0.0236) and figures["cnn"] == pytest.approx(0.083)
    assert figures["small-sgd"] is None


def test_experiment_writes_results_and_resumes(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "book"
    events: list[dict] = []
    results = run_book_experiment(
        corpus, out, size=7, rows=["fc", "small-adadelta"], max_epochs=1, max_batches=2, seed=3, progress=events.append
    )
    assert [r["row"] for r in results] == ["fc", "small-adadelta"]
    assert all(r["epochs"] == 1 and r["book_epochs"] > 1 for r in results)
    assert {"process", "processed", "row", "start", "epoch"} <= {e["event"] for e in events}
    saved = json.loads((out / "results.json").read_text())
    assert saved["data"]["encoders"] == ["oneplane"] and saved["data"]["board_size"] == 7
    assert saved["data"]["train_games"] + saved["data"]["test_games"] == 20
    table = (out / "results.md").read_text()
    assert "| 6.14 | `fc` | oneplane | sgd, 64 | 1 (15) |" in table and "`small` | oneplane | adadelta, 128" in table
    assert (out / "curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # Run again with one more epoch allowed: the finished epoch is kept, only the new one is trained.
    events.clear()
    again = run_book_experiment(
        corpus, out, size=7, rows=["fc"], max_epochs=2, max_batches=2, seed=3, progress=events.append
    )
    starts = [e for e in events if e["event"] == "start"]
    assert starts and starts[0]["start_epoch"] == 1 and starts[0]["resumed"]
    assert again[0]["history"][0] == results[0]["history"][0]
    assert len(again[0]["history"]) == 2


def test_rows_with_other_encoders_train_on_the_same_games(corpus: Path, tmp_path: Path) -> None:
    # Listing 8.9 trains `large` on the seven-plane encoder; section 7.4 offers sevenplane and simple.
    rows = {row.key: row for row in BOOK_ROWS}
    assert rows["large-adadelta"].encoder == "sevenplane" and rows["small-simple"].encoder == "simple"
    out = tmp_path / "book"
    results = run_book_experiment(
        corpus, out, size=7, rows=["small-adadelta", "small-sevenplane"], max_epochs=1, max_batches=1, seed=3,
        test_fraction=0.25,
    )
    assert [r["encoder"] for r in results] == ["oneplane", "sevenplane"]
    one = json.loads((shards_folder(out, "oneplane") / "split.json").read_text())
    seven = json.loads((shards_folder(out, "sevenplane") / "split.json").read_text())
    assert one == seven and len(one["train"]) + len(one["test"]) == 20  # the same games and split for both
    assert json.loads((shards_folder(out, "sevenplane") / "manifest.json").read_text())["feature_shape"] == [7, 7, 7]
    assert results[0]["train_positions"] == results[1]["train_positions"]
    assert "| `small` | sevenplane | adadelta, 128 |" in (out / "results.md").read_text()


def test_format_results_shows_the_books_figure_beside_ours() -> None:
    row = {
        "listing": "6.14", "network": "fc", "optimizer": "sgd", "batch_size": 64, "epochs": 15, "book_epochs": 15,
        "final": {"train_top1": 0.5, "test_top1": 0.25, "test_top5": 0.5}, "best_test_top1": {"epoch": 3, "test_top1": 0.3},
        "seconds": 12.0, "book_data": "9×9", "book_result": "test accuracy 2.36%",
    }
    text = format_results([row])
    assert "| 50.0% | 25.0% | 50.0% | 30.0% (3) | 12 s | 9×9 | test accuracy 2.36% |" in text


def test_command_rejects_an_unknown_row(corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["train", "book", str(corpus), "--out", str(tmp_path / "b"), "--rows", "fc,huge", "--size", "7"])
    err = capsys.readouterr().err
    assert code == 2 and "unknown row 'huge'" in err and "Traceback" not in err


def test_command_prints_the_table(corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["train", "book", str(corpus), "--out", str(tmp_path / "b"), "--rows", "fc", "--size", "7",
         "--max-epochs", "1", "--max-batches", "1", "--quiet", "--json"]
    )
    assert code == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert [r["row"] for r in result["rows"]] == ["fc"] and "history" not in result["rows"][0]
