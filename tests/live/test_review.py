"""Round review: a record's analysis, made once in the review pool, shown to the right seats."""

from __future__ import annotations

import json
import logging
import os
import random
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from domino import game
from domino.bots import analysis
from domino.events import Play
from domino.record import dumps, from_record, to_record
from domino.tiles import Tile
from domino.views import seat_view
from domino.web.live import analyses, pools
from domino.web.routes import review as web_review
from tests.support.webkit import Table, friends, make_app, new_round, parse

WAIT = 60.0
# A double-three block game with every tile dealt, so each seat can count the other's hand.
# At event 7 seat 0 (ends 3 and 0, holding 0-3, 1-3 and 3-3) lays 0-3 and keeps the 3-3;
# seat 1, left with 0-0 and nothing to draw, goes out at once and scores 10. Laying 3-3
# there would have kept the round alive and cost 3 points at most. With every hand known the
# review weighs each choice exactly (domino/bots/endgame.py), and one more, smaller slip shows:
# at event 1 laying 0-1 rather than 1-3 cost exactly COSTLY (2) points.
BAD = (
    '{"seats": ["you", "friend"], "rules": {"seats": 2, "teams": false, "hand_size": 5, '
    '"boneyard": false, "opener": "lowest-double", "lead": "opening-tile", "next_opener": '
    '"rule", "blocked": "difference", "scoring": "winner", "target": null, "max_pip": 3}, '
    '"deal": {"hands": [["0-2", "0-3", "0-1", "3-3", "1-3"], ["2-2", "1-1", "1-2", "2-3", '
    '"0-0"]], "boneyard": []}, "events": [{"seat": 1, "action": "play", "tile": "1-1", '
    '"end": "left"}, {"seat": 0, "action": "play", "tile": "0-1", "end": "right"}, '
    '{"seat": 1, "action": "play", "tile": "1-2", "end": "left"}, {"seat": 0, "action": '
    '"play", "tile": "0-2", "end": "right"}, {"seat": 1, "action": "play", "tile": "2-2", '
    '"end": "left"}, {"seat": 0, "action": "pass"}, {"seat": 1, "action": "play", "tile": '
    '"2-3", "end": "left"}, {"seat": 0, "action": "play", "tile": "0-3", "end": "left"}, '
    '{"seat": 1, "action": "play", "tile": "0-0", "end": "left"}], "result": {"winner": 1, '
    '"reason": "domino", "points": 10, "winners": [1], "scores": [0, 10]}}'
)
BAD_INDEX = 7
SLIP_INDEX = 1


# --- the analysis ------------------------------------------------------------------------------


def test_the_review_marks_the_one_bad_move_as_the_costliest():
    made = analysis.analyze(BAD, seed=1)
    rows = {row["index"]: row for row in made["decisions"]}
    costly = [row["index"] for row in made["decisions"] if row["costly"]]
    assert costly == [SLIP_INDEX, BAD_INDEX]
    assert rows[SLIP_INDEX]["cost"] == analysis.COSTLY
    assert rows[SLIP_INDEX]["made"] == "0-1:right" and rows[SLIP_INDEX]["best"] == "1-3:left"
    bad = rows[BAD_INDEX]
    assert bad["cost"] == max(row["cost"] for row in rows.values())
    assert bad["cost"] >= 5
    assert bad["made"] == "0-3:left" and bad["best"].startswith("3-3:")
    assert bad["reason"][0] == "double"
    assert json.loads(json.dumps(made)) == made  # plain JSON, as stored


def test_a_play_that_leaves_no_tile_to_follow_is_said_so():
    (decision,) = [d for d in analysis.decisions(json.loads(BAD)) if d.index == BAD_INDEX]
    made = Play(Tile.parse("0-3"), "left")
    assert decision.view.ends == (3, 2) and decision.made == made
    # The same position with another hand: after 0-3 (ends 0 and 2) nothing follows; after
    # 1-3 (ends 1 and 2) the 1-5 does.
    view = replace(decision.view, hand=(Tile.parse("0-3"), Tile.parse("1-3"), Tile.parse("1-5")))
    assert analysis.reason(view, made, Play(Tile.parse("1-3"), "left")) == [
        "no-answer",
        {"ends": [0, 2]},
    ]
    # The double goes first: 3-3 was a double as well as a play that kept an answer.
    assert analysis.reason(decision.view, made, Play(Tile.parse("3-3"), "left"))[0] == "double"


def test_decisions_are_the_real_choices_seen_from_the_seat():
    record = json.loads(BAD)
    final = from_record(record)
    found = analysis.decisions(record)
    state = game.start(final.start, final.rules)
    expected = []
    for index, move in enumerate(final.moves):
        view = seat_view(state, state.turn)
        if len(analysis.distinct(view)) >= 2:
            expected.append(index)
            (decision,) = [d for d in found if d.index == index]
            assert decision.view == view and decision.view.hands is None
            assert decision.made == Play(move.tile, move.end)
        state = game.apply(state, move)
    assert [d.index for d in found] == expected
    assert BAD_INDEX in expected and 5 not in expected  # the pass is no choice


def test_a_review_repeats_with_its_seed_and_weighs_a_full_round():
    rng = random.Random(3)
    state = game.start(game.deal(game.DEFAULT, rng), game.DEFAULT)
    while not state.over:
        state, _move = game.step(
            state, state.turn, rng.choice(game.legal_actions(state, state.turn))
        )

    text = dumps(to_record(state, ["a", "b"]))
    first = analysis.analyze(text, seed=9, playouts=300)
    assert first == analysis.analyze(text, seed=9, playouts=300)
    assert first["playouts"] == 300 and first["version"] == analysis.VERSION
    for row in first["decisions"]:
        assert row["cost"] >= 0 and row["best_ev"] >= row["made_ev"]
        assert row["costly"] == (row["cost"] >= analysis.COSTLY and row["costly"])


# --- the web pages -----------------------------------------------------------------------------


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "domino.sqlite3", seed=7, BOT_DELAY_MS=0)


@pytest.fixture
def spy(monkeypatch):
    """Every job sent to a pool by the review pages: (role, function, worker pid)."""
    sent = []

    class Spy:
        def __init__(self, real, role):
            self.real, self.role = real, role

        def submit(self, fn, *args):
            pid = self.real.submit(os.getpid).result(WAIT)
            sent.append((self.role, fn, pid))
            return self.real.submit(fn, *args)

    def spied(processes, renew=None, role="decide"):
        return Spy(pools.pool(processes, renew, role), role)

    monkeypatch.setattr(analyses, "pool", spied)
    return sent


def finished_computer_round(app) -> Table:
    """A computer room whose first round is over, its player's page open."""
    player = Table(app)
    player.home()
    response = player.client.post("/computer", data={"csrf_token": player.csrf, "level": "easy"})
    player.room = response.headers["Location"].rsplit("/", 1)[-1]
    player.open()
    player.connect()
    rng = random.Random(2)
    services = player.services
    while True:
        assert services.computer.wait_idle(WAIT)
        state = player.state
        if state.over:
            break
        assert player.send(rng.choice(game.legal_actions(state, state.turn))).status_code == 200
    return player


def wait_ready(table: Table, url: str):
    """Poll the analysis as the page does, until it answers 286."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        response = table.get(url)
        if response.status_code == web_review.STOP_POLLING:
            return response
        assert response.status_code == 200
        assert parse(response.get_data(as_text=True)).find("data-review-pending")
        time.sleep(0.1)
    raise AssertionError("the review was never ready")


def finished_friend_round(app) -> Table:
    """A friend room whose first round is over; its creator's browser."""
    tables = friends(app)
    play_out(tables)
    return tables[0]


def test_the_review_runs_once_in_the_review_pool_then_comes_from_storage(app, spy):
    player = finished_friend_round(app)
    player.fragment()
    link = player.doc.one("data-action", "review")
    going = player.get(link.get("href"))
    assert going.status_code == 303
    page = player.get(going.headers["Location"])
    assert page.status_code == 200 and page.headers["Cache-Control"] == "no-store"
    pending = parse(page.get_data(as_text=True)).one("data-review-pending")
    assert pending.get("role") == "status" and pending.get("hx-trigger") == "every 1s"
    ready = wait_ready(player, pending.get("hx-get"))
    assert ready.headers["Cache-Control"] == "no-store"
    assert [(role, fn) for role, fn, _pid in spy] == [("review", analysis.analyze)]
    (pid,) = [pid for _role, _fn, pid in spy]
    assert pid != os.getpid()
    assert int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16]) >= 15
    rows = parse(ready.get_data(as_text=True)).find_all("data-decision")
    assert rows and {row.get("data-decision-seat") for row in rows} == {"0"}
    again = parse(player.get(going.headers["Location"]).get_data(as_text=True))
    assert again.find("data-review-pending") is None and again.find_all("data-decision")
    assert len(spy) == 1  # served from storage: no second job
    (seq, _text) = player.services.rooms.store.record_rows(player.room)[0]
    assert json.loads(player.services.rooms.store.review(player.room, seq))["decisions"]


class Held(list):
    """Passed to the reviews as what runs each one (`REVIEW_RUN`): the reviews that reached
    the pool, by key; each holds its slot until `release()`."""

    def __init__(self) -> None:
        super().__init__()
        self.event = threading.Event()

    def __call__(self, key, _text) -> None:
        self.append(key)
        assert self.event.wait(WAIT)

    def release(self) -> None:
        self.event.set()


@pytest.fixture
def started(app):
    """Reviews that reach the pool only to be counted, each running until released."""
    held = Held()
    app.config["REVIEW_RUN"] = held  # read when the app's reviews are first made
    yield held
    held.release()


def test_a_restart_asks_again_and_too_many_waiting_say_so(app, monkeypatch, started):
    player = finished_friend_round(app)
    url = f"{player.url}/review/0"
    assert parse(player.get(url).get_data(as_text=True)).find("data-review-pending")
    player.get(url + "/analysis")
    assert len(started) == 1  # under way: asked once
    app.extensions.pop("domino-reviews")  # a restart forgets what was under way
    player.get(url + "/analysis")
    assert len(started) == 2
    app.extensions.pop("domino-reviews")
    monkeypatch.setattr(analyses, "PENDING_CAP", 0)
    busy = parse(player.get(url + "/analysis").get_data(as_text=True))
    assert busy.find("data-review-pending") and "shortly" in busy.text
    assert len(started) == 2


def test_a_review_waits_behind_no_more_than_one_job_of_each_other_client_and_says_its_place(
    app, started
):
    reviews = analyses.Reviews(app.extensions["domino"].rooms.store, 1)
    assert reviews.request("r", 1, "{}", 0, "203.0.113.1") == ("running", 0)  # holds the slot
    for seq in (2, 3, 4):  # one client's rooms
        assert reviews.request(f"r{seq}", seq, "{}", 0, "203.0.113.1")[0] == "waiting"
    # The other client has nothing running: it goes first, then the two take turns.
    assert reviews.request("honest", 9, "{}", 0, "198.51.100.7") == ("waiting", 0)
    assert reviews.request("r4", 4, "{}", 0, "203.0.113.1") == ("waiting", 3)
    assert reviews.request("r2", 2, "{}", 0, "203.0.113.1") == ("waiting", 1)


def test_waiting_reviews_are_capped_per_seat_and_per_address(app, started):
    reviews = analyses.Reviews(app.extensions["domino"].rooms.store, 1)
    reviews.request("r", 1, "{}", 0, "203.0.113.1")  # running
    assert reviews.request("r", 2, "{}", 0, "203.0.113.1")[0] == "waiting"
    assert reviews.request("r", 3, "{}", 0, "203.0.113.1")[0] == "waiting"
    assert reviews.request("r", 4, "{}", 0, "203.0.113.1") == ("busy", None)  # the seat's third
    assert reviews.request("r", 4, "{}", 1, "203.0.113.1")[0] == "waiting"  # another seat's
    assert reviews.request("s", 1, "{}", 0, "203.0.113.1")[0] == "waiting"
    assert reviews.request("t", 1, "{}", 0, "203.0.113.1") == ("busy", None)  # the address's 5th
    assert reviews.request("t", 1, "{}", 0, "198.51.100.7")[0] == "waiting"


def test_a_review_nobody_asks_for_any_more_is_dropped_before_it_starts(app, started):
    now = [0.0]
    store = app.extensions["domino"].rooms.store
    reviews = analyses.Reviews(store, 1, clock=lambda: now[0], run=started)
    reviews.request("r", 1, "{}", 0, "203.0.113.1")  # running, holds the slot
    reviews.request("r", 2, "{}", 0, "203.0.113.1")  # asked once, then its page went away
    now[0] = 3.0
    reviews.request("s", 1, "{}", 0, "198.51.100.7")
    now[0] = analyses.ABANDONED_SECONDS + 1  # "s" was asked 4 s ago, "r" 2 over the limit
    reviews.request("s", 1, "{}", 0, "198.51.100.7")
    assert reviews.queue.waiting(("r", 2)) is not None  # dropped when its turn comes, unstarted
    assert reviews.request("t", 1, "{}", 0, "192.0.2.9")[0] == "waiting"
    started_before = list(started)
    reviews.queue.cancel(("r", 1))  # nothing: a running job runs on
    started.release()
    assert wait_for(lambda: ("s", 1) in started)
    assert ("r", 2) not in started and started_before == [("r", 1)]


def wait_for(condition, seconds: float = WAIT) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


def test_a_review_is_stored_when_done_even_if_its_page_has_gone(app):
    player = finished_friend_round(app)
    player.get(f"{player.url}/review/0")  # asks once, then never polls
    reviews = app.extensions["domino-reviews"]
    assert wait_for(reviews.idle)
    (seq, _text) = player.services.rooms.store.record_rows(player.room)[0]
    assert json.loads(player.services.rooms.store.review(player.room, seq))["decisions"]


def test_strangers_and_unknown_rounds_get_nothing(app):
    player = finished_friend_round(app)
    stranger = Table(app, player.room)
    assert stranger.get(f"{player.url}/review/0").status_code == 404
    assert stranger.get(f"{player.url}/review/0/analysis").status_code == 404
    assert player.get(f"{player.url}/review/1").status_code == 404
    assert player.get(f"{player.url}/review/-1").status_code == 404


def play_out(tables) -> None:
    """Play the round to its end with random legal moves through HTTP."""
    rng = random.Random(4)
    while not tables[0].state.over:
        state = tables[0].state
        mover = tables[state.turn]
        response = mover.send(rng.choice(game.legal_actions(state, state.turn)))
        assert response.status_code == 200


def test_in_a_friend_room_each_sees_their_own_moves_until_the_next_deal(app):
    tables = friends(app)
    play_out(tables)
    store = tables[0].services.rooms.store
    ((seq, text),) = store.record_rows(tables[0].room)
    made = analysis.analyze(text, analyses.seed_of(text), playouts=200)
    for row in made["decisions"][:2]:  # a sentence for each seat's costly move
        row["costly"], row["cost"] = True, 3.0
    store.save_review(tables[0].room, seq, json.dumps(made))
    every = {str(row["seat"]) for row in made["decisions"]}
    assert every == {"0", "1"}
    for table in tables:
        doc = parse(table.get(f"{table.url}/review/0").get_data(as_text=True))
        seats = {row.get("data-decision-seat") for row in doc.find_all("data-decision")}
        assert seats == {str(table.seat)}
    new_round(tables)
    for table in tables:
        doc = parse(table.get(f"{table.url}/review/0").get_data(as_text=True))
        seats = {row.get("data-decision-seat") for row in doc.find_all("data-decision")}
        assert seats == every
        assert all(row.find("class", "review-why") for row in doc.find_all("data-costly"))


def test_the_page_steps_through_the_round_with_every_hand(app):
    player = finished_friend_round(app)
    record = json.loads(player.services.rooms.store.record_rows(player.room)[0][1])
    final = from_record(record)
    for step in (0, 1, len(final.moves)):
        doc = parse(player.get(f"{player.url}/review/0?step={step}").get_data(as_text=True))
        state = analysis.position(record, final, step)
        hands = doc.find_all("data-review-hand")
        assert [[t.get("data-tile") for t in h.find_all("data-tile")] for h in hands] == [
            [str(t) for t in hand] for hand in state.hands
        ]
        line = doc.one("data-review-line").find_all("data-tile")
        assert [t.get("data-tile") for t in line] == [str(laid) for laid in state.line]
        assert (doc.find("data-step-prev") is None) == (step == 0)
        assert (doc.find("data-step-next") is None) == (step == len(final.moves))
    bad = parse(player.get(f"{player.url}/review/0?step=x").get_data(as_text=True))
    assert bad.one("data-review").get("data-step") == "1"  # as opened: no analysis yet


def test_in_a_computer_room_the_player_sees_every_seat_once_dealt_again(app):
    player = finished_computer_round(app)
    store = player.services.rooms.store
    ((seq, text),) = store.record_rows(player.room)
    store.save_review(player.room, seq, json.dumps(analysis.analyze(text, 1, playouts=200)))
    doc = parse(player.get(f"{player.url}/review/0").get_data(as_text=True))
    seats = {row.get("data-decision-seat") for row in doc.find_all("data-decision")}
    assert seats == {"0"}  # a rematch would hand the player the computer's hand
    assert player.post("new-round").status_code == 200
    doc = parse(player.get(f"{player.url}/review/0").get_data(as_text=True))
    seats = {row.get("data-decision-seat") for row in doc.find_all("data-decision")}
    assert seats == {"0", "1"}


def test_the_rematch_keeps_the_others_analysis_back_until_it_is_over(app):
    tables = friends(app)
    play_out(tables)
    store = tables[0].services.rooms.store
    ((seq, text),) = store.record_rows(tables[0].room)
    store.save_review(tables[0].room, seq, json.dumps(analysis.analyze(text, 1, playouts=200)))
    assert tables[0].post("rematch").status_code == 200
    assert tables[1].post("accept-rematch").status_code == 200
    assert tables[0].services.rooms.get(tables[0].room).duplicate is not None
    for table in tables:  # each now holds the hand the other played: only their own moves
        doc = parse(table.get(f"{table.url}/review/0").get_data(as_text=True))
        seats = {row.get("data-decision-seat") for row in doc.find_all("data-decision")}
        assert seats == {str(table.seat)}
        assert any("rematch" in note.text for note in doc.find_all("class", "review-note"))
    play_out(tables)
    for table in tables:
        doc = parse(table.get(f"{table.url}/review/0").get_data(as_text=True))
        seats = {row.get("data-decision-seat") for row in doc.find_all("data-decision")}
        assert seats == {"0", "1"}


def test_a_review_that_takes_too_long_says_so_in_one_line_and_is_stored_when_done(
    app, monkeypatch, caplog
):
    player = finished_friend_round(app)
    monkeypatch.setattr(analyses, "REVIEW_SECONDS", 0.001)  # every review is too long
    caplog.set_level(logging.WARNING, logger="domino.web.live.analyses")
    player.get(f"{player.url}/review/0")
    store = player.services.rooms.store
    (seq, _text) = store.record_rows(player.room)[0]
    assert wait_for(lambda: store.review(player.room, seq) is not None)
    said = [r for r in caplog.records if r.name == "domino.web.live.analyses"]
    assert len(said) == 1 and said[0].exc_info is None
    assert "took too long" in said[0].getMessage()
