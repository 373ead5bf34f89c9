"""The web layer: pages, sockets and the services they share, attached to a Flask app."""

from __future__ import annotations

import hmac
import logging
import threading
import time
from datetime import UTC, datetime

import click
from flask import Flask, abort, has_request_context, render_template, request
from flask_babel import format_date
from flask_wtf.csrf import CSRFError, CSRFProtect
from werkzeug.exceptions import HTTPException

from ..lobby import Lobby
from ..players import names
from ..room import IDLE_SECONDS
from ..store import Store
from ..store.cache import Rooms
from .live.computer import Computer
from .live.hub import Hub
from .live.tables import Tables
from .live.waves import Waves, in_process, lobby_rating, over_http
from .view.faces import face
from .view.messages import error_message, refusal

csrf = CSRFProtect()
# The lobby's paths (SPEC §11): in a cluster nginx sends these prefixes to the lobby's own
# process (domino/cluster/templates/nginx.conf reads this tuple), which serves them alone. A new
# lobby blueprint (passkeys, friends, ...) puts its routes under one of them; quick match is
# under `/play/` (routes/play.py), the League under `/league` (routes/league.py).
LOBBY_PREFIXES = ("/me/", "/p/", "/play/", "/league")
# What the lobby's process serves besides them: its pages' static files (nginx serves those
# itself in a cluster), the language switch, the liveness probe, and the shards' deliveries of
# finished matches' results (POST /internal/results: nginx never routes /internal/).
LOBBY_ALSO = ("static", "i18n.switch", "pages.healthz", "league.results_in")


def init_app(app: Flask, rng=None) -> Tables | None:
    """Open the store, attach pages, sockets, CSRF protection and the purge command.

    With LOBBY == "only" (the lobby's process of a cluster) no rooms' store is opened and no
    computer runs: every blueprint is registered still, so that pages link each other by
    `url_for`, but only the lobby's paths (`LOBBY_PREFIXES`, `LOBBY_ALSO`) are answered; any
    other is 404; its quick match opens tables on the shards (`SHARD_URLS`, env
    DOMINO_SHARD_URLS: web/live/waves.py `over_http`, answered by routes/tables_in.py). Returns
    the rooms' services (None in the lobby's process)."""
    from .guard import limits, security
    from .routes import (
        friends,
        languages,
        league,
        pages,
        passkeys,
        play,
        players,
        review,
        seating,
        sockets,
        tables_in,
    )
    from .view import i18n, rules_text

    app.config.setdefault("WTF_CSRF_TIME_LIMIT", None)
    if app.config.get("MAX_CONTENT_LENGTH") is None:  # Flask's default: no limit at all
        app.config["MAX_CONTENT_LENGTH"] = 64 * 1024  # a form here is a few short fields
    app.config.setdefault("SOCK_SERVER_OPTIONS", sockets.server_options())
    security.init_app(app)
    i18n.init_app(app)
    app.register_blueprint(languages.bp)
    app.jinja_env.globals["face"] = face
    # Creation forms post to the shard that drew their page (`?shard=`: web/forms/seeds.py).
    app.jinja_env.globals["own_shard"] = app.config["SHARD"] or None
    rules_text.register(app)  # rules_line(rules), rules_sentences(rules)
    where = app.config.get("LOBBY", "here")
    services = None if where == "only" else open_rooms(app, rng)
    if where != "elsewhere":
        app.extensions["lobby"] = open_lobby(app)
    # Quick match's waves open rooms on this process's rooms' owner, or in the lobby's process
    # of a cluster on the shards (SHARD_URLS, their own addresses) over HTTP; without either,
    # no waves, and quick match says it is closed (routes/play.py).
    shard_urls = app.config.get("SHARD_URLS") or ()
    open_table = None
    if where == "here":
        open_table = in_process(services)
    elif where == "only" and shard_urls:
        open_table = over_http(shard_urls, app.config["SECRET_KEY"])
    if open_table is not None:
        app.extensions["waves"] = Waves(
            app.extensions["lobby"],
            open_table,
            fill=app.config["FILL_SECONDS"],
            every=app.config["WAVE_SECONDS"],
            rating=lobby_rating(app.extensions["lobby"]),
            stake_wait=app.config["STAKE_WAIT_SECONDS"],
        )
    if where == "only":
        app.before_request(_lobby_paths_only)  # first, before CSRF's and the limits' checks
    _player_globals(app)
    csrf.init_app(app)
    app.register_blueprint(pages.bp)
    app.register_blueprint(seating.bp)
    app.register_blueprint(review.bp)
    app.register_blueprint(sockets.bp)
    app.register_blueprint(players.bp)
    app.register_blueprint(friends.bp)
    app.register_blueprint(passkeys.bp)
    app.register_blueprint(play.bp)
    app.register_blueprint(league.bp)
    app.register_blueprint(tables_in.bp)
    csrf.exempt(league.results_in)  # a shard's signed delivery: no browser, no form
    csrf.exempt(tables_in.tables_in)  # the lobby's signed table to open: no browser either
    sockets.sock.init_app(app)
    limits.init_app(app)

    @app.errorhandler(HTTPException)
    def http_error(error):
        if error.code is None or error.code < 400:
            return error
        return security.error_page(error_message(error.code), error.code)

    @app.errorhandler(CSRFError)
    def csrf_refused(error):
        return render_template("partials/notice.html", notice=refusal("csrf"), alone=True), 400

    if services is None:
        return None

    @app.cli.command("purge-rooms")
    @click.option("--days", default=IDLE_SECONDS / 86400, show_default=True)
    def purge_rooms(days: float) -> None:
        """Delete rooms idle for longer than DAYS days."""
        removed = services.purge(days * 86400)
        click.echo(f"deleted {len(removed)} idle room(s)")

    return services


def open_rooms(app: Flask, rng=None) -> Tables:
    """The rooms' store, their live tables and the computer, as `app.extensions["domino"]`."""
    from .guard import limits

    sync_delay = app.config["SYNC_DELAY_MS"] / 1000  # a slow disk, for tests and benches
    rooms = Rooms(Store(app.config["DOMINO_DB"], sync_delay), rng, app.config["SHARD"])
    # Passed in by tests: the clock away times are measured by, the computer's decider.
    services = Tables(app, rooms, Hub(app.config.get("AWAY_CLOCK") or time.monotonic))
    delay, processes = app.config["BOT_DELAY_MS"], app.config["BOT_PROCESSES"]
    decide = app.config.get("BOT_DECIDE")
    services.computer = Computer(
        app, services, delay, processes, rooms.rng, decide=decide, asker=limits.requester
    )
    app.extensions["domino"] = services
    return services


def is_lobby_path(path: str, endpoint: str | None) -> bool:
    """Whether the lobby's process answers this request (a rule's path, its endpoint)."""
    return path.startswith(LOBBY_PREFIXES) or endpoint in LOBBY_ALSO


def _lobby_paths_only():
    """The lobby's process answers its own paths alone: anything else is a shard's (404)."""
    rule = request.url_rule
    if rule is not None and not is_lobby_path(rule.rule, request.endpoint):
        abort(404)


def open_lobby(app: Flask) -> Lobby:
    """The lobby's database (SPEC §11), its secrets' hashes keyed by the app's secret key."""
    key = hmac.new(app.config["SECRET_KEY"].encode(), b"domino-lobby-hashes", "sha256").digest()
    return Lobby(
        app.config["LOBBY_DB"],
        names.canonical,
        key=key,
        sync_delay=app.config["SYNC_DELAY_MS"] / 1000,
    )


def _player_globals(app: Flask) -> None:
    """What every page's header needs of its player: who the signed cookie names, whether to
    ask the lobby for the bar; and the `day` filter (a date in the page's language)."""
    from . import signin

    def header_player():
        """(who the page names as its player or None, whether the bar asks the lobby again:
        on a shard of a cluster, which trusts the signed cookie until the lobby says)."""
        if not has_request_context():
            return None, False
        here = signin.lobby() is not None
        return signin.who(), not here and (
            signin.PLAYER_COOKIE in request.cookies or signin.SESSION_COOKIE in request.cookies
        )

    app.jinja_env.globals["header_player"] = header_player
    # Who is signed in, for the table's invite-by-name form (view/render.py `inviting`).
    app.extensions["viewer"] = signin.who
    app.jinja_env.filters["day"] = lambda stamp: format_date(
        datetime.fromtimestamp(stamp, UTC), "medium"
    )


def start_background(app: Flask) -> None:
    """Start what runs beside the requests, from the server's own hooks (gunicorn.conf.py's
    post_worker_init, app.py's development server), never from the factory: the computer's
    deciders, the public tables' clocks as their rooms stored them, the sweep that deletes idle
    rooms every PURGE_EVERY_SECONDS (0: none), and quick match's waves where the lobby is
    (`stop_background` stops them)."""
    services = app.extensions.get("domino")
    if services is not None:
        services.computer.start()
        services.resume_clocks()  # the public tables' clocks, from their stored times
    waves = app.extensions.get("waves")
    if waves is not None:  # in the lobby's process of a cluster too: tables on the shards
        waves.start()
    if services is None:  # the lobby's process: no rooms, no computer, nothing to sweep
        return
    from .live.results_sender import for_app

    sender = for_app(app)  # finished matches' results, from the outbox to the lobby
    if sender is not None:
        sender.start()
        app.extensions["results_sender"] = sender
    sweep = app.config.get("PURGE_EVERY_SECONDS", 3600)
    if sweep:
        _start_sweeper(services, sweep)


def stop_background(app: Flask) -> None:
    """Stop quick match's waves (tests, before the databases close)."""
    waves = app.extensions.get("waves")
    if waves is not None:
        waves.stop()


def _start_sweeper(rooms: Tables, every: float) -> None:
    """Delete idle rooms now and then, in the background."""
    stop = threading.Event()

    def sweep() -> None:
        while not stop.wait(every):
            try:
                rooms.purge(IDLE_SECONDS)
            except Exception:  # logged; the next sweep tries again
                logging.getLogger(__name__).exception("purging idle rooms failed")

    threading.Thread(target=sweep, name="purge-rooms", daemon=True).start()
