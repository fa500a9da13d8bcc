"""Game sources: files, folders, archives; stable ids; deterministic order; size filter."""

from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path

import pytest

from fuseki.data.sources import GameReader, GameRef, SourceError, is_archive, iter_games, list_games, read_games, split_id

GAMES = {
    "b/2.sgf": b"(;GM[1]SZ[9];B[ee])",
    "a.sgf": b"(;GM[1]SZ[9];B[cc];W[gg])",
    "b/1.sgf": b"(;GM[1]SZ[9])",
    "c/d/3.SGF": b"(;GM[1]SZ[9];B[aa])",
}
ORDER = ["a.sgf", "b/1.sgf", "b/2.sgf", "c/d/3.SGF"]


def make_folder(root: Path) -> Path:
    for name, data in GAMES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    (root / "notes.txt").write_text("not a game")
    (root / ".hidden.sgf").write_bytes(b"(;)")
    (root / ".git").mkdir()
    (root / ".git" / "x.sgf").write_bytes(b"(;)")
    return root


def make_tar(path: Path, mode: str) -> Path:
    with tarfile.open(path, mode) as tf:
        for name in reversed(list(GAMES)):  # stored out of order on purpose
            info = tarfile.TarInfo(f"games/{name}")
            info.size = len(GAMES[name])
            tf.addfile(info, io.BytesIO(GAMES[name]))
        link = tarfile.TarInfo("games/link.sgf")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        tf.addfile(link)
    return path


def make_zip(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name in reversed(list(GAMES)):
            zf.writestr(f"games/{name}", GAMES[name])
        zf.writestr("__MACOSX/games/._a.sgf", b"junk")
        zf.writestr("games/readme.txt", b"text")
    return path


def test_folder_is_recursive_sorted_and_skips_hidden_and_other_files(tmp_path):
    root = make_folder(tmp_path / "sgf")
    refs = list_games([root])
    assert [Path(r.id).relative_to(root.resolve()).as_posix() for r in refs] == ORDER
    assert all(Path(r.id).is_absolute() and r.archive is None for r in refs)
    assert [r.bytes for r in refs] == [len(GAMES[n]) for n in ORDER]
    assert [data for _, data in iter_games([root])] == [GAMES[n] for n in ORDER]


@pytest.mark.parametrize(
    "suffix,mode",
    [(".tar.gz", "w:gz"), (".tgz", "w:gz"), (".tar.bz2", "w:bz2"), (".tar.xz", "w:xz"), (".txz", "w:xz"), (".tar", "w")],
)
def test_tar_archives(tmp_path, suffix, mode):
    archive = make_tar(tmp_path / f"kgs{suffix}", mode)
    refs = list_games([archive])
    assert [split_id(r.id) for r in refs] == [(str(archive.resolve()), f"games/{n}") for n in ORDER]
    assert [r.id for r in refs][0] == f"{archive.resolve()}!games/a.sgf"
    assert [data for _, data in read_games(refs)] == [GAMES[n] for n in ORDER]


def test_zip_archive_skips_macos_forks_and_non_sgf(tmp_path):
    archive = make_zip(tmp_path / "games.zip")
    refs = list_games([archive])
    assert [split_id(r.id)[1] for r in refs] == [f"games/{n}" for n in ORDER]
    assert [data for _, data in read_games(refs)] == [GAMES[n] for n in ORDER]


def test_read_games_keeps_the_given_order_across_archives_and_files(tmp_path):
    tar = make_tar(tmp_path / "a.tar.bz2", "w:bz2")
    zipped = make_zip(tmp_path / "b.zip")
    single = tmp_path / "single.sgf"
    single.write_bytes(b"(;SZ[9])")
    refs = list_games([zipped, single, tar])
    assert [r.archive for r in refs][:4] == [str(zipped.resolve())] * 4  # sources in the order given
    shuffled = refs[::-1]
    assert [game_id for game_id, _ in read_games(shuffled)] == [r.id for r in shuffled]


def test_folder_holding_archives_expands_them_and_duplicates_are_dropped(tmp_path):
    root = tmp_path / "downloads"
    root.mkdir()
    make_tar(root / "kgs.tar.gz", "w:gz")
    (root / "own.sgf").write_bytes(b"(;SZ[9])")
    refs = list_games([root, root / "own.sgf"])
    assert len(refs) == 5
    assert refs[-1].id == str((root / "own.sgf").resolve())
    assert sum(r.archive is not None for r in refs) == 4


def test_size_filter(tmp_path):
    root = make_folder(tmp_path / "sgf")
    (root / "big.sgf").write_bytes(b"(;SZ[9]" + b";B[aa];W[bb]" * 100 + b")")
    (root / "empty.sgf").write_bytes(b"")
    names = {Path(r.id).name for r in list_games([root], max_bytes=100)}
    assert "big.sgf" not in names and "empty.sgf" not in names and "a.sgf" in names
    assert "big.sgf" in {Path(r.id).name for r in list_games([root], max_bytes=None)}
    assert {Path(r.id).name for r in list_games([root], min_bytes=20)} == {"a.sgf", "big.sgf"}


def test_split_id_handles_bang_in_folder_names():
    assert split_id("/x/we!rd/a.tar.gz!g/1.sgf") == ("/x/we!rd/a.tar.gz", "g/1.sgf")
    assert split_id("/x/we!rd/a.sgf") == (None, "/x/we!rd/a.sgf")
    assert GameRef("/a.zip!b.sgf", 3).archive == "/a.zip"
    assert is_archive("X.TAR.BZ2") and not is_archive("x.sgf")


def test_errors(tmp_path):
    with pytest.raises(SourceError, match="no such file"):
        list_games([tmp_path / "missing"])
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(b"this is not gzip")
    with pytest.raises(SourceError, match="cannot read archive"):
        list_games([bad])
    archive = make_zip(tmp_path / "g.zip")
    ghost = GameRef(f"{archive.resolve()}!games/ghost.sgf", 1)
    with pytest.raises(SourceError, match="no member"):
        list(read_games([ghost]))


def test_game_reader_reads_any_order_from_files_zips_and_tars(tmp_path):
    tar = make_tar(tmp_path / "a.tar.gz", "w:gz")
    zipped = make_zip(tmp_path / "b.zip")
    root = make_folder(tmp_path / "sgf")
    refs = list_games([tar, zipped, root])
    expected = dict(read_games(refs))
    order = [r.id for r in refs][::3] + [r.id for r in refs][1::3] + [r.id for r in refs][2::3]
    with GameReader(order) as reader:
        assert [reader.read(g) for g in order] == [expected[g] for g in order]
        with pytest.raises(SourceError, match="no member"):
            reader.read(f"{zipped.resolve()}!games/ghost.sgf")


def test_portable_names_leave_out_where_the_source_lies(tmp_path):
    folder = tmp_path / "deep" / "games"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "a.sgf").write_bytes(b"(;SZ[9])")
    with tarfile.open(folder / "pack.tar.gz", "w:gz") as tf:
        tf.add(folder / "sub" / "a.sgf", arcname="in/b.sgf")
    refs = list_games([folder])
    assert [r.portable for r in refs] == ["pack.tar.gz!in/b.sgf", "sub/a.sgf"]
    assert all(r.id.startswith(str(folder)) for r in refs)
    assert [r.portable for r in list_games([folder / "pack.tar.gz", folder / "sub" / "a.sgf"])] == ["pack.tar.gz!in/b.sgf", "a.sgf"]
