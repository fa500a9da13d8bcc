"""Where games come from: SGF files, folders of them, and archives.

A *source* is a path: one ``.sgf`` file, a folder (searched recursively, for
``.sgf`` files and for archives), or an archive -- ``.zip``, ``.tar.gz`` /
``.tgz``, ``.tar.bz2`` / ``.tbz2``, ``.tar.xz`` / ``.txz`` or a plain ``.tar`` (the KGS
archives are ``.tar.bz2`` and ``.tar.gz``, the fox-9d collection ``.tar.xz``). Every game has a stable id:

- a file on disk: its absolute path, ``/data/games/a.sgf``;
- a member of an archive: ``ARCHIVE!MEMBER``, e.g.
  ``/data/KGS-2019_04-19-1255-.tar.bz2!KGS-2019_04-19-1255-/2019-04-01-1.sgf``.

Every game also has a *portable name*, the part of its id that does not
depend on where the source lies: a file's path inside the folder given as the
source (``games/a.sgf``), an archive member after the archive's path inside
that folder or, for an archive given itself, after its file name
(``KGS-2019_04-19-1255-.tar.bz2!KGS-2019_04-19-1255-/2019-04-01-1.sgf``).
The train/test split and the order of a seeded draw hash the portable name
(``fuseki.data.sampler``), so a copy of the same games elsewhere, on this
machine or another, gives the same sample.

Games are listed in a deterministic order (sources in the order given; inside
each, names sorted), so a sample drawn from the list by seed is the same on
every run and every machine. Nothing is extracted to disk: members are read
into memory, so a hostile archive (``../`` names, links) cannot write
anywhere; links and other non-regular members are not games.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "b.sgf").write_bytes(b"(;SZ[9];B[ee])")
>>> _ = (folder / "a.sgf").write_bytes(b"(;SZ[9])")
>>> [pathlib.Path(ref.id).name for ref in list_games([folder])]
['a.sgf', 'b.sgf']
>>> [data for _, data in read_games(list_games([folder]))]
[b'(;SZ[9])', b'(;SZ[9];B[ee])']
"""

from __future__ import annotations

import os
import tarfile
import zipfile
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fuseki.util.errors import FusekiError

__all__ = [
    "ARCHIVE_SUFFIXES",
    "DEFAULT_MAX_BYTES",
    "GameReader",
    "GameRef",
    "SourceError",
    "is_archive",
    "iter_games",
    "list_games",
    "read_games",
    "split_id",
]

#: File name endings read as archives (lower case).
ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tbz", ".tar.xz", ".txz", ".tar")
#: Games larger than this are skipped by default: a real game record is a few
#: KB; a multi-megabyte "SGF" is a collection or junk, and reading it would
#: only cost memory.
DEFAULT_MAX_BYTES = 1 << 20
#: Separates an archive's path from a member's name in a game id.
SEPARATOR = "!"


class SourceError(FusekiError, ValueError):
    """A source that does not exist or cannot be read as SGF files or an archive."""


@dataclass(frozen=True, order=True)
class GameRef:
    """One game in a source: its stable id, its size in bytes (as stored) and its portable name.

    The id says where the game is (absolute paths), so it changes when the
    source moves; ``name`` (empty means: the id) does not, which is why the
    split and the draw hash it.
    """

    id: str
    bytes: int
    name: str = field(default="", compare=False)

    @property
    def portable(self) -> str:
        """The portable name, or the id for a ref made without one."""
        return self.name or self.id

    @property
    def archive(self) -> str | None:
        """The archive's path, or ``None`` for a file on disk."""
        return split_id(self.id)[0]


def split_id(game_id: str) -> tuple[str | None, str]:
    """``"ARCHIVE!MEMBER"`` -> ``(ARCHIVE, MEMBER)``; a plain path -> ``(None, path)``.

    >>> split_id("/d/x.zip!games/1.sgf")
    ('/d/x.zip', 'games/1.sgf')
    >>> split_id("/d/1.sgf")
    (None, '/d/1.sgf')
    """
    # The archive part ends with an archive suffix, so the first "!" after one
    # is the separator even if a folder name holds a "!".
    lower = game_id.lower()
    start = 0
    while True:
        cut = game_id.find(SEPARATOR, start)
        if cut < 0:
            return None, game_id
        if lower[:cut].endswith(ARCHIVE_SUFFIXES):
            return game_id[:cut], game_id[cut + 1 :]
        start = cut + 1


def is_archive(path: str | os.PathLike[str]) -> bool:
    """Does the name end like an archive we read?"""
    return str(path).lower().endswith(ARCHIVE_SUFFIXES)


def _is_sgf_name(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    # "._x.sgf" are macOS resource forks, "__MACOSX/" their folder: not games.
    return base.lower().endswith(".sgf") and not base.startswith("._") and "__MACOSX/" not in name


def _size_ok(size: int, min_bytes: int, max_bytes: int | None) -> bool:
    return size >= min_bytes and (max_bytes is None or size <= max_bytes)


# ---- listing ----------------------------------------------------------------


def list_games(
    sources: Iterable[str | os.PathLike[str]],
    *,
    min_bytes: int = 1,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
) -> list[GameRef]:
    """Every game in ``sources``, in a deterministic order, without duplicates.

    Games whose stored size is outside ``[min_bytes, max_bytes]`` are left
    out (``max_bytes=None``: no upper limit). A source that does not exist, or
    an archive that cannot be read, raises :class:`SourceError`.
    """
    refs: list[GameRef] = []
    seen: set[str] = set()
    for source in sources:
        path = Path(source)
        if not path.exists():
            raise SourceError(f"no such file or folder: {source}")
        for ref in _list_source(path.resolve(), min_bytes, max_bytes):
            if ref.id not in seen:
                seen.add(ref.id)
                refs.append(ref)
    return refs


def _list_source(path: Path, min_bytes: int, max_bytes: int | None) -> Iterator[GameRef]:
    """The games of one source; portable names are relative to a folder, else the file's name."""
    if path.is_dir():
        found = []
        for folder, dirs, files in os.walk(path, followlinks=False):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            found.extend(Path(folder) / f for f in files if not f.startswith("."))
        for file in sorted(found, key=lambda p: p.relative_to(path).as_posix()):
            portable = file.relative_to(path).as_posix()
            if is_archive(file.name):
                yield from _list_archive(file, min_bytes, max_bytes, portable)
            elif _is_sgf_name(file.name):
                size = file.stat().st_size
                if _size_ok(size, min_bytes, max_bytes):
                    yield GameRef(str(file), size, portable)
    elif is_archive(path.name):
        yield from _list_archive(path, min_bytes, max_bytes, path.name)
    else:  # one file: taken as SGF whatever its name, since the user named it
        size = path.stat().st_size
        if _size_ok(size, min_bytes, max_bytes):
            yield GameRef(str(path), size, path.name)


def _list_archive(path: Path, min_bytes: int, max_bytes: int | None, portable: str) -> Iterator[GameRef]:
    members: list[tuple[str, int]] = []
    try:
        if path.name.lower().endswith(".zip"):
            with zipfile.ZipFile(path) as zf:
                members = [(i.filename, i.file_size) for i in zf.infolist() if not i.is_dir()]
        else:
            with tarfile.open(path, "r:*") as tf:
                members = [(m.name, m.size) for m in tf if m.isfile()]
    except (OSError, EOFError, zipfile.BadZipFile, tarfile.TarError) as e:
        raise SourceError(f"cannot read archive {path}: {e}") from None
    for name, size in sorted(members):
        if _is_sgf_name(name) and _size_ok(size, min_bytes, max_bytes):
            yield GameRef(f"{path}{SEPARATOR}{name}", size, f"{portable}{SEPARATOR}{name}")


# ---- reading ----------------------------------------------------------------


def read_games(refs: Sequence[GameRef] | Iterable[GameRef]) -> Iterator[tuple[str, bytes]]:
    """``(id, raw bytes)`` for each game of ``refs``, in the order given.

    Members of one archive are read in one pass over it (a compressed tar
    cannot be read at random), so ``refs`` should keep an archive's games
    together where it can; a zip is read at random either way.
    """
    pending: list[GameRef] = list(refs)
    i = 0
    while i < len(pending):
        archive = pending[i].archive
        if archive is None:
            ref = pending[i]
            try:
                data = Path(ref.id).read_bytes()
            except OSError as e:
                raise SourceError(f"cannot read {ref.id}: {e}") from None
            yield ref.id, data
            i += 1
            continue
        j = i
        while j < len(pending) and pending[j].archive == archive:
            j += 1
        yield from _read_archive(archive, [split_id(r.id)[1] for r in pending[i:j]])
        i = j


def _read_archive(archive: str, names: list[str]) -> Iterator[tuple[str, bytes]]:
    try:
        if archive.lower().endswith(".zip"):
            with zipfile.ZipFile(archive) as zf:
                for name in names:
                    yield f"{archive}{SEPARATOR}{name}", zf.read(name)
            return
        wanted = set(names)
        queue = deque(names)
        found: dict[str, bytes] = {}
        with tarfile.open(archive, "r:*") as tf:
            for member in tf:
                if member.name in wanted and member.isfile() and member.name not in found:
                    f = tf.extractfile(member)
                    assert f is not None
                    found[member.name] = f.read()
                    # Yield what we can, in order, as soon as we can.
                    while queue and queue[0] in found:
                        name = queue.popleft()
                        yield f"{archive}{SEPARATOR}{name}", found.pop(name)
        if queue:
            raise SourceError(f"{archive} has no member {queue[0]!r} (has it changed?)")
    except KeyError as e:  # zip member missing
        raise SourceError(f"{archive} has no member {e} (has it changed?)") from None
    except (OSError, EOFError, zipfile.BadZipFile, tarfile.TarError) as e:
        raise SourceError(f"cannot read archive {archive}: {e}") from None


class GameReader:
    """Read games by id, in any order, each archive opened once.

    Files are read when asked for, zip members at random. A tar (compressed
    or not) cannot be read at random, so the first game asked for from a tar
    makes one pass over it that keeps every *wanted* member of that tar in
    memory until it is read. Use it as a context manager.
    """

    def __init__(self, wanted: Iterable[str]) -> None:
        self._wanted: dict[str, set[str]] = {}
        for game_id in wanted:
            archive, member = split_id(game_id)
            if archive is not None and not archive.lower().endswith(".zip"):
                self._wanted.setdefault(archive, set()).add(member)
        self._zips: dict[str, zipfile.ZipFile] = {}
        self._tar_members: dict[str, dict[str, bytes]] = {}

    def read(self, game_id: str) -> bytes:
        archive, member = split_id(game_id)
        try:
            if archive is None:
                return Path(member).read_bytes()
            if archive.lower().endswith(".zip"):
                zf = self._zips.get(archive)
                if zf is None:
                    zf = self._zips[archive] = zipfile.ZipFile(archive)
                return zf.read(member)
            members = self._tar_members.get(archive)
            if members is None:
                members = self._tar_members[archive] = self._load_tar(archive, self._wanted.get(archive, {member}))
            return members.pop(member)
        except KeyError:
            raise SourceError(f"{archive} has no member {member!r} (has it changed?)") from None
        except (OSError, EOFError, zipfile.BadZipFile, tarfile.TarError) as e:
            raise SourceError(f"cannot read {game_id}: {e}") from None

    @staticmethod
    def _load_tar(archive: str, wanted: set[str]) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        with tarfile.open(archive, "r:*") as tf:
            for m in tf:
                if m.name in wanted and m.isfile() and m.name not in found:
                    f = tf.extractfile(m)
                    assert f is not None
                    found[m.name] = f.read()
        return found

    def close(self) -> None:
        for zf in self._zips.values():
            zf.close()
        self._zips.clear()
        self._tar_members.clear()

    def __enter__(self) -> GameReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def iter_games(
    sources: Iterable[str | os.PathLike[str]],
    *,
    min_bytes: int = 1,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
) -> Iterator[tuple[str, bytes]]:
    """``(id, raw bytes)`` for every game in ``sources`` (see :func:`list_games`)."""
    return read_games(list_games(sources, min_bytes=min_bytes, max_bytes=max_bytes))
