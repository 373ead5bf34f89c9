"""What the browser tests share (tests/browser/conftest.py starts their server): the live
server's dealing seed, how long a page may take to show what is waited for, and taking a
player's name on the home page through its hooks (SPEC §14)."""

from playwright.sync_api import expect

SEED = 20240611
TIMEOUT_MS = 10_000


def submit_name(page, url: str, name: str) -> None:
    """Open the home page at `url` and submit `name` in its name form (taken or refused)."""
    page.goto(url)
    form = page.locator("form[data-name-form]")
    form.locator('input[name="name"]').fill(name)
    form.locator('[data-action="take-name"]').click()


def take_name(page, url: str, name: str) -> None:
    """Take `name` on the home page at `url`, and see the page signed in under it."""
    submit_name(page, url, name)
    expect(page.locator("[data-player]")).to_have_text(name)
