"""The rules part of the independent record checker: the rules object (docs/contracts.md, the rules
object), who
opens, and what a finished round gives each seat (docs/rules.md; docs/contracts.md, the rules
object).

Part of ``checker.py``'s clean-room implementation: standard library only, nothing from the
``domino`` package.
"""

from __future__ import annotations

DEFAULT_RULES = {
    "seats": 2,
    "teams": False,
    "hand_size": 7,
    "boneyard": True,
    "opener": "highest-double",
    "lead": "opening-tile",
    "next_opener": "rule",
    "blocked": "difference",
    "scoring": "winner",
    "target": None,
}
CHOICES = {
    "opener": ("highest-double", "lowest-double", "heaviest-tile"),
    "lead": ("opening-tile", "any"),
    "next_opener": ("rule", "previous-winner"),
    "blocked": ("difference", "others", "all"),
    "scoring": ("winner", "goat"),
}


class Game:
    """The rules a record is played under, with what follows from them."""

    def __init__(self, rules: dict | None) -> None:
        self.written = rules is not None
        self.rules = {**DEFAULT_RULES, "max_pip": 6, **(rules or {})}
        self.seats = self.rules["seats"]
        self.max_pip = self.rules["max_pip"]
        self.tiles = frozenset(
            f"{a}-{b}" for a in range(self.max_pip + 1) for b in range(a, self.max_pip + 1)
        )
        # partners sit opposite (0 and 2 against 1 and 3); otherwise every seat is a side
        self.side_of = [seat % 2 if self.rules["teams"] else seat for seat in range(self.seats)]
        count = max(self.side_of) + 1
        self.sides = [[s for s in range(self.seats) if self.side_of[s] == i] for i in range(count)]

    def __getitem__(self, name: str):
        return self.rules[name]


def is_int(value: object) -> bool:
    """True for a JSON integer (booleans are not numbers)."""
    return type(value) is int


def rules_problems(rules: object) -> list[str]:
    """Say why ``rules`` is not a playable rules object (docs/contracts.md) written in full."""
    if not isinstance(rules, dict):
        return [f"rules: expected an object, got {rules!r}"]
    problems = [
        f"rules: unknown field {name!r}"
        for name in sorted(rules)
        if name not in {*DEFAULT_RULES, "max_pip"}
    ]
    problems += [f"rules: missing field {name!r}" for name in DEFAULT_RULES if name not in rules]
    if problems:
        return problems
    kinds = {"teams": bool, "boneyard": bool, "seats": int, "hand_size": int, "max_pip": int}
    for name, value in rules.items():
        kind = kinds.get(name, str)
        if name == "target":
            ok = value is None or (is_int(value) and value > 0)
        else:
            ok = type(value) is kind and (kind is not str or value in CHOICES[name])
        if not ok:
            problems.append(f"rules: {name} cannot be {value!r}")
    return problems or combination_problems({"max_pip": 6, **rules})


def combination_problems(rules: dict) -> list[str]:
    """Say why well-typed rules cannot be played together (docs/contracts.md, the rules object)."""
    seats, size, top = rules["seats"], rules["hand_size"], rules["max_pip"]
    if seats not in (2, 3, 4) or not 1 <= top <= 12:
        return [f"rules: {seats} seats with tiles up to {top} is not a game"]
    problems = []
    if rules["teams"] != (seats == 4):
        problems.append("rules: teams must be true exactly when there are four seats")
    set_size = (top + 1) * (top + 2) // 2
    if size < 2:
        problems.append(f"rules: a hand holds at least 2 tiles, not {size}")
    elif seats * size > set_size:
        problems.append(f"rules: {seats} hands of {size} do not fit in {set_size} tiles")
    elif rules["boneyard"] and seats * size == set_size:
        problems.append("rules: a draw game needs a tile left to draw")
    return problems


def halves(tile: str) -> tuple[int, int]:
    """Return the two halves of a well-formed tile string ``"a-b"``."""
    low, high = tile.split("-")
    return int(low), int(high)


def pip_total(hand: list[str]) -> int:
    """The sum of the pips of the tiles in ``hand``."""
    return sum(sum(halves(tile)) for tile in hand)


def opening(hands: list[list[str]], opener: str = "highest-double") -> tuple[int, str]:
    """Return (seat, tile) of the tile that makes its holder the opener (docs/rules.md;
    docs/contracts.md, the rules object)."""
    held = [(tile, seat) for seat, hand in enumerate(hands) for tile in hand]

    def low(pair):
        return halves(pair[0])[0]

    def high(pair):
        return halves(pair[0])[1]

    def pips(pair):
        return low(pair) + high(pair)

    def double(pair):
        return low(pair) == high(pair)

    if opener == "highest-double" and any(map(double, held)):
        tile, seat = max(filter(double, held), key=high)
    elif opener == "highest-double":
        tile, seat = max(held, key=lambda pair: (pips(pair), high(pair)))
    elif opener == "lowest-double" and [pair for pair in held if double(pair) and high(pair)]:
        tile, seat = min((pair for pair in held if double(pair) and high(pair)), key=high)
    elif opener == "lowest-double":  # no double but perhaps the double blank: lowest of all
        tile, seat = min(held, key=lambda pair: (pips(pair), low(pair)))
    else:  # heaviest-tile: a double beats a single of the same sum
        tile, seat = max(held, key=lambda pair: (pips(pair), double(pair), high(pair)))
    return seat, tile


def side_weights(game: Game, hands: list[list[str]]) -> list[int]:
    """The pips left in each side's hands together."""
    return [sum(pip_total(hands[seat]) for seat in side) for side in game.sides]


def round_result(game: Game, hands: list[list[str]], out: int | None) -> tuple[dict, set[int]]:
    """The result of a round that ended with ``hands`` (``out`` went out, or None: blocked),
    as a record writes it, and every seat that may be named ``winner``."""
    weights = side_weights(game, hands)
    if out is not None:
        side, winners_ok, reason = game.side_of[out], {out}, "domino"
        points = sum(w for i, w in enumerate(weights) if i != side)
    else:
        reason, light = "blocked", min(weights)
        if weights.count(light) > 1:  # a tie for lightest: a draw, nobody writes
            empty = {"winner": None, "reason": reason, "points": 0}
            return {**empty, "winners": [], "scores": [0] * game.seats}, {None}
        side = weights.index(light)
        lowest = min(pip_total(hands[seat]) for seat in game.sides[side])
        winners_ok = {seat for seat in game.sides[side] if pip_total(hands[seat]) == lowest}
        others = [w for i, w in enumerate(weights) if i != side]
        points = {
            "difference": sum(w - light for w in others),
            "others": sum(others),
            "all": sum(others) + light,
        }[game["blocked"]]
    winners = game.sides[side]
    if game["scoring"] == "goat":  # the others write their own pips as penalty points
        points = 0
        scores = [
            0 if seat in winners else weights[game.side_of[seat]] for seat in range(game.seats)
        ]
    else:
        scores = [points if seat in winners else 0 for seat in range(game.seats)]
    result = {"winner": min(winners_ok), "reason": reason, "points": points}
    return {**result, "winners": list(winners), "scores": scores}, winners_ok
