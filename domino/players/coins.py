"""Coins' rules (SPEC §13), without the disk: grants, rewards by place, pot splits and refunds.
The ledger that moves the coins is `domino.lobby.ledger`; this says how many, to whom.

- **Grants.** A new player gets GRANT; a player below TOP_UP at the first visit of a UTC day
  is topped up to it (`top_up`).
- **Rewards** (`rewards`, per seat of a finished match's result): against the computer alone
  nothing (a computer room, or any table with fewer than two players); a friend room pays
  the winning side's players half the first-place reward (a draw, where every side is first,
  pays nothing); a public match pays every place from high to low: two seats 40 / 10, three
  seats 60 / 30 / 10, pairs 50 to each winner and 15 to each loser. Sides tied at a place
  share the mean of the places they cover, rounded to the nearest coin, a half up (pairs'
  draw: 33 each). Nobody but a player is paid: no computer seat, no guest, and no abandoned
  seat (its side is placed last, as the ratings place it, and its partner is paid as that
  side).
- **Stake tables** (`settle`) pay no reward (`rewards` gives 0 to each seat): the whole pot
  goes to the winning side's people who did not abandon, split equally (`pot_split`: no
  commission, the odd coins to the earlier seats, named in the split); each share is
  written as two parts, `forfeit` for what came from abandoned seats' stakes and `pot` for
  the rest. A draw with nobody gone returns every
  stake (`refund`); so do an expired table and leaving the queue (`refunds`). If every
  person at the table abandoned, the stakes are forfeit to the bank: nobody is left to win.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .results import Result, Seat

GRANT = 1000  # coins given at taking a name
TOP_UP = 200  # the first visit of a UTC day brings a lower balance up to this
STAKES = (100, 250, 500, 1000)
STAKE_GAMES = ("match-100", "pairs")
REASONS = ("grant", "top-up", "reward", "stake", "refund", "pot", "forfeit")  # SPEC §14
PLACES = {2: (40, 10), 3: (60, 30, 10)}  # by place, per seat: tables of two and three
PAIRS = (50, 15)  # by place, to each person of the side


def top_up(balance: int) -> int:
    """The coins a first visit of the day pays a player holding `balance` (0 at TOP_UP or
    more)."""
    return max(0, TOP_UP - balance)


def standing(seats: Sequence[Seat]) -> list[int]:
    """Each seat's side's place, a side with an abandoned seat placed below every side
    without one (as the lobby's ratings place it); equal places stay equal (1, 1, 3)."""
    sides = sorted({seat.side for seat in seats})
    gone = {seat.side for seat in seats if seat.abandoned}
    first = {side: next(s.place for s in seats if s.side == side) for side in sides}
    rank = {side: (side in gone, first[side]) for side in sides}
    place = {side: 1 + sum(rank[other] < rank[side] for other in sides) for side in sides}
    return [place[seat.side] for seat in seats]


def place_rewards(places: Sequence[int], teams: bool = False) -> list[int]:
    """Each seat's public reward for its side's place (`places` per seat, 1 first, equal
    for a tie; at a pairs table partners share a place); ties share the places' mean."""
    if teams:
        table, side_places = PAIRS, sorted(places)[::2]  # one place per side of two
    elif len(places) in PLACES:
        table, side_places = PLACES[len(places)], sorted(places)
    else:
        raise ValueError(f"no rewards for {len(places)} seats without teams")
    shared = {}
    for place in set(places):
        count = side_places.count(place)
        covered = table[place - 1 : place - 1 + count]
        shared[place] = (2 * sum(covered) + count) // (2 * count)  # the mean, a half up
    return [shared[place] for place in places]


def rewards(result: Result) -> list[int]:
    """The coins each seat of a finished match earns (see the module); 0 for a seat that is
    no player's, or abandoned."""
    seats = result.seats
    if len(result.players()) < 2 or result.kind not in ("public", "friend") or result.stake:
        return [0] * len(seats)  # against the computer alone; a stake table pays its pot
    paid = [seat.player is not None and not seat.abandoned for seat in seats]
    places = standing(seats)
    if result.kind == "public":
        earned = place_rewards(places, result.teams)
    else:
        half = (PAIRS if result.teams else PLACES[len(seats)])[0] // 2
        draw = set(places) == {1}
        earned = [half if place == 1 and not draw else 0 for place in places]
    return [coins if pay else 0 for coins, pay in zip(earned, paid, strict=True)]


@dataclass(frozen=True, slots=True)
class Split:
    """A pot split: `shares` as (seat, coins) in seat order; `odd` the seats that got one
    coin more than the others (the earliest seats, one coin each)."""

    shares: tuple[tuple[int, int], ...]
    odd: tuple[int, ...]

    def of(self, seat: int) -> int:
        return dict(self.shares)[seat]


def pot_split(pot: int, winners: Sequence[int]) -> Split:
    """Split `pot` coins equally among the seats `winners`, with no commission: every coin
    goes to somebody, and the odd coins go to the earlier seats, one each."""
    seats = sorted(set(winners))
    if pot < 0 or not seats:
        raise ValueError("a pot of no coins less than zero, for at least one winner")
    each, odd = divmod(pot, len(seats))
    return Split(
        tuple((seat, each + (index < odd)) for index, seat in enumerate(seats)),
        tuple(seats[:odd]),
    )


@dataclass(frozen=True, slots=True)
class Payout:
    """Coins leaving a table's escrow: to a seat's player (`player` None: to the bank)."""

    seat: int | None
    player: str | None
    amount: int
    reason: str  # "pot", "forfeit" or "refund"


def refunds(held: Mapping[str, int]) -> list[Payout]:
    """Every stake held (player -> coins) returned to its player: an expired table, a player
    leaving the queue, a draw. Nothing for a player holding nothing."""
    return [Payout(None, player, coins, "refund") for player, coins in held.items() if coins > 0]


def settle(stake: int, seats: Sequence[Seat]) -> list[Payout]:
    """Where a stake table's pot goes when its match ends (see the module): every seat's
    player staked `stake`; the payouts sum to the whole pot."""
    staked = [seat for seat in seats if seat.player is not None]
    places = standing(seats)
    if not any(seat.abandoned for seat in seats) and set(places) == {1}:
        return [Payout(seat.seat, seat.player, stake, "refund") for seat in staked]
    present = [seat for seat in staked if not seat.abandoned]
    pot = stake * len(staked)
    if not present:
        return [Payout(None, None, pot, "forfeit")] if pot else []
    best = min(places[seat.seat] for seat in present)
    winners = [seat for seat in present if places[seat.seat] == best]
    numbers = [seat.seat for seat in winners]
    whole = pot_split(pot, numbers)
    forfeited = pot_split(stake * sum(seat.abandoned for seat in staked), numbers)
    payouts = []
    for seat in winners:
        lost = forfeited.of(seat.seat)
        for amount, reason in ((whole.of(seat.seat) - lost, "pot"), (lost, "forfeit")):
            if amount > 0:
                payouts.append(Payout(seat.seat, seat.player, amount, reason))
    return payouts
