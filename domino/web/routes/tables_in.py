"""A shard's end of quick match's seam (web/live/waves.py `over_http`): POST /internal/tables.

In a cluster the lobby's process has no rooms. Its waves send each table to open here, to the
shard's own address (never through nginx, which refuses /internal/ from outside), as a body
signed with an HMAC of the shared secret key (itsdangerous, salt `waves.SALT`, at most
`waves.MAX_AGE` seconds old): {"game": a public game, "seats": by seat [player id, name] for a
person, or null for the computer}, with exactly the game's seats and at least one person,
nobody twice; and at a stake table (SPEC §13) "stake": the coins each person staked, one of
`coins.STAKES`, at a stake game, with a person in every seat. The shard opens the room with
the same narrow function the lobby calls in one process (`Tables.create_public`) and answers
{"room": its id, "grants": {player id: the seat grant's path}}.

A bad or missing signature is 403, a payload that is not such a table 400 with its code
(`bad-payload`, `bad-game`, `bad-seats`, `no-person`, `same-player-twice`, `bad-stake`):
nothing is created. The lobby's own process (LOBBY "only") has no rooms and answers 404
(this path is none of its own: domino/web/__init__.py).
"""

from __future__ import annotations

import re

from flask import Blueprint, current_app, jsonify, request
from itsdangerous import BadSignature

from ...players.coins import STAKE_GAMES, STAKES
from ...players.names import MAX_LENGTH
from ...players.pairing import SEATS
from ..live.waves import MAX_AGE, PATH, signer

bp = Blueprint("tables_in", __name__)

PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # the lobby's ids: token_urlsafe(12)


class _Bad(Exception):
    """The payload is not a table to open: its code."""


@bp.post(PATH)
def tables_in():
    """A table from the lobby, signed: the room opened and its grants, 403 for a bad
    signature, 400 for what is not a table (nothing created), 404 without rooms here."""
    services = current_app.extensions.get("domino")
    if services is None:
        return jsonify(error="no-rooms-here"), 404
    try:
        payload = signer(current_app.config["SECRET_KEY"]).loads(
            request.get_data(as_text=True), max_age=MAX_AGE
        )
    except BadSignature:
        return jsonify(error="bad-signature"), 403
    try:
        game, seats, stake = _table(payload)
    except _Bad as error:
        return jsonify(error=str(error)), 400
    opened = services.create_public(game, seats, stake)
    return jsonify(room=opened.room, grants=opened.grants)


def _table(payload) -> tuple[str, list, int]:
    """(game, seats as `create_public` takes them, stake) from the payload, or _Bad(code)."""
    if not isinstance(payload, dict) or set(payload) - {"stake"} != {"game", "seats"}:
        raise _Bad("bad-payload")
    game, given = payload["game"], payload["seats"]
    if not isinstance(game, str) or game not in SEATS:
        raise _Bad("bad-game")
    if not isinstance(given, list) or len(given) != SEATS[game]:
        raise _Bad("bad-seats")
    seats = []
    for seat in given:
        if seat is None:
            seats.append(None)
            continue
        if not isinstance(seat, list) or [type(part) for part in seat] != [str, str]:
            raise _Bad("bad-seats")
        player, name = seat
        if not PLAYER_ID.fullmatch(player) or not name.strip() or len(name) > MAX_LENGTH:
            raise _Bad("bad-seats")
        seats.append((player, name))
    people = [seat[0] for seat in seats if seat is not None]
    if not people:
        raise _Bad("no-person")
    if len(set(people)) != len(people):
        raise _Bad("same-player-twice")
    stake = payload.get("stake", 0)
    if stake != 0 and (
        type(stake) is not int
        or stake not in STAKES
        or game not in STAKE_GAMES
        or len(people) != len(seats)
    ):
        raise _Bad("bad-stake")
    return game, seats, stake
