"""The KGS game-record archives: read the index page into a list of :class:`Archive`.

The book (ch. 7, ``KGSIndex``) scrapes one page, ``https://u-go.net/gamerecords/``,
with string splits that break on the first change of markup. Here the page is
read with the standard library's :mod:`html.parser`, and the source is settable:
an ``http(s)://`` URL, a ``file://`` URL or a local path (a saved copy of the
page, a mirror's listing, your own index). Links are resolved against the page's
address (or ``base_url``), so relative and absolute links both work.

What the parser takes from the page, for each link to a ``.zip``, ``.tar.gz``
(``.tgz``) or ``.tar.bz2`` (``.tbz2``) file:

- the URL and the file name;
- the year and month, from the file name (``KGS-2019_04-19-1393-.tar.gz``) or
  else from the table row (``2019-04``);
- the game count, from the file name (the number before the final ``-``), or
  else from the row (``1393 games``, or a cell holding only a number);
- the size, when the link's text or title, or a row with one link, states one
  (``12.3 MB``);
- a SHA-256 digest, when the row holds 64 hex digits.

>>> page = '''<table><tr><td>2019-04</td><td>1393</td>
... <td><a href="/gamerecords/KGS-2019_04-19-1393-.zip">Zip</a></td>
... <td><a href="KGS-2019_04-19-1393-.tar.gz">.tar.gz</a></td></tr></table>'''
>>> [a.url for a in parse_index(page, "https://u-go.net/gamerecords/")]
['https://u-go.net/gamerecords/KGS-2019_04-19-1393-.zip', 'https://u-go.net/gamerecords/KGS-2019_04-19-1393-.tar.gz']
>>> a = parse_index(page, "https://u-go.net/gamerecords/")[1]
>>> (a.filename, a.format, a.year, a.month, a.games)
('KGS-2019_04-19-1393-.tar.gz', 'tar.gz', 2019, 4, 1393)
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit
from urllib.request import pathname2url

from fuseki.data.download import read_url
from fuseki.util.atomic import write_atomic
from fuseki.util.errors import InputError

#: The page the book downloads from (ch. 7, listing 7.1).
DEFAULT_INDEX_URL = "https://u-go.net/gamerecords/"

#: Archive formats, in the order ``select_archives`` prefers them by default
#: (the book fetches the ``.tar.gz`` files).
FORMATS: tuple[str, ...] = ("tar.gz", "zip", "tar.bz2")

#: file-name suffix -> format
_SUFFIXES: tuple[tuple[str, str], ...] = (
    (".tar.gz", "tar.gz"),
    (".tgz", "tar.gz"),
    (".tar.bz2", "tar.bz2"),
    (".tbz2", "tar.bz2"),
    (".tbz", "tar.bz2"),
    (".zip", "zip"),
)

_YEAR_MONTH = re.compile(r"(?<!\d)((?:19|20)\d\d)[-_/.](0?[1-9]|1[0-2])(?!\d)")
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
_GAMES_IN_NAME = re.compile(r"-(\d+)-?$")
_GAMES_IN_TEXT = re.compile(r"(\d[\d,\u00a0 ]*)\s*games?\b", re.IGNORECASE)
_NUMBER_ONLY = re.compile(r"^\d[\d,]*$")
_SIZE = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)?)\s*(bytes|[KMGT]i?B|[KMGT](?![a-z])|B)(?![a-z])", re.IGNORECASE)
_SHA256 = re.compile(r"(?<![0-9a-fA-F])[0-9a-fA-F]{64}(?![0-9a-fA-F])")
_UNITS = {"": 1, "b": 1, "bytes": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}


def archive_format(name: str) -> str | None:
    """The archive format of a file name or URL path, or ``None``.

    >>> archive_format("KGS-2002-19-2360-.TGZ"), archive_format("notes.txt")
    ('tar.gz', None)
    """
    lower = name.lower()
    for suffix, fmt in _SUFFIXES:
        if lower.endswith(suffix):
            return fmt
    return None


def _stem(filename: str) -> str:
    lower = filename.lower()
    for suffix, _ in _SUFFIXES:
        if lower.endswith(suffix):
            return filename[: -len(suffix)]
    return filename


def parse_size(text: str) -> int | None:
    """Bytes in a size such as ``12.3 MB``, ``800K`` or ``4096 bytes`` (binary units), else ``None``.

    >>> parse_size("12 MB"), parse_size("1.5K"), parse_size("2019-04")
    (12582912, 1536, None)
    """
    m = _SIZE.search(text)
    if not m:
        return None
    number = float(m.group(1).replace(",", "."))
    unit = m.group(2).lower()
    unit = unit if unit in ("b", "bytes") else unit[0]
    return int(round(number * _UNITS[unit]))


@dataclass(frozen=True)
class Archive:
    """One downloadable archive of game records, as the index lists it."""

    url: str
    filename: str
    format: str  #: ``zip``, ``tar.gz`` or ``tar.bz2``
    year: int | None = None
    month: int | None = None
    games: int | None = None  #: game count, when the page or the file name states it
    size: int | None = None  #: bytes, when the page states it (often rounded)
    sha256: str | None = None  #: expected digest, when the page (or your index) gives one

    @property
    def key(self) -> str:
        """The file name without its extension: the same month in another format has the same key."""
        return _stem(self.filename)

    @property
    def period(self) -> str:
        """``2019-04``, ``2002`` or ``?``."""
        if self.year is None:
            return "?"
        return f"{self.year}-{self.month:02d}" if self.month else str(self.year)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Archive:
        """Build from :meth:`to_dict`'s output; only ``url`` is required."""
        url = str(data["url"])
        filename = str(data.get("filename") or _filename_of(url))
        fmt = data.get("format") or archive_format(filename)
        if fmt not in FORMATS:
            raise InputError(f"{filename}: not a zip, tar.gz or tar.bz2 archive")

        def opt_int(key: str) -> int | None:
            value = data.get(key)
            return None if value is None else int(value)

        sha = data.get("sha256")
        return cls(url, filename, fmt, opt_int("year"), opt_int("month"), opt_int("games"), opt_int("size"),
                   str(sha).lower() if sha else None)


def _filename_of(url: str) -> str:
    return unquote(urlsplit(url).path.rstrip("/").rsplit("/", 1)[-1])


def _int(text: str) -> int:
    return int(re.sub(r"[^\d]", "", text))


class _IndexParser(HTMLParser):
    """Collects archive links with the text around them.

    A link's context is its table row (``<tr>``), list item (``<li>``), or, outside
    those, the text from the link up to the next line break or link (as in a
    server's directory listing inside ``<pre>``).
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.base: str | None = None
        self.groups: list[tuple[list[dict[str, Any]], list[str]]] = []  # (links, cells)
        self._row: tuple[list[dict[str, Any]], list[str]] | None = None
        self._cell: list[str] | None = None
        self._loose: tuple[list[dict[str, Any]], list[str]] | None = None
        self._link: dict[str, Any] | None = None

    # rows and cells -------------------------------------------------------
    def _close_cell(self) -> None:
        if self._cell is not None and self._row is not None:
            self._row[1].append(" ".join("".join(self._cell).split()))
        self._cell = None

    def _close_row(self) -> None:
        self._close_cell()
        if self._row is not None and self._row[0]:
            self.groups.append(self._row)
        self._row = None

    def _close_loose(self) -> None:
        if self._loose is not None and self._loose[0]:
            self.groups.append(self._loose)
        self._loose = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k.lower(): (v or "") for k, v in attrs}
        if tag == "base" and a.get("href") and self.base is None:
            self.base = a["href"].strip()
        elif tag in ("tr", "li"):
            self._close_loose()
            self._close_row()
            self._row = ([], [])
        elif tag in ("td", "th"):
            self._close_cell()
            if self._row is None:  # a cell without a row: start one
                self._row = ([], [])
            self._cell = []
        elif tag in ("br", "p", "div", "table", "ul", "ol", "hr"):
            self._close_loose()
        elif tag == "a":
            href = a.get("href", "").strip()
            self._link = {"href": href, "title": a.get("title", ""), "text": []}
            if self._row is None:
                self._close_loose()
                self._loose = ([], [])

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag == "a":
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th"):
            self._close_cell()
        elif tag in ("tr", "li", "table", "ul", "ol"):
            self._close_row()
            self._close_loose()
        elif tag == "a" and self._link is not None:
            link, self._link = self._link, None
            link["text"] = " ".join("".join(link["text"]).split())
            group = self._row if self._row is not None else self._loose
            if group is not None and archive_format(urlsplit(link["href"]).path or link["href"]):
                group[0].append(link)

    def handle_data(self, data: str) -> None:
        if self._link is not None:
            self._link["text"].append(data)
        if self._cell is not None:
            self._cell.append(data)
        elif self._row is not None:
            self._row[1].append(" ".join(data.split()))
        elif self._loose is not None:
            before, newline, _ = data.partition("\n")
            self._loose[1].append(" ".join(before.split()))
            if newline and self._link is None:
                self._close_loose()

    def close(self) -> None:
        super().close()
        if self._link is not None:
            self.handle_endtag("a")
        self._close_row()
        self._close_loose()


def _archive_from(link: dict[str, Any], cells: list[str], base_url: str, alone: bool) -> Archive | None:
    url = urljoin(base_url, link["href"]) if base_url else link["href"]
    filename = _filename_of(url)
    fmt = archive_format(filename)
    if not filename or fmt is None:
        return None
    stem = _stem(filename)
    context = " ".join(c for c in cells if c)

    year = month = None
    for text in (stem, context):  # the file name wins over the row (which may hold a modification date)
        m = _YEAR_MONTH.search(text)
        if m is not None:
            year, month = int(m.group(1)), int(m.group(2))
            break
        m = _YEAR.search(text)
        if m is not None:
            year = int(m.group(1))
            break

    games = None
    m = _GAMES_IN_NAME.search(stem)
    if m is not None and (stem.endswith("-") or stem.upper().startswith("KGS")) and int(m.group(1)) != year:
        games = int(m.group(1))  # KGS names: KGS-2019_04-19-1393- (board size, then the game count)
    if games is None:
        m = _GAMES_IN_TEXT.search(context)
        if m is not None:
            games = _int(m.group(1))
    if games is None:
        numbers = [c for c in cells if _NUMBER_ONLY.match(c) and _int(c) != year]
        if len(numbers) == 1:
            games = _int(numbers[0])

    size = parse_size(link["title"])
    if size is None and link["text"] != filename:
        size = parse_size(link["text"])
    if size is None and alone:
        size = parse_size(" ".join(c for c in cells if c != link["text"]))

    sha = None
    shas = _SHA256.findall(" ".join([link["title"], context]))
    if len(set(shas)) == 1 and alone:
        sha = shas[0].lower()
    return Archive(url, filename, fmt, year, month, games, size, sha)


def parse_index(html: str, base_url: str = "") -> list[Archive]:
    """Every archive linked from an index page, in page order, each URL once.

    ``base_url`` resolves relative links (a ``<base href>`` in the page wins).
    Links to anything but zip/tar.gz/tar.bz2 files are skipped.
    """
    parser = _IndexParser()
    parser.feed(html)
    parser.close()
    if parser.base:
        base_url = urljoin(base_url, parser.base) if base_url else parser.base
    seen: set[str] = set()
    out: list[Archive] = []
    for links, cells in parser.groups:
        for link in links:
            archive = _archive_from(link, cells, base_url, alone=len(links) == 1)
            if archive is not None and archive.url not in seen:
                seen.add(archive.url)
                out.append(archive)
    return out


def is_url(source: str) -> bool:
    """Whether ``source`` is a URL (``http``, ``https`` or ``file``) rather than a local path."""
    return urlsplit(source).scheme.lower() in ("http", "https", "file")


def path_to_url(path: str | os.PathLike[str]) -> str:
    """A ``file://`` URL for a local path (a directory's ends with ``/``)."""
    p = Path(path).expanduser().resolve()
    url = "file://" + pathname2url(str(p))
    return url + "/" if p.is_dir() and not url.endswith("/") else url


def read_index_source(source: str = DEFAULT_INDEX_URL, *, timeout: float = 30.0) -> tuple[str, str]:
    """The text of an index page and the URL that relative links resolve against.

    ``source`` is an ``http(s)://`` or ``file://`` URL or a local path. Raises
    :class:`fuseki.data.download.DataSourceError` (offline, HTTP errors) or
    ``FileNotFoundError``.
    """
    if is_url(source):
        data, final_url, charset = read_url(source, timeout=timeout)
        return data.decode(charset or "utf-8", errors="replace"), final_url
    path = Path(source).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"no such index file: {source}")
    return path.read_bytes().decode("utf-8", errors="replace"), path_to_url(path)


def load_index(source: str = DEFAULT_INDEX_URL, *, base_url: str | None = None, timeout: float = 30.0) -> list[Archive]:
    """Read and parse an index page (URL or local file); see :func:`parse_index`.

    A JSON index written by :func:`save_index` is read as such.
    """
    text, page_url = read_index_source(source, timeout=timeout)
    if text.lstrip().startswith("{"):
        return archives_from_json(json.loads(text))
    return parse_index(text, base_url if base_url is not None else page_url)


def select_archives(
    archives: Iterable[Archive],
    *,
    formats: Sequence[str] = FORMATS,
    since: int | None = None,
    until: int | None = None,
    max_archives: int | None = None,
    max_games: int | None = None,
) -> list[Archive]:
    """One archive per key (month), in the first of ``formats`` that the index offers.

    Keeps years in ``[since, until]`` (archives without a year are kept only when
    neither bound is set), newest first, then at most ``max_archives`` of them,
    and stops once the stated game counts reach ``max_games``.

    >>> a = [Archive("u/K-2019_04-19-9-.zip", "K-2019_04-19-9-.zip", "zip", 2019, 4, 9),
    ...      Archive("u/K-2019_04-19-9-.tar.gz", "K-2019_04-19-9-.tar.gz", "tar.gz", 2019, 4, 9),
    ...      Archive("u/K-2018_01-19-5-.zip", "K-2018_01-19-5-.zip", "zip", 2018, 1, 5)]
    >>> [x.filename for x in select_archives(a)]
    ['K-2019_04-19-9-.tar.gz', 'K-2018_01-19-5-.zip']
    >>> [x.filename for x in select_archives(a, formats=["zip"], since=2019)]
    ['K-2019_04-19-9-.zip']
    """
    rank = {fmt: i for i, fmt in enumerate(formats)}
    best: dict[str, Archive] = {}
    order: list[str] = []
    for archive in archives:
        if archive.format not in rank:
            continue
        if since is not None or until is not None:
            if archive.year is None:
                continue
            if since is not None and archive.year < since or until is not None and archive.year > until:
                continue
        held = best.get(archive.key)
        if held is None:
            order.append(archive.key)
            best[archive.key] = archive
        elif rank[archive.format] < rank[held.format]:
            best[archive.key] = archive
    chosen = [best[k] for k in order]
    chosen.sort(key=lambda a: (a.year is not None, a.year or 0, a.month or 0), reverse=True)  # stable
    if max_archives is not None:
        chosen = chosen[:max_archives]
    if max_games is not None:
        kept, total = [], 0
        for archive in chosen:
            if total >= max_games:
                break
            kept.append(archive)
            total += archive.games or 0
        chosen = kept
    return chosen


def rebase(archives: Iterable[Archive], mirror: str) -> list[Archive]:
    """The same archives fetched from a mirror: ``mirror`` + file name.

    ``mirror`` is a URL or a local directory.

    >>> a = Archive("https://dl.u-go.net/gamerecords/K-2019.zip", "K-2019.zip", "zip", 2019)
    >>> rebase([a], "http://127.0.0.1:8000/kgs")[0].url
    'http://127.0.0.1:8000/kgs/K-2019.zip'
    """
    base = mirror if is_url(mirror) else path_to_url(mirror)
    if not base.endswith("/"):
        base += "/"
    return [replace(a, url=urljoin(base, a.filename)) for a in archives]


def index_to_json(archives: Sequence[Archive], source: str) -> dict[str, Any]:
    """The JSON form of an index: ``{"source", "count", "games", "archives": [...]}``."""
    return {
        "source": source,
        "count": len(archives),
        "games": sum(a.games or 0 for a in archives),
        "archives": [a.to_dict() for a in archives],
    }


def archives_from_json(data: Any) -> list[Archive]:
    """Archives from :func:`index_to_json`'s output or from a bare list of archive dicts."""
    items = data.get("archives") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise InputError("a JSON index holds an object with an 'archives' list")
    return [Archive.from_dict(item) for item in items]


def save_index(path: str | os.PathLike[str], archives: Sequence[Archive], source: str) -> None:
    """Write the index as JSON (atomically), for ``fuseki data download --index``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, (json.dumps(index_to_json(archives, source), indent=1) + "\n").encode("utf-8"))


def read_index_file(path: str | os.PathLike[str]) -> list[Archive]:
    """Archives from a JSON index file written by :func:`save_index`."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: not a JSON index ({e.msg} at line {e.lineno})") from None
    return archives_from_json(data)
