"""Quick match's pairing (SPEC §12, issue 31): domino/players/pairing.py, a pure function from
the queues and the time to the tables of one wave.

Examples read like the queue: "ana classic 1500 @0" is Ana, waiting for `classic` with a
rating of 1500 since second 0; at a stake table, "stake=100@t1": 100 coins at forming table t1.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from domino.players.pairing import (
    FILL_SECONDS,
    SEATS,
    WINDOW,
    Table,
    Waiting,
    forming_table,
    pair,
    window,
)


def queue(*lines: str) -> list[Waiting]:
    found = []
    for line in lines:
        player, game, rating, since, *rest = line.split()
        stake, _, table = (rest[0].removeprefix("stake=") if rest else "0").partition("@")
        found.append(
            Waiting(
                player, game, float(rating), float(since.lstrip("@")), int(stake), table or None
            )
        )
    return found


def blocked(*pairs: str) -> set[frozenset[str]]:
    return {frozenset(pair.split("-")) for pair in pairs}


def test_two_close_players_sit_together_at_once():
    assert pair(queue("ana classic 1500 @0", "bea classic 1520 @1"), now=1) == [
        Table("classic", ("ana", "bea"))
    ]


def test_one_alone_waits_then_is_seated_against_the_computer():
    alone = queue("ana classic 1500 @0")
    assert pair(alone, now=FILL_SECONDS - 1) == []
    (table,) = pair(alone, now=FILL_SECONDS)
    assert table.seats == ("ana", None) and table.computer == 1


def test_the_closest_in_rating_come_first():
    tables = pair(queue("ana classic 1500 @0", "bea classic 1590 @1", "cyd classic 1510 @2"), now=2)
    assert tables == [Table("classic", ("ana", "cyd"))]


def test_players_far_apart_wait_until_the_window_has_widened():
    far = queue("ana classic 1500 @0", "bea classic 1700 @0")
    assert pair(far, now=5) == []  # 200 points apart, a window of 150
    assert pair(far, now=10) == [Table("classic", ("ana", "bea"))]  # 200 = 100 + 10 s × 10


def test_two_who_block_each_other_never_sit_together():
    waiting = queue("ana classic 1500 @0", "bea classic 1500 @0", "cyd classic 1900 @5")
    assert pair(waiting, now=5, blocks=blocked("bea-ana")) == []
    # By the fill time Ana's window has widened to 400 points: Cyd; Bea plays the computer.
    assert pair(waiting, now=FILL_SECONDS, blocks=blocked("bea-ana")) == [
        Table("classic", ("ana", "cyd")),
        Table("classic", ("bea", None)),
    ]


def test_each_game_has_its_own_queue():
    waiting = queue("ana classic 1500 @0", "bea block 1500 @0")
    assert pair(waiting, now=1) == []


def test_a_pairs_table_does_not_make_partners_of_its_two_strongest():
    waiting = queue(
        "ana pairs 1800 @0", "bea pairs 1700 @0", "cyd pairs 1600 @0", "dan pairs 1650 @0"
    )
    (table,) = pair(waiting, now=20)
    assert table.seats == ("ana", "bea", "cyd", "dan")  # ana+cyd play bea+dan
    assert {table.seats[0], table.seats[2]} == {"ana", "cyd"}


def test_a_stake_table_opens_full_of_its_own_players_only():
    waiting = queue("ana match-100 1500 @0 stake=100@t1", "bea match-100 1500 @0 stake=250@t2")
    assert pair(waiting, now=FILL_SECONDS * 10) == []  # never the computer at a stake table
    waiting += queue("cyd match-100 1900 @3 stake=100@t1", "dan classic 1500 @0")
    assert pair(waiting, now=5) == [Table("match-100", ("ana", "cyd"), 100, "t1")]  # no window


def test_a_stake_table_never_takes_a_player_without_one():
    waiting = queue("ana match-100 1500 @0 stake=100@t1", "bea match-100 1500 @0")
    (table,) = pair(waiting, now=FILL_SECONDS)
    assert table == Table("match-100", ("bea", None))


def test_a_stake_table_with_a_block_made_after_joining_is_not_opened():
    waiting = queue("ana match-100 1500 @0 stake=100@t1", "bea match-100 1500 @0 stake=100@t1")
    assert pair(waiting, now=1, blocks=blocked("bea-ana")) == []  # it expires, refunded


def test_a_full_stake_table_of_pairs_splits_its_strongest():
    ratings = {"a": 1800, "b": 1700, "c": 1600, "d": 1650}
    waiting = queue(*(f"{p} pairs {r} @0 stake=500@t9" for p, r in ratings.items()))
    assert pair(waiting, now=1) == [Table("pairs", ("a", "b", "c", "d"), 500, "t9")]


def test_a_stake_player_joins_the_oldest_forming_table_with_a_seat_and_no_block():
    forming = [("t1", ["ana", "bea"]), ("t2", ["cyd"]), ("t3", ["dan"])]
    assert forming_table("eve", forming, size=2) == "t2"
    assert forming_table("eve", forming, size=2, blocks=blocked("eve-cyd")) == "t3"
    assert forming_table("eve", forming, size=2, blocks=blocked("cyd-eve", "dan-eve")) is None
    assert forming_table("cyd", forming, size=4) == "t1"


def test_a_player_listed_twice_is_seated_once():
    waiting = queue("ana classic 1500 @0", "ana classic 1500 @1", "bea classic 1500 @2")
    assert pair(waiting, now=2) == [Table("classic", ("ana", "bea"))]


# --- properties ---------------------------------------------------------------------------

GAMES = sorted(SEATS)
NAMES = [f"p{n}" for n in range(16)]  # few names: blocks often fall within a queue


@st.composite
def pools(draw):
    players = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=16))
    waiting = []
    for player in players:
        game = draw(st.sampled_from(GAMES))
        table = draw(st.sampled_from((None, None, None, "t1", "t2")))  # a forming stake table
        waiting.append(
            Waiting(
                player,
                game,
                draw(st.floats(800, 2400, allow_nan=False)),
                draw(st.floats(0, 90, allow_nan=False)),
                100 if table else 0,
                table and f"{game}/{table}",
            )
        )
    pairs = draw(st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES)), max_size=30))
    blocks = {frozenset(p) for p in pairs if p[0] != p[1]}
    now = draw(st.floats(90, 200, allow_nan=False))
    return waiting, blocks, now


@settings(max_examples=300, deadline=None)
@given(pools())
def test_every_table_is_full_of_its_game_and_nobody_sits_twice_or_beside_a_block(pool):
    waiting, blocks, now = pool
    entries = {entry.player: entry for entry in waiting}
    tables = pair(waiting, now, blocks)
    seated = [player for table in tables for player in table.people]
    assert len(seated) == len(set(seated)), "somebody is seated twice"
    for table in tables:
        assert len(table.seats) == SEATS[table.game]
        assert table.people, "a table of the computer alone"
        for player in table.people:
            assert entries[player].game == table.game and entries[player].stake == table.stake
            assert entries[player].table == table.table
        if table.stake:
            assert table.computer == 0, "the computer at a stake table"
        for a in table.people:
            for b in table.people:
                assert a == b or frozenset((a, b)) not in blocks, (a, b)


@settings(max_examples=300, deadline=None)
@given(pools())
def test_whoever_waited_the_fill_time_is_seated_in_this_wave(pool):
    """Nobody waits past the fill time plus a wave (stake tables aside: they expire)."""
    waiting, blocks, now = pool
    seated = {player for table in pair(waiting, now, blocks) for player in table.people}
    for entry in waiting:
        if entry.stake == 0 and now - entry.since >= FILL_SECONDS:
            assert entry.player in seated, entry


@settings(max_examples=300, deadline=None)
@given(pools())
def test_a_tables_rating_spread_is_within_its_longest_waiters_window(pool):
    waiting, blocks, now = pool
    entries = {entry.player: entry for entry in waiting}
    for table in pair(waiting, now, blocks):
        if table.table is not None:
            continue  # a stake table: no window (its players joined it in turn)
        members = [entries[player] for player in table.people]
        ratings = [member.rating for member in members]
        widest = max(window(member, now) for member in members)
        assert max(ratings) - min(ratings) <= widest + 1e-9


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(1400, 1600, allow_nan=False), min_size=60, max_size=120))
def test_in_a_large_pool_of_newcomers_tables_are_close_in_rating(ratings):
    """Many players who just arrived: every table spans at most the first window."""
    waiting = [Waiting(f"p{n}", "classic", r, 100.0) for n, r in enumerate(ratings)]
    tables = pair(waiting, now=100.0)
    assert len(tables) >= len(ratings) // 2 - 1  # 200 points of ratings, a 100-point window
    for table in tables:
        spread = [next(w.rating for w in waiting if w.player == p) for p in table.people]
        assert max(spread) - min(spread) <= WINDOW


@settings(max_examples=200, deadline=None)
@given(pools())
def test_the_pairing_depends_on_the_queue_not_its_order(pool):
    waiting, blocks, now = pool
    assert pair(waiting, now, blocks) == pair(list(reversed(waiting)), now, blocks)
