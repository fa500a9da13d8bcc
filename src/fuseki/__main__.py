"""``python -m fuseki`` is the ``fuseki`` command."""

import sys

from fuseki.cli import main

sys.exit(main())
