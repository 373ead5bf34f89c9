"""The weekly League and the ratings (SPEC §12), and the lobby's end of the results' outbox.

- GET /league: this week's standings and last week's final table, computed from the stored
  results (`Lobby.standings`), one `data-league-row` per player in place order.
- `player_ratings(shown)`: a template global for the player page's part
  (partials/player_ratings.html): both ratings, shown conservatively, and this week's place.
- POST /internal/results: a shard's delivery of a finished match's result
  (web/live/results_sender.py), signed with an HMAC of the shared secret key; applied at most
  once. Not a lobby prefix: nginx refuses /internal/ from outside, and the lobby's process
  answers this endpoint by name (`LOBBY_ALSO`). A bad or missing signature: 403, and nothing
  changes.
"""

from __future__ import annotations

import time

from flask import Blueprint, current_app, jsonify, render_template, request
from itsdangerous import BadSignature

from ...players import league
from ...players.results import BadResult
from ..live.results_sender import MAX_AGE, PATH, signer
from ..signin import lobby, the_lobby, who

bp = Blueprint("league", __name__)


@bp.get("/league")
def table():
    """This week's League table and last week's."""
    store = the_lobby()
    week = league.week_of(time.time())
    viewer = who()
    return render_template(
        "league.html",
        week=week,
        this_week=store.standings(week),
        last_week=store.standings(week - league.WEEK),
        me=viewer.id if viewer else None,
    )


@bp.post(PATH)
def results_in():
    """A shard's result, signed; applied once. 200 with its key (whether new or known), 403
    for a bad or missing signature, 400 for what is not a result."""
    store = the_lobby()
    try:
        result = signer(current_app.config["SECRET_KEY"]).loads(
            request.get_data(as_text=True), max_age=MAX_AGE
        )
    except BadSignature:
        return jsonify(error="bad-signature"), 403
    try:
        applied = store.apply_result(result)
    except BadResult as error:
        return jsonify(error="bad-result", part=str(error)), 400
    return jsonify(key=applied.key, new=applied.new)


@bp.app_template_global()
def player_ratings(shown) -> dict | None:
    """What partials/player_ratings.html shows on `shown`'s page: each rating (`shown`
    number, provisional or not) and this week's League row (None if no match this week);
    None where the lobby is not in this process."""
    store = lobby()
    if store is None:
        return None
    return {"ratings": store.ratings(shown.id), "league": store.league_row(shown.id)}


def points_text(value: float) -> str:
    """League points as written: a whole number, or a half as `.5` (3, 1.5)."""
    return f"{value:.1f}" if value % 1 else f"{value:.0f}"


bp.add_app_template_filter(points_text, "league_points")
