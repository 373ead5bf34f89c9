"""Stake tables through the Flask test client (SPEC §13, hooks §14, issue 32): the quick
match form's stake, the waiting page of a stake table (`data-queue-stake`, `data-expires-in`),
the refusals in words with nothing changed, the notice of an expired table
(`data-stake-expired`), the refund of leaving in the bar (`data-coins`), a stake room's
`#table[data-stake]`, and 200 joins at once of one player with coins for one stake."""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest

from domino.lobby.ledger import escrow_account
from domino.web.live.waves import Waves, in_process
from domino.web.view.messages import REFUSALS
from tests.support import results
from tests.support.ledger import audited
from tests.support.players import follow, named_browser, open_public, player_id
from tests.support.players import last_page as page
from tests.support.players import lobby_of as lobby
from tests.support.webkit import Table, make_app, parse

HTMX = {"HX-Request": "true"}
WAIT = 120  # DOMINO_STAKE_WAIT_SECONDS' default


@pytest.fixture
def app(tmp_path):
    app = make_app(tmp_path / "domino.sqlite3", seed=13)
    yield app
    app.extensions["domino"].close()


def quick_match(browser: Table, game: str, stake: str | None = None):
    browser.home()
    data = {"game": game, "csrf_token": browser.csrf}
    if stake is not None:
        data["stake"] = stake
    return browser.client.post("/play/", data=data)


def coins_in_bar(browser: Table, path: str = "/") -> int:
    browser.get(path)
    return int(page(browser).one("id", "player-bar").one("data-coins").text)


def refusal_text(response) -> str:
    return parse(response.get_data(as_text=True)).one("data-error").text


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def waves(app, now: float) -> Waves:
    return Waves(
        lobby(app),
        in_process(app.extensions["domino"]),
        clock=Clock(now),
        stake_wait=app.config["STAKE_WAIT_SECONDS"],
    )


def everything(app, *browsers):
    """What a refused join must leave as it was: each player's coins and statement, the
    queue and the stake tables."""
    store = lobby(app)
    ids = [player_id(b) for b in browsers]
    return (
        [store.coins(p) for p in ids],
        [store.statement(p) for p in ids],
        store.waiting(),
        store.stake_tables(),
    )


# -- the form


def test_the_quick_match_form_offers_the_four_stakes_and_no_stake_first(app):
    ana = named_browser(app, "Ana")
    form = page(ana).one("data-quick-match")
    select = form.one("name", "stake", tag="select")
    options = select.find_all(tag="option")
    assert [(o.get("value"), o.text) for o in options] == [
        ("0", "No stake"),
        ("100", "100 coins each"),
        ("250", "250 coins each"),
        ("500", "500 coins each"),
        ("1000", "1000 coins each"),
    ]
    assert not any(o.has("selected") for o in options[1:])  # no stake unless chosen
    assert form.one("for", select.get("id"), tag="label").text == "Stake"
    hint = form.one("id", select.get("aria-describedby"))
    assert "Match to 100" in hint.text and "Pairs" in hint.text
    assert "only people play" in hint.text and "2 minutes" in hint.text


# -- waiting at a stake table


def test_joining_at_a_stake_shows_the_stake_and_the_seconds_left(app):
    ana = named_browser(app, "Ana")
    answer = quick_match(ana, "pairs", "250")
    assert answer.status_code == 303 and answer.headers["Location"].endswith("/play/")
    ana.get("/play/")
    queue = page(ana).one("data-queue")
    assert queue.get("data-game") == "pairs" and queue.get("data-queue-stake") == "250"
    assert WAIT - 2 <= int(queue.get("data-expires-in")) <= WAIT
    assert "Your stake of 250 coins is held; the winners take the pot of 1000." in queue.text
    assert "gives yours back at once" in queue.text
    assert "the computer" not in queue.text  # no computer fill at a stake table
    polled = parse(ana.client.get("/play/queue", headers=HTMX).get_data(as_text=True))
    assert polled.one("data-queue").get("data-queue-stake") == "250"
    assert polled.one("data-queue").has("data-expires-in")
    assert coins_in_bar(ana) == 750
    assert lobby(app).queued(player_id(ana)).stake == 250


def test_the_seconds_left_follow_the_setting_and_count_from_the_tables_opening(tmp_path):
    app = make_app(tmp_path / "domino.sqlite3", STAKE_WAIT_SECONDS=45.0)
    try:
        ana, bob = named_browser(app, "Ana"), named_browser(app, "Bob")
        quick_match(ana, "pairs", "100")
        table = lobby(app).queued(player_id(ana)).table
        lobby(app).leave_queue(player_id(ana))  # the table closes: Bob opens another
        quick_match(bob, "pairs", "100")
        assert lobby(app).queued(player_id(bob)).table != table
        bob.get("/play/")
        assert 43 <= int(page(bob).one("data-queue").get("data-expires-in")) <= 45
    finally:
        app.extensions["domino"].close()


def test_a_free_join_shows_no_stake(app):
    ana = named_browser(app, "Ana")
    quick_match(ana, "pairs", "0")
    ana.get("/play/")
    queue = page(ana).one("data-queue")
    assert not queue.has("data-queue-stake") and not queue.has("data-expires-in")
    assert coins_in_bar(ana) == 1000


# -- refusals


@pytest.mark.parametrize(
    ("game", "stake", "status", "code"),
    [
        ("pairs", "300", 400, "bad-stake"),
        ("pairs", "-100", 400, "bad-stake"),
        ("pairs", "1e3", 400, "bad-stake"),
        ("classic", "100", 400, "stake-game"),
        ("three", "1000", 400, "stake-game"),
    ],
)
def test_a_stake_the_tables_do_not_play_is_refused_in_words(app, game, stake, status, code):
    ana = named_browser(app, "Ana")
    before = everything(app, ana)
    refused = quick_match(ana, game, stake)
    assert refused.status_code == status
    assert refusal_text(refused) == str(REFUSALS[code])
    assert everything(app, ana) == before


def test_a_second_stake_while_one_is_held_is_refused_and_changes_nothing(app):
    ana = named_browser(app, "Ana")
    quick_match(ana, "match-100", "100")
    before = everything(app, ana)
    for game, stake in (("pairs", "250"), ("match-100", "100"), ("classic", None)):
        refused = quick_match(ana, game, stake)
        assert refused.status_code == 409
        assert refusal_text(refused) == str(REFUSALS["already-staked"])
        assert "leave it to get your coins back" in refusal_text(refused)
    assert everything(app, ana) == before
    assert coins_in_bar(ana) == 900


def test_too_few_coins_are_refused_in_words_and_change_nothing(app):
    ana, bob = named_browser(app, "Ana"), named_browser(app, "Bob")
    quick_match(ana, "match-100", "1000")
    quick_match(bob, "match-100", "1000")
    (opened,) = waves(app, time.time() + 1).wave()
    room = app.extensions["domino"].get(opened.room)
    assert room.stake == 1000
    first, second = (lobby(app).player_named(name).id for name in room.names)
    sent = results.result(opened.room, 1, [(first, 1), (second, 2)], game="match-100")
    assert lobby(app).apply_result({**sent, "stake": 1000}).counted
    lost = second
    loser = ana if player_id(ana) == lost else bob
    assert coins_in_bar(loser) == 0
    before = everything(app, ana, bob)
    refused = quick_match(loser, "match-100", "100")
    assert refused.status_code == 409
    assert refusal_text(refused) == str(REFUSALS["not-enough-coins"])
    assert everything(app, ana, bob) == before
    assert coins_in_bar(loser) == 0  # the same day: no top-up after the day's first page


def test_a_stake_without_a_name_is_refused(app):
    stranger = Table(app)
    stranger.home()
    data = {"csrf_token": stranger.csrf, "game": "pairs", "stake": "100"}
    refused = stranger.client.post("/play/", data=data)
    assert refused.status_code == 403
    assert lobby(app).waiting() == [] and lobby(app).stake_tables() == []


# -- expiry and leaving


def test_after_expiry_the_play_page_says_the_stake_is_back(app):
    ana = named_browser(app, "Ana")
    quick_match(ana, "pairs", "500")
    assert coins_in_bar(ana) == 500
    ana.get("/play/")
    assert page(ana).find("data-stake-expired") is None
    waves(app, time.time() + WAIT + 1).wave()
    polled = ana.client.get("/play/queue", headers=HTMX)
    assert polled.headers["HX-Redirect"].endswith("/play/")  # out of the queue
    ana.get("/play/")
    notice = page(ana).one("data-stake-expired")
    assert notice.get("data-stake-expired") == "500" and notice.get("role") == "status"
    assert "did not fill in time" in notice.text and "500 coins are back" in notice.text
    assert page(ana).find("data-queue") is None and page(ana).one("data-quick-match")
    assert coins_in_bar(ana) == 1000
    quick_match(ana, "match-100", "100")  # joining again forgets the notice
    lobby(app).leave_queue(player_id(ana))
    ana.get("/play/")
    assert page(ana).find("data-stake-expired") is None


def test_leaving_a_stake_table_gives_the_stake_back_at_once(app):
    ana = named_browser(app, "Ana")
    quick_match(ana, "match-100", "250")
    assert coins_in_bar(ana, "/play/") == 750
    table = lobby(app).queued(player_id(ana)).table
    left = ana.client.post("/play/leave", data={"csrf_token": ana.csrf})
    assert left.status_code == 303
    assert coins_in_bar(ana) == 1000
    assert lobby(app).waiting() == []
    assert lobby(app).escrow_state(table) == "expired"  # its last player left
    ana.get("/me/coins")
    rows = page(ana).find_all("data-ledger-entry")
    assert [(r.get("data-reason"), r.get("data-amount")) for r in rows[:2]] == [
        ("refund", "250"),
        ("stake", "-250"),
    ]
    ana.get("/play/")
    assert page(ana).find("data-stake-expired") is None  # left, not expired: no notice


# -- the stake room


def test_a_public_stake_room_says_its_stake_and_a_free_one_does_not(app):
    ana, bob = named_browser(app, "Ana"), named_browser(app, "Bob")
    seats = [(player_id(ana), "Ana"), (player_id(bob), "Bob")]
    staked = app.extensions["domino"].create_public("match-100", seats, 250)
    follow(ana, staked.grants[player_id(ana)])
    table = ana.doc.one("id", "table")
    assert table.get("data-stake") == "250" and table.has("data-public")
    assert "Stake: 250 coins each; the winners take the pot of 500." in table.text
    free = open_public(app, "match-100", ana, bob)
    follow(ana, free.grants[player_id(ana)])
    table = page(ana).one("id", "table")  # this room's page (ana.doc: the highest seq seen)
    assert table.get("data-record-url") == f"/r/{free.room}/record.jsonl"
    assert table.has("data-public") and not table.has("data-stake")
    assert "Stake:" not in table.text


def test_a_wave_seats_a_full_stake_table_in_a_room_with_its_stake(app):
    ana, bob = named_browser(app, "Ana"), named_browser(app, "Bob")
    quick_match(ana, "match-100", "100")
    quick_match(bob, "match-100", "100")
    table = lobby(app).queued(player_id(ana)).table
    (opened,) = waves(app, time.time() + 1).wave()
    for browser in (ana, bob):
        target = browser.client.get("/play/queue", headers=HTMX).headers["HX-Redirect"]
        assert follow(browser, target).status_code == 303
        assert browser.room == opened.room
        assert browser.doc.one("id", "table").get("data-stake") == "100"
        assert not browser.doc.find("data-computer")
    assert lobby(app).stake_table(table).room == opened.room
    assert lobby(app).balance(escrow_account(table)) == 200


# -- 200 joins at once


ATTEMPTS = 200
COOKIES = ("session", "domino_session", "domino_player")  # Flask's (CSRF), the lobby's two


def test_200_joins_at_once_with_coins_for_one_stake_hold_exactly_one(app):
    ana = named_browser(app, "Ana")
    assert coins_in_bar(ana) == 1000
    token = ana.csrf
    clients = []
    for _ in range(ATTEMPTS):
        client = app.test_client()
        for name in COOKIES:
            cookie = ana.client.get_cookie(name)
            assert cookie is not None, name
            client.set_cookie(cookie.key, cookie.value, domain=cookie.domain, path=cookie.path)
        clients.append(client)
    start = threading.Barrier(ATTEMPTS)
    answers: list[tuple[int, str]] = []

    def join(client) -> None:
        start.wait()
        data = {"csrf_token": token, "game": "match-100", "stake": "1000"}
        answer = client.post("/play/", data=data)
        text = None
        if answer.status_code != 303:
            text = refusal_text(answer)
        answers.append((answer.status_code, text))

    threads = [threading.Thread(target=join, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    words = {str(REFUSALS["already-staked"]), str(REFUSALS["not-enough-coins"])}
    assert Counter(status for status, _ in answers) == {303: 1, 409: ATTEMPTS - 1}
    assert {text for status, text in answers if status == 409} <= words
    store = lobby(app)
    ana_id = player_id(ana)
    assert store.coins(ana_id) == 0
    (entry,) = store.waiting()
    assert (entry.player, entry.stake) == (ana_id, 1000)
    (table,) = store.stake_tables()
    assert store.held(table.id) == {ana_id: 1000}
    assert [e.reason for e in store.statement(ana_id)] == ["stake", "grant"]
    assert audited(app.config["LOBBY_DB"]) == []
    assert coins_in_bar(ana) == 0
