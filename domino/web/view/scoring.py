"""A finished round and a match in words: who won, the round's arithmetic, the running score
(and the score as the table shows it, drawn once per seat and score)."""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from ...tiles import pip_total
from ...views import TableView
from . import markup
from .i18n import Words, gettext, ngettext
from .kept import kept, recall, remember
from .names import Name, name_of, spoken

MINUS, PLUS = "−", " + "


@dataclass(frozen=True, slots=True)
class Side:
    """One side of the table as the score shows it: its seats, its name, its score."""

    seats: tuple[int, ...]
    name: str
    score: int
    mine: bool

    @property
    def seat_list(self) -> str:
        """The side's seats as `data-seats` writes them ("0,2")."""
        return ",".join(map(str, self.seats))


def seat_name(tv: TableView, seat: int) -> str:
    """Who sits at `seat`, as this seat's table calls them (web/view/names.py)."""
    if seat == tv.seat:
        return gettext("You")
    if tv.rules.seats == 2 and tv.kind == "computer":
        return gettext("The computer")
    return name_of(tv, seat).label  # at two seats "Your friend", or the player's name


def side_name(tv: TableView, seats) -> Name:
    """What this seat's table calls a side: a pair ("Your pair", "The other pair"), or the
    side's one seat."""
    if tv.rules.teams:
        if tv.seat in seats:
            return Name(gettext("Your pair"), gettext("your pair"))
        return Name(gettext("The other pair"), gettext("the other pair"))
    return name_of(tv, seats[0])


def _winning_side(tv: TableView, winners) -> Name:
    return side_name(tv, next(seats for seats in tv.rules.sides() if winners[0] in seats))


def verdict(tv: TableView, winners) -> str:
    """`you`, `opponent` or `draw`: how a result reads at this seat."""
    if not winners:
        return "draw"
    return "you" if tv.seat in winners else "opponent"


def sides(tv: TableView) -> list[Side]:
    """The match's sides, this seat's first, each with its running score."""
    if tv.match is None:
        return []
    found = []
    for seats in tv.rules.sides():
        name = side_name(tv, seats).label if tv.rules.teams else seat_name(tv, seats[0])
        found.append(Side(seats, name, tv.match.scores[seats[0]], tv.seat in seats))
    return sorted(found, key=lambda side: not side.mine)


def weights(tv: TableView) -> list[int]:
    """The pips left on each side (by `rules.sides()`), once the round is over."""
    totals = [pip_total(hand) for hand in tv.game.hands]
    return [sum(totals[seat] for seat in seats) for seats in tv.rules.sides()]


def headline(tv: TableView) -> str:
    """The round's result in one line."""
    o = tv.game.outcome
    if o.winner is None:
        return gettext("A draw: nobody scores")
    pairs = tv.rules.teams
    if tv.rules.scoring == "goat":
        if tv.seat in o.winners:
            if pairs:
                return gettext("Your pair wins the round: you take no penalty points")
            return gettext("You win the round: you take no penalty points")
        if tv.rules.seats == 2:
            return gettext("%(name)s wins the round", name=seat_name(tv, o.winner))
        side = _winning_side(tv, o.winners)
        return spoken(side, gettext("%(name)s wins the round", name=side.inline))
    if tv.seat in o.winners:
        if pairs:
            return ngettext(
                "Your pair wins %(num)d point", "Your pair wins %(num)d points", o.points
            )
        return ngettext("You win %(num)d point", "You win %(num)d points", o.points)
    # At two seats the winner is named as the match's headline names them ("Your friend",
    # "The computer"), not "your opponent".
    side = name_of(tv, o.winner) if tv.rules.seats == 2 else _winning_side(tv, o.winners)
    text = ngettext(
        "%(name)s wins %(num)d point", "%(name)s wins %(num)d points", o.points, name=side.inline
    )
    return spoken(side, text)


def arithmetic(tv: TableView) -> str:
    """How the round's points follow from the hands under the rule that applied."""
    o, rules = tv.game.outcome, tv.rules
    side_weights = weights(tv)
    if o.winner is None:
        same = " = ".join(map(str, side_weights))
        return gettext("Blocked, and the lightest hands weigh the same (%(sum)s)", sum=same)
    index = next(i for i, seats in enumerate(rules.sides()) if o.winner in seats)
    own, rest = side_weights[index], side_weights[:index] + side_weights[index + 1 :]
    if rules.scoring == "goat":
        written = [
            f"{_side_label(tv, seats)} +{o.scores[seats[0]]}"
            for seats in rules.sides()
            if o.winner not in seats
        ]
        rule = gettext("Goat: the other hands are written as penalty points")
        return _reckoning(rule, ", ".join(written))
    if o.reason == "domino":
        rule = gettext("Domino: the pips left in the other hands")
        return _reckoning(rule, _sum(rest))
    if rules.blocked == "difference":
        rule = gettext("Blocked: the lighter hand wins the difference")
        parts = [f"{weight} {MINUS} {own}" for weight in rest]
        if len(parts) > 1:
            parts = [f"({part})" for part in parts]
        return _reckoning(rule, f"{PLUS.join(parts)} = {o.points}")
    if rules.blocked == "others":
        rule = gettext("Blocked: the lighter hand wins the pips of the other hands")
        return _reckoning(rule, _sum(rest))
    rule = gettext("Blocked: the lighter hand wins all the pips left")
    return _reckoning(rule, _sum(side_weights))


def _side_label(tv: TableView, seats) -> str:
    return side_name(tv, seats).label if tv.rules.teams else seat_name(tv, seats[0])


def _reckoning(rule: str, sums: str) -> str:
    """A rule and its numbers, as the language writes "rule: numbers"."""
    return gettext("%(rule)s: %(sums)s", rule=rule, sums=sums)


def _sum(numbers: list[int]) -> str:
    """`12` or `31 + 12 + 9 = 52`."""
    if len(numbers) == 1:
        return str(numbers[0])
    return f"{PLUS.join(map(str, numbers))} = {sum(numbers)}"


def match_headline(tv: TableView) -> str:
    """The match's result in one line, once it is over."""
    result = verdict(tv, tv.match.winners)
    scores = " – ".join(str(side.score) for side in sides(tv))
    if result == "you":
        if tv.rules.teams:
            return gettext("Your pair wins the match, %(scores)s", scores=scores)
        return gettext("You win the match, %(scores)s", scores=scores)
    if result == "draw":
        return gettext("The match ends in a draw, %(scores)s", scores=scores)
    if tv.rules.seats == 2:
        name = seat_name(tv, tv.match.winners[0])
        return gettext("%(name)s wins the match, %(scores)s", name=name, scores=scores)
    side = _winning_side(tv, tv.match.winners)
    text = gettext("%(name)s wins the match, %(scores)s", name=side.inline, scores=scores)
    return spoken(side, text)


def score_line(tv: TableView) -> str:
    """The running score in words, for the live region."""
    scores = ", ".join(f"{side.name} {side.score}" for side in sides(tv))
    return gettext(
        "Score: %(scores)s, playing to %(target)d", scores=scores, target=tv.rules.target
    )


SCORES = kept()  # by (language, seat, rules, kind, scores)


def score(tv: TableView, said: Words) -> Markup:
    """The match's score, each side's own first (docs/contracts.md, page hooks `data-score`), drawn
    once per
    seat and score (a player's own name, in a side's name, is never kept)."""
    named = any(c.name for c in tv.company)
    key = (said.lang, tv.seat, tv.rules, tv.kind, tv.match.scores)
    found = None if named else recall(SCORES, key)
    if found is None:
        goat = tv.rules.scoring == "goat"
        caption = said.gettext("Penalty points") if goat else said.gettext("Match score")
        shown = [(side.mine, side.name, side.seat_list, side.score) for side in sides(tv)]
        target = said.gettext("to %(num)d", num=tv.rules.target)
        found = markup.score(caption, shown, target)
        if not named:
            remember(SCORES, key, found)
    return found
