"""Quick match's pairing (SPEC §12): from the players waiting and the time, the tables to open.

A pure function, as lichess's pools are: `pair(waiting, now, ...)` reads the queues and returns
the tables of one wave; the lobby calls it every few seconds, and at once when someone joins.

- Each public game has its own queue; a table is of one game, with as many seats as it has.
- The player who has waited longest is served first. Around them, the others closest in rating
  fill the table, among those within their *window*: WINDOW points at first, widening by
  WIDEN points a second of waiting (the wider of the two players' windows counts, so a player
  who waited long may sit with a newcomer at some distance).
- Two players of whom one blocks the other never sit at one table.
- A player who has waited FILL seconds (`DOMINO_FILL_SECONDS`) is seated at once: with the
  closest compatible players waiting, and the computer in the seats left (`computer` counts
  them). Nobody therefore waits longer than FILL plus one wave.
- A stake table (SPEC §13) forms as its players join: each joins the oldest forming table of
  their game and stake with a free seat and nobody they block or who blocks them
  (`forming_table`), where their stake is held at once; a wave opens it once every seat is
  taken, people only (never the computer: the lobby expires a table left unfilled, and
  refunds it; so too one where a block was made among its players after they joined). No
  rating window: the stakes are few, and the wait is short.
- At a pairs table the two strongest are not partners: seats 0 and 2 play 1 and 3, and the
  people are placed strongest, second, third, fourth in seats 0, 1, 3, 2 (the two sides' sums
  as close as the order allows).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

WINDOW = 100.0  # rating points a newcomer to the queue is paired across
WIDEN = 10.0  # more points for every second waited
FILL_SECONDS = 30.0
SEATS = {"classic": 2, "match-100": 2, "block": 2, "international": 2, "three": 3, "pairs": 4}
PAIRS_ORDER = (0, 1, 3, 2)  # the seat of the strongest, the second, the third, the fourth


@dataclass(frozen=True, slots=True)
class Waiting:
    """One player in a queue: who, for which game (and stake), their rating, since when."""

    player: str
    game: str
    rating: float
    since: float
    stake: int = 0
    table: str | None = None  # a stake table's id: the forming table the player joined


@dataclass(frozen=True, slots=True)
class Table:
    """A table to open: its game and stake, the people by seat (None: the computer's seat),
    and a stake table's id (`Waiting.table`)."""

    game: str
    seats: tuple[str | None, ...]
    stake: int = 0
    table: str | None = None

    @property
    def people(self) -> tuple[str, ...]:
        return tuple(player for player in self.seats if player is not None)

    @property
    def computer(self) -> int:
        """How many seats the computer fills."""
        return sum(1 for player in self.seats if player is None)


def window(entry: Waiting, now: float, base: float = WINDOW, widen: float = WIDEN) -> float:
    """How far in rating `entry` may be paired now."""
    return base + widen * max(0.0, now - entry.since)


def pair(
    waiting: Iterable[Waiting],
    now: float,
    blocks: Collection[frozenset[str]] = (),
    *,
    fill: float = FILL_SECONDS,
    base: float = WINDOW,
    widen: float = WIDEN,
    seats: Callable[[str], int] = SEATS.__getitem__,
) -> list[Table]:
    """The tables to open now, the longest-waiting player's first.

    `blocks` holds the pairs (as frozensets of two ids) of which one blocks the other. A player
    listed twice is served by their earliest entry only; unknown games raise KeyError.
    """
    queue = sorted(_once(waiting), key=lambda e: (e.since, e.player))
    seated: set[str] = set()
    tables: list[Table] = []
    for first in queue:
        if first.player in seated:
            continue
        size = seats(first.game)
        if first.table is not None:  # a stake table: its own players, once it is full
            group = [e for e in queue if e.table == first.table]
            pairs = {frozenset((a.player, b.player)) for a in group for b in group}
            if len(group) == size and not pairs & set(blocks):  # a block since: it expires
                tables.append(_table(first.game, group, size, first.stake, first.table))
            seated.update(member.player for member in group)
            continue
        group = [first]
        others = [
            e
            for e in queue
            if e.player not in seated
            and e.player != first.player
            and e.game == first.game
            and e.table is None
        ]
        others.sort(key=lambda e: (abs(e.rating - first.rating), e.since, e.player))
        for other in others:
            if len(group) == size:
                break
            if any(frozenset((other.player, member.player)) in blocks for member in group):
                continue
            reach = max(window(other, now, base, widen), window(first, now, base, widen))
            ratings = [member.rating for member in group] + [other.rating]
            if max(ratings) - min(ratings) > reach:
                continue
            group.append(other)
        if len(group) < size and now - first.since < fill:
            continue
        tables.append(_table(first.game, group, size))
        seated.update(member.player for member in group)
    return tables


def _once(waiting: Iterable[Waiting]) -> list[Waiting]:
    """Each player's earliest entry."""
    kept: dict[str, Waiting] = {}
    for entry in waiting:
        held = kept.get(entry.player)
        if held is None or (entry.since, entry.game) < (held.since, held.game):
            kept[entry.player] = entry
    return list(kept.values())


def forming_table(
    player: str,
    forming: Iterable[tuple[str, Collection[str]]],
    size: int,
    blocks: Collection[frozenset[str]] = (),
) -> str | None:
    """The stake table `player` joins: the first of `forming` (table id, its players; the
    oldest first) with a free seat, without the player, and with nobody of whom one blocks
    the other; None: open a new one."""
    for table, members in forming:
        if len(members) >= size or player in members:
            continue
        if any(frozenset((player, other)) in blocks for other in members):
            continue
        return table
    return None


def _table(
    game: str, group: list[Waiting], size: int, stake: int = 0, table: str | None = None
) -> Table:
    """Seat `group` (the computer in the seats left): a pairs table splits its strongest."""
    if size != 4 or len(group) < 4:
        people = [member.player for member in group]
        return Table(game, tuple(people) + (None,) * (size - len(people)), stake, table)
    ranked = sorted(group, key=lambda e: (-e.rating, e.player))
    chairs: list[str | None] = [None] * 4
    for seat, member in zip(PAIRS_ORDER, ranked, strict=True):
        chairs[seat] = member.player
    return Table(game, tuple(chairs), stake, table)
