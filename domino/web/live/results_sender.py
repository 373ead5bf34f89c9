"""The shard's sender of finished matches' results (ARCHITECTURE.md "Growing the house").

Each result waits in the rooms' store's outbox (written with the move that ended its match:
`domino.store`), until the lobby acknowledges it. A background loop (`ResultsSender.start`,
from `domino.web.start_background`) looks for due entries every `every` seconds and hands
each one to `deliver`, the one narrow function between a shard and the lobby:

- in one process (LOBBY "here"): `deliver_here`, a direct call of `Lobby.apply_result`;
- in a cluster (LOBBY "elsewhere"): `deliver_over_http`, a POST of the result, signed with an
  HMAC of the shared SECRET_KEY (itsdangerous, salt `SALT`), to the lobby's own address
  (`DOMINO_LOBBY_URL`) at `PATH`, which nginx never routes from outside.

A delivery that fails (an exception, or not acknowledged) is tried again later, each time
twice as late (`backoff`), up to `CAP` seconds; an acknowledged one is marked sent. The lobby
applies a result key at most once, so a result delivered twice (e.g. the shard was killed
between the lobby's answer and the mark) counts once.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable

from itsdangerous import URLSafeTimedSerializer

log = logging.getLogger(__name__)
SALT = "domino-results"
PATH = "/internal/results"
MAX_AGE = 300  # seconds a signed delivery verifies (each attempt is signed afresh)
FIRST = 1.0  # seconds before the first retry
CAP = 300.0  # the longest wait between two tries
TIMEOUT = 10.0  # seconds an HTTP delivery may take

Deliver = Callable[[dict], bool]


def backoff(attempts: int) -> float:
    """Seconds to wait after the `attempts`-th failed delivery (1, 2, 4, ... up to CAP)."""
    return min(CAP, FIRST * 2 ** max(attempts - 1, 0))


def signer(secret_key: str) -> URLSafeTimedSerializer:
    """The serializer both ends sign and check a delivered result with."""
    return URLSafeTimedSerializer(secret_key, salt=SALT)


def deliver_here(lobby) -> Deliver:
    """Delivery to the lobby in this process: a direct call."""

    def deliver(result: dict) -> bool:
        lobby.apply_result(result)
        return True

    return deliver


def deliver_over_http(url: str, secret_key: str, timeout: float = TIMEOUT) -> Deliver:
    """Delivery to the lobby's process at `url` (its own address, e.g. http://10.0.0.5:9000):
    a POST of the signed result to PATH; acknowledged by a 200."""
    sign = signer(secret_key)
    target = url.rstrip("/") + PATH

    def deliver(result: dict) -> bool:
        body = sign.dumps(result).encode()
        request = urllib.request.Request(
            target, data=body, method="POST", headers={"Content-Type": "text/plain"}
        )
        with urllib.request.urlopen(request, timeout=timeout) as response:
            answer = json.loads(response.read() or b"{}")
            return response.status == 200 and answer.get("key") == result.get("key")

    return deliver


class ResultsSender:
    """Delivers the outbox's due results, one pass at a time (`send_due`) or in the
    background (`start`)."""

    def __init__(
        self,
        store,
        deliver: Deliver,
        every: float = 1.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.deliver = deliver
        self.every = every
        self.clock = clock
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def send_due(self) -> int:
        """Try every due entry once; how many were acknowledged."""
        sent = 0
        for key, result, attempts in self.store.unsent(self.clock()):
            try:
                acknowledged = self.deliver(result)
            except Exception as error:  # the lobby is down, slow, or refused it: later
                log.warning("delivering result %s failed (%s)", key, error)
                acknowledged = False
            if acknowledged:
                self.store.mark_sent(key, self.clock())
                sent += 1
            else:
                self.store.retry_later(key, self.clock() + backoff(attempts + 1))
        return sent

    def start(self) -> None:
        """Send in the background, every `every` seconds, until `stop`."""
        if self._thread is not None:
            return

        def loop() -> None:
            while not self._stop.wait(self.every):
                try:
                    self.send_due()
                except Exception:  # e.g. the store is closing: the next pass tries again
                    log.exception("sending results failed")

        self._thread = threading.Thread(target=loop, name="results-sender", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()


def for_app(app) -> ResultsSender | None:
    """The sender of this process's outbox: to the lobby here, or over HTTP to the lobby's
    process (`LOBBY_URL`, env DOMINO_LOBBY_URL); None without rooms, or in a cluster whose
    lobby's address is not set (the results wait in the outbox, and a warning says so)."""
    services = app.extensions.get("domino")
    if services is None:
        return None
    store = services.rooms.store
    every = float(app.config.get("RESULTS_EVERY_SECONDS", 1.0))
    lobby = app.extensions.get("lobby")
    if lobby is not None:
        return ResultsSender(store, deliver_here(lobby), every)
    url = app.config.get("LOBBY_URL")
    if not url:
        log.warning("no DOMINO_LOBBY_URL: finished matches' results wait in the outbox")
        return None
    return ResultsSender(store, deliver_over_http(url, app.config["SECRET_KEY"]), every)
