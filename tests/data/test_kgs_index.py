"""Parsing the KGS archive index: the book's page, saved copies, mirrors' listings, odd markup."""

from __future__ import annotations

import functools
import json
import socket
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from fuseki.cli import main
from fuseki.data import kgs
from fuseki.data.kgs import Archive, parse_index, select_archives

# A saved copy of a page laid out like https://u-go.net/gamerecords/ (a table,
# one row per month, three formats per row, year-only rows for the early years),
# with the links made relative as a "save page as" or a mirror leaves them.
SAVED_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>u-go.net &ndash; Game records</title>
  <link href="../static/css/bootstrap.min.css" rel="stylesheet">
</head>
<body>
<nav class="navbar"><a class="brand" href="/">u-go.net</a> <a href="/about/">About</a></nav>
<div class="container">
  <h1>KGS Archives</h1>
  <p>The archives contain all games played on KGS in which either one player is 7 dan or
     stronger, or both are 6 dan. Download the <a href="../static/readme.txt">readme</a>.</p>
  <table class="table table-striped table-condensed">
    <thead>
      <tr><th>Year-Month</th><th># Games</th><th colspan="3">Download</th></tr>
    </thead>
    <tbody>
      <tr>
        <td>2019-04</td>
        <td>1393</td>
        <td><a href="dl/KGS-2019_04-19-1393-.zip">Zip</a></td>
        <td><a href="dl/KGS-2019_04-19-1393-.tar.gz">.tar.gz</a></td>
        <td><a href="dl/KGS-2019_04-19-1393-.tar.bz2">.tar.bz2</a></td>
      </tr>
      <tr>
        <td>2019-03</td>
        <td>1,542</td>
        <td><a href="/gamerecords/dl/KGS-2019_03-19-1542-.zip">Zip</a></td>
        <td><a href="/gamerecords/dl/KGS-2019_03-19-1542-.tar.gz">.tar.gz</a></td>
        <td><a href="/gamerecords/dl/KGS-2019_03-19-1542-.tar.bz2">.tar.bz2</a></td>
      </tr>
      <tr>
        <td>2018-12</td>
        <td>1488</td>
        <td><a href="https://dl.u-go.net/gamerecords/KGS-2018_12-19-1488-.zip">Zip</a></td>
        <td><a href="https://dl.u-go.net/gamerecords/KGS-2018_12-19-1488-.tar.gz">.tar.gz</a></td>
        <td><a href="https://dl.u-go.net/gamerecords/KGS-2018_12-19-1488-.tar.bz2">.tar.bz2</a></td>
      </tr>
      <tr>
        <td>2002</td>
        <td>2360</td>
        <td><a href="dl/KGS-2002-19-2360-.zip">Zip</a></td>
        <td><a href="dl/KGS-2002-19-2360-.tar.gz">.tar.gz</a></td>
        <td><a href="dl/KGS-2002-19-2360-.tar.bz2">.tar.bz2</a></td>
      </tr>
    </tbody>
  </table>
</div>
<footer><a href="https://www.gokgs.com/">KGS</a></footer>
</body>
</html>
"""

BASE = "https://u-go.net/gamerecords/"


def test_saved_page_with_relative_and_absolute_links() -> None:
    archives = parse_index(SAVED_PAGE, BASE)
    assert len(archives) == 12
    assert {a.format for a in archives} == {"zip", "tar.gz", "tar.bz2"}
    first = archives[1]
    assert first == Archive(BASE + "dl/KGS-2019_04-19-1393-.tar.gz", "KGS-2019_04-19-1393-.tar.gz", "tar.gz",
                            2019, 4, 1393)
    assert archives[3].url == "https://u-go.net/gamerecords/dl/KGS-2019_03-19-1542-.zip"
    assert archives[6].url == "https://dl.u-go.net/gamerecords/KGS-2018_12-19-1488-.zip"
    assert [(a.period, a.games) for a in archives[::3]] == [("2019-04", 1393), ("2019-03", 1542),
                                                            ("2018-12", 1488), ("2002", 2360)]
    assert archives[9].month is None
    assert not any("readme" in a.url or "css" in a.url for a in archives)


def test_the_row_supplies_what_the_file_name_lacks() -> None:
    page = """<table><tr><td>2017-11</td><td>945</td><td><a href="nov.zip">Zip</a></td>
              <td><a href="nov.tgz">tgz</a></td></tr>
              <tr><td>March 2016: 12 games</td><td><a href="a/b/c.tar.bz2" title="3.5 MB">bz2</a></td></tr></table>"""
    a, b, c = parse_index(page, "http://mirror.example/x/")
    assert (a.filename, a.year, a.month, a.games, a.format) == ("nov.zip", 2017, 11, 945, "zip")
    assert (b.format, b.key) == ("tar.gz", "nov")
    assert (c.url, c.year, c.month, c.games, c.size) == ("http://mirror.example/x/a/b/c.tar.bz2", 2016, None, 12,
                                                         int(3.5 * 1024**2))


def test_markup_variations() -> None:
    """Upper case, unquoted attributes, unclosed cells and rows, entities, spaces, a <base>."""
    page = """<HTML><HEAD><BASE HREF="http://files.example/kgs/"></HEAD><BODY>
    <TABLE>
    <TR><TD>2010-01<TD>100<TD><A HREF=KGS-2010_01-19-100-.zip>Zip</A>
    <TR><TD>2010-02<TD>200<TD><a href = " KGS-2010_02-19-200-.tar.gz?dl=1&amp;x=2 ">get</a>
    <tr><td>2010-03</td><td><a href="KGS-2010_03-19-300-.ZIP"/></td></tr>
    </TABLE>
    <a href="KGS-2010_01-19-100-.zip">the same link again</a>
    <a href="notes.html">not an archive</a> <a>no href</a> <a href="">empty</a>
    </BODY></HTML>"""
    archives = parse_index(page, "http://ignored.example/")
    assert [a.url for a in archives] == [
        "http://files.example/kgs/KGS-2010_01-19-100-.zip",
        "http://files.example/kgs/KGS-2010_02-19-200-.tar.gz?dl=1&x=2",
        "http://files.example/kgs/KGS-2010_03-19-300-.ZIP",
    ]
    assert [a.filename for a in archives] == ["KGS-2010_01-19-100-.zip", "KGS-2010_02-19-200-.tar.gz",
                                              "KGS-2010_03-19-300-.ZIP"]
    assert [(a.month, a.games, a.format) for a in archives] == [(1, 100, "zip"), (2, 200, "tar.gz"), (3, 300, "zip")]


def test_a_directory_listing() -> None:
    """A web server's listing (what a plain mirror shows): sizes, and dates that are not the archive's month."""
    page = """<html><head><title>Index of /kgs</title></head><body><h1>Index of /kgs</h1><pre>
<a href="../">../</a>
<a href="KGS-2003-19-7080-.tar.gz">KGS-2003-19-7080-.tar.gz</a>            2019-05-01 12:00   12M
<a href="KGS-2004_07-19-2215-.zip">KGS-2004_07-19-2215-.zip</a>            2019-05-01 12:01  3.5K
<a href="KGS%202005.zip">KGS 2005.zip</a>                  2019-05-01 12:02  812
<a href="SHA256SUMS">SHA256SUMS</a>
</pre></body></html>"""
    archives = parse_index(page, "http://127.0.0.1:8000/kgs/")
    assert [(a.filename, a.year, a.month, a.games, a.size) for a in archives] == [
        ("KGS-2003-19-7080-.tar.gz", 2003, None, 7080, 12 * 1024**2),
        ("KGS-2004_07-19-2215-.zip", 2004, 7, 2215, 3584),
        ("KGS 2005.zip", 2005, None, None, None),
    ]


def test_a_list_with_sizes_and_checksums() -> None:
    digest = "ab" * 32
    page = f"""<ul><li><a href="/a/KGS-2011_05-19-50-.zip">May 2011</a> (1.2 MB) sha256: {digest}</li>
               <li><a href="/a/other.tar.gz">other</a> 40 games, 900 KB</li></ul>"""
    a, b = parse_index(page, "http://h/")
    assert (a.size, a.sha256, a.games) == (int(1.2 * 1024**2), digest, 50)
    assert (b.size, b.games, b.year) == (900 * 1024, 40, None)


def test_nothing_to_find() -> None:
    assert parse_index("", BASE) == []
    assert parse_index("<html><body><p>Moved to <a href='https://elsewhere/'>here</a>", BASE) == []


def test_select_archives_prefers_a_format_and_filters() -> None:
    archives = parse_index(SAVED_PAGE, BASE)
    assert [a.filename for a in select_archives(archives)] == [
        "KGS-2019_04-19-1393-.tar.gz", "KGS-2019_03-19-1542-.tar.gz", "KGS-2018_12-19-1488-.tar.gz",
        "KGS-2002-19-2360-.tar.gz"]
    only_zip = [a for a in archives if a.format == "zip" and a.year != 2019]
    mixed = select_archives(archives[:3] + only_zip, formats=["tar.bz2", "tar.gz", "zip"])
    assert [a.format for a in mixed] == ["tar.bz2", "zip", "zip"]  # falls back where bz2 is missing
    assert [a.period for a in select_archives(archives, since=2018, until=2018)] == ["2018-12"]
    assert [a.period for a in select_archives(archives, max_archives=2)] == ["2019-04", "2019-03"]
    assert [a.games for a in select_archives(archives, max_games=2000)] == [1393, 1542]
    assert select_archives(archives, formats=["zip"], since=2030) == []
    shuffled = [archives[9], archives[0], archives[6]]
    assert [a.period for a in select_archives(shuffled)] == ["2019-04", "2018-12", "2002"]  # newest first


def test_json_round_trip(tmp_path: Path) -> None:
    archives = parse_index(SAVED_PAGE, BASE)
    path = tmp_path / "sub" / "index.json"
    kgs.save_index(path, archives, BASE)
    assert kgs.read_index_file(path) == archives
    assert kgs.load_index(str(path)) == archives
    data = json.loads(path.read_text())
    assert (data["source"], data["count"]) == (BASE, 12)
    with pytest.raises(ValueError, match="not a zip"):
        Archive.from_dict({"url": "http://h/readme.txt"})


def test_a_local_file_resolves_relative_links_to_files(tmp_path: Path) -> None:
    page = tmp_path / "gamerecords.html"
    page.write_text(SAVED_PAGE)
    archives = kgs.load_index(str(page))
    assert archives[0].url == (tmp_path / "dl" / "KGS-2019_04-19-1393-.zip").resolve().as_uri()
    assert kgs.load_index(page.as_uri()) == archives
    with_base = kgs.load_index(str(page), base_url="http://mirror.example/kgs/")
    assert with_base[0].url == "http://mirror.example/kgs/dl/KGS-2019_04-19-1393-.zip"
    with pytest.raises(FileNotFoundError):
        kgs.load_index(str(tmp_path / "missing.html"))


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """The saved page served over HTTP from 127.0.0.1 (an ephemeral port)."""
    root = tmp_path / "www"
    (root / "gamerecords").mkdir(parents=True)
    (root / "gamerecords" / "index.html").write_text(SAVED_PAGE)

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_fetch_over_http_resolves_against_the_page(served: str) -> None:
    archives = kgs.load_index(served + "/gamerecords/")
    assert archives[0].url == served + "/gamerecords/dl/KGS-2019_04-19-1393-.zip"
    assert archives[3].url == served + "/gamerecords/dl/KGS-2019_03-19-1542-.zip"
    assert archives[6].url.startswith("https://dl.u-go.net/")


def test_cli_json_and_out(served: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "index.json"
    code = main(["data", "kgs-index", "--url", served + "/gamerecords/", "--since", "2018", "--out", str(out),
                 "--json"])
    data = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 0
    assert (data["count"], data["months"], data["games"]) == (9, 3, 1393 + 1542 + 1488)
    assert data["archives"][0]["filename"] == "KGS-2019_04-19-1393-.zip"
    assert len(kgs.read_index_file(out)) == 9


def test_cli_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "page.html"
    page.write_text(SAVED_PAGE)
    assert main(["data", "kgs-index", "--url", str(page)]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert len(lines) == 12 and lines[0].split() == ["2019-04", "1393", "zip", "KGS-2019_04-19-1393-.zip"]
    assert "12 archives, 4 distinct, 6783 games" in captured.err


def _unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("url, message", [
    ("{served}/nothing/", "HTTP 404"),
    ("http://127.0.0.1:{port}/gamerecords/", "cannot reach 127.0.0.1:{port}: "),
    ("{tmp}/missing.html", "no such index file"),
    ("{tmp}/empty.html", "no zip, tar.gz or tar.bz2 links found"),
])
def test_cli_errors_are_one_line(url: str, message: str, served: str, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    port = _unused_port()
    (tmp_path / "empty.html").write_text("<html></html>")
    url = url.format(served=served, port=port, tmp=tmp_path)
    code = main(["data", "kgs-index", "--url", url])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and message.format(port=port) in err[0]
    if "cannot reach" in message:
        assert err[0].endswith("(offline?)")


def test_cli_bad_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["data", "kgs-index", "--since", "1492"])
    assert exc.value.code == 2 and "must be at least 1900" in capsys.readouterr().err.splitlines()[-1]
