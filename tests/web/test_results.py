"""Results exactly once, the shard's side (ARCHITECTURE.md "Growing the house"): a signed-in
seat's player is noted in the rooms' store; the move that ends a match writes its result into
the outbox in the same transaction; the sender delivers it to the lobby and retries; the
lobby's internal path takes only a signed delivery, and nginx has no route to it."""

from __future__ import annotations

import json
import random
import sqlite3

import pytest

from domino import game
from domino.web.live.results_sender import (
    ResultsSender,
    backoff,
    deliver_here,
    for_app,
    signer,
)
from tests.support.players import named_browser
from tests.support.webkit import Table, make_app

HTMX = {"HX-Request": "true"}


@pytest.fixture
def app(tmp_path):
    app = make_app(tmp_path / "domino.sqlite3", seed=5)
    yield app
    app.extensions["domino"].close()


def store(app):
    return app.extensions["domino"].rooms.store


def player_id(app, name: str) -> str:
    return app.extensions["lobby"].player_named(name).id


def table_of(app, host: Table, guest: Table | None = None, **card) -> tuple[Table, Table]:
    host.create_room(**card)
    guest = guest or Table(app)
    guest.room = host.room
    guest.open()
    assert guest.join().status_code == 303
    host.connect("100.a")
    guest.connect("100.b")
    host.fragment()
    guest.fragment()
    return host, guest


def finish(tables, rng: random.Random) -> None:
    while not tables[0].state.over:
        state = tables[0].state
        mover = tables[state.turn]
        assert mover.send(rng.choice(game.legal_actions(state, state.turn))).status_code == 200


def test_a_signed_in_seat_has_its_player_and_a_guest_none(app):
    ana = named_browser(app, "Ana")
    host, _guest = table_of(app, ana)  # the guest is not signed in
    assert store(app).seat_players(host.room) == {0: player_id(app, "Ana")}


def test_the_move_that_ends_a_match_writes_its_result_with_the_players(app):
    ana, bob = named_browser(app, "Ana"), named_browser(app, "Bob")
    tables = table_of(app, ana, bob)
    room = tables[0].room
    finish(tables, random.Random(3))
    rows = store(app).outbox()
    assert [row["key"] for row in rows] == [f"{room}/1"]
    result = json.loads(rows[0]["result"])
    outcome = game.outcome(tables[0].state)
    assert result["kind"] == "friend" and result["game"] == "classic"
    assert result["computer"] is False and rows[0]["sent_at"] is None
    by_seat = {seat["seat"]: seat for seat in result["seats"]}
    assert by_seat[0]["player"] == player_id(app, "Ana")
    assert by_seat[1]["player"] == player_id(app, "Bob")
    if outcome.winners:
        assert by_seat[outcome.winners[0]]["place"] == 1
        assert by_seat[1 - outcome.winners[0]]["place"] == 2
    # Written in the move's own transaction: the same time as the move's event.
    last = sqlite3.connect(app.config["DOMINO_DB"]).execute(
        "SELECT at FROM events WHERE room = ? ORDER BY seq DESC LIMIT 1", [room]
    )
    assert last.fetchone()[0] == result["finished_at"] == rows[0]["created_at"]


def test_a_room_without_a_signed_in_seat_writes_no_result(app):
    tables = table_of(app, Table(app))
    finish(tables, random.Random(3))
    assert store(app).outbox() == []


def test_a_match_to_a_target_writes_one_result_when_it_ends(app):
    ana = named_browser(app, "Ana")
    tables = table_of(app, ana, preset="match-100")
    rng = random.Random(4)
    for _ in range(60):
        finish(tables, rng)
        room = tables[0].services.rooms.get(tables[0].room)
        if room.match.over:
            break
        assert store(app).outbox() == []  # a round of a match that goes on: nothing yet
        assert tables[0].post("new-round").status_code == 200
        assert tables[1].post("accept-new-round").status_code == 200
    assert room.match.over
    (row,) = store(app).outbox()
    assert row["key"] == f"{room.id}/1"
    places = {s["seat"]: s["place"] for s in json.loads(row["result"])["seats"]}
    winners = room.match.winners
    assert all(places[seat] == (1 if seat in winners or not winners else 2) for seat in places)


def _refusing(app, table: str) -> None:
    """Make the next insert into `table` fail (a trigger in the rooms' database)."""
    with sqlite3.connect(app.config["DOMINO_DB"]) as conn:
        conn.execute(
            f"CREATE TRIGGER refuse BEFORE INSERT ON {table}"
            " BEGIN SELECT RAISE(ABORT, 'the disk is full'); END"
        )


def _last_move(tables, rng) -> tuple[Table, object]:
    """Play until one move is left in the round: the mover and that move."""
    while True:
        state = tables[0].state
        action = rng.choice(game.legal_actions(state, state.turn))
        after = game.apply(state, game.resolve(state, state.turn, action))
        if after.over:
            return tables[state.turn], action
        assert tables[state.turn].send(action).status_code == 200


@pytest.mark.parametrize("refused", ["outbox", "events"])
def test_the_result_and_the_move_are_one_transaction(app, refused):
    ana, bob = named_browser(app, "Ana"), named_browser(app, "Bob")
    tables = table_of(app, ana, bob)
    mover, action = _last_move(tables, random.Random(8))
    seq = len(mover.log)
    _refusing(app, refused)
    app.extensions["domino"].rooms.evict(mover.room)
    # The store takes a failed insert for a lost race (stale): the move is refused.
    assert mover.send(action).status_code == 409
    assert len(mover.log) == seq  # the move was not stored ...
    assert store(app).outbox() == []  # ... and neither was its result
    with sqlite3.connect(app.config["DOMINO_DB"]) as conn:
        conn.execute("DROP TRIGGER refuse")
    app.extensions["domino"].rooms.evict(mover.room)
    assert mover.send(action).status_code == 200  # now both, together
    assert len(mover.log) == seq + 1 and len(store(app).outbox()) == 1


def test_the_sender_delivers_retries_after_a_failure_and_marks_sent(app):
    ana, bob = named_browser(app, "Ana"), named_browser(app, "Bob")
    tables = table_of(app, ana, bob)
    finish(tables, random.Random(3))
    now = [store(app).outbox()[0]["created_at"]]
    calls, lobby = [], app.extensions["lobby"]

    def flaky(result):
        calls.append(result["key"])
        if len(calls) == 1:
            raise ConnectionError("the lobby is down")
        return deliver_here(lobby)(result)

    sender = ResultsSender(store(app), flaky, clock=lambda: now[0])
    assert sender.send_due() == 0  # failed: to be tried again in a second
    (row,) = store(app).outbox()
    assert row["attempts"] == 1 and row["sent_at"] is None
    assert row["next_at"] == now[0] + backoff(1)
    assert sender.send_due() == 0 and len(calls) == 1  # not due yet
    now[0] += backoff(1)
    assert sender.send_due() == 1
    (row,) = store(app).outbox()
    assert row["sent_at"] == now[0]
    assert lobby.result_keys() == [row["key"]]
    now[0] += 3600
    assert sender.send_due() == 0 and len(calls) == 2  # sent: never again


def test_a_result_delivered_twice_counts_once(app):
    """A shard killed after the lobby applied a result, before it marked it sent, sends it
    again: the lobby's key takes it once."""
    ana, bob = named_browser(app, "Ana"), named_browser(app, "Bob")
    finish(table_of(app, ana, bob), random.Random(3))
    lobby = app.extensions["lobby"]
    ((key, result, _),) = store(app).unsent()
    lobby.apply_result(result)  # delivered, and then the shard died before its mark
    assert ResultsSender(store(app), deliver_here(lobby)).send_due() == 1
    assert lobby.result_keys() == [key]


def test_backoff_doubles_up_to_a_cap():
    waits = [backoff(n) for n in range(1, 12)]
    assert waits[:4] == [1, 2, 4, 8] and waits[-1] == 300
    assert waits == sorted(waits)


def test_the_background_sender_of_an_app_delivers_to_its_lobby(app):
    ana, bob = named_browser(app, "Ana"), named_browser(app, "Bob")
    finish(table_of(app, ana, bob), random.Random(3))
    app.config["RESULTS_EVERY_SECONDS"] = 0.05
    sender = for_app(app)
    sender.start()
    try:
        import time

        for _ in range(100):
            if store(app).outbox()[0]["sent_at"] is not None:
                break
            time.sleep(0.05)
    finally:
        sender.stop()
    assert store(app).outbox()[0]["sent_at"] is not None
    assert len(app.extensions["lobby"].result_keys()) == 1


def _sample(app) -> dict:
    ana, bob = named_browser(app, "Ana"), named_browser(app, "Bob")
    finish(table_of(app, ana, bob), random.Random(3))
    return store(app).unsent()[0][1]


@pytest.mark.parametrize(
    "body",
    [
        None,  # no signature at all
        "not a token",
        "other key",
        "other salt",
    ],
)
def test_the_internal_path_refuses_a_missing_or_bad_signature(app, body):
    result = _sample(app)
    tokens = {
        None: json.dumps(result),
        "not a token": "abc.def.ghi",
        "other key": signer("not the key").dumps(result),
        "other salt": __import__("itsdangerous").URLSafeTimedSerializer("x", "other").dumps(result),
    }
    response = app.test_client().post("/internal/results", data=tokens[body])
    assert response.status_code == 403
    assert app.extensions["lobby"].result_keys() == []


def test_the_internal_path_applies_a_signed_result_once(app):
    result = _sample(app)
    client = app.test_client()
    token = signer(app.config["SECRET_KEY"]).dumps(result)
    first = client.post("/internal/results", data=token)
    again = client.post("/internal/results", data=token)
    assert first.status_code == again.status_code == 200
    assert (first.json["new"], again.json["new"]) == (True, False)
    assert first.json["key"] == result["key"]
    bad = client.post("/internal/results", data=signer("x").dumps({**result, "kind": "odd"}))
    assert bad.status_code == 400
    assert app.extensions["lobby"].result_keys() == [result["key"]]


def test_the_lobby_process_answers_the_internal_path_and_a_shard_does_not(tmp_path, app):
    result = _sample(app)
    token = signer("x").dumps(result)
    lobby_only = make_app(tmp_path / "l.sqlite3", LOBBY="only", LOBBY_DB=str(tmp_path / "lb.db"))
    assert lobby_only.test_client().post("/internal/results", data=token).status_code == 200
    shard = make_app(tmp_path / "s.sqlite3", LOBBY="elsewhere")
    try:
        assert shard.test_client().post("/internal/results", data=token).status_code == 404
    finally:
        shard.extensions["domino"].close()


def test_nginx_refuses_the_internal_paths_from_outside(tmp_path):
    from domino.cluster import Cluster, LobbyServer, Shard, folders
    from domino.cluster.files import nginx_conf, shard_program

    settings = {"listen": "127.0.0.1:8100", **folders(tmp_path)}
    lobby = LobbyServer("127.0.0.1", 8200)
    cluster = Cluster((Shard("s1", "127.0.0.1", 8101),), lobby=lobby, **settings)
    text = nginx_conf(cluster)
    start = text.index("location ^~ /internal/ {")
    block = text[start : text.index("}", start)]
    assert "return 404;" in block and "proxy_pass" not in block
    assert "location ^~ /league {" in text  # the League goes to the lobby
    assert "/internal/results" not in text  # no other location names it
    # Each shard sends its results to the lobby's own address, not through nginx.
    env = shard_program(cluster, cluster.shards[0]).env
    assert env["DOMINO_LOBBY_URL"] == "http://127.0.0.1:8200"


@pytest.fixture
def lobby_served(tmp_path):
    """The lobby's own process of a cluster (LOBBY "only"), served over HTTP on loopback."""
    import threading

    from werkzeug.serving import make_server

    lobby_app = make_app(
        tmp_path / "lobby-rooms.sqlite3", LOBBY="only", LOBBY_DB=str(tmp_path / "lobby.db")
    )
    server = make_server("127.0.0.1", 0, lobby_app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield lobby_app, f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=5)


def test_a_shard_delivers_over_http_to_the_lobby_of_a_cluster(app, lobby_served):
    """The cluster's path: the shard signs the result with the shared key and POSTs it to the
    lobby's own address; a wrong key is refused (and the sender tries again later)."""
    from domino.web.live.results_sender import deliver_over_http

    lobby_app, url = lobby_served
    result = _sample(app)
    wrong = ResultsSender(store(app), deliver_over_http(url, "not the key"))
    assert wrong.send_due() == 0
    assert lobby_app.extensions["lobby"].result_keys() == []
    assert store(app).outbox()[0]["attempts"] == 1
    app.config["LOBBY_URL"] = url
    own = app.extensions.pop("lobby")  # a shard of a cluster has no lobby of its own
    own.close()
    sender = for_app(app)
    sender.clock = lambda: store(app).outbox()[0]["next_at"]
    assert sender.send_due() == 1
    assert lobby_app.extensions["lobby"].result_keys() == [result["key"]]
    assert store(app).outbox()[0]["sent_at"] is not None
