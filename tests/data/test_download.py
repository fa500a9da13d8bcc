"""The downloader against a local HTTP server on 127.0.0.1 (no internet needed).

The server serves an index page and zip / tar.gz archives of small SGF files,
all made by the test, supports HTTP Range and ETag/If-Range, counts requests,
and can be told to fail (status codes), drop a connection half-way, or stall.
"""

from __future__ import annotations

import hashlib
import io
import json
import socket
import tarfile
import threading
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from fuseki.cli import main
from fuseki.data import kgs
from fuseki.data.download import (
    CATALOG_NAME,
    Catalog,
    Downloader,
    OfflineError,
    read_checksums,
    sha256_file,
)

SGF = "(;GM[1]FF[4]SZ[19]KM[6.5]PB[b{i}]PW[w{i}];B[pd];W[dp];B[pp];W[dd])"


def make_zip(n: int) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for i in range(n):
            z.writestr(f"kgs/2019/04/game{i}.sgf", SGF.format(i=i))
    return buf.getvalue()


def make_targz(n: int) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        for i in range(n):
            data = SGF.format(i=i).encode()
            info = tarfile.TarInfo(f"kgs/game{i}.sgf")
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


@dataclass
class Site:
    """What the test server serves, and what it saw."""

    files: dict[str, bytes] = field(default_factory=dict)
    requests: list[tuple[str, str | None]] = field(default_factory=list)  # (path, Range header)
    fail: dict[str, list[int]] = field(default_factory=dict)  # path -> statuses to answer first
    drop_after: dict[str, int] = field(default_factory=dict)  # path -> bytes sent before hanging up (once)
    stall: dict[str, float] = field(default_factory=dict)  # path -> seconds to wait before answering
    ranges: bool = True
    base: str = ""

    def url(self, path: str) -> str:
        return self.base + path

    def hits(self, path: str) -> int:
        return sum(p == path for p, _ in self.requests)


def _handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # keep test output clean
            pass

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            path = self.path.split("?")[0]
            site.requests.append((path, self.headers.get("Range")))
            if path in site.stall:
                time.sleep(site.stall[path])
            if site.fail.get(path):
                status = site.fail[path].pop(0)
                self.send_error(status)
                return
            if path.endswith("/"):
                path += "index.html"
            body = site.files.get(path)
            if body is None:
                self.send_error(404)
                return
            etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
            start = 0
            rng = self.headers.get("Range")
            if_range = self.headers.get("If-Range")
            if site.ranges and rng and rng.startswith("bytes=") and (if_range is None or if_range == etag):
                start = int(rng[6:].split("-")[0])
                if start >= len(body):
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{len(body)}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
            else:
                self.send_response(200)
            kind = "text/html; charset=utf-8" if path.endswith(".html") else "application/octet-stream"
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body) - start))
            self.send_header("ETag", etag)
            if site.ranges:
                self.send_header("Accept-Ranges", "bytes")
            self.end_headers()
            payload = body[start:]
            if path in site.drop_after:
                payload = payload[: site.drop_after.pop(path)]
                self.close_connection = True
            try:
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (the timeout test)
                self.close_connection = True

    return Handler


@pytest.fixture
def site() -> Iterator[Site]:
    """A ThreadingHTTPServer on 127.0.0.1, ephemeral port, in a thread."""
    s = Site()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(s))
    server.daemon_threads = True
    server.block_on_close = False
    s.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield s
    server.shutdown()
    server.server_close()


ZIP_A, TGZ_A = make_zip(3), make_targz(3)
ZIP_B, TGZ_B = make_zip(2), make_targz(2)
NAME_A, NAME_B = "KGS-2019_04-19-3-", "KGS-2018_12-19-2-"

INDEX = f"""<!DOCTYPE html><html><head><title>Game records</title></head><body>
<table class="table">
<tr><th>Year-Month</th><th>Games</th><th colspan="2">Download</th></tr>
<tr><td>2019-04</td><td>3</td>
  <td><a href="../dl/{NAME_A}.zip">Zip</a></td><td><a href="/dl/{NAME_A}.tar.gz">.tar.gz</a></td></tr>
<tr><td>2018-12</td><td>2</td>
  <td><a href="../dl/{NAME_B}.zip">Zip</a></td><td><a href="/dl/{NAME_B}.tar.gz">.tar.gz</a></td></tr>
</table></body></html>"""


@pytest.fixture
def kgs_site(site: Site) -> Site:
    site.files.update({
        "/gamerecords/index.html": INDEX.encode(),
        f"/dl/{NAME_A}.zip": ZIP_A, f"/dl/{NAME_A}.tar.gz": TGZ_A,
        f"/dl/{NAME_B}.zip": ZIP_B, f"/dl/{NAME_B}.tar.gz": TGZ_B,
    })
    return site


def archive_at(site: Site, name: str, data: bytes | None = None) -> kgs.Archive:
    if data is not None:
        site.files["/dl/" + name] = data
    return kgs.Archive(site.url("/dl/" + name), name, kgs.archive_format(name) or "zip", 2019, 4, 3)


def downloader(tmp_path: Path, **kw: object) -> Downloader:
    options: dict = {"retries": 2, "backoff": 0.0, "timeout": 5.0, "progress": False}
    options.update(kw)
    return Downloader(tmp_path / "cache", **options)


def unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- download, cache ----------------------------------------------------------------------------

def test_index_then_download_zip_and_targz(kgs_site: Site, tmp_path: Path) -> None:
    archives = kgs.load_index(kgs_site.url("/gamerecords/"))
    assert [a.url for a in archives][:2] == [kgs_site.url(f"/dl/{NAME_A}.zip"), kgs_site.url(f"/dl/{NAME_A}.tar.gz")]
    chosen = kgs.select_archives(archives, formats=["zip", "tar.gz"])
    chosen = [chosen[0], kgs.select_archives(archives)[1]]  # one zip, one tar.gz
    results = downloader(tmp_path).fetch_all(chosen)
    assert [r.status for r in results] == ["downloaded", "downloaded"]
    zip_path, tgz_path = (r.path for r in results)
    assert zip_path.name == f"{NAME_A}.zip" and tgz_path.name == f"{NAME_B}.tar.gz"
    assert zip_path.read_bytes() == ZIP_A and tgz_path.read_bytes() == TGZ_B
    with zipfile.ZipFile(zip_path) as z:
        assert len(z.namelist()) == 3
    with tarfile.open(tgz_path) as t:
        assert len(t.getnames()) == 2
    catalog = json.loads((tmp_path / "cache" / CATALOG_NAME).read_text())["archives"]
    assert catalog[zip_path.name]["sha256"] == hashlib.sha256(ZIP_A).hexdigest() == results[0].sha256
    assert catalog[tgz_path.name]["games"] == 2 and catalog[tgz_path.name]["year"] == 2018
    assert not list((tmp_path / "cache").glob("*.part*"))


def test_cache_hit_makes_no_request(site: Site, tmp_path: Path) -> None:
    archive = archive_at(site, "KGS-2019_04-19-3-.zip", ZIP_A)
    d = downloader(tmp_path)
    assert d.fetch(archive).status == "downloaded"
    assert site.hits("/dl/KGS-2019_04-19-3-.zip") == 1
    again = downloader(tmp_path).fetch(archive)  # a new run reads the catalog
    assert again.status == "cached" and again.transferred == 0 and again.sha256 == hashlib.sha256(ZIP_A).hexdigest()
    assert site.hits("/dl/KGS-2019_04-19-3-.zip") == 1


def test_a_file_put_in_the_cache_by_hand_is_adopted(site: Site, tmp_path: Path) -> None:
    archive = archive_at(site, "own.tar.gz", TGZ_A)
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "own.tar.gz").write_bytes(TGZ_A)
    assert downloader(tmp_path).fetch(archive).status == "cached"
    assert site.requests == []
    assert Catalog(tmp_path / "cache").get("own.tar.gz")["sha256"] == hashlib.sha256(TGZ_A).hexdigest()


def test_corrupt_cached_file_is_downloaded_again(site: Site, tmp_path: Path) -> None:
    archive = archive_at(site, "a.zip", ZIP_A)
    d = downloader(tmp_path)
    path = d.fetch(archive).path
    path.write_bytes(ZIP_A[:-10] + b"x" * 10)  # bit rot after the download
    result = downloader(tmp_path).fetch(archive)
    assert result.status == "downloaded" and path.read_bytes() == ZIP_A
    assert site.hits("/dl/a.zip") == 2


# --- resume -----------------------------------------------------------------------------------------

def test_resume_a_part_file_with_range(site: Site, tmp_path: Path) -> None:
    data = TGZ_A
    archive = archive_at(site, "a.tar.gz", data)
    cache = tmp_path / "cache"
    cache.mkdir()
    half = len(data) // 2
    (cache / "a.tar.gz.part").write_bytes(data[:half])
    result = downloader(tmp_path).fetch(archive)
    assert result.status == "resumed" and result.transferred == len(data) - half
    assert site.requests == [("/dl/a.tar.gz", f"bytes={half}-")]
    assert (cache / "a.tar.gz").read_bytes() == data
    assert not (cache / "a.tar.gz.part").exists() and not (cache / "a.tar.gz.part.json").exists()


def test_dropped_connection_is_resumed_on_retry(site: Site, tmp_path: Path) -> None:
    data = make_zip(40)
    archive = archive_at(site, "big.zip", data)
    site.drop_after["/dl/big.zip"] = len(data) // 3
    result = downloader(tmp_path).fetch(archive)
    assert result.status == "resumed"
    assert [r for _, r in site.requests] == [None, f"bytes={len(data) // 3}-"]
    assert result.path.read_bytes() == data


def test_a_file_changed_on_the_server_is_fetched_whole(site: Site, tmp_path: Path) -> None:
    """If-Range: the saved ETag no longer matches, so the server sends the whole new file."""
    archive = archive_at(site, "a.zip", ZIP_A)
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "a.zip.part").write_bytes(ZIP_B[:50])
    (cache / "a.zip.part.json").write_text(json.dumps({"url": archive.url, "etag": '"old"'}))
    result = downloader(tmp_path).fetch(archive)
    assert result.status == "downloaded" and result.path.read_bytes() == ZIP_A
    assert site.requests == [("/dl/a.zip", "bytes=50-")]


def test_a_server_without_range_support_sends_everything(site: Site, tmp_path: Path) -> None:
    site.ranges = False
    archive = archive_at(site, "a.zip", ZIP_A)
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "a.zip.part").write_bytes(b"garbage that is not the start of the file")
    result = downloader(tmp_path).fetch(archive)
    assert result.status == "downloaded" and result.path.read_bytes() == ZIP_A


# --- checksums ---------------------------------------------------------------------------------------

def test_checksum_mismatch_fails_and_leaves_nothing(site: Site, tmp_path: Path) -> None:
    archive = archive_at(site, "a.zip", ZIP_A)
    result = downloader(tmp_path, retries=1).fetch(archive, expected_sha256="0" * 64)
    assert result.status == "failed" and "sha256 mismatch" in result.error
    assert site.hits("/dl/a.zip") == 2  # retried once from scratch
    assert not (tmp_path / "cache" / "a.zip").exists() and not (tmp_path / "cache" / "a.zip.part").exists()


def test_expected_checksum_passes_and_is_checked_on_reuse(site: Site, tmp_path: Path) -> None:
    archive = archive_at(site, "a.zip", ZIP_A)
    good = hashlib.sha256(ZIP_A).hexdigest()
    assert downloader(tmp_path).fetch(archive, expected_sha256=good.upper()).status == "downloaded"
    assert downloader(tmp_path).fetch(archive, expected_sha256=good).status == "cached"
    # a checksum list that disagrees with the cached copy: it is fetched again (and still disagrees)
    again = downloader(tmp_path, retries=0).fetch(archive, expected_sha256="1" * 64)
    assert again.status == "failed" and not (tmp_path / "cache" / "a.zip").exists()


def test_an_html_page_served_as_an_archive_is_rejected(site: Site, tmp_path: Path) -> None:
    archive = archive_at(site, "a.tar.gz", b"<!DOCTYPE html><html>Please log in to the hotel wifi</html>")
    result = downloader(tmp_path).fetch(archive)
    assert result.status == "failed" and "not a tar.gz archive" in result.error and "HTML" in result.error
    assert site.hits("/dl/a.tar.gz") == 1 and not (tmp_path / "cache" / "a.tar.gz").exists()


# --- server errors, timeouts, offline ---------------------------------------------------------------------

def test_404_fails_at_once(site: Site, tmp_path: Path) -> None:
    archive = archive_at(site, "missing.zip")
    result = downloader(tmp_path).fetch(archive)
    assert result.status == "failed" and "HTTP 404" in result.error
    assert site.hits("/dl/missing.zip") == 1


def test_500_is_retried_then_succeeds(site: Site, tmp_path: Path) -> None:
    archive = archive_at(site, "a.zip", ZIP_A)
    site.fail["/dl/a.zip"] = [500, 503]
    waits: list[float] = []
    result = downloader(tmp_path, backoff=0.5, sleep=waits.append).fetch(archive)
    assert result.status == "downloaded" and site.hits("/dl/a.zip") == 3
    assert waits == [0.5, 1.0]  # exponential backoff


def test_500_forever_fails_after_the_retries(site: Site, tmp_path: Path) -> None:
    archive = archive_at(site, "a.zip", ZIP_A)
    site.fail["/dl/a.zip"] = [500] * 10
    result = downloader(tmp_path, retries=2).fetch(archive)
    assert result.status == "failed" and "HTTP 500" in result.error and site.hits("/dl/a.zip") == 3


def test_a_stalled_server_times_out(site: Site, tmp_path: Path) -> None:
    archive = archive_at(site, "a.zip", ZIP_A)
    site.stall["/dl/a.zip"] = 1.0
    result = downloader(tmp_path, retries=0, timeout=0.2).fetch(archive)
    assert result.status == "failed" and "timed out" in result.error


def test_connection_refused_is_a_clear_offline_error(tmp_path: Path) -> None:
    port = unused_port()
    archive = kgs.Archive(f"http://127.0.0.1:{port}/a.zip", "a.zip", "zip")
    with pytest.raises(OfflineError, match=rf"^cannot reach 127\.0\.0\.1:{port}: .*refused.* \(offline\?\)$"):
        downloader(tmp_path, retries=1).fetch(archive)
    assert not list((tmp_path / "cache").glob("a.zip*"))


def test_a_local_directory_works_as_a_mirror(tmp_path: Path) -> None:
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / f"{NAME_A}.tar.gz").write_bytes(TGZ_A)
    archive = kgs.Archive(f"https://dl.u-go.net/gamerecords/{NAME_A}.tar.gz", f"{NAME_A}.tar.gz", "tar.gz")
    [moved] = kgs.rebase([archive], str(mirror))
    assert moved.url.startswith("file://")
    result = downloader(tmp_path).fetch(moved)
    assert result.status == "downloaded" and result.path.read_bytes() == TGZ_A


def test_progress_goes_to_stderr(site: Site, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    archive = archive_at(site, "a.zip", ZIP_A)
    downloader(tmp_path, progress=True).fetch_all([archive])
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "[1/1] a.zip" in captured.err and "downloading from 127.0.0.1" in captured.err


def test_read_checksums_rejects_bad_lines(tmp_path: Path) -> None:
    path = tmp_path / "SHA256SUMS"
    path.write_text("not-a-digest  a.zip\n")
    with pytest.raises(ValueError, match="SHA256SUMS:1"):
        read_checksums(path)


# --- the command line -------------------------------------------------------------------------------------

def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict, str]:
    code = main(["data", "download", *argv])
    captured = capsys.readouterr()
    lines = captured.out.strip().splitlines()
    return code, (json.loads(lines[-1]) if lines and lines[-1].startswith("{") else {}), captured.err


def test_cli_end_to_end_json(kgs_site: Site, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cache = str(tmp_path / "kgs")
    args = ["--url", kgs_site.url("/gamerecords/"), "--dir", cache, "--json", "--quiet"]
    code, data, _ = run_cli(capsys, *args)
    assert code == 0
    assert (data["downloaded"], data["cached"], data["failed"], data["games"]) == (2, 0, 0, 5)
    assert [a["file"] for a in data["archives"]] == [f"{NAME_A}.tar.gz", f"{NAME_B}.tar.gz"]  # the book's format
    assert data["transferred"] == len(TGZ_A) + len(TGZ_B)
    hits = len(kgs_site.requests)
    code, data, _ = run_cli(capsys, *args, "--format", "tar.gz")
    assert code == 0 and (data["downloaded"], data["cached"]) == (0, 2)
    assert len(kgs_site.requests) == hits + 1  # only the index page
    code, data, _ = run_cli(capsys, *args, "--format", "zip", "--since", "2019", "--max-archives", "1")
    assert code == 0 and [a["file"] for a in data["archives"]] == [f"{NAME_A}.zip"]
    sha = sha256_file(Path(cache) / f"{NAME_A}.zip")
    assert data["archives"][0]["sha256"] == sha


def test_cli_saved_index_checksums_and_failures(kgs_site: Site, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    index = tmp_path / "index.json"
    assert main(["data", "kgs-index", "--url", kgs_site.url("/gamerecords/"), "--out", str(index), "--json"]) == 0
    capsys.readouterr()
    sums = tmp_path / "SHA256SUMS"
    sums.write_text(f"{hashlib.sha256(TGZ_A).hexdigest()}  {NAME_A}.tar.gz\n{'0' * 64}  {NAME_B}.tar.gz\n")
    code, data, err = run_cli(capsys, "--index", str(index), "--dir", str(tmp_path / "c"), "--checksums", str(sums),
                              "--retries", "0", "--json")
    assert code == 1  # one archive failed
    assert (data["downloaded"], data["failed"]) == (1, 1)
    assert "sha256 mismatch" in data["archives"][1]["error"]
    assert f"failed: {NAME_B}.tar.gz: " in err
    assert not (tmp_path / "c" / f"{NAME_B}.tar.gz").exists()


def test_cli_dry_run_fetches_nothing(kgs_site: Site, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, data, _ = run_cli(capsys, "--url", kgs_site.url("/gamerecords/"), "--dir", str(tmp_path / "c"),
                            "--max-games", "1", "--dry-run", "--json")
    assert code == 0 and data["dry_run"] and [a["filename"] for a in data["archives"]] == [f"{NAME_A}.tar.gz"]
    assert [p for p, _ in kgs_site.requests] == ["/gamerecords/"]


def test_cli_offline_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    port = unused_port()
    code = main(["data", "download", "--url", f"http://127.0.0.1:{port}/gamerecords/", "--dir", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert err[0].startswith("fuseki data: error: cannot read the index: cannot reach 127.0.0.1:")
    assert err[0].endswith("(offline?)")


def test_cli_offline_during_downloads(site: Site, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    port = unused_port()
    site.files["/gamerecords/index.html"] = f'<a href="http://127.0.0.1:{port}/{NAME_A}.zip">zip</a>'.encode()
    code = main(["data", "download", "--url", site.url("/gamerecords/"), "--dir", str(tmp_path), "--retries", "0",
                 "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].endswith("(offline?)") and f"127.0.0.1:{port}" in err[0]


def test_cli_http_error_on_the_index(site: Site, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["data", "download", "--url", site.url("/nothing/"), "--dir", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "HTTP 404" in err[0]


@pytest.mark.parametrize("argv, message", [
    (["--max-archives", "0"], "must be at least 1"),
    (["--since", "twenty"], "is not a whole number"),
    (["--format", "rar"], "invalid choice"),
    (["--retries", "-1"], "must be at least 0"),
])
def test_cli_bad_flags_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["data", "download", *argv])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err.strip().splitlines()[-1]


@pytest.mark.parametrize("extra, message", [
    (["--since", "2019", "--until", "2010"], "--since 2019 is after --until 2010"),
    (["--checksums", "/no/such/file"], "no such checksum file"),
    (["--index", "/no/such/index.json"], "no such index file"),
    (["--timeout", "0"], "--timeout must be positive"),
])
def test_cli_bad_values_are_one_line(extra: list[str], message: str, kgs_site: Site, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["data", "download", "--dir", str(tmp_path), *extra]
    if "--index" not in extra:
        argv += ["--url", kgs_site.url("/gamerecords/")]
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and message in err[0]


def test_a_complete_part_file_is_checked_without_a_request(site: Site, tmp_path: Path) -> None:
    """The last run stopped between the last byte and the rename: no need to ask the server again."""
    archive = archive_at(site, "a.zip", ZIP_A)
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "a.zip.part").write_bytes(ZIP_A)
    (cache / "a.zip.part.json").write_text(json.dumps({"url": archive.url, "size": len(ZIP_A)}))
    result = downloader(tmp_path).fetch(archive)
    assert result.status == "resumed" and result.transferred == 0 and site.requests == []
    assert result.path.read_bytes() == ZIP_A


def test_cli_index_and_url_together_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["data", "download", "--index", str(tmp_path / "i.json"), "--url", "http://127.0.0.1:9/"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err == ["fuseki data: error: give --index or --url, not both"]
