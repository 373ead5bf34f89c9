"""Playing the computer through Flask's test client (docs/rules.md, the computer; docs/contracts.md,
page hooks).

The player is a `Table` (tests/support/webkit.py) with a fake socket attached to the hub, so the
computer's moves, made off the request thread by the app's `Computer`, can be read as the
frames pushed to the player. Apps use BOT_DELAY_MS 0 and a seeded dealer unless a test needs
the computer to take its time; `computer.wait_idle()` follows every action that may make
the computer move, before anything is asserted.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from domino import game
from domino.dealing import new_server_seed
from domino.events import DRAW, Play
from domino.fair import fair_deal
from domino.room import MOVES, fold
from domino.rules import DEFAULT
from domino.tiles import Laid, Tile
from domino.views import SeatView, seat_view
from domino.web.live.computer import Computer
from domino.web.view.messages import refusal
from tests.support.checker import check_record
from tests.support.webkit import (
    Table,
    assert_hides,
    button,
    chain,
    friends,
    hand,
    line_of,
    make_app,
    notice,
    number,
    parse,
    playable,
)

PLAYER = 0
COMPUTER = 1  # the computer's seat in a two-seat computer room
WAIT = 15.0  # seconds a computer move may take at most (the hard level included)


# --- helpers -------------------------------------------------------------------------------------


def computer(app):
    return app.extensions["domino"].computer


def settle(app) -> None:
    """Wait until the computer has made every move it is due."""
    assert computer(app).wait_idle(WAIT), "the computer is still thinking"


def page(response):
    return parse(response.get_data(as_text=True))


def start_computer(table: Table, level: str | None = None, card: dict | None = None):
    """POST /computer from the home page (with the rules card's `card` fields), as its button
    does; returns the answer."""
    table.home()
    data = {"csrf_token": table.csrf, **(card or {})}
    if level is not None:
        data["level"] = level
    response = table.client.post("/computer", data=data)
    if response.status_code == 303:
        table.room = response.headers["Location"].rsplit("/", 1)[-1]
    return response


def computer_room(app, level: str | None = None, tab: str = "100.a", card=None) -> Table:
    """A computer room with its player's page open and its fake socket connected."""
    player = Table(app)
    response = start_computer(player, level, card)
    assert response.status_code == 303, response.get_data(as_text=True)
    settle(app)
    player.open()
    player.connect(tab)
    player.fragment()
    return player


def room_of(table: Table):
    return table.services.rooms.get(table.room)


def seq_of(html: str) -> int:
    return int(parse(html).one("data-seq").get("data-seq"))


def newest(table: Table) -> str:
    """The most recent table the player was sent (highest `data-seq`).

    A move's HTTP answer and the computer's reply pushed over the socket are produced on
    different threads, so the order they were recorded in says nothing; their seq does.
    """
    tables = [(seq_of(html), n, html) for n, html in enumerate(table.seen) if "data-seq=" in html]
    assert tables, "the player has seen no table"
    return max(tables)[2]  # of equal seqs, the later one (a page, then its live fragment)


def act(table: Table, action: str, **fields):
    """POST an action from the player's live tab with the seq of its newest table."""
    return table.post(action, seq=seq_of(newest(table)), **fields)


def move(table: Table, action):
    """Send the player's rules action (a Play, DRAW or PASS)."""
    if isinstance(action, Play):
        return act(table, "play", tile=str(action.tile), end=action.end)
    return act(table, "draw" if action is DRAW else "pass")


def moves_of(log) -> list[tuple[int, dict]]:
    """The (seq, data) of every play, draw and pass in a room's log."""
    return [(seq, data) for seq, kind, data in log if kind in MOVES]


def state_at(table: Table, seq: int) -> game.State:
    """The round as it stood right after event `seq` of the room."""
    events = [event for event in table.log if event[0] <= seq]
    return fold(table.room, "computer", events).round


def state_before(table: Table, seq: int) -> game.State:
    return state_at(table, seq - 1)


def until(table: Table, wanted, rng: random.Random, limit: int = 200) -> game.State:
    """Play the player's random legal moves (the computer answering) until `wanted(state)`."""
    for _ in range(limit):
        state = table.state
        if wanted(state):
            return state
        assert not state.over, "the round ended before the wanted position"
        assert state.turn == PLAYER, "the computer did not move"
        response = move(table, rng.choice(game.legal_actions(state, PLAYER)))
        assert response.status_code == 200, response.get_data(as_text=True)
        settle(table.app)
    raise AssertionError("the wanted position never came up")


def seed_where(opener: int) -> int:
    """A dealing seed whose first deal (the app's first room) gives `opener` the opening tile."""
    for seed in range(100):  # the room commits to the rng's first server seed; nobody sends one
        server_seed = new_server_seed(random.Random(seed))
        deal = fair_deal(game.DEFAULT, server_seed, 1, [None, None])
        if game.opener(game.DEFAULT, deal.hands)[0] == opener:
            return seed
    raise AssertionError(f"no seed below 100 gives seat {opener} the opening tile")


def players_turn_mid_round(state: game.State) -> bool:
    return not state.over and state.turn == PLAYER and len(state.line) >= 2


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "domino.sqlite3", seed=7, BOT_DELAY_MS=250)


@pytest.fixture
def recorded(decider):
    """Every decision the computer of an app given `decider` asks for: (level, view)."""
    return decider.asked


# --- 1. creating a computer room -------------------------------------------------------------


@pytest.mark.parametrize("level", [None, "easy", "medium", "hard"])
def test_play_the_computer_creates_a_computer_room(app, level):
    player = Table(app)
    response = start_computer(player, level)
    assert response.status_code == 303
    assert response.headers["Location"] == player.url
    (cookie,) = [h for h in response.headers.getlist("Set-Cookie") if h.startswith("seat=")]
    assert f"Path={player.url}" in cookie and "HttpOnly" in cookie
    assert len(player.secret) >= 40
    settle(app)

    room = room_of(player)
    expected = level or "medium"
    assert room.kind == "computer"
    assert room.level == expected
    assert room.seats[1] is None and room.full
    assert player.seat == 0
    assert room.rounds == 1
    kinds = [kind for _seq, kind, _data in player.log]
    assert kinds[:6] == ["rules", "seat", "level", "commit", "deal", "commit"]
    assert player.log[0][2] == DEFAULT.to_json()
    assert player.log[2][2] == {"seat": COMPUTER, "level": expected}

    doc = page(player.open())
    select = doc.one("data-level")
    assert select.tag == "select"
    options = {o.get("value"): o.has("selected") for o in select.find_all(tag="option")}
    assert options == {name: name == expected for name in ("easy", "medium", "hard")}
    assert doc.one("data-opponent-connected").get("data-opponent-connected") == "true"
    assert doc.find("data-invite") is None
    assert doc.find("data-action", "copy-invite") is None
    assert hand(doc) == [str(t) for t in room.round.hands[PLAYER]]

    # nobody else can take the computer's seat
    stranger = Table(app, player.room)
    assert stranger.open().status_code == 403
    stranger.home()
    assert stranger.join().status_code == 403
    assert room_of(player).seats == room.seats


@pytest.mark.parametrize("level", ["", "expert", "HARD", "random"])
def test_an_unknown_level_creates_no_room(app, level):
    player = Table(app)
    response = start_computer(player, level)
    assert response.status_code == 400
    assert page(response).one("role", "alert").text == refusal("bad-level")
    assert not [h for h in response.headers.getlist("Set-Cookie") if h.startswith("seat=")]
    assert player.room is None


def test_the_home_page_button_posts_to_the_computer_route(app):
    doc = page(Table(app).home())
    play = doc.one("data-action", "play-computer")
    (form,) = [f for f in doc.find_all(tag="form") if play in f.iter()]
    action = play.get("formaction") or form.get("action")  # one form: the rules card's
    assert (action, form.get("method")) == ("/computer", "post")
    assert form.one("name", "csrf_token").get("value")


def test_play_the_computer_needs_the_csrf_token(app):
    client = app.test_client()
    response = client.post("/computer", data={"level": "easy"})
    assert response.status_code == 400
    assert not response.headers.getlist("Set-Cookie")


# --- 2. a whole round against the computer ---------------------------------------------------


def check_pushes(player: Table, frames: list[str], computer_moves: list[tuple[int, dict]]):
    """Each computer move arrived as one pushed #table frame, rendered for the player."""
    assert len(frames) == len(computer_moves), (len(frames), computer_moves)
    for frame, (seq, data) in zip(frames, computer_moves, strict=True):
        assert data["seat"] == COMPUTER
        doc = parse(frame)
        (table, announce) = doc.elements  # the table, then its live region's update
        assert table.get("id") == "table" and table.get("hx-swap-oob") == "true"
        assert announce.get("id") == "announce" and announce.get("hx-swap-oob") == "innerHTML"
        assert int(table.get("data-seq")) == seq
        state = state_at(player, seq)
        assert hand(doc) == [str(t) for t in state.hands[PLAYER]]
        assert chain(doc) == line_of(state)
        assert number(doc, "data-opponent-count") == len(state.hands[COMPUTER])
        assert number(doc, "data-boneyard-count") == len(state.boneyard)
        assert_hides(frame, state, PLAYER)
        if state.over:
            assert doc.find("data-result") is not None
        else:
            turn = "you" if state.turn == PLAYER else "opponent"
            assert doc.one("data-turn").get("data-turn") == turn
            legal = game.legal_actions(state, PLAYER)
            assert playable(doc) == {str(p.tile) for p in legal if isinstance(p, Play)}


def check_alternation(log, opener: int) -> None:
    """Moves alternate, except that a draw keeps the turn; the opener moves first."""
    moves = [data for _seq, data in moves_of(log)]
    assert moves and moves[0]["seat"] == opener and moves[0]["action"] == "play"
    for before, after in itertools.pairwise(moves):
        if before["action"] == "draw":
            assert after["seat"] == before["seat"], (before, after)
        else:
            assert after["seat"] == 1 - before["seat"], (before, after)


@pytest.mark.parametrize("seed, level", [(1, "medium"), (2, "easy"), (3, "hard"), (4, "medium")])
def test_a_whole_round_against_the_computer(tmp_path, seed, level):
    app = make_app(tmp_path / "domino.sqlite3", seed=seed, BOT_DELAY_MS=0)
    rng = random.Random(seed)
    player = computer_room(app, level)
    opener, _tile = game.opener(game.DEFAULT, player.state.start.hands)
    if opener == COMPUTER:
        assert len(player.state.line) == 1 and player.state.turn == PLAYER

    player_moves = 0
    for _ in range(200):
        state = player.state
        if state.over:
            break
        assert state.turn == PLAYER, "the computer left its turn unplayed"
        doc = parse(newest(player))
        assert doc.one("data-turn").get("data-turn") == "you"
        legal = game.legal_actions(state, PLAYER)
        assert playable(doc) == {str(p.tile) for p in legal if isinstance(p, Play)}
        frames, logged = len(player.ws.frames), len(player.log)

        response = move(player, rng.choice(legal))
        assert response.status_code == 200, response.get_data(as_text=True)
        player_moves += 1
        settle(app)

        log = player.log
        (mine, *theirs) = [(s, d) for s, kind, d in log[logged:] if kind in MOVES]
        assert mine[1]["seat"] == PLAYER
        assert seq_of(response.get_data(as_text=True)) == mine[0]
        assert_hides(response.get_data(as_text=True), state_at(player, mine[0]), PLAYER)
        check_pushes(player, player.ws.frames[frames:], theirs)
    else:
        raise AssertionError("the round did not end")

    state = player.state
    assert player_moves >= 1
    result = game.outcome(state)
    doc = parse(newest(player))
    verdict = doc.one("data-result")
    winner = "draw" if result.winner is None else ("you" if result.winner == 0 else "opponent")
    assert verdict.get("data-winner") == winner
    assert int(verdict.get("data-points")) == result.points
    shown = sorted(t.get("data-tile") for t in doc.one("data-opponent-hand").find_all("data-tile"))
    assert shown == sorted(str(t) for t in state.hands[COMPUTER])
    assert page(player.fragment()).find("data-result") is not None

    log = player.log
    check_alternation(log, opener)
    assert all(kind != "seat" or data["seat"] == 0 for _s, kind, data in log)
    response = player.get(f"{player.url}/record.jsonl")
    assert response.status_code == 200
    (line,) = response.get_data(as_text=True).splitlines()
    record = json.loads(line)
    assert check_record(record) == []
    assert record["seats"] == ["player", "computer"]
    assert record["events"] == [data for _seq, data in moves_of(log)]
    assert record["result"] == {
        "winner": result.winner,
        "reason": result.reason,
        "points": result.points,
    }


# --- 3. the computer opens by itself -----------------------------------------------------------


def test_the_computer_opens_by_itself_when_it_holds_the_opening_tile(tmp_path):
    seed = seed_where(COMPUTER)
    app = make_app(tmp_path / "domino.sqlite3", seed=seed, BOT_DELAY_MS=0)
    player = Table(app)
    assert start_computer(player).status_code == 303
    settle(app)

    state = player.state
    opener, opening = game.opener(game.DEFAULT, state.start.hands)
    assert opener == COMPUTER
    assert [laid.tile for laid in state.line] == [opening]
    assert state.turn == PLAYER
    ((_seq, first),) = moves_of(player.log)
    assert first == {"seat": COMPUTER, "action": "play", "tile": str(opening), "end": first["end"]}
    doc = page(player.open())
    assert chain(doc) == line_of(state)
    assert hand(doc) == [str(t) for t in state.hands[PLAYER]]
    assert number(doc, "data-opponent-count") == 6
    assert doc.find("data-opening") is None
    assert doc.one("data-turn").get("data-turn") == "you"


def test_the_player_opens_when_it_holds_the_opening_tile(tmp_path):
    seed = seed_where(PLAYER)
    app = make_app(tmp_path / "domino.sqlite3", seed=seed, BOT_DELAY_MS=0)
    player = computer_room(app)
    state = player.state
    assert state.line == () and state.turn == PLAYER
    doc = parse(newest(player))
    assert [t.get("data-tile") for t in doc.find_all("data-opening")] == [str(state.opening)]
    assert playable(doc) == {str(state.opening)}
    assert move(player, Play(state.opening, "left")).status_code == 200
    settle(app)
    assert len(player.state.line) >= 2 or player.state.boneyard != state.boneyard
    assert player.state.turn == PLAYER
    assert moves_of(player.log)[1][1]["seat"] == COMPUTER


# --- 4. switching the level ----------------------------------------------------------------------


def snapshot(state: game.State):
    return (state.hands, state.line, state.boneyard, state.turn, state.moves)


def switch(player: Table, level: str):
    return act(player, "level", level=level)


def test_switching_the_level_mid_round_keeps_the_table(tmp_path, decider, recorded):
    app = make_app(tmp_path / "domino.sqlite3", seed=7, BOT_DELAY_MS=250, BOT_DECIDE=decider)
    rng = random.Random(5)
    player = computer_room(app)
    until(player, players_turn_mid_round, rng)
    assert {level for level, _view in recorded} == {"medium"}

    for level in ("hard", "easy"):
        before_room, before_doc = room_of(player), parse(newest(player))
        frames, log = len(player.ws.frames), player.log
        response = switch(player, level)
        assert response.status_code == 200, response.get_data(as_text=True)
        settle(app)

        after = room_of(player)
        assert after.level == level
        assert snapshot(after.round) == snapshot(before_room.round)
        assert (after.rounds, after.kind, after.seats) == (
            before_room.rounds,
            before_room.kind,
            before_room.seats,
        )
        assert player.log[: len(log)] == log
        switched = {"seat": COMPUTER, "level": level}
        assert player.log[len(log) :] == [(before_room.seq + 1, "level", switched)]
        assert len(player.ws.frames) == frames  # the computer did not move: it is not its turn

        doc = page(response)
        select = doc.one("data-level")
        assert [o.get("value") for o in select.find_all("selected")] == [level]
        for hook in ("data-opponent-count", "data-boneyard-count"):
            assert number(doc, hook) == number(before_doc, hook)
        assert hand(doc) == hand(before_doc)
        assert chain(doc) == chain(before_doc)
        assert playable(doc) == playable(before_doc)
        assert doc.one("data-turn").get("data-turn") == "you"
        assert page(player.fragment()).one("data-level").one("selected").get("value") == level

        # the computer goes on, at the new level
        recorded.clear()
        until(player, lambda s: recorded or s.over, rng)
        assert recorded, "the computer has not moved since the switch"
        assert {name for name, _view in recorded} == {level}
        pushed = parse(player.ws.frames[-1])
        assert [o.get("value") for o in pushed.one("data-level").find_all("selected")] == [level]
        assert not player.state.over  # with this seed, the round goes on
        until(player, players_turn_mid_round, rng)


def test_switching_the_level_while_the_computer_thinks(tmp_path, decider, recorded):
    """A move planned at the old level is dropped; the computer moves once, at the new one."""
    app = make_app(tmp_path / "domino.sqlite3", seed=7, BOT_DELAY_MS=400, BOT_DECIDE=decider)
    rng = random.Random(8)
    player = computer_room(app)

    def computer_next(state):
        legal = game.legal_actions(state, PLAYER)
        return players_turn_mid_round(state) and all(a is not DRAW for a in legal)

    until(player, computer_next, rng)
    state = player.state
    recorded.clear()
    logged = len(player.log)
    action = next(a for a in game.legal_actions(state, PLAYER) if a is not DRAW)
    release = decider.hold()  # the medium decision is still under way at the switch
    assert move(player, action).status_code == 200
    assert player.state.turn == COMPUTER  # (this seed's move does not end the round)
    response = switch(player, "hard")
    assert response.status_code == 200
    doc = page(response)
    assert doc.one("data-turn").get("data-turn") == "opponent"
    assert hand(doc) == [str(t) for t in player.state.hands[PLAYER]]
    release.set()
    settle(app)

    new = [(kind, data) for _seq, kind, data in player.log[logged:]]
    assert new[0][0] == "play" and new[0][1]["seat"] == PLAYER
    assert new[1] == ("level", {"seat": COMPUTER, "level": "hard"})
    computer = [data for kind, data in new[2:]]
    assert computer and all(data["seat"] == COMPUTER for data in computer)
    # one decision, except that a draw keeps the turn
    assert all(data["action"] == "draw" for data in computer[:-1])
    # the decision under way at the switch (medium) is dropped, the move made is hard's
    # (both were held, so either may reach the pool first)
    names = [name for name, _view in recorded]
    assert sorted(names) == sorted(["medium"] + ["hard"] * len(computer))
    assert player.state.turn == PLAYER or player.state.over


@pytest.mark.parametrize("level", ["", "expert", "Hard", "medium "])
def test_an_unknown_level_is_refused(app, level):
    player = computer_room(app, "easy")
    log = player.log
    response = switch(player, level)
    assert response.status_code == 400
    assert notice(page(response)) == refusal("bad-level")
    assert player.log == log
    assert room_of(player).level == "easy"
    assert page(response).one("data-level").one("selected").get("value") == "easy"


def test_a_missing_level_is_refused(app):
    player = computer_room(app)
    log = player.log
    response = act(player, "level")
    assert response.status_code == 400
    assert notice(page(response)) == refusal("bad-level")
    assert player.log == log


def test_choosing_the_current_level_changes_nothing(app):
    player = computer_room(app, "hard")
    log = player.log
    response = switch(player, "hard")
    assert response.status_code == 200
    assert player.log == log


def test_a_friend_room_has_no_level(app):
    a, b = friends(app)
    log = a.log
    for table in (a, b):
        response = table.post("level", level="hard")
        assert response.status_code == 400
        assert notice(page(response)) == refusal("not-computer")
        assert page(response).find("data-level") is None
    assert a.log == log
    assert room_of(a).level is None


def test_a_level_switch_needs_the_live_tab_and_the_csrf_token(app):
    player = computer_room(app, "easy")
    log = player.log
    stale_tab = player.post("level", tab="999.x", level="hard")
    assert stale_tab.status_code == 409
    no_tab = player.post("level", tab=None, level="hard")
    assert no_tab.status_code == 409
    no_csrf = player.post("level", csrf=False, level="hard")
    assert no_csrf.status_code == 400
    assert notice(page(no_csrf)) == refusal("csrf")
    stranger = Table(app, player.room)
    stranger.home()
    stranger.tab = player.tab
    assert stranger.post("level", seq=None, level="hard").status_code == 403
    assert player.log == log
    assert room_of(player).level == "easy"


# --- 5. new rounds -------------------------------------------------------------------------------


def test_the_computer_always_accepts_a_new_round(app):
    rng = random.Random(2)
    player = computer_room(app)
    until(player, players_turn_mid_round, rng)

    # during a round
    before = room_of(player)
    response = act(player, "new-round")
    assert response.status_code == 200, response.get_data(as_text=True)
    settle(app)
    after = room_of(player)
    assert (before.rounds, after.rounds) == (1, 2)
    assert after.request is None
    kinds = [kind for seq, kind, _data in player.log if seq > before.seq]
    assert kinds[:2] == ["deal", "commit"] and "ask" not in kinds
    assert all(kind in MOVES for kind in kinds[2:])
    deal = next(data for seq, kind, data in player.log if seq == before.seq + 1)
    assert hand(page(response)) == deal["hands"][0]
    assert button(page(response), "accept-new-round") is None
    state = after.round
    assert state.turn == PLAYER and len(state.line) == (1 if kinds[1:] else 0)

    # after a round
    until(player, lambda s: s.over, rng, limit=300)
    assert page(player.fragment()).find("data-result") is not None
    response = act(player, "new-round")
    assert response.status_code == 200
    settle(app)
    room = room_of(player)
    assert room.rounds == 3 and room.request is None
    assert not room.round.over and room.round.turn == PLAYER
    doc = parse(newest(player))
    assert doc.find("data-result") is None
    assert hand(doc) == [str(t) for t in room.round.hands[PLAYER]]
    assert len(room.round.boneyard) == 14


# --- 6. restore ----------------------------------------------------------------------------------


def test_a_restored_room_lets_the_computer_move_on(tmp_path):
    db = tmp_path / "domino.sqlite3"
    seed = seed_where(PLAYER)
    first = make_app(db, seed=seed, BOT_DELAY_MS=60_000)  # the computer takes its time
    player = Table(first)
    assert start_computer(player).status_code == 303
    player.open()
    player.connect()
    state = player.state
    assert move(player, Play(state.opening, "left")).status_code == 200
    stored = room_of(player)
    assert stored.round.turn == COMPUTER and stored.computer_to_move
    log = player.log
    assert not first.extensions["domino"].computer.wait_idle(0.05)  # still pending

    second = make_app(db, seed=seed + 1, BOT_DELAY_MS=0)
    restored = second.extensions["domino"].rooms.get(player.room)
    assert restored == stored
    back = Table(second, player.room)
    back.client.set_cookie("seat", player.secret, path=player.url)
    back.connect("200.b")
    settle(second)
    assert back.log == log  # nothing moves before somebody looks

    doc = page(back.open())
    assert hand(doc) == [str(t) for t in stored.round.hands[PLAYER]]
    settle(second)
    room = second.extensions["domino"].rooms.get(player.room)
    new = [data for _seq, kind, data in back.log[len(log) :]]
    assert new and all(data["seat"] == COMPUTER for data in new)
    assert room.round.turn == PLAYER or room.round.over
    assert len(back.ws.frames) == len(new)
    assert seq_of(back.ws.frames[-1]) == room.seq
    assert hand(parse(back.ws.frames[-1])) == [str(t) for t in room.round.hands[PLAYER]]
    assert room.level == "medium" and room.kind == "computer"


# --- 7. the computer sees only its seat ----------------------------------------------------------


def tiles_in(value) -> set[Tile]:
    """Every tile anywhere inside a view's values (a laid tile counts as its tile)."""
    if isinstance(value, Tile):
        return {value}
    if isinstance(value, Laid):
        return {value.tile}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return set().union(*(tiles_in(getattr(value, f.name)) for f in dataclasses.fields(value)))
    if isinstance(value, tuple | list | set | frozenset):
        return set().union(*(tiles_in(item) for item in value))
    if isinstance(value, dict):
        return set().union(*(tiles_in(item) for item in value.items()))
    return set()


def test_the_computer_decides_from_its_seat_view_only(tmp_path, decider, recorded):
    app = make_app(tmp_path / "domino.sqlite3", seed=3, BOT_DELAY_MS=0, BOT_DECIDE=decider)
    player = computer_room(app)
    until(player, lambda s: s.over, random.Random(3), limit=300)

    computer = [(seq, data) for seq, data in moves_of(player.log) if data["seat"] == COMPUTER]
    assert len(recorded) == len(computer) > 3
    names = {f.name for f in dataclasses.fields(SeatView)}
    assert not names & {"boneyard", "state", "start", "moves", "deal"}
    for (level, view), (seq, _data) in zip(recorded, computer, strict=True):
        assert level == "medium"
        assert type(view) is SeatView
        state = state_before(player, seq)
        assert view.seat == COMPUTER
        assert view.hand == state.hands[COMPUTER]
        assert view == seat_view(state, COMPUTER)
        assert view.hands is None and view.outcome is None
        assert not hasattr(view, "boneyard") and not hasattr(view, "state")
        assert view.counts == (len(state.hands[PLAYER]), len(state.hands[COMPUTER]))
        assert view.boneyard_count == len(state.boneyard)
        hidden = set(state.hands[PLAYER]) | set(state.boneyard)
        assert not tiles_in(view) & hidden
        assert all(m.tile is None for m in view.history if m.action == "draw")


# --- 8. the player's hand while the computer thinks --------------------------------------------


def test_the_players_hand_stays_visible_while_the_computer_thinks(tmp_path, decider):
    seed = seed_where(PLAYER)
    app = make_app(tmp_path / "domino.sqlite3", seed=seed, BOT_DELAY_MS=300, BOT_DECIDE=decider)
    player = computer_room(app)
    state = player.state
    logged = len(player.log)
    release = decider.hold()
    response = move(player, Play(state.opening, "left"))
    assert response.status_code == 200
    thinking = player.state
    assert thinking.turn == COMPUTER
    assert len(player.log) == logged + 1  # the computer has not moved yet

    for doc in (page(response), page(player.fragment())):
        tiles = doc.one("data-hand").find_all("data-tile")
        assert [t.get("data-tile") for t in tiles] == [str(t) for t in thinking.hands[PLAYER]]
        assert len(tiles) == 6
        assert doc.one("data-turn").get("data-turn") == "opponent"
        assert doc.find("class", "waiting-note thinking") is not None
        assert playable(doc) == set()
        assert chain(doc) == line_of(thinking)
        assert not [
            b for b in (button(doc, "draw"), button(doc, "pass")) if b and not b.has("disabled")
        ]
    assert len(player.log) == logged + 1

    release.set()
    settle(app)
    after = player.state
    assert after.turn == PLAYER or after.over
    assert len(player.log) > logged + 1
    doc = parse(player.ws.frames[-1])
    assert hand(doc) == [str(t) for t in after.hands[PLAYER]]
    assert doc.find("class", "waiting-note thinking") is None


def test_no_move_is_accepted_from_the_player_while_the_computer_thinks(tmp_path, decider):
    seed = seed_where(PLAYER)
    app = make_app(tmp_path / "domino.sqlite3", seed=seed, BOT_DELAY_MS=300, BOT_DECIDE=decider)
    player = computer_room(app)
    state = player.state
    release = decider.hold()
    assert move(player, Play(state.opening, "left")).status_code == 200
    log = player.log
    tile = player.state.hands[PLAYER][0]
    for action, fields in (
        ("play", {"tile": str(tile), "end": "left"}),
        ("draw", {}),
        ("pass", {}),
    ):
        response = act(player, action, **fields)
        assert response.status_code == 409
        assert notice(page(response)) == refusal("not-your-turn")
    assert player.log == log
    release.set()
    settle(app)
    assert player.state.turn == PLAYER or player.state.over


# --- 9. one decision per position, at a pace that tells nothing --------------------------------


def test_page_loads_while_the_computer_thinks_start_one_decision(tmp_path, decider):
    app = make_app(tmp_path / "domino.sqlite3", seed=7, BOT_DECIDE=decider)
    player = computer_room(app)
    until(player, players_turn_mid_round, random.Random(8))
    state = player.state
    asked = len(decider.asked)
    thinking = decider.hold()  # a decision that lasts until the page loads are done
    action = next(a for a in game.legal_actions(state, PLAYER) if a is not DRAW)
    assert move(player, action).status_code == 200
    assert player.state.turn == COMPUTER
    for _ in range(10):  # reloads and fragments while the decision is under way
        player.open()
        player.fragment()
    assert player.state.turn == COMPUTER and len(decider.asked) - asked == 1
    thinking.set()
    settle(app)
    made = [data for _seq, kind, data in player.log if kind in MOVES][len(state.moves) + 1 :]
    assert made and all(data["seat"] == COMPUTER for data in made)
    assert len(decider.asked) - asked == len(
        made
    )  # one decision per position (a draw keeps the turn)


@pytest.mark.parametrize(
    ("thought", "wait"), [(0.0, 0.7), (0.05, 0.65), (0.69, 0.01), (0.7, 0.0), (0.9, 0.5)]
)
def test_the_move_lands_on_a_multiple_of_the_pause_whatever_the_thinking(app, thought, wait):
    pace = Computer(app, None, 700, 1, random.Random(1))
    assert pace._pause(thought) == pytest.approx(wait)
    assert Computer(app, None, 0, 1, random.Random(1))._pause(thought) == 0.0


def test_the_computer_moves_no_sooner_than_the_pause(tmp_path):
    app = make_app(tmp_path / "domino.sqlite3", seed=7, BOT_DELAY_MS=250)
    player = computer_room(app)
    until(player, players_turn_mid_round, random.Random(8))
    action = next(a for a in game.legal_actions(player.state, PLAYER) if a is not DRAW)
    mine = len(player.log) + 1
    assert move(player, action).status_code == 200
    settle(app)
    # The store's own commit times, so a slow machine cannot blur them: the computer's first
    # event after the player's move was written at least the pause later.
    sql = "SELECT seq, type, data, at FROM events WHERE room = ? AND seq >= ? ORDER BY seq"
    rows = list(player.services.rooms.store.db.query(sql, [player.room, mine]))
    assert rows[0]["type"] in MOVES and json.loads(rows[0]["data"])["seat"] == PLAYER
    answer = next(r for r in rows[1:] if r["type"] in MOVES)
    assert json.loads(answer["data"])["seat"] == COMPUTER
    assert answer["at"] - rows[0]["at"] >= 0.25


KILLED_SERVER = """
import os, signal, sys
if __name__ == "__main__":
    from gevent import monkey

    monkey.patch_all()
    from domino.web.live.pools import pool

    print(pool(1).submit(os.getpid).result(), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_the_deciders_end_with_a_server_killed_outright(tmp_path):
    script = tmp_path / "server.py"
    script.write_text(KILLED_SERVER)
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, str(script)], cwd=root, capture_output=True, text=True, timeout=60
    )
    decider = int(done.stdout.split()[0])
    deadline = time.monotonic() + 10
    while running(decider) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(decider), "a decider outlived its server"


def running(pid: int) -> bool:
    """True while the process runs (a zombie that nobody reaped has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"
