"""The web UI: play and review games in the browser (``fuseki serve``).

:func:`fuseki.web.app.create_app` builds the FastAPI app; the API is in
``docs/web.md``. Importing this package stays cheap: FastAPI and the rules
engine load with :mod:`fuseki.web.app`.
"""

__all__ = ["create_app"]


def create_app(*args, **kwargs):  # type: ignore[no-untyped-def]
    """See :func:`fuseki.web.app.create_app`."""
    from fuseki.web.app import create_app as _create_app

    return _create_app(*args, **kwargs)
