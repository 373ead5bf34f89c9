"""The relying party of the passkey ceremonies (domino/lobby/ceremonies.py, SPEC §11): the
origin is scheme, host and port with no path; the RP ID is the host alone. The ceremonies
themselves are tested through the web (tests/web/test_passkey_security.py)."""

from __future__ import annotations

import pytest

from domino.lobby.ceremonies import CeremonyRefused, finish_sign_in, relying_party


@pytest.mark.parametrize(
    ("configured", "scheme", "host", "rp_id", "origin"),
    [
        (None, "http", "localhost:8000", "localhost", "http://localhost:8000"),
        (None, "https", "Domino.Example", "domino.example", "https://domino.example"),
        (None, "http", "[::1]:8000", "::1", "http://[::1]:8000"),
        (
            "https://domino.example",
            "http",
            "10.0.0.5:8000",
            "domino.example",
            "https://domino.example",
        ),
        ("https://domino.example/games/", "http", "x", "domino.example", "https://domino.example"),
        ("https://play.example:8443", "http", "x", "play.example", "https://play.example:8443"),
    ],
)
def test_the_relying_party_is_the_host_and_the_origin_has_no_path(
    configured, scheme, host, rp_id, origin
):
    rp = relying_party(configured, scheme, host)
    assert (rp.id, rp.origin) == (rp_id, origin)


@pytest.mark.parametrize("configured", ["domino.example", "ftp://domino.example", "https://"])
def test_a_configured_origin_that_is_not_one_is_refused(configured):
    with pytest.raises(ValueError):
        relying_party(configured, "http", "localhost")


def test_a_sign_in_without_its_challenge_is_refused_before_anything_is_read(lobby):
    rp = relying_party(None, "http", "localhost")
    for challenge_id in (None, "", "x" * 65, "unknown"):
        with pytest.raises(CeremonyRefused) as refused:
            finish_sign_in(lobby, rp, challenge_id, {"rawId": "AAAA"})
        assert refused.value.code == "passkey-expired"


def test_a_credential_that_is_not_one_is_refused(lobby):
    rp = relying_party(None, "http", "localhost")
    for credential in ("not json", "[]", 7, None, "x" * 20000, {"rawId": 5}):
        challenge = lobby.store_challenge("sign-in", b"c")
        with pytest.raises(CeremonyRefused) as refused:
            finish_sign_in(lobby, rp, challenge.id, credential)
        assert refused.value.code in ("passkey-failed", "passkey-unknown")
