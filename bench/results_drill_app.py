"""The app the results drill (bench/results_drill.py) runs under gunicorn: the production app
with no rate limits, its results sender looking every DOMINO_DRILL_SENDER_EVERY seconds, and,
where the lobby is in the process, each delivery it takes noted in DOMINO_DRILL_LOG.

Nothing of the product changes: the lobby's `apply_result` is wrapped on its instance, and the
wrapper only writes a line after the product's own call returned, `new <key>` for a result
applied now and `known <key>` for one applied before (a delivery the lobby ignored). The line
is one `os.write` to a file opened for appending, so a SIGKILL loses at most the line of the
delivery that was being answered.
"""

from __future__ import annotations

import os

from app import create_app


def drill_app():
    every = float(os.environ.get("DOMINO_DRILL_SENDER_EVERY", "1"))
    app = create_app({"RATELIMIT_ENABLED": False, "RESULTS_EVERY_SECONDS": every})
    lobby = app.extensions.get("lobby")
    path = os.environ.get("DOMINO_DRILL_LOG")
    if lobby is not None and path:
        _note_deliveries(lobby, path)
    return app


def _note_deliveries(lobby, path: str) -> None:
    applying = lobby.apply_result
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def apply_result(data, now=None):
        applied = applying(data, now)
        os.write(fd, f"{'new' if applied.new else 'known'} {applied.key}\n".encode())
        return applied

    lobby.apply_result = apply_result
