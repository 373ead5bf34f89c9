"""Finished matches' results as a shard writes them (domino/players/results.py), for the tests
that apply them straight to the lobby (no public room exists yet)."""

from __future__ import annotations

from domino.players import league

MONDAY = 1767571200.0  # Monday 2026-01-05 00:00 UTC
assert league.week_of(MONDAY) == MONDAY


def result(room, match, seats, kind="public", at=MONDAY + 3600, game="classic", teams=False):
    """A result as a shard writes it; `seats`: (player or None, place, level, abandoned, side)."""
    rows = []
    for index, seat in enumerate(seats):
        player, place, level, abandoned, side = (
            *seat,
            *(None, None, None, False, None)[len(seat) :],
        )
        side = (index % 2 if teams else index) if side is None else side
        rows.append(
            {
                "seat": index,
                "side": side,
                "place": place,
                "player": player,
                "computer": level,
                "abandoned": abandoned,
            }
        )
    return {
        "key": f"{room}/{match}",
        "room": room,
        "match": match,
        "kind": kind,
        "game": game,
        "rules": {"seats": len(seats), "teams": teams},
        "finished_at": at,
        "computer": any(row["computer"] for row in rows),
        "seats": rows,
    }
