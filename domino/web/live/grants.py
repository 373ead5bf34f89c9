"""Single-use seat grants of public rooms (SPEC §12, ARCHITECTURE.md "Growing the house").

The rooms' owner opens a public room with every person's seat held by a secret nobody knows,
and gives each person a grant: a token signed with the shared secret key under its own salt
(itsdangerous), naming a random grant id, the room, the seat and the player, verifying for
GRANT_SECONDS. The browser follows `/r/<room>/grant?token=...`; the shard checks the token and
that the signed-in player is the grant's, then replaces the seat's secret with the grant's own
(`seat_secret`: an HMAC of the grant id under the secret key, which only the server can make)
and spends the grant id in the same transaction (domino/store `seat_grants`), so a grant
seats one player once. The same player bringing the same grant again (the answer that set
the cookie was lost to a restart) gets the same secret again, and nothing is written. The
token never carries a seat's secret.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

SALT = "domino-seat-grant"
GRANT_SECONDS = 300  # how long a grant verifies: the waiting page follows it within seconds


@dataclass(frozen=True, slots=True)
class Grant:
    """A seat grant as its token names it."""

    id: str
    room: str
    seat: int
    player: str


class GrantRefused(Exception):
    """A token that is no grant: forged, malformed ("bad-grant") or too old ("grant-expired")."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def _signer(key: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(key, salt=SALT)


def grant_token(key: str, room: str, seat: int, player: str) -> str:
    """A fresh grant of `seat` at `room` for `player`, signed with `key`."""
    data = {"g": secrets.token_urlsafe(16), "r": room, "s": seat, "p": player}
    return _signer(key).dumps(data)


def seat_secret(key: str, grant_id: str) -> str:
    """The seat secret a grant gives: 256 bits, shaped as `secrets.token_urlsafe(32)`, made
    from the grant id with the secret key (its own label: no other token is this one)."""
    digest = hmac.new(key.encode(), b"domino-seat-secret:" + grant_id.encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()


def read_grant(key: str, token: str, max_age: float = GRANT_SECONDS) -> Grant:
    """The grant a token names, checked; GrantRefused otherwise."""
    try:
        data = _signer(key).loads(token, max_age=max_age)
    except SignatureExpired as error:
        raise GrantRefused("grant-expired") from error
    except BadSignature as error:
        raise GrantRefused("bad-grant") from error
    try:
        grant = Grant(str(data["g"]), str(data["r"]), int(data["s"]), str(data["p"]))
    except (KeyError, TypeError, ValueError) as error:
        raise GrantRefused("bad-grant") from error
    return grant
