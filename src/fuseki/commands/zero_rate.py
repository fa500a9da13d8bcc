"""placeholder"""

from __future__ import annotations

import argparse

HELP = "todo"
DESCRIPTION = "todo"


def add_arguments(p: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    raise NotImplementedError
