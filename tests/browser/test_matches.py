"""Rooms made from the rules card, and matches played to their end (docs/rules.md), in real
browsers.

Only the page hooks (docs/contracts.md) are read. After every round the running score (`data-score`)
is worked
out again from the hands the finished round shows open (`data-hand`, `data-opponent-hand`),
under the rule of the room's preset.
"""

from __future__ import annotations

import random
import re
from functools import partial

from playwright.sync_api import Page, expect

from tests.support.browser_computer import Player
from tests.support.browser_friends import (
    Seat,
    create_room,
    expect_both_connected,
    join_room,
    play_round,
)
from tests.support.browser_matches import (
    HAND,
    NEXT,
    agree_to_next,
    fill_card,
    preset_rules,
    shown_rules,
)

MAX_ROUNDS = 12
SCORES_JS = """() => Object.fromEntries([...document.querySelectorAll('[data-score]')]
  .map((el) => [el.getAttribute('data-seats'), el.textContent.trim()]))"""


def shown_scores(page: Page) -> dict[str, int]:
    """The running score per side, keyed by `data-seats`; the text must be the number."""
    found = page.evaluate(SCORES_JS)
    assert all(re.fullmatch(r"\d+", text) for text in found.values()), f"scores read {found}"
    return {seats: int(text) for seats, text in found.items()}


def pips(tiles: list[str]) -> int:
    return sum(int(half) for tile in tiles for half in tile.split("-"))


def round_gain(mine: list[str], theirs: list[str], goat: bool) -> tuple[str, tuple[int, int]]:
    """The round's verdict for the seat holding `mine` and what (it, the other) write.

    A seat that went out wins; else (blocked) the lighter hand wins and equal hands draw. With
    winner scoring (blocked: others) the winner writes the other hand's pips; with goat the
    winner writes nothing and the other writes its own pips.
    """
    own, other = pips(mine), pips(theirs)
    if mine and theirs and own == other:
        return "draw", (0, 0)
    won = not mine or (bool(theirs) and own < other)
    if goat:
        return ("you", (0, other)) if won else ("opponent", (own, 0))
    return ("you", (other, 0)) if won else ("opponent", (0, own))


def open_hands(page: Page) -> tuple[list[str], list[str]]:
    """The own hand and the other hand, as the finished round shows them."""
    expect(page.locator("[data-result]")).to_have_count(1)
    mine = page.locator(HAND).evaluate_all("(els) => els.map((el) => el.dataset.tile)")
    theirs = page.locator("[data-opponent-hand] [data-tile]").evaluate_all(
        "(els) => els.map((el) => el.dataset.tile)"
    )
    return mine, theirs


def check_round(page: Page, seat: int, before: dict[str, int], goat: bool) -> dict[str, int]:
    """Check the finished round's verdict, points, score and announcement on the page of
    `seat`; return the new score."""
    mine, theirs = open_hands(page)
    verdict, (gain, other_gain) = round_gain(mine, theirs, goat)
    result = page.locator("[data-result]")
    why = f"seat {seat}: hands {mine} against {theirs}"
    expect(result, why).to_have_attribute("data-winner", verdict)
    expect(result, why).to_have_attribute("data-points", str(0 if goat else gain + other_gain))
    me, them = str(seat), str(1 - seat)
    after = {me: before[me] + gain, them: before[them] + other_gain}
    assert shown_scores(page) == after, f"{why}: the score was {before}, should be {after}"
    # The live region says the new score: this seat's, then the other's.
    spoken = re.compile(rf"(?<!\d){after[me]}\D+{after[them]}(?!\d)")
    expect(page.locator("#announce"), why).to_contain_text(spoken)
    return after


def friends_from_card(server, open_context, preset: str, target: int) -> list[Seat]:
    """A friend room made from the card; the guest joined through the invitation link."""
    host, invite = create_room(
        open_context(), server.url, partial(fill_card, preset=preset, target=target)
    )
    guest = join_room(open_context(), invite)
    expect_both_connected(host, guest)
    return [host, guest]


def test_a_block_match_to_20_between_friends_scored_after_every_round(server, open_context):
    seats = friends_from_card(server, open_context, "block", 20)
    pages = [seat.page for seat in seats]
    for page in pages:
        assert shown_rules(page) == preset_rules("block", target=20)
        assert shown_scores(page) == {"0": 0, "1": 0}
    rng = random.Random(13)
    score = {"0": 0, "1": 0}
    for played in range(1, MAX_ROUNDS + 1):
        play_round(seats, rng=rng)
        host_mine, host_theirs = open_hands(pages[0])
        assert (host_theirs, host_mine) == open_hands(pages[1]), "the pages show other hands"
        host_score, guest_score = (
            check_round(page, seat, score, goat=False) for seat, page in enumerate(pages)
        )
        assert host_score == guest_score, "the two pages show other scores"
        score = host_score
        if max(score.values()) >= 20:
            break
        expect(pages[0].locator("[data-match-result]")).to_have_count(0)
        agree_to_next(pages[played % 2], pages[1 - played % 2], "continue")
        for page in pages:
            assert shown_scores(page) == score, "Continue changed the score"
    else:
        raise AssertionError(f"no side reached 20 in {MAX_ROUNDS} rounds: {score}")

    leader = 0 if score["0"] > score["1"] else 1
    for seat, page in enumerate(pages):
        verdict = "you" if seat == leader else "opponent"
        expect(page.locator("[data-match-result]")).to_have_attribute("data-winner", verdict)
    agree_to_next(pages[1], pages[0], "match")
    for page in pages:
        assert shown_scores(page) == {"0": 0, "1": 0}, "the new match does not start at 0–0"
        expect(page.locator("[data-match-result]")).to_have_count(0)
    print(f"block match to 20: {played} rounds, {score['0']}–{score['1']}")


def computer_from_card(server, context, preset: str) -> tuple[Player, dict]:
    """A computer room made from the card with `preset`, and the page's first view."""
    player = Player(server, context)
    shown = player.start(partial(fill_card, preset=preset))
    assert shown_rules(player.page) == preset_rules(preset)
    return player, shown


def finish_round(player: Player, shown: dict) -> dict:
    """Click through the player's moves until the round is over."""
    moves: list[str] = []
    while shown["result"] is None:
        assert len(moves) < 80, f"the round does not end: {moves[-10:]}"
        moves.append(player.take_turn(shown))
        shown = player.wait_current(moves[-1])
    return shown


def next_deal(player: Player, shown: dict, kind: str = "continue") -> dict:
    """Press Continue (or New match, `kind` "match"): the computer has always agreed, so the
    next round is dealt at once."""
    expect(player.page.locator("[data-next]")).to_have_attribute("data-next", kind)
    player.page.locator(NEXT).click()
    player.wait_answered(shown["answered"], f"asking for the next deal ({kind})")
    shown = player.wait_current(f"asking for the next deal ({kind})")
    assert shown["result"] is None, f"the next round was not dealt ({kind})"
    expect(player.page.locator(HAND)).to_have_count(7)
    return shown


def test_a_goat_room_against_the_computer_writes_penalty_points(server, open_context):
    player, shown = computer_from_card(server, open_context(), "goat")
    page = player.page
    score = {"0": 0, "1": 0}
    assert shown_scores(page) == score
    for _round in range(2):
        shown = finish_round(player, shown)
        score = check_round(page, 0, score, goat=True)
        shown = next_deal(player, shown)
        assert shown_scores(page) == score, "Continue changed the score"
    print(f"goat, two rounds: {score['0']}–{score['1']}")


def check_opener(shown: dict, winner: str) -> None:
    """The winner of the round before has made the first move of this round, on a free lead."""
    assert shown["turn"] == "you", f"it is not the player's turn: {shown}"
    assert len(shown["hand"]) == 7
    if winner == "you":  # an empty line, and any tile may open it
        assert shown["chain"] == [], f"the player won, but the line is {shown['chain']}"
        assert shown["playable"] == shown["hand"], f"not a free lead: {shown}"
    else:  # the computer opened, whatever it held
        assert len(shown["chain"]) == 1, f"the computer won, but the line is {shown['chain']}"
        assert shown["opponentCount"] == "6", shown


def test_international_the_previous_winner_opens_the_next_round(server, open_context):
    """Rounds are played until the round after one the player won, and the round after one
    the computer won, have been checked (a drawn round, or the first of a match, has its
    opener by the rule)."""
    player, shown = computer_from_card(server, open_context(), "international")
    page = player.page
    checked: list[str] = []
    for _round in range(MAX_ROUNDS):
        shown = finish_round(player, shown)
        winner = page.locator("[data-result]").get_attribute("data-winner")
        if page.locator("[data-match-result]").count():
            shown = next_deal(player, shown, "match")
            continue
        shown = next_deal(player, shown)
        if winner != "draw":
            check_opener(shown, winner)
            checked.append(winner)
        if {"you", "opponent"} <= set(checked):
            break
    assert {"you", "opponent"} <= set(checked), f"rounds won and checked: {checked}"
    print(f"international: rounds won and checked: {checked}")
