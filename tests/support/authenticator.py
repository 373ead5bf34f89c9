"""A software authenticator for the web tests: what a browser and its passkey send back to
navigator.credentials.create() and .get(), made with real EC P-256 keys (`cryptography`).

Registration answers carry attestation "none" (an attestation object whose authenticator data
holds the new credential's id and COSE public key); sign-in answers carry authenticator data,
the client data the browser would write, and an ECDSA-SHA-256 signature over both, as in the
WebAuthn spec. Every field is what py_webauthn reads, in base64url. Each part can be made
wrong on purpose: another origin or RP ID, a key that is not the credential's, an old counter.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import struct
from dataclasses import dataclass

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

UP, UV, AT = 0x01, 0x04, 0x40  # authenticator data flags: user present, verified, attested


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def cose_key(public: ec.EllipticCurvePublicKey) -> bytes:
    """A P-256 public key as COSE_Key (kty EC2, alg ES256, crv P-256)."""
    numbers = public.public_numbers()
    x, y = numbers.x.to_bytes(32, "big"), numbers.y.to_bytes(32, "big")
    return cbor2.dumps({1: 2, 3: -7, -1: 1, -2: x, -3: y})


@dataclass
class Credential:
    """A discoverable credential the authenticator holds: for one RP and one user."""

    id: bytes
    key: ec.EllipticCurvePrivateKey
    rp_id: str
    user_handle: bytes
    sign_count: int = 0


class Authenticator:
    """A platform authenticator with user verification, counting each signature."""

    def __init__(self, origin: str = "http://localhost") -> None:
        self.origin = origin
        self.credentials: dict[bytes, Credential] = {}

    def _client_data(self, kind: str, challenge: str, origin: str | None) -> bytes:
        data = {"type": kind, "challenge": challenge, "origin": origin or self.origin}
        data["crossOrigin"] = False
        return json.dumps(data, separators=(",", ":")).encode()

    def create(self, options: dict, *, origin: str | None = None, rp_id: str | None = None) -> dict:
        """The answer to navigator.credentials.create(`options`) (py_webauthn's JSON)."""
        rp = rp_id or options["rp"]["id"]
        excluded = {unb64url(one["id"]) for one in options.get("excludeCredentials", [])}
        assert not excluded & set(self.credentials), "an excluded credential is held here"
        key = ec.generate_private_key(ec.SECP256R1())
        credential = Credential(secrets.token_bytes(32), key, rp, unb64url(options["user"]["id"]))
        self.credentials[credential.id] = credential
        attested = (
            bytes(16)  # AAGUID: none
            + struct.pack(">H", len(credential.id))
            + credential.id
            + cose_key(key.public_key())
        )
        auth_data = (
            hashlib.sha256(rp.encode()).digest()
            + bytes([UP | UV | AT])
            + struct.pack(">I", credential.sign_count)
            + attested
        )
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        client_data = self._client_data("webauthn.create", options["challenge"], origin)
        return {
            "id": b64url(credential.id),
            "rawId": b64url(credential.id),
            "type": "public-key",
            "authenticatorAttachment": "platform",
            "clientExtensionResults": {},
            "response": {
                "clientDataJSON": b64url(client_data),
                "attestationObject": b64url(attestation),
                "transports": ["internal"],
            },
        }

    def get(
        self,
        options: dict,
        *,
        credential_id: bytes | None = None,
        origin: str | None = None,
        rp_id: str | None = None,
        key: ec.EllipticCurvePrivateKey | None = None,
        sign_count: int | None = None,
    ) -> dict:
        """The answer to navigator.credentials.get(`options`): signed by the credential for
        the options' RP (the only one held, or `credential_id`), its counter one higher.
        `key` signs instead of the credential's own; `sign_count` replaces the counter."""
        rp = rp_id or options["rpId"]
        if credential_id is None:
            held = [one for one in self.credentials.values() if one.rp_id == options["rpId"]]
            assert len(held) == 1, f"{len(held)} credentials for {options['rpId']}"
            credential = held[0]
        else:
            credential = self.credentials[credential_id]
        credential.sign_count += 1
        count = credential.sign_count if sign_count is None else sign_count
        auth_data = hashlib.sha256(rp.encode()).digest() + bytes([UP | UV])
        auth_data += struct.pack(">I", count)
        client_data = self._client_data("webauthn.get", options["challenge"], origin)
        signed = auth_data + hashlib.sha256(client_data).digest()
        signature = (key or credential.key).sign(signed, ec.ECDSA(hashes.SHA256()))
        return {
            "id": b64url(credential.id),
            "rawId": b64url(credential.id),
            "type": "public-key",
            "authenticatorAttachment": "platform",
            "clientExtensionResults": {},
            "response": {
                "clientDataJSON": b64url(client_data),
                "authenticatorData": b64url(auth_data),
                "signature": b64url(signature),
                "userHandle": b64url(credential.user_handle),
            },
        }
