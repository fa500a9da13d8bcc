"""Where named models live: ``$FUSEKI_MODELS``, then the package's ``fuseki/models/``.

Agent files (``--model policy-9x9``) and the dead-stone classifier are both
found by name in the same folders; one function lists them so that both
look in the same places (and a test can point both at an empty folder).
"""

from __future__ import annotations

import os
from pathlib import Path

import fuseki.models

__all__ = ["MODELS_ENV", "models_dirs"]

#: Folders (``os.pathsep``-separated) searched before the package's own models.
MODELS_ENV = "FUSEKI_MODELS"


def models_dirs() -> list[Path]:
    """Folders searched for models by name: each of ``$FUSEKI_MODELS``, then the package's ``fuseki/models/``."""
    dirs = [Path(p).expanduser() for p in os.environ.get(MODELS_ENV, "").split(os.pathsep) if p.strip()]
    dirs.append(Path(fuseki.models.__file__).parent)
    return dirs
