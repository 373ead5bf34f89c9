"""Numbers a form sends (issue 27): a seat, the table's `seq` and a tile's halves are ASCII
digits in range, or the request is refused with the usual 400 page and nothing changes.

`str.isdigit()` takes superscripts and circled digits, which `int()` then refuses (a 500
before), and `int()` takes other scripts' digits ("٣" is 3), spaces and signs."""

from __future__ import annotations

import pytest

from domino.web.live.hub import tab_time
from domino.web.routes.review import step as review_step
from domino.web.view.messages import refusal
from tests.support.webkit import Table, make_app, notice, parse

# Not a seat of a table of four, written every way a form could: superscripts, a circled
# digit, Arabic-Indic and full-width digits (int() reads both as 3 and 1), a sign, a seat
# out of range, a space, a decimal point and nothing at all.
NOT_SEATS = ["²", "³", "①", "٣", "１", "-1", "99", " 1", "1 ", "1.0", "", "+1", "1_0", "0" * 30]


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "domino.sqlite3", seed=11)


@pytest.fixture
def host(app):
    """The creator of a table of four, connected, seat 3 given to the computer at easy and
    seats 1 and 2 still free."""
    table = Table(app)
    table.create_room(preset="pairs")
    table.connect()
    table.fragment()
    assert table.post("computer", seat=3, level="easy", seq=None).status_code == 200
    return table


def refused_as(app, response, code: str) -> None:
    """The answer is the usual 400 refusal of `code`, with the table as it stands."""
    assert response.status_code == 400, response.get_data(as_text=True)
    with app.test_request_context():
        assert notice(parse(response.get_data(as_text=True))) == refusal(code)


@pytest.mark.parametrize("value", NOT_SEATS)
def test_a_seat_given_to_the_computer_is_a_seat_in_ascii_digits(app, host, value):
    before = host.log
    refused_as(app, host.post("computer", seat=value, level="easy", seq=None), "bad-seat")
    assert host.log == before
    assert app.extensions["domino"].rooms.get(host.room).free == (1, 2)


@pytest.mark.slow  # a room per odd value
@pytest.mark.parametrize("value", NOT_SEATS)
def test_a_seat_whose_level_is_switched_is_a_seat_in_ascii_digits(app, host, value):
    before = host.log
    refused_as(app, host.post("level", seat=value, level="hard", seq=None), "bad-seat")
    assert host.log == before
    assert app.extensions["domino"].rooms.get(host.room).bots[3] == "easy"


def test_a_seat_in_ascii_digits_is_taken_as_it_says(app, host):
    assert host.post("level", seat="03", level="hard", seq=None).status_code == 200
    assert app.extensions["domino"].rooms.get(host.room).bots[3] == "hard"
    assert host.post("computer", seat="1", level="easy", seq=None).status_code == 200
    assert app.extensions["domino"].rooms.get(host.room).free == (2,)


def opening_table(app) -> Table:
    """A table against the computer whose person is to lay the opening tile."""
    for _ in range(40):
        player = Table(app)
        player.create_room("/computer", level="easy")
        assert app.extensions["domino"].computer.wait_idle(10)
        if player.state.turn == 0 and not player.state.line:
            player.connect()
            player.fragment()
            return player
    raise AssertionError("the computer opened 40 rounds in a row")


def arabic_indic(number: int) -> str:
    return "".join(chr(0x660 + int(digit)) for digit in str(number))


def test_the_tables_seq_is_in_ascii_digits(app):
    player = opening_table(app)
    tile, seq, before = str(player.state.opening), player.seq, player.log
    for written in (arabic_indic(seq), f" {seq}", f"{seq} ", f"+{seq}", "²", "①"):
        response = player.post("play", tile=tile, end="left", seq=written)
        refused_as(app, response, "bad-seq")
        assert player.log == before
    assert player.post("play", tile=tile, end="left", seq=str(seq)).status_code == 200


def test_a_tiles_halves_are_ascii_digits(app):
    player = opening_table(app)
    opening, before = player.state.opening, player.log
    written = f"{arabic_indic(opening.low)}-{arabic_indic(opening.high)}"
    for tile in (written, f"{opening.low}-{arabic_indic(opening.high)}", "²-³"):
        refused_as(app, player.post("play", tile=tile, end="left"), "bad-tile")
        assert player.log == before


@pytest.mark.parametrize("tab", ["²3.a", "٣.a", "１.a", "①.a"])
def test_a_tab_id_in_other_digits_is_just_malformed(tab):
    assert tab_time(tab) == 0  # str.isdigit() took these, and int() refused "²" and "①"
    assert tab_time("1712.a") == 1712


@pytest.mark.parametrize("step", ["٣", "²", " 2", "-1", "x"])
def test_a_review_step_in_other_digits_shows_the_end_of_the_round(step):
    from flask import Flask

    with Flask(__name__).test_request_context(f"/?step={step}"):
        assert review_step(9) == 9
    with Flask(__name__).test_request_context("/?step=2"):
        assert review_step(9) == 2
