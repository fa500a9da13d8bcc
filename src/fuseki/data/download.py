"""Download game archives into a cache directory: resumable, checked, atomic.

The book's ``KGSIndex.download_files`` fetches each file in one go and keeps
whatever arrived. Here each archive goes through these steps:

1. If ``DIR/NAME`` exists, hash it. If the digest matches the catalog (and the
   expected one, when known), it is a cache hit: no request is made. A file that
   fails the check is downloaded again.
2. Otherwise bytes go to ``DIR/NAME.part``. A ``.part`` left by an interrupted
   run is resumed with an HTTP ``Range`` request (with ``If-Range``, so a file
   changed on the server starts over). Servers that ignore ``Range`` send the
   whole file and we start over.
3. When complete (the size the server announced), the file is checked: the
   format's magic bytes (an HTML error page served as a ``.zip`` is caught), and
   the SHA-256 against the expected one when known. Then it is renamed to
   ``DIR/NAME`` (atomic) and its digest recorded in ``DIR/catalog.json``.

Network errors, timeouts and HTTP 5xx are retried with exponential backoff; an
incomplete transfer resumes from where it stopped. HTTP 4xx fails that archive
at once. A host that cannot be reached at all (DNS failure, connection refused)
raises :class:`OfflineError`, ``cannot reach HOST: ... (offline?)``.

Nothing under the final name is ever partial or unchecked.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any
from urllib.parse import urlsplit

from fuseki import __version__
from fuseki.util.atomic import sha256_file, write_json_atomic
from fuseki.util.errors import FusekiError, InputError

if TYPE_CHECKING:
    from fuseki.data.kgs import Archive

CATALOG_NAME = "catalog.json"
PART_SUFFIX = ".part"
CHUNK = 1 << 16

#: the first bytes of each archive format
MAGIC: dict[str, tuple[bytes, ...]] = {
    "zip": (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08"),
    "tar.gz": (b"\x1f\x8b",),
    "tar.bz2": (b"BZh",),
}


class DataSourceError(FusekiError, OSError):
    """A download or index fetch failed; the message is one line for the user."""


class OfflineError(DataSourceError):
    """The host cannot be reached at all (no network, DNS failure, connection refused)."""


class HTTPStatusError(DataSourceError):
    """The server answered with an HTTP error status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class ChecksumError(DataSourceError):
    """A downloaded file does not have the expected SHA-256 digest (or is not an archive)."""


class NotAnArchiveError(ChecksumError):
    """The server sent something that is not an archive of the expected format (an HTML page, say)."""


class IncompleteError(DataSourceError):
    """The connection closed before the announced size arrived (the ``.part`` file is kept)."""


def default_data_dir() -> Path:
    """Where archives go by default: ``$FUSEKI_DATA_DIR/kgs``, else ``./data/kgs`` (the book's ``data``)."""
    root = os.environ.get("FUSEKI_DATA_DIR")
    return (Path(root).expanduser() if root else Path("data")) / "kgs"


def _user_agent() -> str:
    return f"fuseki/{__version__} (game-record downloader)"


def _host(url: str) -> str:
    parts = urlsplit(url)
    return parts.netloc or parts.path or url


def _unreachable(reason: BaseException) -> bool:
    """Whether a connection error means the host cannot be reached at all."""
    if isinstance(reason, (socket.gaierror, ConnectionRefusedError)):
        return True
    import errno

    return isinstance(reason, OSError) and reason.errno in (
        errno.ENETUNREACH, errno.EHOSTUNREACH, errno.ENETDOWN, errno.EHOSTDOWN, errno.ECONNREFUSED)


def _reason_text(reason: object) -> str:
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror if reason.errno is None else f"[Errno {reason.errno}] {reason.strerror}"
    return str(reason) or type(reason).__name__


def open_url(url: str, *, headers: Mapping[str, str] | None = None, timeout: float = 30.0) -> Any:
    """``urllib.request.urlopen`` with one-line errors.

    Raises :class:`OfflineError` when the host cannot be reached,
    :class:`HTTPStatusError` on an HTTP error status and :class:`DataSourceError`
    on other network errors (including timeouts).
    """
    request = urllib.request.Request(url, headers={"User-Agent": _user_agent(), **(headers or {})})
    try:
        return urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as e:
        e.close()
        raise HTTPStatusError(f"{url}: HTTP {e.code} {e.reason}", e.code) from None
    except urllib.error.URLError as e:
        reason = e.reason
        if urlsplit(url).scheme == "file":
            raise FileNotFoundError(f"no such file: {urllib.request.url2pathname(urlsplit(url).path)}") from None
        if isinstance(reason, BaseException) and _unreachable(reason):
            raise OfflineError(f"cannot reach {_host(url)}: {_reason_text(reason)} (offline?)") from None
        raise DataSourceError(f"{url}: {_reason_text(reason)}") from None
    except (TimeoutError, socket.timeout) as e:
        raise DataSourceError(f"{url}: timed out after {timeout:g} s") from e
    except OSError as e:
        if _unreachable(e):
            raise OfflineError(f"cannot reach {_host(url)}: {_reason_text(e)} (offline?)") from None
        raise DataSourceError(f"{url}: {_reason_text(e)}") from None


def read_url(url: str, *, timeout: float = 30.0) -> tuple[bytes, str, str | None]:
    """The body of ``url``, the final URL (after redirects) and the declared charset."""
    with open_url(url, timeout=timeout) as response:
        try:
            body = response.read()
        except (TimeoutError, socket.timeout):
            raise DataSourceError(f"{url}: timed out after {timeout:g} s") from None
        except OSError as e:
            raise DataSourceError(f"{url}: {_reason_text(e)}") from None
        charset = response.headers.get_content_charset() if hasattr(response.headers, "get_content_charset") else None
        return body, response.geturl() or url, charset


def read_checksums(path: str | os.PathLike[str]) -> dict[str, str]:
    """File name -> SHA-256 from a ``sha256sum``-style file (``HEX  NAME`` or ``HEX *NAME`` lines).

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
    ...     _ = f.write("# comment\\n" + "ab" * 32 + "  dir/KGS-2019.zip\\n")
    >>> read_checksums(f.name)
    {'KGS-2019.zip': 'abababababababababababababababababababababababababababababababab'}
    >>> os.unlink(f.name)
    """
    out: dict[str, str] = {}
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        digest, _, name = line.partition(" ")
        name = name.strip().lstrip("*")
        if len(digest) != 64 or not name or any(c not in "0123456789abcdefABCDEF" for c in digest):
            raise InputError(f"{path}:{number}: expected 'SHA256  FILENAME', got {line[:60]!r}")
        out[name.replace("\\", "/").rsplit("/", 1)[-1]] = digest.lower()
    return out


class Catalog:
    """``DIR/catalog.json``: what is in the cache, with each file's SHA-256 and origin.

    ``{"version": 1, "archives": {NAME: {"sha256", "size", "url", "format", "year",
    "month", "games", "downloaded"}}}``. Written atomically after each file.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.path = Path(directory) / CATALOG_NAME
        self.entries: dict[str, dict[str, Any]] = {}
        if self.path.exists():
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
                self.entries = dict(data.get("archives", {}))
            except (json.JSONDecodeError, AttributeError):
                self.entries = {}  # a damaged catalog only costs re-hashing: files are checked anyway

    def get(self, name: str) -> dict[str, Any] | None:
        return self.entries.get(name)

    def record(self, archive: Archive, sha256: str, size: int) -> None:
        self.entries[archive.filename] = {
            "sha256": sha256,
            "size": size,
            "url": archive.url,
            "format": archive.format,
            "year": archive.year,
            "month": archive.month,
            "games": archive.games,
            "downloaded": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }
        self.save()

    def forget(self, name: str) -> None:
        if self.entries.pop(name, None) is not None:
            self.save()

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_json_atomic(self.path, {"version": 1, "archives": self.entries})


class _Progress:
    """Progress of one file on stderr: tqdm when installed, else a few plain lines."""

    def __init__(self, name: str, total: int | None, start: int, enabled: bool, stream: IO[str]) -> None:
        self.name, self.total, self.done = name, total, start
        self.enabled, self.stream = enabled, stream
        self.bar: Any = None
        self.started = self.last = time.monotonic()
        if not enabled:
            return
        try:
            from tqdm import tqdm
        except ImportError:
            tqdm = None
        if tqdm is not None:
            self.bar = tqdm(total=total, initial=start, unit="B", unit_scale=True, unit_divisor=1024,
                            desc=name, file=stream, leave=False)

    def update(self, n: int) -> None:
        self.done += n
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.update(n)
            return
        now = time.monotonic()
        if now - self.last >= 2.0:
            self.last = now
            percent = f"{100 * self.done / self.total:3.0f}% of {_mb(self.total)}" if self.total else _mb(self.done)
            print(f"  {self.name}: {percent}", file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _mb(n: int | None) -> str:
    return "?" if n is None else f"{n / 1e6:.1f} MB"


@dataclass
class DownloadResult:
    """What happened to one archive."""

    archive: Archive
    path: Path
    status: str  #: ``downloaded``, ``resumed``, ``cached`` or ``failed``
    sha256: str | None = None
    size: int | None = None
    transferred: int = 0  #: bytes received over the network in this run
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.archive.filename, "url": self.archive.url, "path": str(self.path), "status": self.status,
                "sha256": self.sha256, "size": self.size, "transferred": self.transferred, "error": self.error}


@dataclass
class Downloader:
    """Fetches archives into ``directory``; see the module docstring for the steps.

    ``retries`` is the number of extra attempts after a failed one; attempt ``i``
    waits ``backoff * 2**i`` seconds first. ``timeout`` is the socket timeout in
    seconds (connect and each read).
    """

    directory: Path
    timeout: float = 30.0
    retries: int = 3
    backoff: float = 1.0
    progress: bool = True
    stream: IO[str] = field(default_factory=lambda: sys.stderr)
    sleep: Callable[[float], None] = time.sleep

    def __post_init__(self) -> None:
        self.directory = Path(self.directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.catalog = Catalog(self.directory)

    # messages -------------------------------------------------------------
    def _say(self, text: str) -> None:
        if self.progress:
            print(text, file=self.stream, flush=True)

    # one archive ------------------------------------------------------------
    def fetch(self, archive: Archive, expected_sha256: str | None = None) -> DownloadResult:
        """Make sure ``DIR/archive.filename`` holds a checked copy of the archive.

        Returns a result with status ``cached``, ``downloaded``, ``resumed`` or
        ``failed`` (HTTP errors, checksum mismatch, retries exhausted).
        Raises :class:`OfflineError` when the host cannot be reached.
        """
        expected = (expected_sha256 or archive.sha256 or "").lower() or None
        name = archive.filename
        if not name or "/" in name or "\\" in name or name in (".", "..") or name == CATALOG_NAME:
            raise InputError(f"unsafe archive file name: {name!r}")
        final = self.directory / name
        cached = self._check_cached(archive, final, expected)
        if cached is not None:
            return cached

        part = final.with_name(name + PART_SUFFIX)
        transferred = 0
        resumed = False
        last_error: DataSourceError | None = None
        for attempt in range(self.retries + 1):
            if attempt:
                delay = self.backoff * 2 ** (attempt - 1)
                self._say(f"  {name}: {last_error}; retry {attempt}/{self.retries} in {delay:g} s")
                self.sleep(delay)
            try:
                got, was_resumed = self._transfer(archive, part)
                transferred += got
                resumed = resumed or was_resumed
                sha, size = self._verify_part(archive, part, expected)
            except OfflineError:
                if attempt == self.retries:
                    raise
                last_error = DataSourceError(f"cannot reach {_host(archive.url)}")
                continue
            except HTTPStatusError as e:
                if e.status == 416:  # our .part does not fit the file on the server: start over
                    _remove(part)
                    last_error = e
                    continue
                if e.status < 500 and e.status not in (408, 429):
                    return self._failed(archive, final, str(e), transferred)
                last_error = e
                continue
            except NotAnArchiveError as e:  # an HTML page instead of an archive: retrying will not help
                _remove(part)
                return self._failed(archive, final, str(e), transferred)
            except ChecksumError as e:  # a bad transfer (or a bad resume): start over
                _remove(part)
                last_error = e
                continue
            except DataSourceError as e:  # timeouts, resets, incomplete transfers: resume next time
                last_error = e
                continue
            os.replace(part, final)
            _remove(_meta_path(part))
            self.catalog.record(archive, sha, size)
            status = "resumed" if resumed else "downloaded"
            self._say(f"  {name}: {status}, {_mb(size)}, sha256 {sha[:12]}…")
            return DownloadResult(archive, final, status, sha, size, transferred)
        return self._failed(archive, final, str(last_error), transferred)

    def _failed(self, archive: Archive, final: Path, error: str, transferred: int) -> DownloadResult:
        self._say(f"  {archive.filename}: failed: {error}")
        return DownloadResult(archive, final, "failed", transferred=transferred, error=error)

    def _check_cached(self, archive: Archive, final: Path, expected: str | None) -> DownloadResult | None:
        if not final.is_file():
            return None
        entry = self.catalog.get(archive.filename)
        sha = sha256_file(final)
        size = final.stat().st_size
        recorded = entry.get("sha256") if entry else None
        if (recorded is None or sha == recorded) and (expected is None or sha == expected) and _magic_ok(
                final, archive.format):
            if recorded is None:  # a file put there by hand (or by an older run): adopt it
                self.catalog.record(archive, sha, size)
            self._say(f"  {archive.filename}: cached (sha256 ok)")
            return DownloadResult(archive, final, "cached", sha, size)
        want = expected or recorded
        why = f"sha256 {sha[:12]}…, expected {want[:12]}…" if want and sha != want else f"not a {archive.format} file"
        self._say(f"  {archive.filename}: cached copy fails its check ({why}); downloading again")
        _remove(final)
        self.catalog.forget(archive.filename)
        return None

    def _transfer(self, archive: Archive, part: Path) -> tuple[int, bool]:
        """Fill ``part`` with the whole file; returns (bytes received, whether it resumed)."""
        meta_path = _meta_path(part)
        meta: dict[str, Any] = {}
        offset = part.stat().st_size if part.exists() else 0
        if offset:
            try:
                meta = json.loads(meta_path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                meta = {}
        if offset and meta.get("url") == archive.url and meta.get("size") == offset:
            return 0, True  # complete already (the last run stopped before the rename): just check it
        headers: dict[str, str] = {}
        if offset and urlsplit(archive.url).scheme in ("http", "https"):
            headers["Range"] = f"bytes={offset}-"
            validator = meta.get("etag") or meta.get("last_modified")
            if validator and meta.get("url") == archive.url:
                headers["If-Range"] = validator
        response = open_url(archive.url, headers=headers, timeout=self.timeout)
        with response:
            status = getattr(response, "status", None) or 200
            length = response.headers.get("Content-Length")
            length = int(length) if length and length.isdigit() else None
            total: int | None
            if status == 206 and "Range" in headers:
                start, total = _content_range(response.headers.get("Content-Range", ""))
                if start != offset:
                    raise IncompleteError(f"{archive.url}: server resumed at byte {start}, not {offset}")
                if total is None and length is not None:
                    total = offset + length
                mode, resumed = "ab", True
            else:
                offset, total, mode, resumed = 0, length, "wb", False
            write_json_atomic(meta_path, {"url": archive.url, "etag": response.headers.get("ETag"),
                                           "last_modified": response.headers.get("Last-Modified"), "size": total})
            verb = "resuming at " + _mb(offset) if resumed else "downloading"
            self._say(f"  {archive.filename}: {verb} from {_host(archive.url)} ({_mb(total)})")
            progress = _Progress(archive.filename, total, offset, self.progress, self.stream)
            got = 0
            try:
                with open(part, mode) as out:
                    while True:
                        try:
                            block = response.read(CHUNK)
                        except (TimeoutError, socket.timeout):
                            raise IncompleteError(f"{archive.url}: timed out after {self.timeout:g} s") from None
                        except OSError as e:  # connection reset, IncompleteRead
                            raise IncompleteError(f"{archive.url}: {_reason_text(e)}") from None
                        if not block:
                            break
                        out.write(block)
                        got += len(block)
                        progress.update(len(block))
                    out.flush()
                    os.fsync(out.fileno())
            finally:
                progress.close()
        size = part.stat().st_size
        if total is not None and size != total:
            if size > total:
                _remove(part)
            raise IncompleteError(f"{archive.url}: got {size} of {total} bytes")
        return got, resumed

    def _verify_part(self, archive: Archive, part: Path, expected: str | None) -> tuple[str, int]:
        if not _magic_ok(part, archive.format):
            with open(part, "rb") as f:
                head = f.read(64).lstrip().lower()
            what = "an HTML page" if head.startswith((b"<!doctype", b"<html", b"<")) else "something else"
            raise NotAnArchiveError(f"{archive.url}: not a {archive.format} archive (the server sent {what})")
        sha = sha256_file(part)
        if expected is not None and sha != expected:
            raise ChecksumError(f"{archive.filename}: sha256 mismatch: expected {expected}, got {sha}")
        return sha, part.stat().st_size

    # many archives -----------------------------------------------------------
    def fetch_all(self, archives: Sequence[Archive], checksums: Mapping[str, str] | None = None,
                  ) -> list[DownloadResult]:
        """Fetch each archive in turn; raises :class:`OfflineError` at the first unreachable host."""
        results = []
        checksums = checksums or {}
        for i, archive in enumerate(archives, 1):
            self._say(f"[{i}/{len(archives)}] {archive.filename}")
            results.append(self.fetch(archive, checksums.get(archive.filename)))
        return results


def download_archives(archives: Iterable[Archive], directory: str | os.PathLike[str] | None = None, *,
                      checksums: Mapping[str, str] | None = None, **options: Any) -> list[DownloadResult]:
    """Fetch archives into ``directory`` (default :func:`default_data_dir`); options as for :class:`Downloader`."""
    downloader = Downloader(Path(directory) if directory is not None else default_data_dir(), **options)
    return downloader.fetch_all(list(archives), checksums)


def _meta_path(part: Path) -> Path:
    return part.with_name(part.name + ".json")


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


def _magic_ok(path: Path, fmt: str) -> bool:
    magics = MAGIC.get(fmt)
    if not magics:
        return True
    with open(path, "rb") as f:
        head = f.read(4)
    return head.startswith(magics)


def _content_range(value: str) -> tuple[int | None, int | None]:
    """``bytes 100-199/1000`` -> (100, 1000); the total is ``None`` for ``*``."""
    try:
        unit, _, spec = value.strip().partition(" ")
        span, _, total = spec.partition("/")
        start = int(span.split("-")[0])
        return start, (None if total.strip() == "*" else int(total))
    except ValueError:
        return None, None


__all__ = [
    "CATALOG_NAME", "Catalog", "ChecksumError", "DataSourceError", "DownloadResult", "Downloader",
    "HTTPStatusError", "IncompleteError", "NotAnArchiveError", "OfflineError", "default_data_dir",
    "download_archives", "open_url", "read_checksums", "read_url", "sha256_file",
]
