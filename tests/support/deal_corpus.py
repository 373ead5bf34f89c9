"""The fair-deal corpus (docs/fair-deals.md): 1,000 finished rounds of 2, 3 and 4 seats, draw
and block games, random and null client seeds, some of them duplicate rematches (`rotation`),
dealt by the room's own `dealing.deal_events` from its "commit" and "seed" events and written by
`domino.record`; and the tamperings each record must fail after. The standalone checker
tools/check_deal.py (tests/core/test_check_deal.py) and the browser's static/fair.js
(tests/browser/test_fair_check.py) check the same records.
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache
from random import Random

from domino import bots
from domino.dealing import (
    NOT_YET,
    REMATCH_ROTATION,
    commit_event,
    deal_events,
    on_commit,
    on_deal,
    on_rematch,
    on_seed,
    rematch_deal,
    seed_event,
)
from domino.record import dumps, to_record
from domino.rules import DEFAULT, PRESETS
from domino.simulate import play_round

COUNT = 1000
RULES = [  # every one leaves some tiles undealt, so that the boneyard's order is checked
    DEFAULT,
    PRESETS["block"],
    PRESETS["three"],
    replace(PRESETS["pairs"], hand_size=6),
    replace(DEFAULT, hand_size=9),
]


def build(number: int) -> dict:
    """Round record `number` of the corpus, dealt as a room deals (`dealing.deal_events`)."""
    rng = Random(f"check-deal:{number}")
    rules = RULES[number % len(RULES)]
    state = on_commit(NOT_YET, commit_event(rng)[1], rules.seats)
    humans = set()
    for seat in range(rules.seats):
        if rng.random() < 0.75:  # a person's seat; the computer's sends no seed
            humans.add(seat)
            if rng.random() < 0.8:  # a person whose browser sent none counts as null too
                state = on_seed(state, seed_event(seat, rng.randbytes(16).hex())[1])
    state = replace(state, deals=rng.randrange(500))  # the room's earlier deals
    [data] = [data for kind, data in deal_events(state, rules, humans, rng) if kind == "deal"]
    _fair, started = on_deal(state, data, rules, humans)
    block = data["fairness"]
    if number % 7 == 0:  # a duplicate rematch of that deal: the same block, with its rotation
        first = play(started, rules, number)
        started = on_rematch(first, rematch_deal(first)[1])
        block = {**block, "rotation": REMATCH_ROTATION}
    record = to_record(play(started, rules, number), [f"seat {s}" for s in range(rules.seats)])
    record["fairness"] = block
    return record


def play(started, rules, number: int):
    """The round of this deal, played to the end by random bots."""
    rngs = [Random(f"{number}:{seat}") for seat in range(rules.seats)]
    return play_round(started, [bots.get("random")] * rules.seats, rngs, rules)


@cache
def corpus() -> tuple[str, ...]:
    """The 1,000 records, each one line of JSON."""
    return tuple(dumps(build(number)) for number in range(COUNT))


def _flip(text: str, at: int) -> str:
    """`text` with the hex digit at `at` changed."""
    return text[:at] + ("0" if text[at] != "0" else "1") + text[at + 1 :]


def _seat(record: dict) -> int:
    """A seat picked by the record's own server seed: every seat gets its turn."""
    return int(record["fairness"]["server_seed"][:8], 16) % len(record["deal"]["hands"])


def server_byte(record: dict) -> None:
    record["fairness"]["server_seed"] = _flip(record["fairness"]["server_seed"], 10)


def client_seed(record: dict) -> None:
    seeds = record["fairness"]["client_seeds"]
    given = [seat for seat, seed in enumerate(seeds) if seed] or [0]
    seat = given[0]
    seeds[seat] = _flip(seeds[seat], 31) if seeds[seat] else "5" * 32


def null_or_seed(record: dict) -> None:
    seeds = record["fairness"]["client_seeds"]
    seat = _seat(record)
    seeds[seat] = None if seeds[seat] else "0123456789abcdef" * 2


def round_number(record: dict) -> None:
    record["fairness"]["round"] += 1


def hand_tiles(record: dict) -> None:
    hands = record["deal"]["hands"]
    one = _seat(record)
    other = (one + 1) % len(hands)
    hands[one][2], hands[other][4] = hands[other][4], hands[one][2]


def boneyard_order(record: dict) -> None:
    boneyard = record["deal"]["boneyard"]
    boneyard[0], boneyard[-1] = boneyard[-1], boneyard[0]


def commitment(record: dict) -> None:
    record["fairness"]["commitment"] = _flip(record["fairness"]["commitment"], 63)


TAMPERINGS = {
    f.__name__: f
    for f in (
        server_byte,
        client_seed,
        null_or_seed,
        round_number,
        hand_tiles,
        boneyard_order,
        commitment,
    )
}


def tampered(name: str) -> list[str]:
    """The corpus with the change `name` made to every record."""
    changed = []
    for line in corpus():
        record = json.loads(line)
        TAMPERINGS[name](record)
        changed.append(dumps(record))
    return changed
