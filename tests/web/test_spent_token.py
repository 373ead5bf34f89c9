"""A home page's fair token is spent for good (issue 27): its nonce stays spent for as long as
the token could still verify, so its server seed never comes back to a second room.

The token verifies for NONCE_SECONDS, counted by itsdangerous in whole seconds; a nonce purged
before that (it was purged at exactly NONCE_SECONDS after its spend) let the same token, and
so the same server seed, start a second room: a player who had seen the seed revealed after
their first round knew the hands of the second before its deal."""

from __future__ import annotations

import contextlib
import sqlite3
import types

import pytest

from domino.fair import commitment
from domino.store import NONCE_KEPT_SECONDS, NONCE_SECONDS
from domino.web.forms.seeds import first_deal
from tests.support.webkit import Table, make_app, parse


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "domino.sqlite3", seed=5)


def home_fields(player: Table) -> dict:
    form = parse(player.home().get_data(as_text=True)).one("data-rules-form")
    token = form.find("name", "fair", tag="input").get("value")
    return {"fair": token, "commitment": form.get("data-next-commitment")}


def first_seed(player: Table) -> str:
    """The server seed the room's first deal was committed to (its first "commit")."""
    return next(data["seed"] for _seq, kind, data in player.log if kind == "commit")


def nonces(app) -> list[tuple[str, float]]:
    db = app.extensions["domino"].rooms.store.db
    return [tuple(row) for row in db.execute("SELECT nonce, at FROM fair_nonces")]


def backdate_nonces(app, seconds: float) -> None:
    """Spend every nonce `seconds` earlier, written as another process would write it."""
    path = app.extensions["domino"].rooms.store.path
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("UPDATE fair_nonces SET at = at - ?", [seconds])


def test_a_token_spent_an_hour_ago_commits_afresh_after_the_purge(app):
    player = Table(app)
    fields = home_fields(player)
    player.create_room("/computer", **fields, client_seed="0" * 32)
    seed = first_seed(player)
    assert commitment(seed) == fields["commitment"]
    # Its nonce spent just over an hour ago (past where it used to be purged), the token
    # itself still verifying.
    backdate_nonces(app, NONCE_SECONDS + 1)
    app.extensions["domino"].rooms.store.purge_nonces()
    again = Table(app)
    again.create_room("/computer", **fields, client_seed="0" * 32)
    assert first_seed(again) != seed  # committed afresh, never the old seed
    assert commitment(first_seed(again)) != fields["commitment"]


def test_a_nonce_no_token_can_use_any_more_is_purged(app):
    player = Table(app)
    player.create_room("/computer", **home_fields(player))
    backdate_nonces(app, NONCE_KEPT_SECONDS + 1)
    app.extensions["domino"].rooms.store.purge_nonces()
    assert nonces(app) == []


class Clock:
    """A `time` module whose `time()` is set by the test."""

    def __init__(self, now: float) -> None:
        self.now = now

    def module(self):
        return types.SimpleNamespace(time=lambda: self.now)


def test_a_spent_nonce_outlives_its_tokens_last_whole_second(app, monkeypatch):
    """Signed and spent at 1000 s, the token's age is counted in whole seconds: it still
    verifies at 4600.9995 s, when its nonce is almost an hour and a second old."""
    clock = Clock(1000.0)
    monkeypatch.setattr("itsdangerous.timed.time", clock.module())
    monkeypatch.setattr("domino.store.time", clock.module())
    player = Table(app)
    fields = home_fields(player)
    player.create_room("/computer", **fields)
    ((_nonce, spent),) = nonces(app)
    assert spent == 1000.0
    clock.now = 1000 + NONCE_SECONDS + 0.9995  # the token's last instant
    with app.test_request_context():
        assert first_deal(fields) is not None, "the token should still verify"
    app.extensions["domino"].rooms.store.purge_nonces()
    assert len(nonces(app)) == 1, "a nonce was purged while its token verifies"
    again = Table(app)
    again.create_room("/computer", **fields)
    assert first_seed(again) != first_seed(player)
    clock.now = 1000 + NONCE_SECONDS + 1  # the token is too old from here on
    with app.test_request_context():
        assert first_deal(fields) is None
