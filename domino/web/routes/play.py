"""Quick match (SPEC §12, hooks §14): a signed-in player joins the queue of a public game,
waits on a page that asks the lobby every second, and is sent to their seat grant once a wave
(web/live/waves.py) seats them. These are the lobby's paths (`/play/`): in a cluster nginx
sends them to the lobby's process, whose waves open the tables on the shards over HTTP
(`DOMINO_SHARD_URLS`); a lobby's process that knows no shard refuses to queue anyone (503
`quick-match-closed`).

A stake (SPEC §13: 100, 250, 500 or 1,000 coins, at `match-100` and `pairs`) joins a stake
table as it forms (`domino.lobby.stakes`), the stake held at once: too few coins, or a stake
held already, refuse it with nothing changed. Its waiting page says how long the table has
before it expires; leaving returns the stake at once, and an expired table's players are
told on their waiting page that every stake went back.
"""

from __future__ import annotations

import math
import time

from flask import Blueprint, current_app, render_template, request, url_for

from ...lobby import QueueRefused
from ...players.coins import STAKE_GAMES, STAKES
from ...players.pairing import SEATS
from ..live.grants import GRANT_SECONDS
from ..signin import go, the_lobby, who
from ..view.messages import refusal, status_of
from ..view.rules_text import preset_name

bp = Blueprint("play", __name__)

GAMES = tuple(SEATS)  # classic, match-100, block, international, three, pairs
NO_STORE = {"Cache-Control": "no-store"}
NOTICE_SECONDS = 600  # how long the waiting page tells a player their stake table expired


def games() -> list[tuple[str, str]]:
    """The public games as the form offers them: (value, name)."""
    return [(game, preset_name(game)) for game in GAMES]


@bp.app_context_processor
def _public_games() -> dict:
    """The quick match form's games, for every page that shows it (the home page too)."""
    return {"public_games": games, "stakes": STAKES, "stake_games": games_at_stake}


def games_at_stake() -> list[str]:
    """The names of the games played at a stake, as the form's hint gives them."""
    return [preset_name(game) for game in STAKE_GAMES]


def _refused(code: str, **values):
    """The quick match page saying why nothing changed."""
    page = render_template("play.html", error=refusal(code), **values)
    return page, status_of(code), NO_STORE


def _poke() -> None:
    waves = current_app.extensions.get("waves")
    if waves is not None:
        waves.poke()


@bp.post("/play/")
def join():
    """Join the queue of the form's game (again: the game is replaced), then wait."""
    store = the_lobby()
    player = who()
    if player is None:
        return _refused("not-signed-in", signed_out=True)
    game = request.form.get("game", "")
    stake = request.form.get("stake", "0") or "0"
    if game not in GAMES:
        return _refused("bad-game")
    if stake not in ("0", *map(str, STAKES)):
        return _refused("bad-stake")
    stake = int(stake)
    if stake and game not in STAKE_GAMES:
        return _refused("stake-game")
    # No waves: the lobby's own process of a cluster that knows no shard to open tables on
    # (DOMINO_SHARD_URLS unset: domino/web/__init__.py). Nobody would ever be seated.
    if current_app.extensions.get("waves") is None:
        return _refused("quick-match-closed")
    try:
        if stake:
            wait = current_app.config["STAKE_WAIT_SECONDS"]
            store.join_stake(player.id, game, stake, SEATS[game], wait=wait)
        else:
            store.join_queue(player.id, game)
    except QueueRefused as refused:
        return _refused(refused.code)
    _poke()
    return go(url_for("play.waiting"))


def _waiting():
    """(this player's queue entry or None, None), or (None, the answer that ends the request):
    a refusal for a browser not signed in, or the seat grant of one a wave has seated."""
    store = the_lobby()
    player = who()
    if player is None:
        return None, _refused("not-signed-in", signed_out=True)
    seated = _seated(store, player.id)
    if seated is not None:
        return None, go(_grant_url(seated.grant))
    return store.queued(player.id), None


@bp.get("/play/")
def waiting():
    """The waiting page while queued; once seated, the seat grant; else the form."""
    queued, answer = _waiting()
    if answer is not None:
        return answer
    if queued is None:
        return render_template("play.html", notice=_notice(who().id)), 200, NO_STORE
    page = render_template("play.html", queue=_queue_values(queued))
    return page, 200, NO_STORE


@bp.get("/play/queue")
def queue():
    """The waiting part, polled every second: the seconds waited; once seated, the browser
    is sent to its seat grant (HX-Redirect), and out of the queue elsewhere, to /play/."""
    queued, answer = _waiting()
    if answer is not None:
        return answer
    if queued is None:
        return go(url_for("play.waiting"))
    page = render_template("partials/queue.html", queue=_queue_values(queued))
    return page, 200, NO_STORE


@bp.post("/play/leave")
def leave():
    """Leave the queue, and go back to the home page."""
    store = the_lobby()
    player = who()
    if player is None:
        return _refused("not-signed-in", signed_out=True)
    store.leave_queue(player.id)
    return go(url_for("pages.home"))


def _seated(store, player: str):
    """Where a wave seated the player, while its grant may still be followed."""
    seated = store.seated(player)
    if seated is None or time.time() - seated.at > GRANT_SECONDS:
        return None
    return seated


def _grant_url(path: str) -> str:
    """A seat grant's path (under the app's root, as the rooms' owner gave it), as a URL."""
    return request.script_root + path


def _notice(player: str):
    """The player's stake table that expired lately, if one did (its notice)."""
    notice = the_lobby().stake_notice(player)
    if notice is None or time.time() - notice.at > NOTICE_SECONDS:
        return None
    return notice


def _queue_values(queued) -> dict:
    now = time.time()
    values = {
        "game": queued.game,
        "name": preset_name(queued.game),
        "waited": max(0, math.floor(now - queued.since)),
        "fill": int(current_app.config["FILL_SECONDS"]),
        "stake": queued.stake,
    }
    if queued.table is not None:
        table = the_lobby().stake_table(queued.table)
        ends = table.opened_at + current_app.config["STAKE_WAIT_SECONDS"]
        values["expires_in"] = max(0, math.ceil(ends - now))
        values["pot"] = queued.stake * table.seats
    return values
