"""The parts of a table drawn once and then looked up (web/view/render.py puts them together),
each kept under exactly what it is drawn from: what is alike for every seat that reads the
same language (the boneyard, the rules line, the next deal's buttons, the room's version in
an action's values) and what stays the same from move to move at one seat (the other seats,
who plays them and what this seat may say about it). A part that would hold a player's own
name is drawn afresh every time.
"""

from __future__ import annotations

from flask import current_app
from markupsafe import Markup

from ...views import TableView
from . import markup, names, rules_text
from .faces import tojson
from .i18n import Words
from .kept import kept, recall, remember


def draw(name: str, values: dict) -> Markup:
    """partials/`name` with `values` and nothing else.

    A table needs none of Flask's per-render context (request, session, g), nor the
    environment's globals (`face` comes with `values`): a context of `values` alone spares
    copying every global into each table's context, and shows that a part drawn from some
    values reads nothing else.
    """
    env = current_app.jinja_env
    template = env.get_template(f"partials/{name}")
    context = template.new_context(values, shared=True)
    try:
        return Markup(env.concat(template.root_render_func(context)))
    except Exception:
        env.handle_exception()  # raises it again, its traceback pointing into the template


PARTS = kept()  # by (template, language, key)


def part(name: str, said: Words, key: tuple | None, values, *args) -> Markup:
    """partials/`name` drawn from `values(*args)` alone (and the language's words), once per
    language and `key`, which holds everything `values(*args)` is made from; a `key` of None
    draws it afresh (a player's own name is never kept)."""
    if key is None:
        return draw(name, {**said.jinja, **values(*args)})
    key = (name, said.lang, *key)
    found = recall(PARTS, key)
    if found is None:
        found = draw(name, {**said.jinja, **values(*args)})
        remember(PARTS, key, found)
    return found


SEQ_VALS = kept()  # by seq


def seq_vals(seq: int) -> Markup:
    """`{"seq": seq}|tojson`, the values an action button sends (the room's version)."""
    found = recall(SEQ_VALS, seq)
    if found is None:
        found = tojson({"seq": seq})
        remember(SEQ_VALS, seq, found)
    return found


PILES = kept()  # by (language, drawn from, count)


def pile(tv: TableView, said: Words) -> Markup:
    """The boneyard and how many tiles it holds, drawn once per language and count."""
    key = (said.lang, tv.rules.boneyard, tv.game.boneyard_count)
    found = recall(PILES, key)
    if found is None:
        count = key[2]
        if tv.rules.boneyard:
            what = said.ngettext("tile in the boneyard", "tiles in the boneyard", count)
        elif not count:  # every tile dealt (pairs of seven): nothing sleeps, nothing to say
            remember(PILES, key, Markup(""))
            return Markup("")
        else:
            what = said.ngettext("tile sleeping, never drawn", "tiles sleeping, never drawn", count)
        found = markup.pile(count, what)
        remember(PILES, key, found)
    return found


RULES_LINES = kept()  # by (language, rules)


def rules_paragraph(tv: TableView, said: Words) -> Markup:
    """The room's rules in one line, with them as JSON (docs/contracts.md, page hooks `data-rules`),
    as the summary of the panel that gives them in full (rules_panel.html), drawn once per
    language and rules."""
    key = (said.lang, tv.rules)
    found = recall(RULES_LINES, key)
    if found is None:
        found = draw("rules_panel.html", {**said.jinja, **rules_text.panel_values(tv.rules)})
        remember(RULES_LINES, key, found)
    return found


def company(tv: TableView, said: Words) -> Markup:
    """Each other seat at a table of three or four (docs/contracts.md, page hooks `data-seat`), as
    West, North
    and East, each drawn once for as long as it, its turn and where it sits stay the same."""
    over, turn, parts = tv.game.over, tv.game.turn, []
    for c in names.shown_company(tv):
        moving = not over and turn == c.seat
        key = None if c.name else (tv.seat, tv.rules, tv.kind, tv.public, c, moving)
        parts += (
            markup.COMPANY_GAP,
            part("company.html", said, key, names.seat_values, tv, c, moving),
        )
    return markup.joined(parts)


def controls(
    tv: TableView, said: Words, room_url: str, many: bool, levels: bool = False
) -> Markup | str:
    """Who plays the other seats, when this seat may say (seat_controls.html): hand a seat
    over while its player is away for long, or (the creator, at three or four) give a free
    seat to the computer; with `levels`, the level of each seat the computer plays (in the
    folded table settings, issue 29). Drawn once for as long as the seats stay the same."""
    creator = many and tv.seat == 0
    if levels:
        shown = any(creator and c.computer and not c.held for c in tv.company)
    else:
        shown = any(c.away_long or (creator and not c.held and not c.computer) for c in tv.company)
    if not shown:
        return ""
    minutes = names.away_minutes()
    key = (room_url, tv.seat, tv.rules, tv.kind, minutes, levels)
    key += tuple((c.seat, c.away_long, c.held, c.computer) for c in tv.company)
    if any(c.name for c in tv.company):
        key = None  # a player's own name: never kept

    def values() -> dict:
        seats = []  # as West, North, East
        for c in names.shown_company(tv):
            name = names.name_of(tv, c.seat)
            away = c.away_long
            note = names.away_note(name) if away else None
            seats.append((c, name, note, names.hand_over_label(name) if away else None))
        return {"seats": seats, "creator": creator, "room_url": room_url, "levels": levels}

    return part("seat_controls.html", said, key, values)


def next_kind(tv: TableView) -> str:
    """What the next deal is: "continue" (a match's next round), "match" or "round"."""
    if tv.match:
        return "continue" if tv.between_rounds else ("match" if tv.full else "round")
    return "round"


def next_deal(
    tv: TableView, said: Words, room_url: str, many: bool, play: str | None = None
) -> Markup:
    """The next deal's question and buttons (next.html): drawn once for every seat that reads
    the same language and has said the same, until that changes (a rematch request: for
    each seat); the room's version goes into its buttons at each use. At a public table
    (`play`: quick match's page) only "Continue" between a match's rounds (none for a seat
    whose player lost the match by leaving it), and once the match is over a link to play
    again."""
    seat_view = tv.game
    kind = next_kind(tv)
    asks = tv.full and tv.kind == "friend" and not seat_view.over and (not many or tv.people > 1)
    values = {
        "kind": kind,
        "request": tv.request,
        "request_kind": tv.request_kind,
        "many": many,
        "over": seat_view.over,
        "asks": asks,
        "loses": tv.full and not seat_view.over and not asks,
        "rematch": seat_view.over and tv.full and not tv.rematch and not tv.public,
        "play": play if tv.public else None,
        # a seat whose player lost the match by leaving it: nothing to answer until it ends
        "lost": tv.seat in tv.lost and (not seat_view.over or kind == "continue"),
        "room_url": room_url,
        "seq_vals": markup.SEQ_MARK,  # the same part serves every move until something else changes
    }
    version = seq_vals(tv.seq)
    if tv.request and tv.request_kind == "rematch":  # rematch_request.html reads the view
        return part("next.html", said, None, dict, {**values, "seq_vals": version, "tv": tv})
    drawn = part("next.html", said, tuple(values.values()), dict, values)
    return Markup(drawn.replace(markup.SEQ_MARK, version))
