"""nginx's "temporarily unavailable" page, drawn by the app itself in each of its languages."""

from __future__ import annotations

import tempfile
from pathlib import Path

from flask import render_template

from ..web.view.i18n import COOKIE, LANGUAGES


def unavailable_pages() -> dict[str, str]:
    """Language code -> the whole page, styled as the app's own pages (`unavailable.html`)."""
    from app import create_app  # the app's factory, only when a cluster is being written

    with tempfile.TemporaryDirectory() as scratch:
        settings = {"TESTING": True, "DOMINO_DB": str(Path(scratch) / "pages.sqlite3")}
        app = create_app({**settings, "LOBBY": "elsewhere"})  # no lobby database to open
        try:
            return {code: _render(app, code) for code in LANGUAGES}
        finally:
            services = app.extensions["domino"]
            services.close()
            services.rooms.store.close()


def _render(app, code: str) -> str:
    headers = {"Cookie": f"{COOKIE}={code}", "Accept-Language": code}
    with app.test_request_context("/", headers=headers):
        return render_template("unavailable.html")
