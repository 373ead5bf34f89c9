"""Fair deals (docs/fair-deals.md): the shuffle, checked against vectors worked out from the SPEC's
text alone (two readings of it, written apart, agree on them), and its properties."""

from __future__ import annotations

from random import Random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domino.fair import (
    block,
    check_record,
    commitment,
    fair_deal,
    is_client_seed,
    new_server_seed,
    shuffle,
    uniform,
)
from domino.record import deal_to_dict
from domino.rules import DEFAULT, PRESETS
from domino.tiles import full_set, tiles

S = bytes(range(32)).hex()  # 00 01 02 … 1f
A = "0123456789abcdef0123456789abcdef"

VECTORS = [  # (rules, server seed, round, client seeds, hands, boneyard)
    (
        DEFAULT,
        S,
        1,
        ["00112233445566778899aabbccddeeff", None],
        ["0-6 1-3 3-5 4-5 2-4 1-2 1-1", "6-6 4-6 1-6 3-3 0-2 0-1 3-6"],
        "2-2 0-0 5-6 1-5 2-5 0-3 3-4 2-6 4-4 5-5 2-3 0-4 0-5 1-4",
    ),
    (
        DEFAULT,
        "ff" * 32,
        2,
        [A, "fedcba9876543210fedcba9876543210"],
        ["0-4 1-6 2-3 2-4 3-3 1-3 2-2", "0-3 3-4 1-5 0-6 2-6 5-5 0-5"],
        "4-4 0-1 1-4 5-6 6-6 4-5 3-6 3-5 2-5 1-2 1-1 0-0 4-6 0-2",
    ),
    (
        PRESETS["pairs"],
        S,
        3,
        [None, A, None, "0" * 32],
        [
            "0-3 2-3 1-5 3-6 4-4 4-6 2-2",
            "1-2 3-4 0-6 3-3 0-5 0-0 3-5",
            "0-2 0-4 0-1 1-6 5-5 1-1 5-6",
            "2-6 2-5 2-4 1-3 1-4 6-6 4-5",
        ],
        "",
    ),
]


@pytest.mark.parametrize(("rules", "seed", "number", "seeds", "hands", "boneyard"), VECTORS)
def test_the_deal_of_known_seeds(rules, seed, number, seeds, hands, boneyard):
    deal = fair_deal(rules, seed, number, seeds)
    assert deal.hands == tuple(tiles(hand) for hand in hands)
    assert deal.boneyard == tiles(boneyard)


def test_the_commitment_is_the_sha256_of_the_raw_seed():
    assert commitment(S) == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    assert commitment("ff" * 32) == (
        "af9613760f72635fbdb44a5a0a63c39f12af30f950a6ee5c971be188e89c4051"
    )


def test_a_uniform_draw_discards_the_biased_top():
    assert uniform(iter([0xFFFFFFFF, 5]), 3) == 2  # 2^32 - 1 >= 2^32 - (2^32 mod 3): discarded
    assert uniform(iter([0xFFFFFFFC, 0xFFFFFFFB]), 28) == 27  # the limit for 28 is 4294967292
    assert uniform(iter([29]), 28) == 1


@pytest.mark.parametrize(
    ("seed", "seeds"),
    [
        ("00" * 31, [None, None]),  # too short
        ("AB" * 32, [None, None]),  # upper case: the message would differ from the record's
        (S, [A.upper(), None]),
        (S, ["12", None]),
        (S, [None]),  # one seed per seat
    ],
)
def test_malformed_seeds_are_refused(seed, seeds):
    with pytest.raises(ValueError):
        fair_deal(DEFAULT, seed, 1, seeds)


def test_the_round_number_counts_from_one():
    with pytest.raises(ValueError):
        fair_deal(DEFAULT, S, 0, [None, None])


hexes = st.binary(min_size=16, max_size=16).map(bytes.hex)


@given(st.binary(min_size=32, max_size=32), st.integers(1, 10_000), hexes, hexes)
def test_every_deal_is_the_whole_set_once_and_every_seed_counts(server, number, one, other):
    seed = server.hex()
    shuffled = shuffle(seed, number, [one, None])
    assert sorted(shuffled) == sorted(full_set(6))
    assert shuffle(seed, number, [one, None]) == shuffled  # the same seeds, the same deal
    if one != other:  # 28! orders: a collision would be a broken hash, not luck
        assert shuffle(seed, number, [other, None]) != shuffled
    assert shuffle(seed, number + 1, [one, None]) != shuffled


def test_a_server_seed_is_32_bytes_from_the_rng_and_repeats_with_it():
    seed = new_server_seed(Random(5))
    assert len(seed) == 64 and seed == seed.lower() and seed == new_server_seed(Random(5))
    assert seed != new_server_seed(Random(6))


def test_a_client_seed_is_32_lowercase_hex_digits():
    assert is_client_seed(A)
    assert not any(is_client_seed(s) for s in (A.upper(), A[:-1], A + "0", None, 12, "g" * 32))


def vector_record(rotation: int = 0) -> dict:
    """The first vector as the fairness block and deal of a record; with `rotation` r, seat
    s holds the shuffle's hand (s + r) mod seats."""
    rules, seed, number, seeds, _hands, _boneyard = VECTORS[2]
    deal = deal_to_dict(fair_deal(rules, seed, number, seeds))
    deal["hands"] = deal["hands"][rotation:] + deal["hands"][:rotation]
    return {"deal": deal, "fairness": block(seed, number, seeds, rotation)}


def test_the_block_vouches_for_the_deal_and_check_record_agrees():
    written = vector_record()["fairness"]
    assert written == {
        "commitment": commitment(S),
        "server_seed": S,
        "client_seeds": [None, A, None, "0" * 32],
        "round": 3,
    }
    assert check_record(vector_record()) == []
    assert check_record(vector_record(rotation=3)) == []
    assert vector_record(rotation=3)["fairness"]["rotation"] == 3


def test_a_rotation_must_be_said():
    record = vector_record(rotation=1)
    del record["fairness"]["rotation"]
    assert check_record(record)[0].startswith("hands: seat 0: tile 1 is '1-2'")


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda r: r["fairness"].update(round=4), "hands: seat 0"),
        (lambda r: r["fairness"].update(commitment="0" * 64), "commitment: it is not"),
        (lambda r: r["fairness"]["client_seeds"].pop(), "client_seeds: one per seat, 4"),
        (lambda r: r["fairness"].update(rotation=4), "rotation: a whole number in 0..3"),
        (lambda r: r["fairness"].update(round=True), "round: a whole number from 1"),
        (lambda r: r["deal"]["hands"][3].pop(), "deal: hands of one size"),
        (lambda r: r.pop("fairness"), "the record has no 'fairness' block"),
    ],
)
def test_check_record_says_what_is_wrong(change, problem):
    record = vector_record()
    change(record)
    found = check_record(record)
    assert found and found[0].startswith(problem), found


def test_a_block_refuses_what_no_deal_has():
    for args in ((S, 0, [None, None]), (S, 1, [None, None], 2), (S, 1, ["x", None])):
        with pytest.raises(ValueError):
            block(*args)
