"""The home page's commitment to a room's first deal (docs/fair-deals.md), made before the room
exists.

The page shows the commitment to a server seed derived from a fresh nonce, in a signed token;
the creation form sends the token back with the browser's client seed. The seed is
HMAC(key, nonce) with a key derived from SECRET_KEY, so the server keeps nothing per page, and
the store spends each nonce once (a reused or stale token commits afresh and drops the seed).

A shard (docs/cluster.md) spends only its own nonces, so each nonce names the shard that
made it: a token made by another shard also commits afresh, or one nonce (one server seed) could
start a room on every shard. The page's creation forms post to its own shard (`?shard=`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from flask import current_app
from itsdangerous import BadData, URLSafeTimedSerializer

from ...dealing import FirstDeal
from ...fair import commitment
from ...store import NONCE_SECONDS

SALT = "domino-fair"


def home_commitment() -> tuple[str, str]:
    """A fresh signed token for a home page, and the commitment it stands for."""
    shard = current_app.config["SHARD"]
    nonce = f"{shard}-{secrets.token_hex(16)}" if shard else secrets.token_hex(16)
    return _serializer().dumps(nonce), commitment(_server_seed(nonce))


def first_deal(form) -> FirstDeal | None:
    """What a creation form's token and seed commit the first deal to; None for a missing,
    forged or stale token (the room then commits afresh). The client seed counts only if
    sent for this token's commitment."""
    try:
        nonce = _serializer().loads(form.get("fair", ""), max_age=NONCE_SECONDS)
    except BadData:
        return None
    if not isinstance(nonce, str) or not _made_here(nonce):
        return None
    seed = _server_seed(nonce)
    client = form.get("client_seed") or None
    if client is not None and form.get("commitment") != commitment(seed):
        client = None
    return FirstDeal(seed, nonce, client)


def _made_here(nonce: str) -> bool:
    """Whether this process made `nonce` (a shard's start with its name, others have no "-")."""
    maker = nonce.split("-", 1)[0] if "-" in nonce else ""
    return maker == current_app.config["SHARD"]


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.secret_key, salt=SALT)


def _server_seed(nonce: str) -> str:
    """The server seed a nonce stands for (secret while SECRET_KEY is)."""
    key = hmac.new(_key_bytes(), b"domino-fair-key", hashlib.sha256).digest()
    return hmac.new(key, nonce.encode(), hashlib.sha256).hexdigest()


def _key_bytes() -> bytes:
    key = current_app.secret_key
    return key if isinstance(key, bytes) else str(key).encode()
