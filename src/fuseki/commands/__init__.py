"""Subcommands of the fuseki command line (see fuseki.cli)."""
