"""Passkeys and recovery codes in Chromium (SPEC §11, hooks §14; issue 30): a player takes a
name and adds a passkey on the player page with the browser's virtual authenticator (CDP
WebAuthn domain), is shown ten recovery codes, signs in with the passkey from a second browser
context holding the same credential, and with a recovery code, which is then refused a second
time. axe scans the sign-in part of the home page, the recovery codes and a refused code.
A browser without WebAuthn sees a sentence in place of the buttons.

The site is opened as http://localhost (the live server listens on 127.0.0.1): WebAuthn needs
a domain for its RP ID, and localhost is a secure context.
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.support.browsing import take_name

VIRTUAL = {
    "protocol": "ctap2",
    "transport": "internal",
    "hasResidentKey": True,
    "hasUserVerification": True,
    "isUserVerified": True,
    "automaticPresenceSimulation": True,
}
CODE = re.compile(r"^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$")
NO_WEBAUTHN_JS = "delete window.PublicKeyCredential;"


def site(server) -> str:
    return server.url.replace("127.0.0.1", "localhost")


def with_authenticator(context):
    """A page of `context` with a virtual platform authenticator: (page, cdp, its id)."""
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    made = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": VIRTUAL})
    return page, cdp, made["authenticatorId"]


def expect_signed_out(page) -> None:
    expect(page.locator("[data-player]")).to_have_count(0)


def test_a_passkey_and_recovery_codes_sign_a_player_in_anywhere(server, open_context, scan):
    base = site(server)
    page, cdp, authenticator = with_authenticator(open_context())
    take_name(page, base + "/", "Ana")
    page.goto(base + "/p/Ana")
    assert page.locator("[data-recovery-code]").count() == 0
    page.locator('[data-action="add-passkey"]').click()
    codes = page.locator("[data-recovery-code]")
    expect(codes).to_have_count(10)
    shown = [text.strip() for text in codes.all_inner_texts()]
    assert len(set(shown)) == 10 and all(CODE.match(code) for code in shown), shown
    scan(page, "recovery-codes")
    held = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})
    (credential,) = held["credentials"]
    assert credential["isResidentCredential"] and credential["rpId"] == "localhost"

    # Back on the player page: the passkey is listed, the codes are never shown again.
    page.goto(base + "/p/Ana")
    expect(page.locator("[data-passkey]")).to_have_count(1)
    expect(page.locator("[data-recovery-code]")).to_have_count(0)
    expect(page.locator("[data-recovery-left]")).to_have_attribute("data-recovery-left", "10")
    scan(page, "passkeys")

    # A second browser holding the same credential signs in with it, without a name typed.
    other, other_cdp, other_authenticator = with_authenticator(open_context())
    other_cdp.send(
        "WebAuthn.addCredential",
        {"authenticatorId": other_authenticator, "credential": credential},
    )
    other.goto(base + "/")
    expect_signed_out(other)
    button = other.locator('[data-action="sign-in-passkey"]')
    expect(button).to_be_visible()
    scan(other, "sign-in")
    button.click()
    expect(other.locator("[data-player]")).to_have_text("Ana")
    assert other.url.rstrip("/") == base
    other.goto(base + "/p/Ana")
    expect(other.locator("[data-session]")).to_have_count(2)

    # A third browser signs in with a recovery code; a fourth is refused the same code.
    third = open_context().new_page()
    third.goto(base + "/")
    form = third.locator("[data-recovery-form]")
    form.locator("[name=code]").fill(shown[0].upper())
    form.locator('[data-action="recover"]').click()
    expect(third.locator("[data-player]")).to_have_text("Ana")
    fourth = open_context().new_page()
    fourth.goto(base + "/")
    form = fourth.locator("[data-recovery-form]")
    form.locator("[name=code]").fill(shown[0])
    form.locator('[data-action="recover"]').click()
    expect(fourth.locator("[data-recovery-form] [data-error]")).to_be_visible()
    expect_signed_out(fourth)
    scan(fourth, "recovery-refused")
    page.goto(base + "/p/Ana")
    expect(page.locator("[data-recovery-left]")).to_have_attribute("data-recovery-left", "9")
    scan.assert_clean()


def test_without_webauthn_a_sentence_stands_instead_of_the_buttons(server, open_context):
    base = site(server)
    context = open_context()
    context.add_init_script(NO_WEBAUTHN_JS)
    page = context.new_page()
    page.goto(base + "/")
    expect(page.locator('[data-action="sign-in-passkey"]')).to_be_hidden()
    expect(page.locator("[data-sign-in] [data-without-webauthn]")).to_be_visible()
    expect(page.locator("[data-recovery-form]")).to_be_visible()
    take_name(page, base + "/", "Bea")
    page.goto(base + "/p/Bea")
    expect(page.locator('[data-action="add-passkey"]')).to_be_hidden()
    expect(page.locator("[data-passkeys] [data-without-webauthn]")).to_be_visible()


def test_with_webauthn_the_buttons_replace_the_sentence(server, open_context):
    base = site(server)
    page, _cdp, _id = with_authenticator(open_context())
    page.goto(base + "/")
    expect(page.locator('[data-action="sign-in-passkey"]')).to_be_visible()
    expect(page.locator("[data-sign-in] [data-without-webauthn]")).to_be_hidden()
