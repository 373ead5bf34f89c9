"""The Content-Security-Policy in Chromium: real games run under it without one violation.

A computer game (a few moves and a language switch) and a friend game (invitation, join, a
few moves), plus the help and error pages. Every page reports each `securitypolicyviolation`
event to the test through an exposed function, and Chromium's console messages about the
policy are kept too; none may come. Each table's websocket must connect (its first frame,
the table, arrives). A last test checks that the watch does see a violation.
"""

from __future__ import annotations

from playwright.sync_api import expect

from tests.support.browser_computer import COUNT_ANSWERS_JS

TIMEOUT_MS = 10_000
MOVES = 3  # moves per game: enough to cross several answers and pushes

REPORT_JS = """
document.addEventListener('securitypolicyviolation', (event) => {
  window.__reportViolation(
    `${event.effectiveDirective} blocked ${event.blockedURI || 'inline'} ` +
    `at ${event.documentURI}: ${event.sample}`);
});
"""
# Waits are always arrow functions: Playwright evaluates a bare expression with `eval` on
# every poll, which this very policy forbids ('unsafe-eval' is not allowed).
SEQ_JS = "Number(document.querySelector('#table').getAttribute('data-seq'))"
ANSWERED_JS = "window.__answered"
# The page lets the player act, or shows the round's result.
READY_JS = """(!!document.querySelector('[data-result]') || (
  !!document.querySelector('[data-turn="you"]') && !!document.querySelector(
    '[data-hand] [data-tile][data-playable], [data-action="draw"]:enabled, ' +
    '[data-action="pass"]:enabled')))"""
PLAYABLE = "[data-hand] [data-tile][data-playable]"
DRAW_OR_PASS = '[data-action="draw"]:enabled, [data-action="pass"]:enabled'


class Watched:
    """A page whose policy violations, console messages and socket frames are recorded."""

    def __init__(self, context, name: str) -> None:
        self.name = name
        self.page = context.new_page()
        self.violations: list[str] = []
        self.console: list[str] = []
        self.frames: list[str] = []
        self.policies: list[str | None] = []  # the policy header of each document loaded
        self.page.expose_function("__reportViolation", self._violation)
        self.page.add_init_script(REPORT_JS + COUNT_ANSWERS_JS)
        self.page.on("console", lambda message: self.console.append(message.text))
        self.page.on("websocket", lambda ws: ws.on("framereceived", self._frame))
        self.page.on("response", self._response)

    def _frame(self, payload) -> None:
        self.frames.append(payload)

    def _violation(self, text: str) -> None:
        self.violations.append(text)

    def _response(self, response) -> None:
        if response.request.resource_type == "document":
            self.policies.append(response.headers.get("content-security-policy"))

    def problems(self) -> list[str]:
        """Every violation reported, and every console message about the policy."""
        about_policy = [text for text in self.console if "Content Security Policy" in text]
        return self.violations + about_policy

    def wait_live(self, more_than: int = 0) -> None:
        """Wait until a socket has brought a frame beyond the first `more_than` (the table is
        the first thing a new socket brings)."""
        deadline = TIMEOUT_MS
        while len(self.frames) <= more_than and deadline > 0:
            self.page.wait_for_timeout(25)
            deadline -= 25
        assert len(self.frames) > more_than, f"{self.name}: the websocket brought nothing"

    def seq(self) -> int:
        return self.page.evaluate(SEQ_JS)

    def my_turn(self) -> bool:
        return self.page.evaluate(READY_JS) and not self.page.locator("[data-result]").count()

    def move(self) -> None:
        """Make one move by clicking; wait until its answer is on the page."""
        page = self.page
        before = self.seq()
        if page.locator(PLAYABLE).count():
            answered = page.evaluate(ANSWERED_JS)
            page.locator(PLAYABLE).first.click()
            page.wait_for_function(f"(n) => {ANSWERED_JS} > n", arg=answered)
            if self.seq() == before:  # the tile fits both ends: choose one
                page.locator("[data-end]").first.click()
        else:
            page.locator(DRAW_OR_PASS).filter(visible=True).first.click()
        page.wait_for_function(f"(seq) => {SEQ_JS} > seq", arg=before, timeout=TIMEOUT_MS)


def assert_clean(*watched: Watched) -> None:
    for one in watched:
        assert one.policies and all(one.policies), f"{one.name}: a page came without a policy"
        assert not one.problems(), f"{one.name}: {one.problems()}"


def test_a_computer_game_runs_under_the_policy(server, open_context):
    player = Watched(open_context(), "player")
    page = player.page
    page.goto(server.url)
    page.locator('[data-action="play-computer"]').click()
    expect(page.locator("[data-hand] [data-tile]")).to_have_count(7)
    player.wait_live()
    for _ in range(MOVES):
        page.wait_for_function(f"() => {READY_JS}")  # the computer has answered
        if page.locator("[data-result]").count():
            break
        player.move()
    room, frames = page.url, len(player.frames)
    page.locator('nav.languages a[hreflang="fr"]').click()
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    assert page.url == room, "the switch did not come back to the table"
    player.wait_live(more_than=frames)  # the reloaded table's own socket
    page.goto(f"{server.url}/help")
    page.goto(f"{server.url}/no/such/page")
    assert_clean(player)
    assert len(player.policies) >= 5


def test_a_friend_game_runs_under_the_policy(server, open_context):
    host = Watched(open_context(), "creator")
    host.page.goto(server.url)
    host.page.locator('[data-action="create-room"]').first.click()
    invite = host.page.locator("[data-invite]")
    expect(invite).to_be_visible()
    url = invite.input_value() or invite.get_attribute("href")
    host.page.locator('[data-action="copy-invite"]').click()  # table.js at work
    host.wait_live()

    guest = Watched(open_context(), "guest")
    guest.page.goto(url)
    expect(guest.page.locator("[data-hand] [data-tile]")).to_have_count(7)
    guest.wait_live()
    expect(host.page.locator('[data-opponent-connected="true"]')).to_have_count(1)

    for _ in range(MOVES):
        mover = next((one for one in (host, guest) if one.my_turn()), None)
        if mover is None:
            break  # the round is over
        other = guest if mover is host else host
        mover.move()
        other.page.wait_for_function(f"(seq) => {SEQ_JS} >= seq", arg=mover.seq())
    assert_clean(host, guest)


def test_the_watch_sees_a_violation(server, open_context):
    """The check can fail: an inline script and a style attribute are refused and reported."""
    watched = Watched(open_context(), "canary")
    watched.page.goto(server.url)
    watched.page.evaluate(
        """() => {
          const script = document.createElement('script');
          script.textContent = 'window.__inlineRan = true;';
          document.body.append(script);
          document.body.setAttribute('style', 'outline: 1px solid red');
        }"""
    )
    deadline = TIMEOUT_MS
    while len(watched.violations) < 2 and deadline > 0:
        watched.page.wait_for_timeout(25)
        deadline -= 25
    assert watched.page.evaluate("window.__inlineRan") is None
    directives = " ".join(watched.violations)
    assert "script-src" in directives and "style-src" in directives, watched.violations
    assert any("Content Security Policy" in text for text in watched.console)
