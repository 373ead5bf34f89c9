"""The app the results drill (bench/results_drill.py) runs under gunicorn: the production app
with no rate limits, its results sender looking every DOMINO_DRILL_SENDER_EVERY seconds, and,
where the lobby is in the process, each delivery it takes noted in DOMINO_DRILL_LOG.

Nothing of the product changes: the lobby's `apply_result` is wrapped on its instance, and the
wrapper only writes a line after the product's own call returned, `new <key>` for a result
applied now and `known <key>` for one applied before (a delivery the lobby ignored). The line
is one `os.write` to a file opened for appending, so a SIGKILL loses at most the line of the
delivery that was being answered. On a shard of a cluster (no lobby in the process), each
answer the results sender takes as the lobby's acknowledgement is noted in the same file as
`acked <key>` (before the shard marks it sent): a result missing in the lobby then shows
whether the shard was told it was applied.
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
    elif path:
        _note_answers(path)
    return app


def _note_deliveries(lobby, path: str) -> None:
    applying = lobby.apply_result
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def apply_result(data, now=None):
        applied = applying(data, now)
        os.write(fd, f"{'new' if applied.new else 'known'} {applied.key}\n".encode())
        return applied

    lobby.apply_result = apply_result


def _note_answers(path: str) -> None:
    """On a shard: each answer of the lobby that the sender takes as an acknowledgement,
    noted as `acked <key> <new>` (after the lobby's answer came, before the mark)."""
    from domino.web.live import results_sender

    over_http = results_sender.deliver_over_http
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def deliver_over_http(url, secret_key, timeout=results_sender.TIMEOUT):
        deliver = over_http(url, secret_key, timeout)

        def noted(result: dict) -> bool:
            acknowledged = deliver(result)
            if acknowledged:
                os.write(fd, f"acked {result.get('key')}\n".encode())
            return acknowledged

        return noted

    results_sender.deliver_over_http = deliver_over_http
