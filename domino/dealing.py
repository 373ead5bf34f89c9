"""How a room deals: fair deals (docs/fair-deals.md) folded from "commit", "seed" and "deal" events,
and the duplicate rematch's deal (no store, no Flask).

A room commits to the server seed of its next deal before anybody can send a seed for it
("commit", kept in the log, never on a page); a seat's browser sends a client seed as it
takes part in the deal ("seed"); the "deal" that follows carries its `fairness` block, which
the fold checks against the commitment and the seeds, so a tampered log does not fold.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from . import fair
from .game import RoundStarted, State
from .record import deal_from_dict, deal_to_dict
from .rules import Rules

REMATCH_ROTATION = 1  # in a rematch seat s holds the hand seat s + 1 held


@dataclass(frozen=True, slots=True)
class FirstDeal:
    """What the home page committed to before a room existed (docs/fair-deals.md): the server seed
    it
    showed the commitment of, the page's single-use `nonce` and the client seed sent back."""

    server_seed: str
    nonce: str
    client_seed: str | None = None


@dataclass(frozen=True, slots=True)
class Fair:
    """A room's fair-deal state.

    `pending` is the server seed committed for the next deal (secret until that deal's round
    is over), `seeds` the client seeds sent for it per seat, `current` the fairness block of
    the deal in play (None: a deal from before fair deals, or none yet) and `deals` the
    room's round number of its latest shuffled deal (docs/fair-deals.md: 1 for its first).
    """

    pending: str | None = None
    seeds: tuple[str | None, ...] = ()
    current: dict | None = None
    deals: int = 0

    @property
    def next_commitment(self) -> str | None:
        """The commitment to the next deal's server seed, if one is committed."""
        return fair.commitment(self.pending) if self.pending else None


NOT_YET = Fair()  # a room that has committed to no deal yet


def new_server_seed(rng) -> str:
    """A fresh 32-byte server seed, as hex."""
    return rng.getrandbits(256).to_bytes(32, "big").hex()


def commit_event(rng, nonce: str | None = None) -> tuple[str, dict]:
    """Commit to a fresh server seed (`nonce`: the home page's, whose seed it is)."""
    return commit_of(new_server_seed(rng), nonce)


def commit_of(server_seed: str, nonce: str | None = None) -> tuple[str, dict]:
    """Commit to `server_seed`, checked."""
    fair.commitment(server_seed)  # raises ValueError unless 64 lowercase hex digits
    data = {"seed": server_seed}
    if nonce is not None:
        data["nonce"] = nonce
    return ("commit", data)


def seed_event(seat: int, seed: str) -> tuple[str, dict]:
    """Seat `seat`'s client seed for the committed deal, checked (raises ValueError)."""
    if not isinstance(seed, str) or not fair.CLIENT_SEED.fullmatch(seed):
        raise ValueError("a client seed is 16 bytes as 32 lowercase hex digits")
    return ("seed", {"seat": seat, "seed": seed})


def on_commit(state: Fair, data: dict, seats: int) -> Fair:
    """After a "commit": the next deal's server seed, and no seeds sent for it yet."""
    fair.commitment(data["seed"])
    return replace(state, pending=data["seed"], seeds=(None,) * seats)


def on_seed(state: Fair, data: dict) -> Fair:
    """After a "seed": the seat's client seed for the pending deal (the latest counts)."""
    if state.pending is None:
        raise ValueError("a client seed before any commitment")
    seat, seed = data["seat"], seed_event(data["seat"], data["seed"])[1]["seed"]
    return replace(state, seeds=(*state.seeds[:seat], seed, *state.seeds[seat + 1 :]))


def deal_events(state: Fair, rules: Rules, humans, rng) -> list:
    """The events of a fresh deal: a commitment first if none is pending, the deal of the
    committed seed and the seeds of the seats people play, then the next commitment."""
    events = []
    if state.pending is None:
        events.append(commit_event(rng))
        state = on_commit(state, events[0][1], rules.seats)
    block = fairness_block(state, rules.seats, humans)
    started = fair.fair_deal(rules, block["server_seed"], block["round"], block["client_seeds"])
    events.append(("deal", {**deal_to_dict(started), "fairness": block}))
    events.append(commit_event(rng))
    return events


def fairness_block(state: Fair, seats: int, humans) -> dict:
    """The record's `fairness` (docs/contracts.md, the round record) of the pending deal, dealt to
    `humans` now."""
    client = [state.seeds[seat] if seat in humans else None for seat in range(seats)]
    return {
        "commitment": fair.commitment(state.pending),
        "server_seed": state.pending,
        "client_seeds": client,
        "round": state.deals + 1,
    }


def on_deal(state: Fair, data: dict, rules: Rules, humans) -> tuple[Fair, RoundStarted]:
    """After a shuffled "deal": its checked deal, and the fair state (an unproven deal,
    from before fair deals, only counts)."""
    block = data.get("fairness")
    started = deal_from_dict({"hands": data["hands"], "boneyard": data["boneyard"]})
    if block is None:
        return replace(state, current=None, deals=state.deals + 1), started
    if state.pending is None or block != fairness_block(state, rules.seats, humans):
        raise ValueError("the deal's fairness is not the one committed to")
    dealt = fair.fair_deal(rules, state.pending, block["round"], block["client_seeds"])
    if dealt != started:
        raise ValueError("the deal is not the one its seeds give")
    return Fair(None, (), block, block["round"]), started


def rematch_deal(first: State) -> tuple[str, dict]:
    """The rematch of a finished round: the same deal, each seat taking the next seat's hand."""
    hands = first.start.hands
    turned = [hands[(seat + REMATCH_ROTATION) % len(hands)] for seat in range(len(hands))]
    started = RoundStarted(tuple(turned), first.start.boneyard)
    return ("deal", {**deal_to_dict(started), "rematch": {"rotation": REMATCH_ROTATION}})


def on_rematch(first: State | None, data: dict) -> RoundStarted:
    """The checked deal of a "deal" that replays `first` with the hands turned."""
    if first is None or not first.over or data != rematch_deal(first)[1]:
        raise ValueError("a rematch deals the finished round it replays, turned one seat on")
    return deal_from_dict({"hands": data["hands"], "boneyard": data["boneyard"]})
