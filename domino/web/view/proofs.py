"""A shard's word to the lobby that a signed-in player holds a seat at a room (SPEC §11,
friends by name): the room's table carries it in its invite form, and the lobby checks it
before it stores an invitation to that room or shows what became of those sent. Neither reads
the other's database: the word is signed with the shared secret key under a salt of its own.
"""

from __future__ import annotations

from flask import current_app
from itsdangerous import BadSignature, URLSafeTimedSerializer

SALT = "domino-seat-proof"
PROOF_SECONDS = 7 * 24 * 3600  # a table page left open that long is reloaded before inviting


def _signer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt=SALT)


def seat_proof(room_id: str, player_id: str) -> str:
    """That the player `player_id` holds a seat at `room_id` (made where the seat is known)."""
    return _signer().dumps([room_id, player_id])


def proven_seat(proof: str, max_age: int = PROOF_SECONDS) -> tuple[str, str] | None:
    """The (room id, player id) a proof vouches for; None for a forged, old or odd one."""
    if not proof or len(proof) > 400:
        return None
    try:
        room_id, player_id = _signer().loads(proof, max_age=max_age)
    except (BadSignature, TypeError, ValueError):
        return None
    if not isinstance(room_id, str) or not isinstance(player_id, str):
        return None
    return room_id, player_id
