#!/usr/bin/env python3
"""Render a fixed corpus of tables to one file: a change to the rendering must leave it as it was.

Usage: python tools/render_corpus.py OUT   (prints the number of tables; the domino package is
the one Python imports, e.g. PYTHONPATH=/tmp/base for another checkout)
       python tools/render_corpus.py --digests tests/web/render_corpus.sha256
           (one SHA-256 per table, as tests/web/test_render_snapshot.py checks them: `make
           snapshot` after a deliberate change)

Rooms are driven from seeded random numbers through the room folds alone (no store): friend
and computer rooms of two seats under several presets, tables of three and four, requests,
rematches and matches played to their end. At every position each seated seat's table is
rendered in every language (every connected, live), then in one language by turns: with each
tile that asks for an end selected, with a notice, as a full page, before the socket is live,
and with the others away. Everything renders in one process, one table after another, so a
cache that served one table's parts to another would show here.
"""

from __future__ import annotations

import hashlib
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

from flask import Blueprint, Flask
from flask_babel import force_locale

import domino
from domino import game
from domino.actions import fold_in, fresh_deal, level_event, name_event, rules_event
from domino.commands import decide, move
from domino.room import Room, empty
from domino.rules import DEFAULT, PRESETS
from domino.views import table_view
from domino.web.view import i18n, rules_text
from domino.web.view.faces import face
from domino.web.view.messages import NOTICES, notice, refusal
from domino.web.view.render import Links, choices, links, render_table

LANGUAGES = ("en", "nl", "pl", "fr")
ROOT = Path(domino.__file__).resolve().parent.parent  # templates/ is there


@dataclass
class Case:
    """One table to render: its label, language and `render_table` arguments."""

    label: str
    lang: str
    tv: object
    links: Links
    options: dict = field(default_factory=dict)
    news: str | None = None  # a notice's or refusal's code, worded in `lang`


class Driven:
    """A room changed through the folds the store would replay, and the tables seen on the way."""

    def __init__(self, name, kind, rules=DEFAULT, counter=False, level="medium", seed=1):
        self.rng, self.moves = random.Random(seed), random.Random(seed + 1000)
        events = [rules_event(rules), ("seat", {"seat": 0, "hash": "h0"})]
        if counter:
            events.append(("options", {"counter": True}))
        if kind == "computer":
            events += [level_event(seat, level) for seat in range(1, rules.seats)]
        room = fold_in(empty(name, kind), events)
        self.room: Room = fold_in(room, fresh_deal(room, self.rng))
        self.cases: list[Case] = []
        self.shot = 0

    def add(self, events) -> None:
        """Fold `events` in, filling the table with a fresh deal if they took its last seat."""
        after = fold_in(self.room, events)
        if after.full and not self.room.full:
            after = fold_in(after, fresh_deal(after, self.rng))
        self.room = after

    def sit(self, seat: int) -> None:
        """A player takes `seat`."""
        self.add([("seat", {"seat": seat, "hash": f"h{seat}"})])

    def give(self, seat: int, level: str) -> None:
        """The computer plays `seat` (a free one, or one handed over)."""
        self.add([level_event(seat, level)])

    def name(self, seat: int, name: str) -> None:
        """The player of `seat` gives a display name."""
        self.add([name_event(seat, name)])

    def back(self, seat: int) -> None:
        """The player of `seat` takes it back from the computer."""
        self.add([("back", {"seat": seat})])

    def act(self, seat: int, action: str) -> None:
        """A new-round or rematch answer, as the room decides it."""
        self.add(decide(self.room, seat, action, {}, set(self.room.humans), self.rng).events)

    def play(self, moves: int = 999, every: int = 1) -> None:
        """Up to `moves` random legal moves (fewer if the round ends), a snapshot each `every`."""
        for done in range(moves):
            state = self.room.round
            if state.over:
                break
            seat = state.turn
            action = self.moves.choice(game.legal_actions(state, seat))
            self.add(move(self.room, seat, action).events)
            if done % every == 0 or self.room.round.over:
                self.snap()

    def snap(self) -> None:
        """The tables of this position (see the module's docstring)."""
        room, self.shot = self.room, self.shot + 1
        where = links(room)
        humans = set(room.humans)
        seated = [seat for seat, held in enumerate(room.seats) if held is not None]
        for seat in seated:
            tv = table_view(room, seat, humans)
            for lang in LANGUAGES:
                self.case(f"{seat} all", lang, tv, where)
        lang = LANGUAGES[self.shot % len(LANGUAGES)]
        for seat in seated:
            tv = table_view(room, seat, humans)
            for tile, choice in choices(tv).items():  # a real choice of ends: in every language
                for told in LANGUAGES if choice.direct is None else (lang,):
                    self.case(f"{seat} select {tile} {choice.ends}", told, tv, where, selected=tile)
            news = "stale" if self.shot % 2 else "taken-back"
            self.case(f"{seat} notice {news}", lang, tv, where, news=news)
            self.case(f"{seat} page", lang, tv, where, oob=False)
            self.case(f"{seat} connecting", lang, table_view(room, seat, humans, live=False), where)
            alone = table_view(room, seat, {seat}, True, humans - {seat} if self.shot % 3 else ())
            self.case(f"{seat} alone", lang, alone, where)

    def case(self, what: str, lang: str, tv, where: Links, news=None, **options) -> None:
        """One table of the corpus, labelled with its room, seq, seat and variant."""
        label = f"{self.room.id} seq {self.room.seq} seat {what} {lang}"
        self.cases.append(Case(label, lang, tv, where, options, news))


def friend_rounds() -> Driven:
    """Two friends: the preview, rounds played out, requests, a rematch and its duplicate."""
    d = Driven("friend-two", "friend", seed=3)
    d.snap()
    d.sit(1)
    d.snap()
    d.play()
    d.act(0, "new-round")
    d.snap()
    d.act(1, "decline-new-round")
    d.act(1, "rematch")
    d.snap()
    d.act(0, "accept-rematch")
    d.snap()
    d.play()
    d.act(1, "new-round")
    d.act(0, "accept-new-round")
    d.play(6)
    d.act(0, "new-round")
    d.snap()
    return d


def computer_match(preset: str, seed: int, counter: bool = False) -> Driven:
    """A match against the computer under `preset`, played to its end."""
    d = Driven(f"computer-{preset}", "computer", PRESETS[preset], counter, "hard", seed)
    d.snap()
    every = 1
    while True:
        d.play(every=every)
        d.snap()
        over = d.room.match.over
        d.act(0, "new-round")  # the next round, or once the match is over a new match
        if over:
            break
        every = 3
    d.play(4)
    return d


def friend_match(preset: str, seed: int) -> Driven:
    """A friends' match with the counter on: every round asked for and agreed."""
    d = Driven(f"friend-{preset}", "friend", PRESETS[preset], True, seed=seed)
    d.sit(1)
    for _round in range(3):
        d.play(every=2)
        d.act(1, "new-round")
        d.snap()
        d.act(0, "accept-new-round")
    return d


def table_of(seats: int, seed: int) -> Driven:
    """Three or four seats: seats taken one by one, names, a seat given to the computer, a
    player away handed over and taken back, a round played out and the next asked for."""
    d = Driven(f"table-{seats}", "friend", PRESETS["three" if seats == 3 else "pairs"], seed=seed)
    d.snap()
    d.sit(1)
    d.name(1, 'Zoë <&> "Ann"')
    d.snap()
    if seats == 4:
        d.sit(2)
        d.name(0, "Bo")
        d.snap()
    d.give(seats - 1, "easy")
    d.snap()
    d.play(8)
    d.give(1, "medium")  # seat 1 handed over while away
    d.snap()
    d.play(4)
    d.back(1)
    d.snap()
    d.play(every=2)
    d.act(0, "new-round")
    d.snap()
    d.act(1, "accept-new-round")
    d.play(5)
    return d


def computer_four(seed: int) -> Driven:
    """One player and three computer seats, with the counter on."""
    d = Driven("computer-pairs", "computer", PRESETS["pairs"], True, "easy", seed)
    d.snap()
    d.play()
    d.act(0, "new-round")
    d.play(10, every=2)
    return d


def corpus() -> list[Case]:
    """Every table of the corpus, in the order they are rendered."""
    rooms = [
        friend_rounds(),
        computer_match("match-100", 5, counter=True),
        computer_match("goat", 6),
        friend_match("block", 7),
        friend_match("international", 8),
        table_of(3, 9),
        table_of(4, 10),
        computer_four(11),
    ]
    return [case for room in rooms for case in room.cases]


def app_for_corpus() -> Flask:
    """An app with what a table needs and nothing else (no store, no sockets): the templates,
    the catalogs, the globals init_app gives them, and the route a room's links point to."""
    app = Flask("domino-corpus", root_path=str(ROOT))
    app.config.update(TESTING=True, SECRET_KEY="x", AWAY_SECONDS=120)
    i18n.init_app(app)
    app.jinja_env.globals["face"] = face
    rules_text.register(app)
    pages = Blueprint("pages", __name__)
    pages.add_url_rule("/r/<room_id>", "room", lambda room_id: room_id)
    app.register_blueprint(pages)
    return app


def render(case: Case) -> str:
    """One case's table (call inside a request context)."""
    with force_locale(case.lang):
        text = None
        if case.news:
            text = notice(case.news) if case.news in NOTICES else refusal(case.news)
        return render_table(case.tv, case.links, notice=text, **case.options)


def chunks():
    """Each table of the corpus as OUT holds it: its `=== label` line, the table, a newline."""
    app = app_for_corpus()
    with app.test_request_context("/", base_url="https://example.org/"):
        for case in corpus():
            yield f"=== {case.label}\n{render(case)}\n"


def digest(chunk: str) -> str:
    """The SHA-256 of one table as OUT holds it (tests/web/render_corpus.sha256, one a line)."""
    return hashlib.sha256(chunk.encode("utf-8")).hexdigest()


def main() -> None:
    digests = sys.argv[1] == "--digests"
    out = Path(sys.argv[2 if digests else 1])
    count = 0
    with out.open("w", encoding="utf-8") as file:
        for chunk in chunks():
            file.write(f"{digest(chunk)}\n" if digests else chunk)
            count += 1
    print(f"{count} tables written to {out}" + (" as digests" if digests else ""))


if __name__ == "__main__":
    main()
