"""The friend-room web layer through Flask's test client (docs/rules.md, playing with friends;
docs/rules.md, at the table; docs/contracts.md, page hooks).

Every browser is a `Table` (tests/support/webkit.py): its own test client, with the CSRF token,
tab id and `seq` filled in as htmx would. Sockets are fake connections attached to the hub, so a
move is accepted from a seat's live tab and the other seat's pushed frames can be read.
"""

from __future__ import annotations

import json
import random
import re
import threading
import time

import pytest

from domino import game
from domino.events import DRAW, PASS, Play
from domino.tiles import Tile
from domino.web.live.hub import Superseded
from domino.web.view.messages import notice as notice_of
from domino.web.view.messages import refusal
from tests.support.checker import check_record
from tests.support.webkit import (
    WEBSOCKET_HEADERS,
    Table,
    advance_until,
    assert_hides,
    button,
    chain,
    connection,
    enabled,
    fits,
    friends,
    hand,
    line_of,
    make_app,
    norm,
    notice,
    number,
    parse,
    playable,
    tiles_of,
    vals,
)

DAY = 24 * 3600


@pytest.fixture
def app(tmp_path):
    """The app with CSRF protection on and a seeded dealer."""
    return make_app(tmp_path / "domino.sqlite3", seed=7)


@pytest.fixture
def pair(app):
    """A room with its creator `a` (seat 0) and guest `b` (seat 1), both connected."""
    return friends(app)


def page(response):
    return parse(response.get_data(as_text=True))


def cookie_attributes(response) -> dict:
    """The `seat` cookie's attributes, by lower-case name."""
    (header,) = [h for h in response.headers.getlist("Set-Cookie") if h.startswith("seat=")]
    parts = [part.strip() for part in header.split(";")]
    return {part.split("=")[0].lower(): part.partition("=")[2] for part in parts[1:]}


# --- 1. routes -----------------------------------------------------------------------------------


def test_home_page_offers_a_room_and_the_computer(app):
    browser = Table(app)
    response = browser.home()
    assert response.status_code == 200
    doc = page(response)
    create = doc.one("data-action", "create-room")
    assert create.tag == "button"
    form = doc.one("action", "/rooms", tag="form")
    assert form.get("method") == "post"
    assert form.one("name", "csrf_token").get("value")
    assert create in form.iter()
    assert doc.one("data-action", "play-computer").tag == "button"


def test_healthz_says_ok(app):
    response = app.test_client().get("/healthz")
    assert (response.status_code, response.get_data(as_text=True)) == (200, "ok")


def test_creating_a_room_seats_the_creator_with_a_private_cookie(app):
    creator = Table(app)
    response = creator.create_room()
    location = response.headers["Location"]
    assert re.fullmatch(r"/r/[A-Za-z0-9_-]{16,64}", location)
    cookie = cookie_attributes(response)
    assert "httponly" in cookie
    assert cookie["samesite"] == "Lax"
    assert cookie["path"] == location
    assert len(creator.secret) >= 40
    assert creator.seat == 0
    kinds = [kind for _seq, kind, _data in creator.log]
    assert kinds == ["rules", "seat", "commit", "deal", "commit"]
    # only a hash of the secret is stored
    assert creator.secret not in json.dumps(creator.log)


def test_the_creator_sees_the_table_with_an_invitation(app):
    creator = Table(app)
    creator.create_room()
    doc = creator.doc
    state = creator.state
    tiles = doc.one("data-hand").find_all("data-tile")
    assert len(tiles) == 7
    assert all(tile.tag == "button" for tile in tiles)
    assert hand(doc) == [str(t) for t in state.hands[0]]
    invite = doc.one("data-invite")
    assert (invite.get("value") or invite.get("href")) == f"http://localhost{creator.url}"
    assert doc.one("data-action", "copy-invite").tag == "button"
    assert doc.one("data-turn").get("data-turn") == ("you" if state.turn == 0 else "opponent")
    assert number(doc, "data-opponent-count") == 7
    assert number(doc, "data-boneyard-count") == 14
    assert doc.one("data-opponent-connected").get("data-opponent-connected") == "false"
    assert chain(doc) == []
    # while the friend is missing nothing is playable
    assert playable(doc) == set()
    opener_seat, opening = game.opener(state.rules, state.start.hands)
    marked = [t.get("data-tile") for t in doc.find_all("data-opening")]
    assert marked == ([str(opening)] if opener_seat == 0 else [])
    headers = json.loads(doc.one("hx-headers", tag="body").get("hx-headers"))
    assert headers["X-CSRFToken"] and re.fullmatch(r"\d+\.[0-9a-f]+", headers["X-Tab"])


def test_join_flow_seats_the_guest_and_turns_later_browsers_away(app):
    creator = Table(app)
    creator.create_room()
    creator_secret = creator.secret

    guest = Table(app, creator.room)
    invited = guest.open()
    assert invited.status_code == 200
    doc = page(invited)
    assert doc.find("data-hand") is None and doc.find("data-tile") is None
    form = doc.one("action", f"{guest.url}/join", tag="form")
    assert form.one("name", "csrf_token").get("value")
    joined = guest.join()
    assert (joined.status_code, joined.headers["Location"]) == (303, guest.url)
    assert cookie_attributes(joined)["path"] == guest.url
    assert guest.seat == 1
    guest_page = page(guest.open())
    assert hand(guest_page) == [str(t) for t in guest.state.hands[1]]
    assert guest_page.find("data-invite") is None

    # the creator opening the link keeps seat 1 (index 0)
    again = creator.join()
    assert (again.status_code, again.headers["Location"]) == (303, creator.url)
    assert (creator.secret, creator.seat, guest.seat) == (creator_secret, 0, 1)
    assert hand(page(creator.open())) == [str(t) for t in creator.state.hands[0]]

    # a third browser: the room is full, and it sees nothing of the hands
    third = Table(app, creator.room)
    full = third.open()
    assert full.status_code == 403
    assert full.get_data(as_text=True).count("data-tile") == 0
    assert page(full).find("data-hand") is None
    assert page(full).find("data-action", "create-room") is not None
    third.home()
    refused = third.join()
    assert refused.status_code == 403
    assert "data-tile" not in refused.get_data(as_text=True)
    assert third.secret is None
    assert [kind for _seq, kind, _data in creator.log].count("seat") == 2


def test_joining_by_htmx_answers_with_a_redirect_header(app):
    creator = Table(app)
    creator.create_room()
    guest = Table(app, creator.room)
    guest.open()
    response = guest.join(htmx=True)
    assert response.status_code == 200
    assert response.headers["HX-Redirect"] == guest.url
    assert guest.seat == 1


def test_the_creator_is_told_when_the_guest_joins(app):
    creator = Table(app)
    creator.create_room()
    ws = creator.connect()
    guest = Table(app, creator.room)
    guest.open()
    guest.join()
    assert len(ws.frames) == 1
    doc = parse(ws.frames[0])
    assert doc.one("id", "table").get("hx-swap-oob") == "true"
    assert doc.find("data-invite") is None
    assert hand(doc) == [str(t) for t in creator.state.hands[0]]


@pytest.mark.parametrize("method, suffix", [("get", ""), ("post", "/join"), ("post", "/play")])
def test_an_unknown_room_is_404_with_a_way_to_start_one(app, method, suffix):
    browser = Table(app)
    browser.home()
    url = "/r/" + "A" * 22 + suffix
    response = getattr(browser.client, method)(url, headers={"X-CSRFToken": browser.csrf})
    assert response.status_code == 404
    assert page(response).find("data-action", "create-room") is not None


@pytest.mark.parametrize("room_id", ["short", "A" * 65, "bad.id.with.dots.x", "%C3%A9" * 16])
def test_a_malformed_room_id_is_404(app, room_id):
    browser = Table(app)
    browser.home()
    assert browser.client.get(f"/r/{room_id}").status_code == 404
    joined = browser.client.post(f"/r/{room_id}/join", headers={"X-CSRFToken": browser.csrf})
    assert joined.status_code == 404


def test_an_htmx_request_gets_only_the_table(pair):
    a, _b = pair
    response = a.fragment()
    assert response.status_code == 200
    doc = page(response)
    (table, announce) = doc.elements  # the table, then its live region's out-of-band update
    assert announce.get("id") == "announce" and announce.get("hx-swap-oob") == "innerHTML"
    assert table.get("id") == "table"
    assert table.get("hx-swap-oob") == "true"
    assert int(table.get("data-seq")) == a.services.rooms.get(a.room).seq
    text = response.get_data(as_text=True).lower()
    assert "<html" not in text and "<body" not in text and "hx-headers" not in text
    assert hand(doc) == [str(t) for t in a.state.hands[0]]


def test_a_full_page_is_inert_until_its_own_socket_opens(pair):
    state = pair[0].state
    mover = pair[state.turn]
    doc = page(mover.open())
    assert playable(doc) == set()
    assert doc.one("data-turn").get("data-turn") == "you"
    assert playable(page(mover.fragment())) == {str(state.opening)}


def plays(state: game.State) -> list[Play]:
    """The plays open to the seat on turn."""
    return [p for p in game.legal_actions(state, state.turn) if isinstance(p, Play)]


def two_way(state: game.State) -> list[Tile]:
    """The tiles the seat on turn may lay at either end, when the two ends differ."""
    if state.ends is None or state.ends[0] == state.ends[1]:
        return []
    ends: dict[Tile, set[str]] = {}
    for play in plays(state):
        ends.setdefault(play.tile, set()).add(play.end)
    return [tile for tile, where in ends.items() if len(where) == 2]


def test_a_selected_tile_that_fits_two_different_ends_offers_both(pair):
    state = advance_until(pair, two_way, random.Random(3))
    mover = pair[state.turn]
    tile = two_way(state)[0]
    plain = parse(mover.fragment().get_data(as_text=True))
    choice = plain.one("data-hand").one("data-tile", str(tile))
    assert choice.get("aria-pressed") == "false" and not choice.has("hx-vals")
    assert plain.find("data-end") is None

    doc = page(mover.fragment(select=str(tile)))
    selected = doc.one("data-hand").one("data-tile", str(tile))
    assert selected.get("aria-pressed") == "true"
    ends = {node.get("data-end"): vals(node) for node in doc.find_all("data-end")}
    assert set(ends) == {"left", "right"}
    for end, params in ends.items():
        assert params == {"tile": str(tile), "end": end, "seq": mover.seq}

    # a tile that fits one end only is laid at once: no end choice for it
    direct = [p for p in plays(state) if p.tile not in two_way(state)]
    for play in direct:
        doc = page(mover.fragment(select=str(play.tile)))
        assert doc.find("data-end") is None
        assert vals(doc.one("data-hand").one("data-tile", str(play.tile)))["end"] == play.end

    assert mover.post("play", **ends["left"]).status_code == 200
    assert norm(line_of(mover.state)[0]) == str(tile)


# --- 2. refusals ---------------------------------------------------------------------------------


def refused(table: Table, action: str, status: int, code: str | set, **fields):
    """POST an action that must be refused: the status, the message, and an untouched log."""
    before = table.log
    response = table.post(action, **fields)
    assert response.status_code == status, response.get_data(as_text=True)
    codes = {code} if isinstance(code, str) else code
    assert notice(page(response)) in {refusal(c) for c in codes}
    assert table.log == before
    return response


def an_opened_round(pair, seed=11):
    """Play on until the opening tile is down and a round is in progress."""
    return advance_until(pair, lambda state: state.line, random.Random(seed))


@pytest.mark.parametrize("action", ["play", "draw", "pass"])
def test_acting_out_of_turn_is_refused(pair, action):
    state = an_opened_round(pair)
    waiting = pair[1 - state.turn]
    tile = state.hands[1 - state.turn][0]
    fields = {"tile": str(tile), "end": "left"} if action == "play" else {}
    refused(waiting, action, 409, "not-your-turn", **fields)


def test_playing_a_tile_not_held_is_refused(pair):
    state = an_opened_round(pair)
    mover = pair[state.turn]
    theirs = state.hands[1 - state.turn][0]
    refused(mover, "play", 409, "tile-not-held", tile=str(theirs), end="left")
    laid = state.line[0].tile
    refused(mover, "play", 409, "tile-not-held", tile=str(laid), end="right")


def test_the_opening_tile_must_come_first(pair):
    state = pair[0].state
    mover = pair[state.turn]
    other = next(t for t in state.hands[state.turn] if t is not state.opening)
    refused(mover, "play", 409, "must-open", tile=str(other), end="left")
    refused(mover, "draw", 409, "must-open")
    refused(mover, "pass", 409, "must-open")


def test_a_tile_at_an_end_it_does_not_fit_is_refused(pair):
    def misfit(state):
        return any(
            not fits(tile, state, end)
            for tile in state.hands[state.turn]
            for end in ("left", "right")
        )

    state = advance_until(pair, lambda s: s.line and misfit(s), random.Random(5))
    mover = pair[state.turn]
    tile, end = next(
        (tile, end)
        for tile in state.hands[state.turn]
        for end in ("left", "right")
        if not fits(tile, state, end)
    )
    refused(mover, "play", 409, "does-not-fit", tile=str(tile), end=end)


def test_drawing_while_able_to_play_is_refused(pair):
    state = advance_until(
        pair,
        lambda s: s.line and s.boneyard and DRAW not in game.legal_actions(s, s.turn),
        random.Random(5),
    )
    mover = pair[state.turn]
    assert button(mover.doc, "draw") is None
    refused(mover, "draw", 409, "must-play")
    refused(mover, "pass", 409, "must-play")


def test_passing_while_the_boneyard_has_tiles_is_refused(pair):
    state = advance_until(
        pair, lambda s: game.legal_actions(s, s.turn) == (DRAW,), random.Random(5)
    )
    assert state.boneyard
    mover = pair[state.turn]
    assert enabled(button(mover.doc, "draw"))
    assert playable(mover.doc) == set()
    refused(mover, "pass", 409, "must-draw")


def test_no_move_while_the_guest_has_not_joined(app):
    creator = Table(app)
    creator.create_room()
    creator.connect()
    state = creator.state
    tile = state.opening if state.turn == 0 else state.hands[0][0]
    refused(creator, "play", 409, "no-guest", tile=str(tile), end="left")


def test_no_move_while_the_other_seat_is_away(pair):
    state = pair[0].state
    mover, other = pair[state.turn], pair[1 - state.turn]
    other.disconnect()
    doc = page(mover.fragment())
    assert doc.one("data-opponent-connected").get("data-opponent-connected") == "false"
    assert playable(doc) == set()
    assert doc.one("data-turn").get("data-turn") == "you"
    refused(mover, "play", 409, "opponent-away", tile=str(state.opening), end="left")
    other.connect("300.c")
    assert mover.post("play", tile=str(state.opening), end="left").status_code == 200


def test_a_replaced_tab_is_refused_and_told_so(pair):
    state = pair[0].state
    mover = pair[state.turn]
    old = mover.ws
    newer = connection(mover.app, mover.room, type(old)([]), "200.b")
    replaced = mover.services.hub.attach(mover.room, mover.seat, newer)
    assert replaced is mover.conn
    before = mover.log
    response = mover.post("play", tile=str(state.opening), end="left", tab="100.a")
    assert response.status_code == 409
    assert page(response).one("data-superseded")
    assert page(response).find("data-playable") is None
    assert mover.log == before
    # an older tab cannot take the seat back
    with pytest.raises(Superseded):
        older = connection(mover.app, mover.room, old, "50.z")
        mover.services.hub.attach(mover.room, mover.seat, older)
    ok = mover.post("play", tile=str(state.opening), end="left", tab="200.b")
    assert ok.status_code == 200


def test_a_tab_without_a_connection_is_refused(app):
    creator = Table(app)
    creator.create_room()
    response = refused(creator, "new-round", 409, "not-connected", tab="999.f")
    assert page(response).find("data-superseded") is None


def test_the_same_submission_twice_is_done_once(pair):
    state = pair[0].state
    mover = pair[state.turn]
    seq = mover.seq
    fields = {"tile": str(state.opening), "end": "left", "seq": seq}
    assert mover.post("play", **fields).status_code == 200
    after = mover.log
    again = refused(mover, "play", 409, "stale", **fields)
    # the refusal brings the table as it stands now
    assert int(page(again).one("data-seq").get("data-seq")) == after[-1][0]
    assert chain(page(again)) == line_of(mover.state)
    plays = [data for _seq, kind, data in after if kind == "play"]
    assert plays == [
        {"seat": state.turn, "action": "play", "tile": str(state.opening), "end": "left"}
    ]


def test_an_old_seq_is_refused_after_the_other_moved(pair):
    state = an_opened_round(pair)
    mover, other = pair[state.turn], pair[1 - state.turn]
    response = mover.send(game.legal_actions(state, state.turn)[0])
    assert response.status_code == 200
    state = mover.state
    assert not state.over
    old = mover.seq - 1
    action = game.legal_actions(state, state.turn)[0]
    fields = {"tile": str(action.tile), "end": action.end} if isinstance(action, Play) else {}
    name = "play" if isinstance(action, Play) else str(action).lower()
    refused(other, name, 409, "stale", seq=old, **fields)


@pytest.mark.parametrize(
    "fields, status, code",
    [
        ({"tile": "x", "end": "left"}, 400, "bad-tile"),
        ({"tile": "", "end": "left"}, 400, "bad-tile"),
        ({"end": "left"}, 400, "bad-tile"),
        ({"tile": "6-5", "end": "left"}, 400, "bad-tile"),
        ({"tile": "1-2-3", "end": "left"}, 400, "bad-tile"),
        ({"tile": "9-9", "end": "left"}, {400, 409}, {"bad-tile", "tile-not-held"}),
        ({"tile": "OPENING", "end": "middle"}, 400, "bad-end"),
        ({"tile": "OPENING"}, 400, "bad-end"),
        ({"tile": "OPENING", "end": "left", "seq": None}, 400, "bad-seq"),
        ({"tile": "OPENING", "end": "left", "seq": "two"}, 400, "bad-seq"),
    ],
)
def test_a_malformed_move_is_refused(pair, fields, status, code):
    state = pair[0].state
    mover = pair[state.turn]
    fields = {k: (str(state.opening) if v == "OPENING" else v) for k, v in fields.items()}
    before = mover.log
    response = mover.post("play", **fields)
    statuses = status if isinstance(status, set) else {status}
    assert response.status_code in statuses
    codes = code if isinstance(code, set) else {code}
    assert notice(page(response)) in {refusal(c) for c in codes}
    assert mover.log == before


@pytest.mark.parametrize("action", ["resign", "deal", "PLAY", "record.jsonl"])
def test_an_unknown_action_is_404(pair, action):
    a, _b = pair
    before = a.log
    assert a.post(action).status_code == 404
    assert a.log == before


@pytest.mark.parametrize("token", [None, "forged"])
def test_an_action_without_a_valid_csrf_token_is_refused(pair, token):
    state = pair[0].state
    mover = pair[state.turn]
    before = mover.log
    data = {"tile": str(state.opening), "end": "left", "seq": mover.seq}
    headers = {"X-Tab": mover.tab}
    if token:
        headers["X-CSRFToken"] = token
    response = mover.client.post(f"{mover.url}/play", data=data, headers=headers)
    assert response.status_code == 400
    assert notice(page(response)) == refusal("csrf")
    assert mover.log == before
    for action in ("new-round", "join"):
        assert mover.client.post(f"{mover.url}/{action}", headers=headers).status_code == 400
    assert mover.log == before


def test_acting_without_a_seat_is_refused(pair):
    a, _b = pair
    stranger = Table(a.app, a.room)
    stranger.home()
    stranger.tab = a.tab
    for action in ("play", "draw", "new-round", "accept-new-round"):
        refused(stranger, action, 403, "not-seated", seq=a.seq, tile="0-0", end="left")


def test_new_round_requests_are_answered_only_when_open(pair):
    a, b = pair
    refused(b, "accept-new-round", 409, "no-request")
    refused(b, "decline-new-round", 409, "no-request")
    assert a.post("new-round").status_code == 200
    refused(a, "new-round", 409, "already-asked")
    refused(a, "accept-new-round", 409, "no-request")


# --- 3, 4, 5. a whole round through HTTP -----------------------------------------------------


def check_offers(table: Table, state: game.State) -> None:
    """The table offers exactly what the rules allow this seat now."""
    doc = table.doc
    legal = game.legal_actions(state, table.seat)
    assert playable(doc) == {str(p.tile) for p in legal if isinstance(p, Play)}
    assert enabled(button(doc, "draw")) == (DRAW in legal)
    assert enabled(button(doc, "pass")) == (PASS in legal)
    if not state.over:
        assert doc.one("data-turn").get("data-turn") == (
            "you" if state.turn == table.seat else "opponent"
        )


def check_table(table: Table, state: game.State, room) -> None:
    """The newest table this browser has is its own, and current."""
    doc = table.doc
    seat = table.seat
    assert hand(doc) == [str(t) for t in state.hands[seat]]
    assert chain(doc) == line_of(state)
    assert number(doc, "data-opponent-count") == len(state.hands[1 - seat])
    assert number(doc, "data-boneyard-count") == len(state.boneyard)
    assert int(doc.one("data-seq").get("data-seq")) == room.seq


def play_round(pair, rng: random.Random, each=None) -> game.State:
    """Play the current round to its end through the buttons; `each(mover, other)` after a move."""
    a, _b = pair
    state = a.state
    while not state.over:
        mover, other = pair[state.turn], pair[1 - state.turn]
        check_offers(mover, state)
        check_offers(other, state)
        frames = len(other.ws.frames)
        action = rng.choice(game.legal_actions(state, state.turn))
        response = mover.click(action)
        assert response.status_code == 200, response.get_data(as_text=True)
        assert len(other.ws.frames) == frames + 1
        state = a.state
        if each:
            each(mover, other)
    return state


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_whole_round_played_through_http(app, seed):
    pair = friends(app)
    a, b = pair
    assert a.get(f"{a.url}/record.jsonl").status_code == 404

    state = play_round(pair, random.Random(seed))
    result = game.outcome(state)
    room = a.services.rooms.get(a.room)
    moves = [data for _seq, kind, data in a.log if kind in ("play", "draw", "pass")]
    assert len(moves) == len(state.moves)
    for table in pair:
        doc = page(table.fragment())
        verdict = doc.one("data-result")
        expected = (
            "draw"
            if result.winner is None
            else ("you" if result.winner == table.seat else "opponent")
        )
        assert verdict.get("data-winner") == expected
        assert int(verdict.get("data-points")) == result.points
        shown = sorted(
            t.get("data-tile") for t in doc.one("data-opponent-hand").find_all("data-tile")
        )
        assert shown == sorted(tiles_of(state, 1 - table.seat))
        assert doc.find("data-turn") is None and doc.find("data-playable") is None
        check_table(table, state, room)

    refused(a, "pass", 409, "round-over")

    response = a.get(f"{a.url}/record.jsonl")
    assert response.status_code == 200
    lines = response.get_data(as_text=True).splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    assert check_record(record) == []
    assert record["result"] == {
        "winner": result.winner,
        "reason": result.reason,
        "points": result.points,
    }
    assert record["events"] == moves
    assert b.get(f"{b.url}/record.jsonl").get_data(as_text=True) == response.get_data(as_text=True)
    stranger = Table(app, a.room)
    assert stranger.client.get(f"{a.url}/record.jsonl").status_code == 404


def test_each_move_is_pushed_to_the_other_seat_as_its_own_table(pair):
    def pushed(mover, other):
        frame = other.ws.frames[-1]
        assert 'id="table"' in frame and "hx-swap-oob" in frame
        doc = parse(frame)
        (table, announce) = doc.elements  # the table, then its live region's update
        assert table.get("id") == "table" and table.get("hx-swap-oob") == "true"
        assert announce.get("id") == "announce"
        state = mover.state
        assert hand(doc) == [str(t) for t in state.hands[other.seat]]
        if not state.over:
            assert not set(hand(doc)) & tiles_of(state, mover.seat)
        check_table(other, state, mover.services.rooms.get(mover.room))
        check_table(mover, state, mover.services.rooms.get(mover.room))

    play_round(pair, random.Random(4), pushed)


def test_no_page_fragment_or_frame_shows_hidden_tiles(pair):
    for table in pair:
        table.unchecked()  # the creator's preview deal, from before the guest came
        table.open()
        table.fragment()

    def hidden(mover, other):
        state = mover.state
        for table in pair:
            table.open()
            table.fragment()
            for tile in playable(table.doc):
                table.fragment(select=tile)
            for html in table.unchecked():
                assert_hides(html, state, table.seat)

    state = play_round(pair, random.Random(6), hidden)
    assert state.over
    for table in pair:
        doc = page(table.fragment())
        assert doc.find("data-opponent-hand") is not None


def test_the_opponents_tiles_stay_hidden_from_a_seat_that_asks_for_them(pair):
    state = an_opened_round(pair)
    for table in pair:
        for tile in tiles_of(state, 1 - table.seat) | {str(t) for t in state.boneyard}:
            html = table.fragment(select=tile).get_data(as_text=True)
            assert_hides(html, state, table.seat)


# --- 6. new rounds -------------------------------------------------------------------------------


def test_the_guest_is_dealt_afresh_and_the_creator_told_so(app):
    creator = Table(app)
    creator.create_room()
    creator.connect()
    for _ in range(2):  # the creator may deal again and again while waiting...
        assert creator.post("new-round").status_code == 200
    waiting = creator.doc
    assert waiting.one("data-preview") is not None
    preview = hand(waiting)
    guest = Table(app, creator.room)
    guest.open()
    assert guest.join().status_code == 303
    seq, kind, deal = creator.log[-2]  # the deal, then the commitment to the next one
    assert kind == "deal" and deal["hands"][0] != preview  # ...but the guest's deal is new
    pushed = creator.ws.frames[-1]
    assert f'data-seq="{seq + 1}"' in pushed and hand(parse(pushed)) == deal["hands"][0]
    assert notice(parse(pushed)) == notice_of("dealt-afresh")
    assert parse(pushed).find("data-preview") is None


def test_alone_the_creator_deals_again_at_once(app):
    creator = Table(app)
    creator.create_room()
    creator.connect()
    before = creator.services.rooms.get(creator.room)
    old_deal = creator.log[-2][2]
    response = creator.post("new-round")
    assert response.status_code == 200
    after = creator.services.rooms.get(creator.room)
    assert (before.rounds, after.rounds) == (0, 0)  # previews, until the guest comes
    assert after.seq == before.seq + 2  # the deal and the next commitment
    assert after.request is None
    seq, kind, deal = creator.log[-2]
    assert (seq, kind) == (after.seq - 1, "deal") and deal != old_deal
    assert hand(page(response)) == deal["hands"][0]
    assert after.seats == before.seats and after.seats[1] is None


@pytest.mark.parametrize("asker", [0, 1])
def test_a_new_round_needs_both_players(pair, asker):
    asking, answering = pair[asker], pair[1 - asker]
    rooms = asking.services.rooms
    seats = rooms.get(asking.room).seats
    an_opened_round(pair)

    def prompt(doc):
        return button(doc, "accept-new-round"), button(doc, "decline-new-round")

    # ask, then decline
    asked = asking.post("new-round")
    assert asked.status_code == 200
    assert prompt(page(asked)) == (None, None)
    assert button(page(asked), "new-round") is None
    assert all(prompt(parse(answering.ws.frames[-1])))
    assert rooms.get(asking.room).request == asker
    assert answering.post("decline-new-round").status_code == 200
    assert rooms.get(asking.room).request is None
    assert prompt(answering.doc) == (None, None)
    assert prompt(parse(asking.ws.frames[-1])) == (None, None)
    assert button(parse(asking.ws.frames[-1]), "new-round") is not None

    # ask again: a move by whoever is on turn cancels it, for both
    for _ in range(2):
        assert asking.post("new-round").status_code == 200
        assert all(prompt(answering.doc))
        state = asking.state
        mover, other = pair[state.turn], pair[1 - state.turn]
        assert mover.send(game.legal_actions(state, state.turn)[0]).status_code == 200
        assert rooms.get(asking.room).request is None
        assert prompt(mover.doc) == (None, None) and prompt(other.doc) == (None, None)
        assert prompt(answering.doc) == (None, None)
        if asking.state.over:
            break

    # ask and accept: a new deal, the same seats
    rounds, seq = rooms.get(asking.room).rounds, rooms.get(asking.room).seq
    assert asking.post("new-round").status_code == 200
    accepted = answering.post("accept-new-round")
    assert accepted.status_code == 200
    room = rooms.get(asking.room)
    assert (room.rounds, room.seq, room.request, room.seats) == (rounds + 1, seq + 3, None, seats)
    assert room.round.line == () and len(room.round.boneyard) == 14
    assert [kind for _seq, kind, _data in asking.log[-3:]] == ["ask", "deal", "commit"]
    for table in pair:
        doc = page(table.open())
        assert hand(doc) == [str(t) for t in room.round.hands[table.seat]]
        assert doc.find("data-result") is None and prompt(doc) == (None, None)
    assert hand(parse(asking.ws.frames[-1])) == [str(t) for t in room.round.hands[asker]]


def test_asking_when_the_other_already_asked_deals_at_once(pair):
    a, b = pair
    rooms = a.services.rooms
    rounds = rooms.get(a.room).rounds
    assert a.post("new-round").status_code == 200
    assert b.post("new-round").status_code == 200
    assert rooms.get(a.room).rounds == rounds + 1


# --- 7. storage and restore ----------------------------------------------------------------------


def test_a_restarted_server_restores_the_room_exactly(tmp_path):
    db = tmp_path / "domino.sqlite3"
    first = make_app(db, seed=9)
    pair = friends(first)
    a, b = pair
    advance_until(pair, lambda s: len(s.moves) >= 5, random.Random(9))
    assert b.post("new-round").status_code == 200
    before = first.extensions["domino"].rooms.get(a.room)
    pages_before = {t.seat: page(t.open()) for t in pair}
    assert before.request == 1

    second = make_app(db, seed=10)
    restored = second.extensions["domino"].rooms.get(a.room)
    assert restored == before
    assert [list(map(str, h)) for h in restored.round.hands] == [
        list(map(str, h)) for h in before.round.hands
    ]
    assert line_of(restored.round) == line_of(before.round)
    assert restored.round.turn == before.round.turn
    assert restored.round.boneyard == before.round.boneyard
    assert (restored.request, restored.seq, restored.rounds) == (1, before.seq, before.rounds)

    for old in pair:
        browser = Table(second, a.room)
        browser.client.set_cookie("seat", old.secret, path=old.url)
        response = browser.open()
        assert response.status_code == 200
        doc, was = page(response), pages_before[old.seat]
        assert browser.seat == old.seat
        assert hand(doc) == hand(was) == [str(t) for t in before.round.hands[old.seat]]
        assert chain(doc) == chain(was)
        for hook in ("data-opponent-count", "data-boneyard-count"):
            assert number(doc, hook) == number(was, hook)
        assert doc.one("data-turn").get("data-turn") == was.one("data-turn").get("data-turn")
        assert doc.one("data-seq").get("data-seq") == str(before.seq)
        answering = old.seat == 0
        assert (button(doc, "accept-new-round") is not None) == answering
        # nobody is connected to the new server yet
        assert doc.one("data-opponent-connected").get("data-opponent-connected") == "false"


# --- 8. purge ------------------------------------------------------------------------------------


def test_purge_rooms_deletes_idle_rooms_only(app):
    idle, fresh = Table(app), Table(app)
    idle.create_room()
    fresh.create_room()
    store = app.extensions["domino"].rooms.store
    store.touch(idle.room, time.time() - 8 * DAY)
    store.touch(fresh.room, time.time() - 6 * DAY)
    result = app.test_cli_runner().invoke(args=["purge-rooms"])
    assert result.exit_code == 0, result.output
    assert re.search(r"\b1\b", result.output)
    assert idle.open().status_code == 404
    assert store.load(idle.room) == [] and store.kind(idle.room) is None
    assert fresh.open().status_code == 200


def test_rooms_purge_uses_the_given_time(app):
    old, young = Table(app), Table(app)
    old.create_room()
    young.create_room()
    rooms = app.extensions["domino"].rooms
    now = time.time()
    rooms.store.touch(old.room, now - 3 * DAY)
    assert rooms.purge(7 * DAY, now=now + 5 * DAY) == [old.room]
    assert rooms.get(old.room) is None and rooms.get(young.room) is not None
    assert sorted(rooms.purge(7 * DAY, now=now + 8 * DAY)) == [young.room]


def test_a_room_purged_by_the_command_line_is_gone_from_the_running_server(tmp_path):
    db = tmp_path / "domino.sqlite3"
    server = make_app(db)
    creator = Table(server)
    creator.create_room()
    server.extensions["domino"].rooms.store.touch(creator.room, time.time() - 8 * DAY)
    command_line = make_app(db)  # `flask purge-rooms` runs in a process of its own
    result = command_line.test_cli_runner().invoke(args=["purge-rooms"])
    assert re.search(r"\b1\b", result.output)
    assert creator.open().status_code == 404


# --- the websocket handshake ---------------------------------------------------------------------


def test_the_socket_refuses_foreign_pages_and_browsers_without_a_seat(pair):
    a, _b = pair
    url = f"{a.url}/ws?tab=1.a"
    assert a.client.get(url, headers=WEBSOCKET_HEADERS).status_code == 403
    for origin in ("http://evil.example", "null", "http://localhost.evil.example"):
        headers = {**WEBSOCKET_HEADERS, "Origin": origin}
        assert a.client.get(url, headers=headers).status_code == 403
    stranger = Table(a.app, a.room)
    headers = {**WEBSOCKET_HEADERS, "Origin": "http://localhost"}
    assert stranger.client.get(url, headers=headers).status_code == 403
    assert stranger.client.get("/r/" + "A" * 22 + "/ws", headers=headers).status_code == 403


def test_looking_up_unknown_rooms_leaves_nothing_behind(tmp_path):
    """Anybody can ask for made-up room ids; the server must not keep anything per id."""
    locks = []

    def room_lock():  # the app makes each room's lock with this
        locks.append(threading.RLock())
        return locks[-1]

    app = make_app(tmp_path / "domino.sqlite3", seed=7, ROOM_LOCK=room_lock)
    rooms = app.extensions["domino"].rooms
    client = app.test_client()
    client.get("/")
    made, cached = len(locks), rooms.cached
    for number_ in range(200):
        assert client.get(f"/r/{number_:022d}").status_code == 404
    assert (len(locks), rooms.cached) == (made, cached)
