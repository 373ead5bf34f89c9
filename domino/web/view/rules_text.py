"""A room's rules in words, in the page's language: one short line, every setting as a sentence,
and the names the rules card gives to presets, settings and their choices."""

from __future__ import annotations

import functools

from flask_babel import get_locale, gettext, ngettext

from ...rules import Rules
from .messages import N_

SEPARATOR = " · "

# The presets the card offers (docs/rules.md, presets), by name, in the card's order.
PRESET_NAMES = {
    "classic": N_("Classic"),
    "match-100": N_("Match to 100"),
    "block": N_("Block"),
    "goat": N_("Goat"),
    "international": N_("International"),
    "pairs": N_("Pairs"),
    "three": N_("Three players"),
}

# What the card calls each setting: its legend or label, and the setting a refusal names.
SETTINGS = {
    "preset": N_("Presets"),
    "seats": N_("Players"),
    "boneyard": N_("Draw or block"),
    "hand_size": N_("Tiles per hand"),
    "opener": N_("Who opens"),
    "lead": N_("The first tile"),
    "next_opener": N_("The next round"),
    "blocked": N_("A blocked round"),
    "scoring": N_("Scoring"),
    "target": N_("Play to"),
    "level": N_("The computer's level"),
}

# The card's choices for each setting, in the order shown, as (form value, words).
CHOICES = {
    "seats": (
        ("2", N_("Two players")),
        ("3", N_("Three players, each for themselves")),
        ("4", N_("Four players in two pairs, partners sitting opposite")),
    ),
    "boneyard": (
        ("draw", N_("Draw game: a player who cannot play draws from the boneyard")),
        ("block", N_("Block game: nobody draws; a player who cannot play passes")),
    ),
    "opener": (
        ("highest-double", N_("The highest double (without doubles, the heaviest tile)")),
        ("lowest-double", N_("The lowest double, not the double blank (else the lightest tile)")),
        ("heaviest-tile", N_("The heaviest tile (a double before a tile of the same weight)")),
    ),
    "lead": (
        ("opening-tile", N_("The opener lays the tile that made them the opener")),
        ("any", N_("The opener lays any tile")),
    ),
    "next_opener": (
        ("rule", N_("Opened by the same rule every round")),
        ("previous-winner", N_("In a match, the winner of the last round opens")),
    ),
    "blocked": (
        ("difference", N_("The lightest hand scores the difference")),
        ("others", N_("The lightest hand scores the pips of the other hands")),
        ("all", N_("The lightest hand scores all pips left, its own included")),
    ),
    "scoring": (
        ("winner", N_("The winner scores")),
        ("goat", N_("Goat: the others take their own pips as penalty points")),
    ),
    "level": (("easy", N_("easy")), ("medium", N_("medium")), ("hard", N_("hard"))),
}


def preset_name(name: str) -> str:
    """A preset's name on the card."""
    return gettext(PRESET_NAMES[name])


def setting_name(field: str) -> str:
    """What the card calls a setting."""
    return gettext(SETTINGS[field])


def choices(field: str) -> list[tuple[str, str]]:
    """The card's choices for a setting, as (form value, words)."""
    return [(value, gettext(words)) for value, words in CHOICES[field]]


def points(num: int) -> str:
    """A number of points: "100 points"."""
    return ngettext("%(num)d point", "%(num)d points", num)


def rules_line(rules: Rules) -> str:
    """The rules in one short line, e.g. "Block game · 7 tiles · to 100"."""
    return _line(rules, str(get_locale()))


def rules_sentences(rules: Rules) -> list[str]:
    """Every setting of the rules in plain words, one sentence each."""
    return list(_sentences(rules, str(get_locale())))


# Every table shows its line: the words are kept per rules and language (the catalogs never
# change while the app runs), which makes a render ~30 µs cheaper.
@functools.lru_cache(maxsize=512)
def _line(rules: Rules, _language: str) -> str:
    parts = []
    if rules.teams:
        parts.append(gettext("Two pairs"))
    elif rules.seats != 2:
        parts.append(ngettext("%(num)d player", "%(num)d players", rules.seats))
    parts.append(gettext("Draw game") if rules.boneyard else gettext("Block game"))
    parts.append(ngettext("%(num)d tile", "%(num)d tiles", rules.hand_size))
    if rules.scoring == "goat":
        parts.append(gettext("Goat scoring"))
    if rules.target is None:
        parts.append(gettext("single rounds"))
    else:
        parts.append(gettext("to %(num)d", num=rules.target))
    return SEPARATOR.join(parts)


@functools.lru_cache(maxsize=512)
def _sentences(rules: Rules, _language: str) -> tuple[str, ...]:
    size = rules.hand_size
    return (
        _players(rules),
        ngettext("Each player is dealt %(num)d tile.", "Each player is dealt %(num)d tiles.", size),
        _boneyard(rules),
        _opener(rules),
        _lead(rules),
        _next_opener(rules),
        *_scoring(rules),
        _target(rules),
    )


def _players(rules: Rules) -> str:
    if rules.teams:
        return gettext(
            "Four players in two pairs: partners sit opposite each other "
            "and their hands count together."
        )
    return ngettext(
        "%(num)d player, each for themselves.", "%(num)d players, each for themselves.", rules.seats
    )


def _boneyard(rules: Rules) -> str:
    rest = rules.boneyard_size
    if rules.boneyard:
        return ngettext(
            "Draw game: the other %(num)d tile stays face down in the boneyard, "
            "and a player who cannot play draws from it.",
            "Draw game: the other %(num)d tiles stay face down in the boneyard, "
            "and a player who cannot play draws from them.",
            rest,
        )
    if rest == 0:
        return gettext("Block game: every tile is dealt, and a player who cannot play passes.")
    return ngettext(
        "Block game: the other %(num)d tile sleeps face down and nobody draws; "
        "a player who cannot play passes.",
        "Block game: the other %(num)d tiles sleep face down and nobody draws; "
        "a player who cannot play passes.",
        rest,
    )


def _opener(rules: Rules) -> str:
    if rules.opener == "lowest-double":
        return gettext(
            "The lowest double opens the round, the double blank not counting; "
            "if nobody holds one, the lightest tile does."
        )
    if rules.opener == "heaviest-tile":
        return gettext(
            "The heaviest tile opens the round; "
            "a double goes before another tile of the same weight."
        )
    return gettext(
        "The highest double opens the round; if nobody holds a double, the heaviest tile does."
    )


def _lead(rules: Rules) -> str:
    if rules.lead == "any":
        return gettext("The opener may start with any tile of their hand.")
    return gettext("The opener must start with that very tile.")


def _next_opener(rules: Rules) -> str:
    if rules.next_opener == "previous-winner":
        return gettext(
            "In a match, from the second round on, the winner of the last round opens "
            "with any tile; after a drawn round the rule above decides."
        )
    return gettext("Every round is opened by the same rule.")


def _scoring(rules: Rules) -> list[str]:
    tie = gettext("If two hands tie for lightest, nobody scores.")
    if rules.scoring == "goat":
        return [
            gettext(
                "Goat scoring: whoever wins a round scores nothing, and every other player "
                "writes the pips left in their own hand as penalty points."
            ),
            gettext("When nobody can play, the lightest hand wins the round.") + " " + tie,
        ]
    if rules.blocked == "others":
        blocked = gettext(
            "When nobody can play, the lightest hand wins and scores the pips "
            "left in the other hands."
        )
    elif rules.blocked == "all":
        blocked = gettext(
            "When nobody can play, the lightest hand wins and scores all the pips left, "
            "its own included."
        )
    else:
        blocked = gettext(
            "When nobody can play, the lightest hand wins and scores "
            "by how much the other hands are heavier."
        )
    return [
        gettext(
            "A player who lays their last tile wins the round "
            "and scores the pips left in the other hands."
        ),
        blocked + " " + tie,
    ]


def _target(rules: Rules) -> str:
    if rules.target is None:
        return gettext("Every round stands on its own: there is no running score.")
    if rules.scoring == "goat":
        return ngettext(
            "A match to %(num)d penalty point: it ends with the round in which "
            "someone reaches it, and the fewest penalty points win.",
            "A match to %(num)d penalty points: it ends with the round in which "
            "someone reaches them, and the fewest penalty points win.",
            rules.target,
        )
    return ngettext(
        "A match to %(num)d point: it ends with the round in which someone reaches it, "
        "and the highest score wins.",
        "A match to %(num)d points: it ends with the round in which someone reaches them, "
        "and the highest score wins.",
        rules.target,
    )


def register(app) -> None:
    """Make `rules_line` and `rules_sentences` available to every template."""
    app.add_template_global(rules_line)
    app.add_template_global(rules_sentences)
