"""The kernel cache folder is keyed by the kernels' sources (fuseki/util/kernel_cache.py)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import sys
import time
from pathlib import Path

import pytest

import fuseki
from fuseki.util import kernel_cache
from fuseki.util.kernel_cache import KERNEL_FILES, configure, sources_digest

PACKAGE = Path(fuseki.__file__).resolve().parent
NUMBA_IMPORT = re.compile(r"^(from numba\b|import numba\b)", re.MULTILINE)  # module level: a kernel file


def test_the_list_names_exactly_the_files_that_import_numba() -> None:
    # A kernel file missing from the list would not change the digest when it changes: the bug this module closes.
    found = {
        path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py") if NUMBA_IMPORT.search(path.read_text(encoding="utf-8"))
    }
    assert found == set(KERNEL_FILES)


def _copy_package(tmp_path: Path) -> Path:
    copy = tmp_path / "fuseki"
    for rel in KERNEL_FILES:
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(PACKAGE / rel, copy / rel)
    return copy


def test_a_change_in_any_kernel_file_changes_the_digest(tmp_path: Path) -> None:
    copy = _copy_package(tmp_path)
    before = sources_digest(copy)
    assert before == sources_digest(PACKAGE)
    callee = copy / "search/go/playouts.py"  # a callee in another file than its callers (gotree, agtree)
    callee.write_text(callee.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    assert sources_digest(copy) != before


def test_a_missing_kernel_file_is_an_error(tmp_path: Path) -> None:
    copy = _copy_package(tmp_path)
    (copy / "go/ladder.py").unlink()
    with pytest.raises(FileNotFoundError):
        sources_digest(copy)


def test_configure_sets_the_folder_under_the_cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    env: dict[str, str] = {}
    folder = configure(env)
    assert folder == str(tmp_path / "fuseki" / "numba" / sources_digest())
    assert env["NUMBA_CACHE_DIR"] == folder and Path(folder).is_dir()


def test_a_folder_the_user_chose_is_left_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    env = {"NUMBA_CACHE_DIR": "/somewhere/else"}
    assert configure(env) is None
    assert env["NUMBA_CACHE_DIR"] == "/somewhere/else"
    assert not (tmp_path / "fuseki").exists()


def test_old_folders_are_pruned_and_recent_ones_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    root = tmp_path / "fuseki" / "numba"
    old, recent = root / "0000000000000000", root / "1111111111111111"
    for folder in (old, recent):
        (folder / "sub").mkdir(parents=True)
    stale = time.time() - (kernel_cache.KEEP_DAYS + 1) * 86400
    os.utime(old, (stale, stale))
    configure({})
    assert not old.exists()
    assert recent.exists()
    assert (root / sources_digest()).exists()


def test_a_fuseki_process_compiles_into_the_keyed_folder(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    code = "import fuseki, numba.core.config as c, os; print(os.environ['NUMBA_CACHE_DIR']); print(c.CACHE_DIR)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout.split()
    expected = str(tmp_path / "fuseki" / "numba" / sources_digest())
    assert out == [expected, expected]


def test_numba_imported_first_still_gets_the_folder(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    code = "import numba.core.config as c; import fuseki; print(c.CACHE_DIR)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert out == str(tmp_path / "fuseki" / "numba" / sources_digest())


def test_an_unusable_cache_home_falls_back_to_the_temporary_folder_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    env: dict[str, str] = {}
    folder = configure(env)
    spare = tmp_path / "tmp" / f"fuseki-kernels-{os.getuid()}" / sources_digest()
    assert folder == env["NUMBA_CACHE_DIR"] == str(spare) and spare.is_dir()
    err = capsys.readouterr().err
    assert err.startswith(f"fuseki: cannot create the kernel cache folder {blocker}") and err.count("\n") == 1
    assert f"using {spare} (set NUMBA_CACHE_DIR" in err


def test_no_writable_folder_at_all_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    monkeypatch.setattr(tempfile, "tempdir", str(blocker))
    with pytest.raises(OSError, match="cannot create the kernel cache folder .* nor .*; set NUMBA_CACHE_DIR"):
        configure({})


def test_the_cli_runs_with_an_unwritable_cache_home(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(XDG_CACHE_HOME=str(blocker), TMPDIR=str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    proc = subprocess.run([sys.executable, "-m", "fuseki", "--version"], env=env, capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.startswith("fuseki"), proc
    assert "Traceback" not in proc.stderr and "using " in proc.stderr and proc.stderr.count("\n") == 1
