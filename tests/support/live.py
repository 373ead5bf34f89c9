"""A real HTTP + websocket server on loopback, in a thread, for socket and browser tests."""

from __future__ import annotations

import random
import threading
from contextlib import contextmanager

from werkzeug.exceptions import NotFound
from werkzeug.middleware.dispatcher import DispatcherMiddleware
from werkzeug.serving import make_server

from app import create_app
from tests.support.templates import compiled


class LiveServer:
    """The app served on 127.0.0.1 at a free port; `url` is its base address.

    With `root` (e.g. "/games") the app is mounted under that path, as behind a proxy that
    serves it there: `url` then ends with it, and `origin` is the scheme, host and port alone.
    """

    def __init__(self, db_path: str, seed: int = 1, root: str = "", **config) -> None:
        settings = {
            "TESTING": True,
            "DOMINO_DB": str(db_path),
            "SECRET_KEY": "live-test",
            "BOT_DELAY_MS": 0,
            "DOMINO_RNG": random.Random(seed),
        }
        settings.update(config)
        self.app = compiled(create_app(settings))
        served = self.app
        if root:
            served = DispatcherMiddleware(NotFound(), {root: self.app})
        self._server = make_server("127.0.0.1", 0, served, threaded=True)
        self.port = self._server.server_port
        self.root = root
        self.origin = f"http://127.0.0.1:{self.port}"
        self.url = self.origin + root
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def services(self):
        """The rooms and hub of the running app."""
        return self.app.extensions["domino"]

    def start(self) -> LiveServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._thread.join(timeout=5)
        self.services.close()  # its timers, before the store they read
        self.services.rooms.store.close()


@contextmanager
def live_server(db_path, seed: int = 1, root: str = "", **config):
    """Serve the app for the duration of a `with` block."""
    server = LiveServer(db_path, seed, root, **config).start()
    try:
        yield server
    finally:
        server.stop()
