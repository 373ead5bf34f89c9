"""Passkeys and recovery codes under attack (SPEC §11, issue 30): each refusal is shown to be a
refusal (its status and sentence) and to change nothing (no session made, no sign count
moved, no code spent, no passkey added). The browser side is a software authenticator with
real P-256 keys (tests/support/authenticator.py), answering through the Flask test client.

Covered: a forged assertion, a replayed one (its challenge, or its counter), a challenge used
twice (a copy of the session cookie that carried it), a challenge of another browser, an
expired one, a wrong origin, a wrong RP ID, the relying party behind a proxy and from
DOMINO_ORIGIN, recovery-code guessing against the rate limit, CSRF on every new endpoint,
the last passkey kept, and no challenge, session secret or recovery code in a page (but the
one that shows the codes), a log line or a socket frame.
"""

from __future__ import annotations

import logging
import re

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from domino import game
from domino.lobby import keys as lobby_keys
from domino.web.view.messages import refusal
from tests.support.authenticator import Authenticator, b64url, unb64url
from tests.support.players import lobby_rows
from tests.support.webkit import FakeSocket, friends, make_app, seat_on_turn

CSRF_FIELD = re.compile(r'name="csrf_token" value="([^"]+)"')
CODE = re.compile(r"data-recovery-code>([^<]+)<")


class Browser:
    """One browser (its own test client, so its own cookies) on the passkeys' pages."""

    def __init__(self, app, base_url: str | None = None, headers=None) -> None:
        self.app = app
        self.client = app.test_client()
        self.base_url = base_url  # e.g. "http://localhost/games/": under a script root
        self.headers = dict(headers or {})  # sent with every request, e.g. a proxy's
        self.csrf: str | None = None
        self.answers: list[tuple[str, str]] = []  # (path, text) of every answer

    def _saw(self, path: str, response):
        text = response.get_data(as_text=True)
        self.answers.append((path, text))
        found = CSRF_FIELD.search(text)
        if found:
            self.csrf = found.group(1)
        return response

    def _extra(self, kw: dict) -> dict:
        kw["headers"] = {**self.headers, **kw.get("headers", {})}
        if self.base_url:
            kw["base_url"] = self.base_url
        return kw

    def get(self, path: str, **kw):
        return self._saw(path, self.client.get(path, **self._extra(kw)))

    def home(self):
        return self.get("/")

    def token(self) -> str:
        if self.csrf is None:
            self.home()
        return self.csrf

    def post_json(self, path: str, body=None, csrf: bool = True, **kw):
        headers = {"X-CSRFToken": self.token()} if csrf else {}
        kw = self._extra({**kw, "headers": headers})
        return self._saw(path, self.client.post(path, json=body or {}, **kw))

    def post_form(self, path: str, data=None, csrf: bool = True, **kw):
        fields = dict(data or {})
        if csrf:
            fields["csrf_token"] = self.token()
        return self._saw(path, self.client.post(path, data=fields, **self._extra(kw)))

    def take_name(self, name: str):
        response = self.post_form("/me/name", {"name": name})
        assert response.status_code == 303, response.get_data(as_text=True)

    @property
    def session_secret(self) -> str | None:
        cookie = self.client.get_cookie("domino_session")
        return None if cookie is None else cookie.value

    @property
    def flask_session(self) -> str | None:
        cookie = self.client.get_cookie("session")
        return None if cookie is None else cookie.value

    def signed_in_as(self) -> str | None:
        """The name this browser's pages show (hook `data-player`), checked by the lobby."""
        text = self.get("/me/bar").get_data(as_text=True)
        found = re.search(r"data-player><bdi>([^<]*)</bdi>", text)
        return found.group(1) if found else None

    # -- the ceremonies, as static/passkeys.js runs them
    def add_passkey(self, authenticator: Authenticator, **answer):
        options = self.post_json("/me/passkeys/options")
        assert options.status_code == 200, options.get_data(as_text=True)
        credential = authenticator.create(options.get_json(), **answer)
        return self.post_json("/me/passkeys", {"credential": credential})

    def sign_in_options(self) -> dict:
        options = self.post_json("/me/sign-in/options")
        assert options.status_code == 200, options.get_data(as_text=True)
        return options.get_json()

    def sign_in(self, authenticator: Authenticator, **answer):
        assertion = authenticator.get(self.sign_in_options(), **answer)
        return self.post_json("/me/sign-in", {"credential": assertion})


def lobby_of(app):
    return app.extensions["lobby"]


def state(app) -> dict:
    """What a refusal must leave as it was: sessions, passkeys (with counters and names) and
    recovery codes (spent or not)."""
    return {
        "sessions": lobby_rows(app, "SELECT id, player, hash, used_at FROM sessions ORDER BY id"),
        "passkeys": lobby_rows(
            app,
            "SELECT credential_id, player, sign_count, name, used_at FROM passkeys"
            " ORDER BY credential_id",
        ),
        "codes": lobby_rows(app, "SELECT player, hash, spent_at FROM recovery_codes ORDER BY hash"),
    }


def challenges(app) -> int:
    return lobby_rows(app, "SELECT count(*) AS n FROM challenges")[0]["n"]


def refused(response, code: str, status: int) -> None:
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True))
    body = response.get_json(silent=True)
    text = body["error"] if body else response.get_data(as_text=True)
    with_sentence = refusal(code)
    assert with_sentence in text or with_sentence.replace("'", "&#39;") in text, text
    assert "domino_session" not in "".join(response.headers.getlist("Set-Cookie"))


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "domino.sqlite3", seed=7)


@pytest.fixture
def ana(app):
    """A player with one passkey (held by `ana.authenticator`) and her ten codes."""
    browser = Browser(app)
    browser.take_name("Ana")
    browser.authenticator = Authenticator()
    answer = browser.add_passkey(browser.authenticator)
    assert answer.status_code == 201, answer.get_data(as_text=True)
    browser.codes = CODE.findall(answer.get_data(as_text=True))
    assert len(browser.codes) == 10
    return browser


def only_key(app):
    (key,) = state(app)["passkeys"]
    return key


# --- the way it works ----------------------------------------------------------------------


def test_a_passkey_signs_a_second_browser_in_as_its_player(app, ana):
    other = Browser(app)
    before = only_key(app)["sign_count"]
    answer = other.sign_in(ana.authenticator)
    assert answer.status_code == 200 and answer.get_json() == {"go": "/"}
    assert other.session_secret and other.signed_in_as() == "Ana"
    assert only_key(app)["sign_count"] == before + 1
    assert len(state(app)["sessions"]) == 2


def test_the_first_passkey_shows_ten_codes_once_and_later_ones_none(app, ana):
    assert len(set(ana.codes)) == 10
    assert lobby_of(app).recovery_codes_left(lobby_of(app).player_named("Ana").id) == 10
    page = ana.get("/p/Ana").get_data(as_text=True)
    assert not any(code in page for code in ana.codes)
    second = ana.add_passkey(Authenticator())
    assert second.status_code == 201
    assert "data-recovery-code" not in second.get_data(as_text=True)
    assert len(state(app)["passkeys"]) == 2 and len(state(app)["codes"]) == 10


def test_registration_excludes_the_players_passkeys_and_names_the_player(app, ana):
    options = ana.post_json("/me/passkeys/options").get_json()
    held = [b64url(key["credential_id"]) for key in state(app)["passkeys"]]
    assert [one["id"] for one in options["excludeCredentials"]] == held
    player = lobby_of(app).player_named("Ana")
    assert unb64url(options["user"]["id"]) == player.id.encode()
    assert options["user"]["name"] == "Ana"
    selection = options["authenticatorSelection"]
    assert selection["residentKey"] == "required"
    assert selection["userVerification"] == "preferred"


def test_sign_in_options_name_no_credential(app, ana):
    options = Browser(app).sign_in_options()
    assert options.get("allowCredentials", []) == [] and options["rpId"] == "localhost"


# --- forged, replayed, reused ---------------------------------------------------------------


def test_a_forged_assertion_is_refused_and_changes_nothing(app, ana):
    before = state(app)
    thief = Browser(app)
    stranger = ec.generate_private_key(ec.SECP256R1())
    answer = thief.sign_in(ana.authenticator, key=stranger)
    refused(answer, "passkey-failed", 400)
    assert state(app) == before and thief.signed_in_as() is None


def test_an_assertion_for_an_unknown_credential_is_refused(app, ana):
    before = state(app)
    thief = Browser(app)
    options = thief.sign_in_options()
    assertion = ana.authenticator.get(options)
    assertion["id"] = assertion["rawId"] = b64url(b"\x01" * 32)
    refused(thief.post_json("/me/sign-in", {"credential": assertion}), "passkey-unknown", 400)
    assert state(app) == before and thief.signed_in_as() is None


def test_a_replayed_assertion_is_refused_and_changes_nothing(app, ana):
    first = Browser(app)
    options = first.sign_in_options()
    assertion = ana.authenticator.get(options)
    assert first.post_json("/me/sign-in", {"credential": assertion}).status_code == 200
    before = state(app)
    for _ in range(2):  # the same answer again, in a browser with a challenge of its own
        replayer = Browser(app)
        replayer.sign_in_options()
        refused(replayer.post_json("/me/sign-in", {"credential": assertion}), "passkey-failed", 400)
        assert replayer.signed_in_as() is None
    assert state(app) == before


def test_an_assertion_whose_counter_did_not_grow_is_refused(app, ana):
    assert Browser(app).sign_in(ana.authenticator).status_code == 200
    before = state(app)
    count = only_key(app)["sign_count"]
    clone = Browser(app)  # a cloned authenticator, its counter behind the original's
    refused(clone.sign_in(ana.authenticator, sign_count=count), "passkey-failed", 400)
    assert state(app) == before and clone.signed_in_as() is None


def test_a_challenge_used_twice_is_refused_and_changes_nothing(app, ana):
    browser = Browser(app)
    options = browser.sign_in_options()
    carried = browser.flask_session  # the signed cookie naming the challenge, copied
    assert browser.post_json("/me/sign-in", {"credential": ana.authenticator.get(options)})
    assert browser.signed_in_as() == "Ana"
    before = state(app)
    again = Browser(app)
    again.client.set_cookie("session", carried)
    again.csrf = browser.csrf  # the token belongs to the copied cookie
    fresh = ana.authenticator.get(options)  # a valid signature, its counter higher
    refused(again.post_json("/me/sign-in", {"credential": fresh}), "passkey-expired", 400)
    assert state(app) == before and again.signed_in_as() is None


def test_a_registration_challenge_used_twice_is_refused(app, ana):
    options = ana.post_json("/me/passkeys/options").get_json()
    carried = ana.flask_session
    key = Authenticator()
    assert ana.post_json("/me/passkeys", {"credential": key.create(options)}).status_code == 201
    before = state(app)
    ana.client.set_cookie("session", carried)
    refused(
        ana.post_json("/me/passkeys", {"credential": Authenticator().create(options)}),
        "passkey-expired",
        400,
    )
    assert state(app) == before


def test_a_challenge_of_another_browser_is_refused(app, ana):
    asked = Browser(app)
    options = asked.sign_in_options()
    before = state(app)
    other = Browser(app)
    other.sign_in_options()  # a challenge of its own, not the one answered
    answer = ana.authenticator.get(options)
    refused(other.post_json("/me/sign-in", {"credential": answer}), "passkey-failed", 400)
    stranger = Browser(app)  # none at all
    refused(stranger.post_json("/me/sign-in", {"credential": answer}), "passkey-expired", 400)
    assert state(app) == before
    assert other.signed_in_as() is None and stranger.signed_in_as() is None


def test_an_expired_challenge_is_refused(app, ana, monkeypatch):
    browser = Browser(app)
    options = browser.sign_in_options()
    before = state(app)
    monkeypatch.setattr(lobby_keys, "CHALLENGE_SECONDS", -1)  # every challenge is too old
    answer = ana.authenticator.get(options)
    refused(browser.post_json("/me/sign-in", {"credential": answer}), "passkey-expired", 400)
    assert state(app) == before and browser.signed_in_as() is None
    assert challenges(app) == 0


# --- the relying party ---------------------------------------------------------------------


def test_a_wrong_origin_is_refused_and_changes_nothing(app, ana):
    before = state(app)
    phisher = Browser(app)
    answer = phisher.sign_in(ana.authenticator, origin="http://evil.example")
    refused(answer, "passkey-failed", 400)
    assert state(app) == before and phisher.signed_in_as() is None
    refused(ana.add_passkey(Authenticator(), origin="http://evil.example"), "passkey-failed", 400)
    assert state(app) == before


def test_a_wrong_rp_id_is_refused_and_changes_nothing(app, ana):
    before = state(app)
    phisher = Browser(app)
    refused(phisher.sign_in(ana.authenticator, rp_id="evil.example"), "passkey-failed", 400)
    assert state(app) == before and phisher.signed_in_as() is None
    refused(ana.add_passkey(Authenticator(), rp_id="evil.example"), "passkey-failed", 400)
    assert state(app) == before


def test_the_configured_origin_is_the_relying_party(tmp_path):
    app = make_app(tmp_path / "domino.sqlite3", ORIGIN="https://domino.example/games/")
    ana = Browser(app)
    ana.take_name("Ana")
    options = ana.post_json("/me/passkeys/options").get_json()
    assert options["rp"]["id"] == "domino.example"
    wrong = Authenticator(origin="http://localhost")  # the request's own, not the site's
    refused(
        ana.post_json("/me/passkeys", {"credential": wrong.create(options)}), "passkey-failed", 400
    )
    assert state(app)["passkeys"] == []
    right = Authenticator(origin="https://domino.example")
    assert ana.add_passkey(right).status_code == 201
    assert Browser(app).sign_in(right).status_code == 200


def test_behind_a_proxy_under_a_script_root_the_relying_party_is_the_forwarded_host(tmp_path):
    app = make_app(tmp_path / "domino.sqlite3", PROXIES=1)
    forwarded = {
        "X-Forwarded-Proto": "https",
        "X-Forwarded-Host": "play.example:8443",
        "X-Forwarded-For": "203.0.113.9",
        "Referer": "https://play.example:8443/games/",  # as the browser sends it over HTTPS
    }
    ana = Browser(app, base_url="https://localhost/games/", headers=forwarded)
    ana.take_name("Ana")
    options = ana.post_json("/me/passkeys/options").get_json()
    assert options["rp"]["id"] == "play.example"
    assert ana.signed_in_as() == "Ana"  # the cookies live under the script root
    key = Authenticator(origin="https://play.example:8443")  # no port dropped, no path added
    assert ana.post_json("/me/passkeys", {"credential": key.create(options)}).status_code == 201
    other = Browser(app, base_url="https://localhost/games/", headers=forwarded)
    assert other.sign_in(key).status_code == 200 and other.signed_in_as() == "Ana"


# --- recovery codes -----------------------------------------------------------------------


def test_a_recovery_code_signs_in_once(app, ana):
    first = Browser(app)
    answer = first.post_form("/me/recover", {"code": ana.codes[4]})
    assert answer.status_code == 303 and first.signed_in_as() == "Ana"
    before = state(app)
    second = Browser(app)
    refused(second.post_form("/me/recover", {"code": ana.codes[4]}), "recovery-code-wrong", 400)
    assert state(app) == before and second.signed_in_as() is None


def test_recovery_code_guessing_is_stopped_by_the_rate_limit(tmp_path):
    app = make_app(
        tmp_path / "domino.sqlite3", RATELIMIT_ENABLED=True, RATELIMIT_SIGN_IN="3 per minute"
    )
    ana = Browser(app)
    ana.take_name("Ana")
    ana.authenticator = Authenticator()
    codes = CODE.findall(ana.add_passkey(ana.authenticator).get_data(as_text=True))
    before = state(app)
    guesser = Browser(app)
    for guess in ("aaaa-bbbb-cccc", "dddd-eeee-ffff", "gggg-hhhh-jjjj"):
        refused(guesser.post_form("/me/recover", {"code": guess}), "recovery-code-wrong", 400)
    lucky = guesser.post_form("/me/recover", {"code": codes[0]})  # right, but too late
    assert lucky.status_code == 429 and "Retry-After" in lucky.headers
    assert "data-recovery-form" in lucky.get_data(as_text=True)
    assert state(app) == before and guesser.signed_in_as() is None
    # the passkey's sign-in shares the budget
    assert guesser.post_json("/me/sign-in/options").status_code == 429
    assert state(app) == before


# --- CSRF ---------------------------------------------------------------------------------


def test_csrf_is_refused_on_every_new_endpoint_and_changes_nothing(app, ana):
    encoded = b64url(only_key(app)["credential_id"])
    counted = challenges(app)
    before = state(app)
    options = ana.post_json("/me/passkeys/options", csrf=False)
    assert options.status_code == 400 and challenges(app) == counted
    register = ana.post_json("/me/passkeys", {"credential": {}}, csrf=False)
    assert register.status_code == 400
    for path, data in (
        (f"/me/passkeys/{encoded}/rename", {"name": "stolen"}),
        (f"/me/passkeys/{encoded}/remove", {}),
    ):
        assert ana.post_form(path, data, csrf=False).status_code == 400, path
    stranger = Browser(app)
    assert stranger.post_json("/me/sign-in/options", csrf=False).status_code == 400
    assert challenges(app) == counted
    signing = Browser(app)
    options = signing.sign_in_options()
    assertion = ana.authenticator.get(options)
    assert (
        signing.post_json("/me/sign-in", {"credential": assertion}, csrf=False).status_code == 400
    )
    assert stranger.post_form("/me/recover", {"code": ana.codes[0]}, csrf=False).status_code == 400
    assert state(app) == before
    assert stranger.signed_in_as() is None and signing.signed_in_as() is None
    for response in ana.answers[-3:]:
        assert refusal("csrf") in response[1]


# --- renaming and removing ----------------------------------------------------------------


def test_a_passkey_is_renamed_and_a_bad_name_changes_nothing(app, ana):
    encoded = b64url(only_key(app)["credential_id"])
    assert (
        ana.post_form(f"/me/passkeys/{encoded}/rename", {"name": "  my   phone "}).status_code
        == 303
    )
    assert only_key(app)["name"] == "my phone"
    before = state(app)
    for bad in ("", "x" * 41, "evil\u202ename", "two\nlines"):
        answer = ana.post_form(f"/me/passkeys/{encoded}/rename", {"name": bad})
        refused(answer, "passkey-name", 400)
    assert state(app) == before
    page = ana.get("/p/Ana").get_data(as_text=True)
    assert 'value="my phone"' in page


def test_another_players_passkey_is_neither_renamed_nor_removed(app, ana):
    encoded = b64url(only_key(app)["credential_id"])
    before = state(app)
    bob = Browser(app)
    bob.take_name("Bob")
    after_bob = state(app)
    refused(bob.post_form(f"/me/passkeys/{encoded}/rename", {"name": "mine"}), "no-passkey", 404)
    refused(bob.post_form(f"/me/passkeys/{encoded}/remove"), "no-passkey", 404)
    assert state(app)["passkeys"] == before["passkeys"] and state(app) == after_bob


def test_the_last_passkey_without_a_code_left_is_kept(app, ana):
    encoded = b64url(only_key(app)["credential_id"])
    for code in ana.codes:
        assert Browser(app).post_form("/me/recover", {"code": code}).status_code == 303
    before = state(app)
    refused(ana.post_form(f"/me/passkeys/{encoded}/remove"), "passkey-last", 409)
    assert state(app) == before
    ana.add_passkey(Authenticator())
    assert ana.post_form(f"/me/passkeys/{encoded}/remove").status_code == 303
    assert len(state(app)["passkeys"]) == 1


def test_a_signed_out_browser_touches_no_passkey(app, ana):
    encoded = b64url(only_key(app)["credential_id"])
    before = state(app)
    stranger = Browser(app)
    refused(stranger.post_json("/me/passkeys/options"), "not-signed-in", 403)
    assert stranger.post_form(f"/me/passkeys/{encoded}/remove").status_code == 403
    assert stranger.post_form(f"/me/passkeys/{encoded}/rename", {"name": "x1"}).status_code == 403
    assert state(app) == before


# --- nothing secret shown -----------------------------------------------------------------


def test_no_challenge_session_secret_or_code_in_pages_logs_or_frames(app, caplog):
    caplog.set_level(logging.DEBUG)
    a, b = friends(app)  # a table in play, its sockets open
    ana = Browser(app)
    ana.client = a.client  # the table's creator takes a name and a passkey
    ana.take_name("Ana")
    ana.authenticator = Authenticator()
    codes_page = ana.add_passkey(ana.authenticator)
    codes = CODE.findall(codes_page.get_data(as_text=True))
    assert len(codes) == 10
    secrets = set(codes) | {ana.session_secret}
    challenges_sent = []
    other = Browser(app)
    options = other.sign_in_options()
    challenges_sent.append(options["challenge"])
    other.post_json("/me/sign-in", {"credential": ana.authenticator.get(options)})
    secrets.add(other.session_secret)
    third = Browser(app)
    third.post_form("/me/recover", {"code": codes[1]})
    secrets.add(third.session_secret)
    third.post_form("/me/sign-out")
    fourth = Browser(app)
    refused(fourth.post_form("/me/recover", {"code": codes[1]}), "recovery-code-wrong", 400)
    for browser in (ana, other, third, fourth):
        for path in ("/", "/p/Ana", "/me/bar", f"/r/{a.room}"):
            browser.get(path)
    state_now = a.state
    mover = seat_on_turn((a, b))
    assert mover.send(game.legal_actions(state_now, state_now.turn)[0]).status_code == 200
    shown = [
        text
        for browser in (ana, other, third, fourth)
        for path, text in browser.answers
        if not path.endswith("/options") and text != codes_page.get_data(as_text=True)
    ]
    frames = a.ws.frames + b.ws.frames
    assert isinstance(a.ws, FakeSocket) and frames
    everything = [*shown, *frames, caplog.text, *a.seen, *b.seen]
    for secret in secrets | set(challenges_sent):
        assert secret and len(secret) >= 12
        for text in everything:
            assert secret not in text
    for text in everything:  # nor any code, however written
        assert not any(code.replace("-", "") in text.replace("-", "") for code in codes)
