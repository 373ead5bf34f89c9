"""The passkey ceremonies (SPEC §11), with py_webauthn: adding a passkey and signing in with one.

Discoverable credentials only: registration asks for a resident key (user verification
preferred) with the player's id as the user handle, and sign-in names no credential, so the
browser offers the passkeys it holds for this site. Each ceremony's challenge is stored in the
lobby (`Challenges`) and taken once when its answer comes back; the web layer binds its id to
one browser. What a browser sends is checked against the relying party (`RelyingParty`: the
site's origin and RP ID, from DOMINO_ORIGIN or the request), and a sign-in's counter must grow
(`Keys.use_passkey`). Nothing here knows the web: the routes pass the relying party in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from urllib.parse import urlsplit

from webauthn import (
    base64url_to_bytes,
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from .accounts import Player
from .keys import Challenge, KnownCredential, Passkey

SITE_NAME = "Domino online"
TIMEOUT_MS = 5 * 60 * 1000  # as long as the challenge lives (keys.CHALLENGE_SECONDS)
MAX_CREDENTIAL = 16 * 1024  # characters of a credential's JSON; a real one is 1-2 KB
REGISTER = "register"
SIGN_IN = "sign-in"


class CeremonyRefused(Exception):
    """A ceremony's answer was refused; `code` says why (domino/web/view/messages.py)."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(code, detail)
        self.code = code
        self.detail = detail


@dataclass(frozen=True, slots=True)
class RelyingParty:
    """The site as passkeys know it: `origin` (scheme, host and port, no path) and `id` (the
    host without its port), both as the browser sees them."""

    id: str
    origin: str
    name: str = SITE_NAME


def relying_party(configured: str | None, scheme: str, host: str) -> RelyingParty:
    """The relying party: from the configured origin (DOMINO_ORIGIN, e.g.
    "https://domino.example"; a path or trailing slash is dropped), else from the request's
    scheme and host (already corrected behind a proxy). A script root is never part of it."""
    if configured:
        parts = urlsplit(configured.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"DOMINO_ORIGIN is scheme://host[:port]: {configured!r}")
        scheme, netloc = parts.scheme, parts.netloc.rpartition("@")[2]
    else:
        netloc = host
    netloc = netloc.lower()
    rp_id = urlsplit(f"//{netloc}").hostname or netloc
    return RelyingParty(id=rp_id, origin=f"{scheme.lower()}://{netloc}")


def user_handle(player_id: str) -> bytes:
    """The WebAuthn user handle of a player: their id's bytes (random, never reused)."""
    return player_id.encode()


# --- adding a passkey ---------------------------------------------------------------------


def begin_registration(lobby, rp: RelyingParty, player: Player) -> tuple[Challenge, str]:
    """Options for navigator.credentials.create() (JSON, as `options_to_json` writes them) and
    the stored challenge they carry; the player's passkeys are excluded."""
    options = generate_registration_options(
        rp_id=rp.id,
        rp_name=rp.name,
        user_id=user_handle(player.id),
        user_name=player.name,
        user_display_name=player.name,
        timeout=TIMEOUT_MS,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.PREFERRED,
        ),
        exclude_credentials=[
            PublicKeyCredentialDescriptor(id=key.credential_id) for key in lobby.passkeys(player.id)
        ],
    )
    challenge = lobby.store_challenge(REGISTER, options.challenge, player.id)
    return challenge, options_to_json(options)


def finish_registration(
    lobby,
    rp: RelyingParty,
    challenge_id: str | None,
    player: Player,
    credential,
    name: str,
) -> Passkey:
    """Verify the browser's new credential against the challenge `challenge_id` names (taken
    once: spent whatever the outcome) and store it as the player's passkey named `name`."""
    challenge = _take(lobby, challenge_id, REGISTER)
    if challenge.player != player.id:
        raise CeremonyRefused("passkey-expired", "a challenge made for another player")
    data = _credential(credential)
    try:
        verified = verify_registration_response(
            credential=data,
            expected_challenge=challenge.challenge,
            expected_rp_id=rp.id,
            expected_origin=rp.origin,
        )
    except (WebAuthnException, ValueError, KeyError, TypeError) as error:
        raise CeremonyRefused("passkey-failed", str(error)) from error
    try:
        return lobby.add_passkey(
            player.id,
            verified.credential_id,
            verified.credential_public_key,
            verified.sign_count,
            name,
        )
    except KnownCredential as error:
        raise CeremonyRefused("passkey-known") from error


# --- signing in ---------------------------------------------------------------------------


def begin_sign_in(lobby, rp: RelyingParty) -> tuple[Challenge, str]:
    """Options for navigator.credentials.get(): no credential named (discoverable ones), user
    verification preferred; and the stored challenge they carry."""
    options = generate_authentication_options(
        rp_id=rp.id,
        timeout=TIMEOUT_MS,
        user_verification=UserVerificationRequirement.PREFERRED,
    )
    challenge = lobby.store_challenge(SIGN_IN, options.challenge)
    return challenge, options_to_json(options)


def finish_sign_in(lobby, rp: RelyingParty, challenge_id: str | None, credential) -> Player:
    """Verify the browser's assertion against the challenge `challenge_id` names (spent
    whatever the outcome) and the passkey it names; record its counter; return its player."""
    challenge = _take(lobby, challenge_id, SIGN_IN)
    data = _credential(credential)
    raw_id = _raw_id(data)
    key = lobby.passkey(raw_id) if raw_id is not None else None
    if key is None:
        raise CeremonyRefused("passkey-unknown")
    handle = data.get("response", {}).get("userHandle") if isinstance(data, dict) else None
    if handle and handle != bytes_to_base64url(user_handle(key.player)):
        raise CeremonyRefused("passkey-failed", "the user handle names another player")
    try:
        verified = verify_authentication_response(
            credential=data,
            expected_challenge=challenge.challenge,
            expected_rp_id=rp.id,
            expected_origin=rp.origin,
            credential_public_key=key.public_key,
            credential_current_sign_count=key.sign_count,
        )
    except (WebAuthnException, ValueError, KeyError, TypeError) as error:
        raise CeremonyRefused("passkey-failed", str(error)) from error
    if not lobby.use_passkey(key.credential_id, verified.new_sign_count):
        raise CeremonyRefused("passkey-failed", "the sign count did not grow")
    player = lobby.player(key.player)
    if player is None:
        raise CeremonyRefused("passkey-unknown")
    return player


# --- the parts both share -----------------------------------------------------------------


def _take(lobby, challenge_id: str | None, purpose: str) -> Challenge:
    """The challenge `challenge_id` names, taken once; refused if none is left."""
    found = None
    if isinstance(challenge_id, str) and 0 < len(challenge_id) <= 64:
        found = lobby.take_challenge(challenge_id, purpose)
    if found is None:
        raise CeremonyRefused("passkey-expired")
    return found


def _credential(credential) -> dict:
    """The browser's credential as a dict (given as a dict or as JSON text), or refused."""
    if isinstance(credential, str):
        if len(credential) > MAX_CREDENTIAL:
            raise CeremonyRefused("passkey-failed", "an over-long credential")
        try:
            credential = json.loads(credential)
        except ValueError as error:
            raise CeremonyRefused("passkey-failed", "a credential that is not JSON") from error
    if not isinstance(credential, dict):
        raise CeremonyRefused("passkey-failed", "a credential that is not an object")
    return credential


def _raw_id(data: dict) -> bytes | None:
    """The credential id a credential names (its rawId, as base64url), if well formed."""
    raw = data.get("rawId") or data.get("id")
    if not isinstance(raw, str) or not 0 < len(raw) <= 1400:
        return None
    try:
        return base64url_to_bytes(raw)
    except ValueError:
        return None
