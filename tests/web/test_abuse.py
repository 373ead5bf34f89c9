"""Malformed and hostile requests against every endpoint: never a 5xx, never a changed log.

A room's stored log changes only for a legal move sent from the seat's live tab, and a move
submitted many times at once is done once.
"""

from __future__ import annotations

import string
import threading
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domino import game
from domino.events import DRAW, Play
from domino.room import ROOM_ACTIONS
from tests.support.webkit import WEBSOCKET_HEADERS, Table, friends, make_app

SUFFIXES = ["", "/join", "/level", "/record.jsonl", "/ws", *(f"/{a}" for a in ROOM_ACTIONS)]
STATIC_PATHS = ["/", "/rooms", "/computer", "/help", "/healthz"]
MB = 1024 * 1024
# The room is shared by every example: few enough that the file runs in seconds.
FEW = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A friend room, both seats connected."""
    app = make_app(tmp_path_factory.mktemp("abuse") / "domino.sqlite3", seed=3)
    a, b = friends(app)
    return app, a, b


def logs(app, *rooms) -> list:
    store = app.extensions["domino"].rooms.store
    return [store.load(room) for room in rooms]


texts = st.text(max_size=40)
unicode_texts = st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=30)
numbers = st.integers(min_value=-(10**30), max_value=10**30).map(str)
huge_numbers = st.integers(min_value=4000, max_value=6000).map(lambda n: "9" * n)
values = st.one_of(
    texts,
    numbers,
    huge_numbers,
    st.just(""),
    st.sampled_from(["0-0", "6-6", "1-2", "2-1", "left", "right", "easy", "hard", "-1"]),
    st.lists(st.sampled_from(["0-0", "6-5", "left", "1", "x"]), min_size=2, max_size=4),
)
fields = st.dictionaries(st.sampled_from(["tile", "end", "seq", "level", "tab"]), values)


def room_ids(room: str):
    return st.one_of(
        st.just(room),
        st.just(room + "x"),
        st.just(room[:-1]),
        st.text(alphabet=string.ascii_letters + string.digits + "_-", min_size=16, max_size=64),
        st.text(min_size=0, max_size=30).map(lambda t: quote(t, safe="")),
        unicode_texts.map(lambda t: quote(t, safe="")),
        st.integers(min_value=65, max_value=5000).map(lambda n: "A" * n),
        st.sampled_from(
            ["..", "../..", "%2e%2e", "..%2F..%2Frooms", "%00", room + "%2F..", "./" + room]
        ),
    )


def pick(draw, options: list):
    """One of `options`, drawn the same way whatever their number (the room changes)."""
    return options[draw(st.integers(0, 999)) % len(options)]


@st.composite
def requests(draw, room: str, secrets: dict, csrf: str, tabs: dict):
    """A hostile request: (method, path, data, headers, cookies)."""
    kind = draw(st.sampled_from(["legal"] + ["action"] * 4 + ["any"] * 2 + ["junk", "static"]))
    if kind == "legal":  # the control case: this one may change the log
        seat = tabs["turn"]
        action, form = pick(draw, tabs["legal"])
        headers = {"X-CSRFToken": csrf, "X-Tab": tabs[seat]}
        return (
            "POST",
            f"/r/{room}/{action}",
            {**form, "seq": str(tabs["seq"])},
            headers,
            secrets[seat],
        )
    method = draw(st.sampled_from(["POST"] * 8 + ["GET", "PUT", "DELETE", "PATCH"]))
    if kind in ("action", "legal"):
        path = f"/r/{room}/" + draw(st.sampled_from([*ROOM_ACTIONS, "level", "join"]))
    elif kind == "any":
        path = "/r/" + draw(room_ids(room)) + draw(st.sampled_from(SUFFIXES))
    elif kind == "junk":
        path = f"/r/{room}/" + quote(draw(texts), safe="")
    else:
        path = draw(st.sampled_from(STATIC_PATHS))
    headers = {}
    token = draw(st.sampled_from(["good"] * 4 + ["missing", "wrong"]))
    if token == "good":
        headers["X-CSRFToken"] = csrf
    elif token == "wrong":
        headers["X-CSRFToken"] = draw(st.sampled_from(["forged", csrf[:-2] + "xx", ""]))
    seat = draw(st.sampled_from(["a", "b"] * 3 + ["missing", "forged", "empty"]))
    tab = draw(st.sampled_from(["same"] * 4 + ["a", "b", "missing", "wrong"]))
    tab = seat if tab == "same" and seat in tabs else tab
    if tab in tabs:
        headers["X-Tab"] = tabs[tab]
    elif tab == "wrong":
        headers["X-Tab"] = draw(st.sampled_from(["1.a", "", "999999999999.ff", "x" * 500]))
    if draw(st.booleans()):
        headers["HX-Request"] = "true"
    if path.endswith("/ws"):
        headers.update(WEBSOCKET_HEADERS)
        origin = draw(st.sampled_from([None, "http://evil.example", "null", "http://localhost"]))
        if origin is not None:
            headers["Origin"] = origin
    cookie = secrets.get(seat, {"missing": None, "forged": "x" * 43, "empty": ""}.get(seat))
    data = draw(fields)
    if draw(st.booleans()):
        data["tile"] = pick(draw, tabs["tiles"])
        data["end"] = draw(st.sampled_from(["left", "right"]))
    if draw(st.booleans()):
        data["seq"] = draw(st.sampled_from([str(tabs["seq"]), str(tabs["seq"] - 1)]))
    return method, path, data, headers, cookie


def as_request(action) -> tuple[str, dict]:
    """The action path and form fields of a rules action."""
    if isinstance(action, Play):
        return "play", {"tile": str(action.tile), "end": action.end}
    return ("draw" if action is DRAW else "pass"), {}


def send(client, room, method, path, data, headers, cookie):
    client.delete_cookie("seat", path=f"/r/{room}")
    if cookie is not None:
        client.set_cookie("seat", cookie, path=f"/r/{room}")
    return client.open(path, method=method, data=data, headers=headers)


@pytest.mark.slow  # hundreds of hostile requests
def test_hostile_requests_never_fail_and_never_change_the_log(world):
    app, a, b = world
    other_room = Table(app)
    other_room.create_room()

    @FEW
    @given(st.data())
    def check(data):
        now = a.services.rooms.get(a.room)
        tiles = [str(t) for hand in now.round.hands for t in hand] or ["0-0"]
        state = now.round
        legal = [] if state.over else game.legal_actions(state, state.turn)
        tabs = {
            "a": a.tab,
            "b": b.tab,
            "seq": now.seq,
            "tiles": tiles,
            "turn": "ab"[state.turn],
            "legal": [as_request(action) for action in legal]
            or [("new-round", {}), ("accept-new-round", {})],
        }
        method, path, form, headers, cookie = data.draw(
            requests(a.room, secrets, a.csrf, tabs), label="request"
        )
        before = logs(app, a.room, other_room.room)
        # a's client holds the session (so the CSRF token) for the good-token case
        response = send(a.client, a.room, method, path, form, headers, cookie)
        assert response.status_code < 500, response.get_data(as_text=True)[:500]
        after = logs(app, a.room, other_room.room)
        if after == before:
            return
        changed.append(path)
        # only a legal move from the live tab of the seat may have changed the room
        assert after[1] == before[1]
        assert response.status_code == 200
        assert method == "POST" and headers.get("X-CSRFToken") == a.csrf
        seat = [s for s in ("a", "b") if secrets[s] == cookie]
        assert seat and headers.get("X-Tab") == tabs[seat[0]]
        action = path.rsplit("/", 1)[-1]
        assert path == f"/r/{a.room}/{action}" and action in (*ROOM_ACTIONS, "level")
        assert after[0][: len(before[0])] == before[0]
        assert len(after[0]) == len(before[0]) + 1

    secrets = {"a": a.secret, "b": b.secret}
    changed = []
    check()
    assert changed, "no legal move was ever sent: the property was not exercised"
    # the browsers still work afterwards
    a.client.set_cookie("seat", secrets["a"], path=a.url)
    assert a.fragment().status_code == 200


@pytest.mark.parametrize(
    "path", ["/rooms", "/computer", "/r/ROOM/join", "/r/ROOM/level", "/r/ROOM/play"]
)
def test_a_huge_body_is_refused_with_413(world, path):
    app, a, _b = world
    before = logs(app, a.room)
    data = {"tile": "x" * MB, "seq": str(a.seq), "end": "left"}
    headers = {"X-CSRFToken": a.csrf, "X-Tab": a.tab}
    response = a.client.post(path.replace("ROOM", a.room), data=data, headers=headers)
    assert response.status_code == 413
    assert logs(app, a.room) == before


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE", "PATCH"])
@pytest.mark.parametrize("path", ["/rooms", "/computer", "/r/ROOM/join", "/r/ROOM/play"])
def test_wrong_methods_are_405(world, method, path):
    app, a, _b = world
    before = logs(app, a.room)
    headers = {"X-CSRFToken": a.csrf, "X-Tab": a.tab}
    response = a.client.open(path.replace("ROOM", a.room), method=method, headers=headers)
    assert response.status_code == 405
    assert logs(app, a.room) == before


def test_many_copies_of_one_move_at_once_are_done_once(tmp_path):
    app = make_app(tmp_path / "domino.sqlite3", seed=5)
    tables = friends(app)
    mover = tables[tables[0].state.turn]
    state = mover.state
    form = {"tile": str(state.opening), "end": "left", "seq": str(mover.seq)}
    headers = {"X-CSRFToken": mover.csrf, "X-Tab": mover.tab}
    session = mover.client.get_cookie("session").value
    before = mover.log
    copies = 200
    start = threading.Barrier(copies)
    statuses: list[int] = []
    errors: list[BaseException] = []

    def submit() -> None:
        client = app.test_client()
        client.set_cookie("session", session)
        client.set_cookie("seat", mover.secret, path=mover.url)
        try:
            start.wait()
            statuses.append(
                client.post(f"{mover.url}/play", data=form, headers=headers).status_code
            )
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=submit) for _ in range(copies)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors
    assert sorted(statuses) == [200] + [409] * (copies - 1)
    after = mover.log
    assert after[: len(before)] == before and len(after) == len(before) + 1
    assert after[-1][1:] == (
        "play",
        {"seat": state.turn, "action": "play", "tile": str(state.opening), "end": "left"},
    )
