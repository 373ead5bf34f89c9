"""Quick match and public tables (SPEC §12, hooks §14), through the Flask test client: a
public room is full at once, marked `data-public`, its computer seats marked and at "hard";
each person's single-use seat grant seats its own player once (forged, expired, used or
another player's: a page that says so, nothing changed); the queue (join, replace, leave,
refusals, CSRF); waves (two players seated together, one alone filled by the computer after
the fill time, blocks kept apart, a failed room creation leaves everyone queued)."""

from __future__ import annotations

import random
import sqlite3
import time
from urllib.parse import parse_qs, urlparse

import itsdangerous.timed
import pytest

from domino.web.live import grants as grant_module
from domino.web.live import tables as tables_module
from domino.web.live.grants import grant_token
from domino.web.live.waves import Waves, in_process
from tests.support.drive import finish_round
from tests.support.players import follow, named_browser, open_public, player_id
from tests.support.players import last_page as page
from tests.support.players import lobby_of as lobby
from tests.support.webkit import Table, company, make_app, parse

HTMX = {"HX-Request": "true"}


@pytest.fixture
def app(tmp_path):
    app = make_app(tmp_path / "domino.sqlite3", seed=5)
    yield app
    app.extensions["domino"].close()


def events(app, room: str) -> list:
    return app.extensions["domino"].rooms.store.load(room)


# -- public rooms and their grants


def test_a_public_table_is_full_at_once_and_each_grant_seats_its_player(app):
    ana, bob = named_browser(app, "Ana"), named_browser(app, "Bob")
    opened = open_public(app, "classic", ana, bob)
    room = app.extensions["domino"].get(opened.room)
    assert room.kind == "public" and room.full and room.rounds == 1
    assert room.names == ("Ana", "Bob")
    assert follow(ana, opened.grants[player_id(ana)]).status_code == 303
    assert ana.seat == 0
    assert follow(bob, opened.grants[player_id(bob)]).status_code == 303
    assert bob.seat == 1
    table = ana.doc.one("id", "table")
    assert table.has("data-public")
    assert not ana.doc.find("data-invite") and not ana.doc.find("data-invite-player")
    assert "Bob" in ana.doc.one("class", "who").text
    assert "Ana" in bob.doc.one("class", "who").text
    assert not ana.doc.find("data-computer")


def test_a_public_table_with_the_computer_marks_its_seats(app):
    ana = named_browser(app, "Ana")
    opened = open_public(app, "pairs", ana, None, None, None)
    room = app.extensions["domino"].get(opened.room)
    assert room.bots == (None, "hard", "hard", "hard")
    follow(ana, opened.grants[player_id(ana)])
    seats = company(ana.doc)
    assert sorted(seats) == [1, 2, 3] and all(node.has("data-computer") for node in seats.values())
    assert ana.doc.one("id", "table").has("data-public")
    assert not ana.doc.find("data-level") and not ana.doc.find("id", "my-name")
    two = open_public(app, "classic", ana, None)
    follow(ana, two.grants[player_id(ana)])
    opponent = page(ana).one("class", "opponent")
    assert opponent.has("data-computer") and "The computer" in opponent.text


def test_a_public_table_keeps_its_level_and_names(app):
    ana = named_browser(app, "Ana")
    opened = open_public(app, "three", ana, None, None)
    follow(ana, opened.grants[player_id(ana)])
    ana.connect()
    before = len(events(app, opened.room))
    assert ana.post("level", level="easy").status_code == 403
    assert ana.post("name", name="Zed").status_code == 403
    added = [kind for _seq, kind, _data in events(app, opened.room)[before:]]
    assert "level" not in added and "name" not in added  # the computer may have moved
    assert app.extensions["domino"].get(opened.room).bots[1:] == ("hard", "hard")


def test_a_grant_seats_once(app):
    ana = named_browser(app, "Ana")
    # Two people: with a computer seat its move could land between the two reads of `seq`.
    opened = open_public(app, "classic", ana, named_browser(app, "Bob"))
    path = opened.grants[player_id(ana)]
    assert follow(ana, path).status_code == 303
    secret = ana.secret
    seq = app.extensions["domino"].get(opened.room).seq
    again = ana.client.get(path)  # the browser holding the seat: back to the room, unchanged
    assert again.status_code == 303 and again.headers["Location"].endswith(f"/r/{opened.room}")
    # The same player in a browser without the seat's cookie (the answer that set it was
    # lost to a restart): the grant's own secret again, and nothing is written.
    other_tab = Table(app, opened.room)
    other_tab.client.set_cookie("domino_session", ana.client.get_cookie("domino_session").value)
    assert other_tab.client.get(path).status_code == 303
    assert other_tab.secret == secret and other_tab.seat == 0
    assert app.extensions["domino"].get(opened.room).seq == seq
    assert ana.secret == secret and ana.seat == 0


def test_a_spent_grant_never_gives_its_seat_a_second_secret(app, monkeypatch):
    ana = named_browser(app, "Ana")
    opened = open_public(app, "classic", ana, named_browser(app, "Bob"))
    path = opened.grants[player_id(ana)]
    assert follow(ana, path).status_code == 303
    seq = app.extensions["domino"].get(opened.room).seq
    # Were the grant's secret another (a key changed), the spent grant id is the backstop.
    monkeypatch.setattr(tables_module, "seat_secret", lambda key, grant: "another secret")
    other_tab = Table(app, opened.room)
    other_tab.client.set_cookie("domino_session", ana.client.get_cookie("domino_session").value)
    refused = other_tab.client.get(path)
    assert refused.status_code == 409 and "used already" in refused.get_data(as_text=True)
    assert app.extensions["domino"].get(opened.room).seq == seq and other_tab.seat is None


def test_a_forged_expired_or_anothers_grant_changes_nothing(app, monkeypatch):
    ana, bob = named_browser(app, "Ana"), named_browser(app, "Bob")
    opened = open_public(app, "classic", ana, bob)
    path = opened.grants[player_id(ana)]
    seq = app.extensions["domino"].get(opened.room).seq

    stolen = bob.client.get(path)  # Bob follows Ana's grant
    assert stolen.status_code == 403 and "another player" in stolen.get_data(as_text=True)
    assert bob.client.get_cookie("seat", path=f"/r/{opened.room}") is None

    token = parse_qs(urlparse(path).query)["token"][0]
    forged = f"/r/{opened.room}/grant?token={token[:-2]}xx"
    assert ana.client.get(forged).status_code == 400
    wrong_key = grant_token("not-the-key", opened.room, 0, player_id(ana))
    assert ana.client.get(f"/r/{opened.room}/grant?token={wrong_key}").status_code == 400
    elsewhere = grant_token(app.config["SECRET_KEY"], "x" * 22, 0, player_id(ana))
    assert ana.client.get(f"/r/{opened.room}/grant?token={elsewhere}").status_code == 400

    signed_at = time.time() - grant_module.GRANT_SECONDS - 5  # a grant made too long ago
    with monkeypatch.context() as past:
        past.setattr(itsdangerous.timed.time, "time", lambda: signed_at)
        old = grant_token(app.config["SECRET_KEY"], opened.room, 0, player_id(ana))
    expired = ana.client.get(f"/r/{opened.room}/grant?token={old}")
    assert expired.status_code == 410 and "expired" in expired.get_data(as_text=True)

    anonymous = Table(app).client.get(path)
    assert anonymous.status_code == 403
    assert app.extensions["domino"].get(opened.room).seq == seq
    with sqlite3.connect(app.config["DOMINO_DB"]) as conn:
        assert conn.execute("SELECT count(*) FROM seat_grants").fetchone()[0] == 0


def test_a_public_room_is_not_joined_by_its_link(app):
    ana = named_browser(app, "Ana")
    opened = open_public(app, "classic", ana, None)
    stranger = Table(app, opened.room)
    assert stranger.open().status_code == 403  # full
    stranger.client.get("/")
    assert stranger.join().status_code in (403, 400)
    assert app.extensions["domino"].get(opened.room).seats[1] is None


# -- the queue


def quick_match(browser: Table, game: str = "classic", csrf: bool = True, **fields):
    browser.home()
    data = {"game": game, **fields}
    if csrf:
        data["csrf_token"] = browser.csrf
    return browser.client.post("/play/", data=data)


def test_the_home_page_offers_quick_match_to_a_signed_in_browser(app):
    ana = named_browser(app, "Ana")
    form = page(ana).one("data-quick-match")
    values = [o.get("value") for o in form.one("name", "game", tag="select").find_all(tag="option")]
    assert values == ["classic", "match-100", "block", "international", "three", "pairs"]
    assert form.one("data-action", "quick-match").tag == "button"
    stakes = form.one("name", "stake", tag="select").find_all(tag="option")
    assert [o.get("value") for o in stakes] == ["0", "100", "250", "500", "1000"]
    stranger = Table(app)
    stranger.home()
    assert not page(stranger).find("data-quick-match")


def test_joining_the_queue_shows_the_waiting_page(app):
    ana = named_browser(app, "Ana")
    response = quick_match(ana, "three")
    assert response.status_code == 303 and response.headers["Location"].endswith("/play/")
    shown = ana.get("/play/")
    queue = page(ana).one("data-queue")
    assert queue.get("data-game") == "three" and queue.get("data-waited") == "0"
    assert page(ana).one("data-action", "leave-queue").tag == "button"
    assert lobby(app).queued(player_id(ana)).game == "three"
    polled = ana.client.get("/play/queue", headers=HTMX)
    assert polled.status_code == 200
    assert parse(polled.get_data(as_text=True)).one("data-queue").get("data-game") == "three"
    assert shown.headers["Cache-Control"] == "no-store"


def test_joining_again_replaces_the_game_and_leaving_empties_the_queue(app):
    ana = named_browser(app, "Ana")
    quick_match(ana, "classic")
    first = lobby(app).queued(player_id(ana))
    quick_match(ana, "classic")
    assert lobby(app).queued(player_id(ana)) == first  # the same game keeps the place
    quick_match(ana, "pairs")
    assert [q.game for q in lobby(app).waiting()] == ["pairs"]
    ana.get("/play/")
    left = ana.client.post("/play/leave", data={"csrf_token": ana.csrf})
    assert left.status_code == 303
    assert lobby(app).waiting() == []
    assert ana.client.get("/play/queue", headers=HTMX).headers["HX-Redirect"].endswith("/play/")


def test_the_queue_refuses_clearly_and_changes_nothing(app):
    ana = named_browser(app, "Ana")
    bad = quick_match(ana, "goat")
    assert bad.status_code == 400 and "public games" in bad.get_data(as_text=True)
    staked = quick_match(ana, "classic", stake="100")
    assert staked.status_code == 400
    assert "Stakes are played at Match to 100 and at Pairs" in staked.get_data(as_text=True)
    odd = quick_match(ana, "pairs", stake="300")
    assert odd.status_code == 400 and "100, 250, 500 or 1,000" in odd.get_data(as_text=True)
    assert quick_match(ana, "classic", csrf=False).status_code == 400
    ana.get("/play/")
    assert ana.client.post("/play/leave", data={}).status_code == 400
    assert lobby(app).waiting() == []
    stranger = Table(app)
    stranger.home()
    refused = stranger.client.post("/play/", data={"csrf_token": stranger.csrf, "game": "classic"})
    assert refused.status_code == 403
    doc = parse(refused.get_data(as_text=True))
    assert doc.one("data-error") and doc.find("href", "/#players", tag="a")
    assert stranger.client.get("/play/").status_code == 403
    assert lobby(app).waiting() == []


# -- waves


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def waves(app, clock, open_table=None, fill=30.0) -> Waves:
    return Waves(
        lobby(app), open_table or in_process(app.extensions["domino"]), fill=fill, clock=clock
    )


def seated_by_poll(browser: Table) -> str:
    """The poll sends a seated browser to its grant; follow it to the room."""
    polled = browser.client.get("/play/queue", headers=HTMX)
    target = polled.headers.get("HX-Redirect")
    assert target and "/grant?token=" in target, polled.get_data(as_text=True)
    assert follow(browser, target).status_code == 303
    return browser.room


def test_a_wave_seats_two_players_together(app):
    ana, bob = named_browser(app, "Ana"), named_browser(app, "Bob")
    quick_match(ana)
    quick_match(bob)
    since = lobby(app).queued(player_id(ana)).since
    opened = waves(app, Clock(since + 1)).wave()
    assert len(opened) == 1 and lobby(app).waiting() == []
    assert seated_by_poll(ana) == seated_by_poll(bob) == opened[0].room
    assert {ana.seat, bob.seat} == {0, 1}
    assert ana.doc.one("id", "table").has("data-public")
    assert "Bob" in ana.doc.one("class", "who").text


def test_the_waves_pair_by_the_ratings_the_lobby_keeps(app):
    """Cyd has won public matches, and her duel rating is far above Ana's and Bob's: the app's
    waves (lobby_rating) seat the two close players together and leave Cyd waiting."""
    from domino.web.live.waves import lobby_rating
    from tests.support.results import result

    ana, bob, cyd, dan = (named_browser(app, name) for name in ("Ana", "Bob", "Cyd", "Dan"))
    store = lobby(app)
    for match in range(1, 13):  # Dan is none of the three, so their ratings stay apart
        store.apply_result(result("room-x", match, [(player_id(cyd), 1), (player_id(dan), 2)]))
    rate = lobby_rating(store)
    assert rate(player_id(cyd), "classic") > rate(player_id(ana), "classic") + 300
    assert rate(player_id(ana), "three") == rate(player_id(ana), "classic") == 1500
    for browser in (cyd, ana, bob):
        quick_match(browser)
    since = store.queued(player_id(cyd)).since
    wave = Waves(store, in_process(app.extensions["domino"]), clock=Clock(since + 1), rating=rate)
    (opened,) = wave.wave()
    assert set(opened.grants) == {player_id(ana), player_id(bob)}
    assert [entry.player for entry in store.waiting()] == [player_id(cyd)]
    assert app.extensions["waves"].rating(player_id(cyd), "classic") == rate(
        player_id(cyd), "classic"
    )  # the app's own waves read the same ratings


def test_one_alone_is_filled_by_the_computer_after_the_fill_time(app):
    ana = named_browser(app, "Ana")
    quick_match(ana, "three")
    since = lobby(app).queued(player_id(ana)).since
    wave = waves(app, Clock(since + 29), fill=30)
    assert wave.wave() == [] and len(lobby(app).waiting()) == 1
    assert ana.client.get("/play/queue", headers=HTMX).status_code == 200
    wave.clock.now = since + 30
    assert len(wave.wave()) == 1
    room = seated_by_poll(ana)
    assert app.extensions["domino"].get(room).bots == (None, "hard", "hard")
    assert all(node.has("data-computer") for node in company(ana.doc).values())


def test_players_who_block_each_other_are_never_seated_together(app):
    ana, bob = named_browser(app, "Ana"), named_browser(app, "Bob")
    lobby(app).block(player_id(ana), player_id(bob))
    quick_match(ana)
    quick_match(bob)
    since = lobby(app).queued(player_id(bob)).since
    wave = waves(app, Clock(since + 5), fill=30)
    assert wave.wave() == []
    wave.clock.now = since + 60
    opened = wave.wave()
    assert len(opened) == 2
    for table in opened:
        room = app.extensions["domino"].get(table.room)
        assert room.bots.count("hard") == 1 and len(table.grants) == 1


def test_a_failed_room_creation_leaves_the_players_queued(app):
    ana, bob = named_browser(app, "Ana"), named_browser(app, "Bob")
    quick_match(ana)
    quick_match(bob)
    since = lobby(app).queued(player_id(bob)).since

    def broken(game, seats):
        raise OSError("the shard is down")

    assert waves(app, Clock(since + 1), open_table=broken).wave() == []
    assert sorted(q.player for q in lobby(app).waiting()) == sorted(
        [player_id(ana), player_id(bob)]
    )
    assert ana.client.get("/play/queue", headers=HTMX).status_code == 200
    assert len(waves(app, Clock(since + 1)).wave()) == 1
    assert lobby(app).waiting() == []


def test_the_background_waves_seat_at_once_when_someone_joins(app):
    ana, bob = named_browser(app, "Ana"), named_browser(app, "Bob")
    wave = app.extensions["waves"]
    wave.every = 60  # only a join wakes it
    wave.start()
    try:
        quick_match(ana)
        quick_match(bob)
        for _ in range(400):
            if lobby(app).seated(player_id(bob)) is not None:
                break
            time.sleep(0.05)
        assert lobby(app).seated(player_id(ana)).room == lobby(app).seated(player_id(bob)).room
    finally:
        wave.stop()


# -- help


@pytest.mark.parametrize("lang", ["en", "nl", "pl", "fr"])
def test_the_help_explains_quick_match_and_the_computer_fill(app, lang):
    client = app.test_client()
    client.set_cookie("lang", lang)
    doc = parse(client.get("/help").get_data(as_text=True))
    text = doc.one("id", "quick-match").text
    assert len(text) >= 400 and "30" in text
    assert doc.one("class", "toc").find("href", "#quick-match") is not None


def test_a_public_match_played_out_moves_both_ratings_and_the_league_once(app):
    """A public room knows its seats' players from the start (noted with the room): the
    match's end reaches the outbox, and the lobby applies it once (ratings, League)."""
    import random

    from domino import game
    from domino.web.live.results_sender import ResultsSender, deliver_here

    ana, bob = named_browser(app, "Ana"), named_browser(app, "Bob")
    opened = open_public(app, "classic", ana, bob)
    services = app.extensions["domino"]
    assert services.rooms.store.seat_players(opened.room) == {
        0: player_id(ana),
        1: player_id(bob),
    }
    for browser, tab in ((ana, "100.a"), (bob, "100.b")):
        follow(browser, opened.grants[player_id(browser)])
        browser.connect(tab)
        browser.fragment()
    rng = random.Random(31)
    while not (state := services.get(opened.room).round).over:  # classic: one round a match
        mover = (ana, bob)[state.turn]
        assert mover.send(rng.choice(game.legal_actions(state, state.turn))).status_code == 200
    store = lobby(app)
    sender = ResultsSender(services.rooms.store, deliver_here(store))
    assert sender.send_due() == 1 and sender.send_due() == 0
    ratings = {b.name: store.rating(player_id(b), "duel") for b in (ana, bob)}
    assert {r.matches for r in ratings.values()} == {1}
    assert ratings["Ana"].mu != ratings["Bob"].mu
    rows = store.standings()
    assert sorted(row.name for row in rows) == ["Ana", "Bob"]
    assert sorted(row.points for row in rows) in ([0, 3], [1, 1])


def test_a_public_table_gives_up_no_round_and_sends_to_quick_match_after_its_match(app):
    ana, bob = named_browser(app, "Ana"), named_browser(app, "Bob")
    opened = open_public(app, "classic", ana, bob)
    for browser in (ana, bob):
        assert follow(browser, opened.grants[player_id(browser)]).status_code == 303
    mid = ana.doc
    assert mid.find("data-action", "new-round") is None  # no round is given up midway
    tables = app.extensions["domino"]
    finish_round(tables.rooms, tables.get(opened.room), random.Random(4))
    ana.open()
    over = ana.doc
    again = over.one("data-action", "play-again")
    assert again.tag == "a" and again.get("href") == "/play/"
    assert over.find("data-action", "new-round") is None
    assert over.find("data-action", "rematch") is None
    ana.connect()  # a request comes from a page whose socket is open
    refused = ana.post("new-round")
    assert refused.status_code == 403 and "Play again" in refused.get_data(as_text=True)
