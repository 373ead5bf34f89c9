"""The standalone checker tools/check_deal.py (docs/fair-deals.md) against the server's own deals.

The corpus is 1,000 finished rounds: 2, 3 and 4 seats, draw and block games, random and
null client seeds, some of them duplicate rematches (`rotation`), dealt by the room's own
`dealing.deal_events` from its "commit" and "seed" events and written by `domino.record`.
The script must pass every one, and fail every one after each kind of tampering.
tests/browser/test_fair_check.py puts the same records through the browser's check.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from dataclasses import replace
from functools import cache
from pathlib import Path
from random import Random

import pytest

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
from domino.fair import check_record
from domino.record import dumps, to_record
from domino.rules import DEFAULT, PRESETS
from domino.simulate import play_round

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "check_deal.py"
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


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def write(path: Path, lines) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_corpus_is_varied():
    records = [json.loads(line) for line in corpus()]
    assert {len(r["deal"]["hands"]) for r in records} == {2, 3, 4}
    seeds = [s for r in records for s in r["fairness"]["client_seeds"]]
    assert None in seeds and len(set(seeds)) > 1000
    assert sum("rotation" in r["fairness"] for r in records) > 100
    assert all(r["deal"]["boneyard"] for r in records)


def test_every_honest_deal_checks(tmp_path):
    path = write(tmp_path / "deals.jsonl", corpus())
    done = run(str(path))
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    assert lines[:-1] == [f"record {n}: ok" for n in range(1, COUNT + 1)]
    assert lines[-1] == "1000 ok, 0 failed, 0 not checked"
    assert [check_record(json.loads(line)) for line in corpus()] == [[]] * COUNT


@pytest.mark.slow  # the checker script over the corpus, once per change
@pytest.mark.parametrize("name", list(TAMPERINGS))
def test_one_change_fails_every_record(tmp_path, name):
    path = write(tmp_path / f"{name}.jsonl", tampered(name))
    done = run(str(path))
    lines = done.stdout.splitlines()
    assert done.returncode == 1, done.stderr
    assert lines[-1] == "0 ok, 1000 failed, 0 not checked"
    assert all(line.startswith(f"record {n}: FAILED: ") for n, line in enumerate(lines[:-1], 1))
    assert all(check_record(json.loads(line)) for line in tampered(name))


def test_the_reasons_name_what_differs(tmp_path):
    reasons = {}
    for name in TAMPERINGS:
        first = run(stdin=tampered(name)[1] + "\n").stdout.splitlines()[0]
        reasons[name] = first.split("FAILED: ", 1)[1]
    assert "commitment" in reasons["server_byte"]
    assert "commitment" in reasons["commitment"]
    assert "hand of seat" in reasons["hand_tiles"]
    assert "boneyard" in reasons["boneyard_order"]
    python = check_record(json.loads(tampered("hand_tiles")[1]))
    assert python and python[0].startswith("hands: seat")


def test_records_without_fairness_are_not_checked_and_stdin_is_read():
    plain = json.loads(corpus()[0])
    del plain["fairness"]
    done = run(stdin="\n".join([corpus()[1], dumps(plain), corpus()[2]]) + "\n")
    assert done.returncode == 0
    assert done.stdout.splitlines() == [
        "record 1: ok",
        "record 2: not checked (no fairness)",
        "record 3: ok",
        "2 ok, 0 failed, 1 not checked",
    ]


def test_malformed_blocks_fail_with_a_reason():
    record = json.loads(corpus()[3])
    record["fairness"]["client_seeds"][0] = "ABCDEF" * 5 + "AB"  # upper case
    short = json.loads(corpus()[3])
    short["fairness"]["client_seeds"].pop()
    done = run(stdin=dumps(record) + "\n" + dumps(short) + "\n")
    assert done.returncode == 1
    first, second, _summary = done.stdout.splitlines()
    assert "client seed of seat 0" in first
    assert "one seed per seat" in second


def test_usage_errors_exit_2(tmp_path):
    missing = run(str(tmp_path / "nowhere.jsonl"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    broken = write(tmp_path / "broken.jsonl", [corpus()[0], "{not json"])
    done = run(str(broken))
    assert done.returncode == 2 and "line 2: not JSON" in done.stderr


def test_the_script_is_a_second_reading_with_the_standard_library_only():
    tree = ast.parse(SCRIPT.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported
