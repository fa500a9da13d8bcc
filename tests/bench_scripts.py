"""Running a script of ``benchmarks/`` as its user does: a separate Python process, its output captured.

The benchmark scripts are not part of the package (they are run by path), so their tests call them the same way;
one helper instead of a copy in every test file.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def benchmark_script(name: str, timeout: float = 300) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``run(*args)`` for ``benchmarks/NAME``: its completed process (exit status, stdout, stderr as text)."""
    script = ROOT / "benchmarks" / name
    if not script.is_file():
        raise FileNotFoundError(f"no benchmark script {script}")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, timeout=timeout)

    return run
