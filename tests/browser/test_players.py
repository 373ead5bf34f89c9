"""A player's name and sessions in Chromium (issue 30): taking a name on the home page (and a
refused one, said beside the field), and ending another browser's session from the player page.
"""

from __future__ import annotations

from playwright.sync_api import expect

from domino.web.signin import SESSION_COOKIE
from tests.support.browsing import submit_name


def test_take_a_name_and_see_it_on_every_page(server, open_context):
    page = open_context().new_page()
    submit_name(page, server.url, "Computer")  # refused: it passes for the computer
    error = page.locator("[data-name-form] [data-error]")
    expect(error).to_be_visible()
    expect(error).to_contain_text("computer")
    expect(page.locator('input[name="name"]')).to_have_attribute("aria-invalid", "true")
    expect(page.locator("[data-player]")).to_have_count(0)

    page.locator('input[name="name"]').fill("Ana_W")
    page.locator('[data-action="take-name"]').click()
    expect(page.locator("[data-player]")).to_have_text("Ana_W")
    expect(page.locator("[data-name-form]")).to_have_count(0)
    page.goto(f"{server.url}/help")
    expect(page.locator("[data-player]")).to_have_text("Ana_W")
    page.locator("[data-player]").click()
    expect(page.locator("h1")).to_have_text("Ana_W")
    expect(page.locator("[data-session][data-current]")).to_have_count(1)


def test_end_the_other_session_from_the_player_page(server, open_context):
    laptop = open_context().new_page()
    submit_name(laptop, server.url, "Bea")
    expect(laptop.locator("[data-player]")).to_have_text("Bea")
    lobby = server.app.extensions["lobby"]
    bea = lobby.player_named("Bea")
    secret, _session = lobby.new_session(bea.id, "Firefox · Android")  # signed in elsewhere
    phone_context = open_context()
    phone_context.add_cookies([{"name": SESSION_COOKIE, "value": secret, "url": server.url}])
    phone = phone_context.new_page()
    phone.goto(server.url)
    expect(phone.locator("[data-player]")).to_have_text("Bea")

    laptop.goto(f"{server.url}/p/Bea")
    expect(laptop.locator("[data-session]")).to_have_count(2)
    other = laptop.locator("[data-session]:not([data-current])")
    expect(other).to_contain_text("Firefox · Android")
    other.locator('[data-action="end-session"]').click()
    expect(laptop.locator("[data-session]")).to_have_count(1)
    expect(laptop.locator("[data-session][data-current]")).to_have_count(1)

    phone.reload()
    expect(phone.locator("[data-player]")).to_have_count(0)
    expect(phone.locator("[data-name-form]")).to_have_count(1)
    laptop.reload()
    expect(laptop.locator("[data-player]")).to_have_text("Bea")
