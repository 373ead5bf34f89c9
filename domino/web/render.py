"""The one way a table is drawn: a seat's `TableView` to HTML fragments."""

from __future__ import annotations

from dataclasses import dataclass

from flask import render_template, url_for
from markupsafe import Markup

from ..events import DRAW, PASS, Play
from ..rooms import TableView
from ..tiles import Tile, pip_total


@dataclass(frozen=True)
class Choice:
    """How a playable tile is laid: at once at `end`, or by choosing among `ends`."""

    ends: tuple[str, ...]

    @property
    def direct(self) -> str | None:
        """The end to lay the tile at without asking, if there is no real choice."""
        return self.ends[0] if len(self.ends) == 1 else None


def choices(tv: TableView) -> dict[Tile, Choice]:
    """For each tile this seat may play now, the ends it may go to."""
    if not tv.active:
        return {}
    ends_by_tile: dict[Tile, list[str]] = {}
    for action in tv.game.legal:
        if isinstance(action, Play):
            ends_by_tile.setdefault(action.tile, []).append(action.end)
    line_ends = tv.game.ends
    result = {}
    for tile, ends in ends_by_tile.items():
        if len(ends) == 2 and (line_ends is None or line_ends[0] == line_ends[1]):
            ends = ["right"]  # both ends alike: no real choice
        result[tile] = Choice(tuple(ends))
    return result


def can(tv: TableView, action) -> bool:
    """True when the seat may take `action` (DRAW or PASS) now."""
    return tv.active and action in tv.game.legal


def render_table(
    tv: TableView, selected: Tile | None = None, notice: str | None = None, oob: bool = True
) -> str:
    """The `#table` fragment for one seat (with `hx-swap-oob` unless `oob` is False)."""
    options = choices(tv)
    if selected not in options or options[selected].direct:
        selected = None
    html = render_template(
        "partials/table.html",
        tv=tv,
        g=tv.game,
        me=tv.seat,
        them=1 - tv.seat,
        options=options,
        selected=selected,
        notice=notice,
        oob=oob,
        draw_offered=DRAW in tv.game.legal,
        pass_offered=PASS in tv.game.legal,
        can_draw=can(tv, DRAW),
        can_pass=can(tv, PASS),
        invite=url_for("pages.room", room_id=tv.room, _external=True),
        last=_last_laid(tv),
        totals=[pip_total(hand) for hand in tv.game.hands or ()],
    )
    return Markup(html)


def render_superseded(notice: str | None = None) -> str:
    """The `#table` fragment of a tab that lost its seat to another tab."""
    return Markup(render_template("partials/superseded.html", notice=notice))


def _last_laid(tv: TableView) -> int | None:
    """Index in the line of the tile laid last, if the last move was a play."""
    history = tv.game.history
    plays = [move for move in history if move.action == "play"]
    if not plays:
        return None
    return 0 if plays[-1].end == "left" else len(tv.game.line) - 1
