"""Friends by name (SPEC §11, hooks §14), through the Flask test client: a signed-in host
invites a player by name from the table (the lobby checks the shard's seat proof and the
session), the guest sees the invitation on the home page's lobby fragment, accepts (to the
room's invitation page) or declines (the host's table says so); blocks hide invitations and are
never told; every refusal says why and changes nothing; names are escaped and bidi-isolated."""

from __future__ import annotations

import sqlite3

import pytest

from domino.lobby.friends import LastSeen
from domino.web.live.hub import Connection
from domino.web.view.render import links
from tests.support.players import named_browser
from tests.support.webkit import FakeSocket, Table, make_app, parse

HTMX = {"HX-Request": "true"}


@pytest.fixture
def app(tmp_path):
    app = make_app(tmp_path / "domino.sqlite3", seed=5)
    yield app
    app.extensions["domino"].close()


def lobby(app):
    return app.extensions["lobby"]


def hosting(app, name: str = "Ana", **card) -> Table:
    """A signed-in host at a friend table of their own (two seats unless `card` says)."""
    host = named_browser(app, name)
    host.create_room(**card)
    return host


def invite_fields(host: Table) -> dict:
    """The invite form's hidden fields, as the host's table shows them."""
    form = host.doc.one("data-invite-player")
    return {i.get("name"): i.get("value") for i in form.find_all(tag="input") if i.get("name")}


def invite(host: Table, name: str, csrf: bool = True, **override):
    """Post the table's invite form as htmx does (the room page's CSRF header)."""
    data = {**invite_fields(host), "name": name, **override}
    headers = {**HTMX, **({"X-CSRFToken": host.csrf} if csrf else {})}
    return host.client.post("/me/invitations", data=data, headers=headers)


def sent_url(host: Table) -> str:
    return host.doc.one("data-invite-player").parent.find("id", "sent-invitations").get("hx-get")


def stored(app) -> tuple[list, list]:
    """Every invitation and block in the lobby's database, read beside the app."""
    with sqlite3.connect(app.config["LOBBY_DB"]) as conn:
        invitations = conn.execute("SELECT * FROM invitations ORDER BY id").fetchall()
        blocks = conn.execute("SELECT * FROM blocks ORDER BY blocker, blocked").fetchall()
    return invitations, blocks


def home_invitations(guest: Table, **query):
    return guest.client.get("/me/invitations", query_string=query, headers=HTMX)


def shown_invitations(guest: Table) -> list:
    return parse(home_invitations(guest).get_data(as_text=True)).find_all("data-invitation")


def player_id(app, name: str) -> str:
    return lobby(app).player_named(name).id


# -- inviting


def test_a_host_invites_a_player_by_name_who_sees_it_on_the_home_page(app):
    host, guest = hosting(app), named_browser(app, "Bob")
    home = parse(guest.home().get_data(as_text=True))
    region = home.one("id", "invitations")
    assert region.get("hx-get") == "/me/invitations" and region.get("hx-trigger") == "load"
    assert region.get("aria-live") == "polite"

    response = invite(host, "BOB")  # the name in any case: canonical
    assert response.status_code == 200
    said = parse(response.get_data(as_text=True))
    assert "Invitation sent to Bob." in said.one("role", "status").text
    assert said.one("data-invite-player") is not None  # the form again, for the next name

    shown = shown_invitations(guest)
    assert [one.get("data-room") for one in shown] == [host.room]
    assert "Ana invites you to a table." in shown[0].text
    for action in ("accept-invitation", "decline-invitation"):
        button = shown[0].one("data-action", action)
        assert button.parent.tag == "form" and button.parent.get("method") == "post"
        assert button.parent.find("name", "csrf_token") is not None

    waiting = parse(host.client.get(sent_url(host)).get_data(as_text=True))
    assert [li.get("data-state") for li in waiting.find_all("data-sent-invitation")] == ["open"]
    assert "Waiting for Bob to answer" in waiting.text


def test_a_poll_that_shows_the_same_gets_nothing_to_swap(app):
    host, guest = hosting(app), named_browser(app, "Bob")
    first = home_invitations(guest)
    poll = parse(first.get_data(as_text=True)).one("hx-trigger", "every 3s").get("hx-get")
    assert guest.client.get(poll, headers=HTMX).status_code == 204
    invite(host, "Bob")
    assert guest.client.get(poll, headers=HTMX).status_code == 200  # news
    # The host's table polls what became of its invitations the same way.
    sent = parse(host.client.get(sent_url(host)).get_data(as_text=True))
    again = sent.one("hx-trigger", "every 4s").get("hx-get")
    assert host.client.get(again, headers=HTMX).status_code == 204
    decline = shown_invitations(guest)[0].one("data-action", "decline-invitation").parent
    guest.client.post(decline.get("action"), data={"csrf_token": guest.csrf})
    assert host.client.get(again, headers=HTMX).status_code == 200


def test_a_pushed_table_keeps_the_invite_form_with_a_proof_that_holds(app):
    """Pushes are drawn outside any request (render_pushed): the form comes from the links
    the seat's socket was opened with, under the player's cookie."""
    host, second = hosting(app, seats="3"), named_browser(app, "Bob")
    cookies = "; ".join(
        f"{name}={host.client.get_cookie(name).value}"
        for name in ("domino_player", "domino_session")
    )
    services = app.extensions["domino"]
    with app.test_request_context(headers={"Cookie": cookies}):
        conn = Connection(FakeSocket(host.seen), "100.a", "en", links(services.get(host.room)))
    services.hub.attach(host.room, 0, conn)
    pushed_before = len(conn.ws.frames)
    second.room = host.room
    second.join()
    assert len(conn.ws.frames) > pushed_before  # the host was pushed the new table
    pushed = parse(conn.ws.frames[-1])
    form = pushed.one("data-invite-player")
    assert form.one("name", "room").get("value") == host.room
    fields = {i.get("name"): i.get("value") for i in form.find_all(tag="input") if i.get("name")}
    response = host.client.post(
        "/me/invitations",
        data={**fields, "name": "Bob"},
        headers={**HTMX, "X-CSRFToken": host.csrf},
    )
    assert response.status_code == 200  # the pushed proof is the host's at this room
    # The second player's seat bears their name in the host's seat strip, isolated.
    assert any("<bdi>Bob</bdi>" in frame for frame in conn.ws.frames)


def test_a_table_without_a_signed_in_viewer_has_no_invite_form(app):
    anonymous = Table(app)
    anonymous.create_room()
    assert anonymous.doc.find("data-invite-player") is None
    assert anonymous.doc.find("data-invite") is not None  # the link, as always
    host = hosting(app)
    assert host.doc.find("data-invite-player") is not None


@pytest.mark.parametrize(
    ("name", "code_text", "status"),
    [
        ("Nobody", "There is no player of that name.", 404),
        ("ANA", "That is your own name", 400),
        ("", "There is no player of that name.", 404),
    ],
)
def test_refused_invitations_say_why_and_store_nothing(app, name, code_text, status):
    host, _guest = hosting(app), named_browser(app, "Bob")
    before = stored(app)
    response = invite(host, name)
    assert response.status_code == status
    error = parse(response.get_data(as_text=True)).one("data-error")
    assert code_text in error.text
    assert stored(app) == before


@pytest.mark.parametrize("who_blocks", ["guest", "host"])
def test_a_block_either_way_reads_as_no_such_player(app, who_blocks):
    host, guest = hosting(app), named_browser(app, "Bob")
    nobody = invite(host, "Nobody")
    blocker = guest if who_blocks == "guest" else host
    target = "Ana" if who_blocks == "guest" else "Bob"
    blocked = blocker.client.post(f"/p/{target}/block", data={"csrf_token": blocker.csrf})
    assert blocked.status_code == 303
    before = stored(app)
    response = invite(host, "Bob")
    assert response.status_code == nobody.status_code == 404
    said = parse(response.get_data(as_text=True)).one("data-error").text
    assert said == parse(nobody.get_data(as_text=True)).one("data-error").text
    assert stored(app) == before and shown_invitations(guest) == []


def test_a_forged_or_someone_elses_proof_is_refused(app):
    host, _guest = hosting(app), named_browser(app, "Bob")
    other = hosting(app, "Cleo")
    before = stored(app)
    fields = invite_fields(host)
    forged = fields["proof"][:-4] + ("AAAA" if not fields["proof"].endswith("AAAA") else "BBBB")
    cases = [
        {"proof": forged},
        {"room": other.room},  # the host's proof, for a room they do not sit at
        {"proof": invite_fields(other)["proof"], "room": other.room},  # Cleo's own proof
        {"proof": ""},
    ]
    for override in cases:
        response = invite(host, "Bob", **override)
        assert response.status_code == 403, override
        assert "out of date, or not yours" in parse(response.get_data(as_text=True)).text
    assert stored(app) == before


def test_a_browser_not_signed_in_cannot_invite_nor_answer(app):
    host, guest = hosting(app), named_browser(app, "Bob")
    invite(host, "Bob")
    invitation = shown_invitations(guest)[0]
    accept = invitation.one("data-action", "accept-invitation").parent.get("action")
    before = stored(app)
    stranger = Table(app)
    stranger.home()
    data = {**invite_fields(host), "name": "Bob"}
    refused = stranger.client.post(
        "/me/invitations", data=data, headers={**HTMX, "X-CSRFToken": stranger.csrf}
    )
    assert refused.status_code == 403
    assert "Sign in first" in refused.get_data(as_text=True)
    for path in (accept, accept.replace("/accept", "/decline"), "/p/Ana/block"):
        assert stranger.client.post(path, data={"csrf_token": stranger.csrf}).status_code == 403
    assert stranger.client.get("/me/invitations").get_data(as_text=True) == ""
    assert stored(app) == before


def test_every_new_form_is_refused_without_its_csrf_token(app):
    host, guest = hosting(app), named_browser(app, "Bob")
    invite(host, "Bob")
    accept = shown_invitations(guest)[0].one("data-action", "accept-invitation").parent
    before = stored(app)
    assert invite(host, "Cleo", csrf=False).status_code == 400
    for path in (
        accept.get("action"),
        accept.get("action").replace("/accept", "/decline"),
        "/p/Ana/block",
        "/p/Ana/unblock",
    ):
        response = guest.client.post(path, data={})
        assert response.status_code == 400, path
        assert "This form has expired" in response.get_data(as_text=True)
    assert stored(app) == before


# -- answering


def test_declining_tells_the_host(app):
    host, guest = hosting(app), named_browser(app, "Bob")
    invite(host, "Bob")
    decline = shown_invitations(guest)[0].one("data-action", "decline-invitation").parent
    response = guest.client.post(decline.get("action"), data={"csrf_token": guest.csrf})
    assert response.status_code == 303 and response.headers["Location"] == "/"
    assert shown_invitations(guest) == []
    told = parse(host.client.get(sent_url(host)).get_data(as_text=True))
    assert [li.get("data-state") for li in told.find_all("data-sent-invitation")] == ["declined"]
    assert told.one("data-sent-invitation").text == "Bob declined"
    again = guest.client.post(decline.get("action"), data={"csrf_token": guest.csrf})
    assert again.status_code == 404  # answered once
    assert "no longer open" in again.get_data(as_text=True)


@pytest.mark.parametrize("htmx", [False, True])
def test_accepting_sends_the_guest_to_the_rooms_invitation_page_and_seats_them(app, htmx):
    host, guest = hosting(app), named_browser(app, "Bob")
    host.connect()
    invite(host, "Bob")
    accept = shown_invitations(guest)[0].one("data-action", "accept-invitation").parent
    headers = HTMX if htmx else {}
    response = guest.client.post(
        accept.get("action"), data={"csrf_token": guest.csrf}, headers=headers
    )
    target = f"/r/{host.room}"
    if htmx:
        assert response.status_code == 200 and response.headers["HX-Redirect"] == target
    else:
        assert response.status_code == 303 and response.headers["Location"] == target
    guest.room = host.room
    join_page = parse(guest.open().get_data(as_text=True))
    form = join_page.one("data-action", "join").parent
    assert form.get("hx-trigger") == "load, submit"  # posts itself, as the link's page does
    assert guest.join(htmx=True).headers["HX-Redirect"] == target
    assert guest.seat == 1
    assert shown_invitations(guest) == []
    # The host's table (pushed over its socket) calls the guest by name, isolated and escaped.
    who = host.doc.one("class", "opponent").one("class", "who")
    assert who.one(tag="bdi").text == "Bob"
    assert "Your friend" not in who.text
    assert lobby(app).friends(player_id(app, "Ana")) == [(player_id(app, "Bob"), "Bob")]


def test_a_seat_taken_by_a_signed_in_browser_bears_its_players_name(app):
    host = hosting(app)
    room = app.extensions["domino"].get(host.room)
    assert room.names[0] == "Ana"
    anonymous = Table(app)
    anonymous.create_room()
    assert app.extensions["domino"].get(anonymous.room).names == ("", "")


# -- blocking


def test_a_blocked_hosts_invitations_are_hidden_until_unblocked_and_never_told(app):
    host, guest = hosting(app), named_browser(app, "Bob")
    invite(host, "Bob")
    assert len(shown_invitations(guest)) == 1
    page = parse(guest.get("/p/Ana").get_data(as_text=True))
    block = page.one("data-action", "block").parent.get("action")
    assert guest.client.post(block, data={"csrf_token": guest.csrf}).status_code == 303
    assert shown_invitations(guest) == []
    page = parse(guest.get("/p/Ana").get_data(as_text=True))
    assert page.find("data-action", "block") is None
    unblock = page.one("data-action", "unblock").parent.get("action")
    # The host is not told: their table still reads "waiting", their page has no sign of it.
    waiting = parse(host.client.get(sent_url(host)).get_data(as_text=True))
    assert [li.get("data-state") for li in waiting.find_all("data-sent-invitation")] == ["open"]
    own = host.get("/p/Ana").get_data(as_text=True)
    assert "block" not in parse(own).text.lower()
    assert guest.client.post(unblock, data={"csrf_token": guest.csrf}).status_code == 303
    assert len(shown_invitations(guest)) == 1


def test_block_buttons_are_for_another_signed_in_players_page_only(app):
    ana, _bob = named_browser(app, "Ana"), named_browser(app, "Bob")
    own = parse(ana.get("/p/Ana").get_data(as_text=True))
    assert own.find("data-action", "block") is None and own.find("class", "friends") is not None
    anonymous = Table(app)
    page = parse(anonymous.get("/p/Bob").get_data(as_text=True))
    assert page.find("data-action", "block") is None
    assert parse(ana.get("/p/Bob").get_data(as_text=True)).find("data-action", "block")
    before = stored(app)
    refused = ana.client.post("/p/Ana/block", data={"csrf_token": ana.csrf})
    assert refused.status_code == 400 and "cannot block yourself" in refused.get_data(as_text=True)
    assert ana.client.post("/p/Nobody/block", data={"csrf_token": ana.csrf}).status_code == 404
    assert stored(app) == before


# -- friends, online


def test_the_friend_list_shows_who_was_seen_in_the_last_two_minutes(app):
    clock = [1000.0]
    app.extensions["friends_seen"] = LastSeen(clock=lambda: clock[0])
    host, guest = hosting(app), named_browser(app, "Bob")
    invite(host, "Bob")
    accept = shown_invitations(guest)[0].one("data-action", "accept-invitation").parent
    guest.client.post(accept.get("action"), data={"csrf_token": guest.csrf})
    home_invitations(guest)  # Bob's home page polls: seen now

    def friends():
        page = parse(host.get("/p/Ana").get_data(as_text=True))
        return {li.one(tag="a").text: li.has("data-online") for li in page.find_all("data-friend")}

    assert friends() == {"Bob": True}
    link = parse(host.get("/p/Ana").get_data(as_text=True)).one("data-friend").one(tag="a")
    assert link.get("href") == "/p/Bob" and link.one(tag="bdi").text == "Bob"
    clock[0] += 121
    assert friends() == {"Bob": False}
    guest.client.get("/me/bar")  # the player bar's check counts too
    assert friends() == {"Bob": True}


# -- names at the table


def test_display_names_at_the_table_are_escaped_and_isolated(app):
    host = Table(app)
    host.create_room(seats="3")
    guest = Table(app, host.room)
    guest.join()
    guest.open()
    guest.connect("200.b")
    guest.post("name", name='Zoë <&> "x"')
    host.open()
    raw = host.html
    assert "<bdi>Zoë &lt;&amp;&gt; &#34;x&#34;</bdi>" in raw or (
        "<bdi>Zoë &lt;&amp;&gt; &quot;x&quot;</bdi>" in raw
    )
    assert "<&>" not in raw


def test_a_guest_display_name_at_two_seats_replaces_your_friend(app):
    host = Table(app)
    host.create_room()
    guest = Table(app, host.room)
    guest.join()
    guest.open()
    guest.connect("200.b")
    guest.post("name", name="<i>Bo</i>")
    host.open()
    who = host.doc.one("class", "opponent").one("class", "who")
    assert who.one(tag="bdi").text == "<i>Bo</i>"  # text, not markup
    assert "<i>" not in host.html.split('class="who"', 1)[1].split("</span>", 1)[0]


def test_a_named_guest_at_two_seats_is_named_in_the_move_list_too(app):
    """Not only the seat box: the host's move list words the guest's moves with the name."""
    import random

    from domino import game
    from tests.support.webkit import advance_until, friends

    host, guest = friends(app)
    guest.post("name", name="Bob")
    advance_until((host, guest), lambda state: len(state.line) >= 3, random.Random(4))
    assert game  # the rounds above were played through HTTP, by the rules
    moves = host.doc.one("data-move-list")
    theirs = [m for m in moves.find_all("data-move") if m.get("data-seat") == "1"]
    assert theirs and all("Bob" in m.text for m in theirs)
    assert "friend" not in moves.text.lower()


# -- the rate limit


def test_inviting_is_rate_limited_per_player(tmp_path):
    app = make_app(
        tmp_path / "domino.sqlite3", seed=5, RATELIMIT_ENABLED=True, RATELIMIT_INVITE="2 per minute"
    )
    try:
        host, _guest = hosting(app), named_browser(app, "Bob")
        assert invite(host, "Bob").status_code == 200
        assert invite(host, "Nobody").status_code == 404  # a refused one counts too
        before = stored(app)
        limited = invite(host, "Bob")
        assert limited.status_code == 429 and "Retry-After" in limited.headers
        assert stored(app) == before
    finally:
        app.extensions["domino"].close()


# -- as a cluster runs it: the lobby's process beside a shard without a lobby


class ClusterBrowser:
    """One browser's cookies, sent to the lobby for its paths (/me/, /p/) and to the shard
    for the rest, as nginx would (one secret key for both, docs/cluster.md)."""

    def __init__(self, lobby_app, shard_app) -> None:
        self.lobby, self.shard = lobby_app.test_client(), shard_app.test_client()

    def request(self, method: str, path: str, **kw):
        client = self.lobby if path.startswith(("/me/", "/p/")) else self.shard
        other = self.shard if client is self.lobby else self.lobby
        answer = client.open(path, method=method, **kw)
        for cookie in client._cookies.values():
            other.set_cookie(cookie.key, cookie.value, domain=cookie.domain, path=cookie.path)
        return answer

    def page(self, path: str):
        return parse(self.request("GET", path).get_data(as_text=True))


def cluster_name(browser: ClusterBrowser, name: str) -> None:
    form = browser.page("/").one("data-name-form")
    token = form.one("name", "csrf_token", tag="input").get("value")
    answer = browser.request("POST", "/me/name", data={"name": name, "csrf_token": token})
    assert answer.status_code == 303


def test_inviting_across_the_lobbys_process_and_a_shard(tmp_path):
    key = "one-cluster"
    lobby_app = make_app(
        tmp_path / "never.sqlite3",
        LOBBY="only",
        LOBBY_DB=str(tmp_path / "lobby.sqlite3"),
        SECRET_KEY=key,
    )
    shard_db = tmp_path / "not-the-shards.sqlite3"
    shard_app = make_app(
        tmp_path / "s1.sqlite3",
        SHARD="s1",
        LOBBY="elsewhere",
        LOBBY_DB=str(shard_db),
        SECRET_KEY=key,
    )
    try:
        host, guest = ClusterBrowser(lobby_app, shard_app), ClusterBrowser(lobby_app, shard_app)
        cluster_name(host, "Ana")
        cluster_name(guest, "Bob")
        token = host.page("/").find("name", "csrf_token", tag="input").get("value")
        created = host.request("POST", "/rooms", data={"csrf_token": token})
        room_path = created.headers["Location"]
        room = room_path.rsplit("/", 1)[-1]
        table = host.page(room_path)
        form = table.one("data-invite-player")
        fields = {i.get("name"): i.get("value") for i in form.find_all(tag="input")}
        header = table.find("hx-headers", tag="body").get("hx-headers")
        csrf = header.split('"X-CSRFToken": "', 1)[1].split('"', 1)[0]
        sent = host.request(
            "POST",
            form.get("hx-post"),
            data={**fields, "name": "Bob"},
            headers={**HTMX, "X-CSRFToken": csrf},
        )
        assert sent.status_code == 200, sent.get_data(as_text=True)
        assert "Invitation sent to" in sent.get_data(as_text=True)

        home = guest.page("/")
        assert home.one("id", "invitations").get("hx-get") == "/me/invitations"
        shown = guest.page("/me/invitations").find_all("data-invitation")
        assert [one.get("data-room") for one in shown] == [room]
        accept = shown[0].one("data-action", "accept-invitation").parent
        token = accept.one("name", "csrf_token", tag="input").get("value")
        went = guest.request("POST", accept.get("action"), data={"csrf_token": token})
        assert went.headers["Location"] == room_path
        join = guest.page(room_path).one("data-action", "join").parent
        token = join.one("name", "csrf_token", tag="input").get("value")
        assert (
            guest.request("POST", join.get("action"), data={"csrf_token": token}).status_code == 303
        )
        who = host.page(room_path).one("class", "opponent").one("class", "who")
        assert who.one(tag="bdi").text == "Bob"
        assert not shard_db.exists()  # the shard never opened a lobby database
    finally:
        shard_app.extensions["domino"].close()
