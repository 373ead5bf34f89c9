"""Languages: chosen from the cookie (web/routes/languages.py sets it) or Accept-Language, and
each language's words, bound once."""

from __future__ import annotations

import functools
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from flask import request
from flask_babel import Babel, get_locale, get_translations
from jinja2 import pass_eval_context
from markupsafe import Markup

from .kept import EVER, kept, recall, remember

CATALOGS = Path(__file__).resolve().parents[2] / "translations"
LANGUAGES = {"nl": "Nederlands", "pl": "Polski", "fr": "Français", "en": "English"}
COOKIE = "lang"

babel = Babel()


def chosen_language() -> str:
    """The cookie's language if it is one of ours, else the browser's best match."""
    if request is None:
        return "en"
    wanted = request.cookies.get(COOKIE)
    if wanted in LANGUAGES:
        return wanted
    return request.accept_languages.best_match(list(LANGUAGES), default="en")


class Words:
    """One language's catalog, bound once: Flask-Babel's gettext, ngettext and pgettext (same
    results), and Jinja's for the templates, without looking the catalog up on every call."""

    def __init__(self, lang: str, catalog) -> None:
        self.lang = lang
        self.catalog = catalog
        self.jinja = _jinja_gettext(catalog)

    def gettext(self, string: str, **variables) -> str:
        text = self.catalog.ugettext(string)
        return text % variables if variables else text

    def ngettext(self, singular: str, plural: str, num: int, **variables) -> str:
        variables.setdefault("num", num)
        return self.catalog.ungettext(singular, plural, num) % variables

    def pgettext(self, context: str, string: str, **variables) -> str:
        text = self.catalog.upgettext(context, string)
        return text % variables if variables else text


WORDS = kept(EVER)  # by Flask-Babel's locale (None outside a request): the catalogs never change
_held: ContextVar[Words | None] = ContextVar("words", default=None)


def words() -> Words:
    """The current language's words: the table's while one renders (`speaking`), else those of
    Flask-Babel's locale."""
    held = _held.get()
    if held is not None:
        return held
    locale = get_locale()
    found = recall(WORDS, locale)
    if found is None:
        found = Words(str(locale or "en"), get_translations())
        remember(WORDS, locale, found)
    return found


@contextmanager
def speaking(held: Words):
    """Hold `held` as the current language's words for a while (one table's render)."""
    token = _held.set(held)
    try:
        yield held
    finally:
        _held.reset(token)


def gettext(string: str, **variables) -> str:
    """Flask-Babel's gettext, in the current language."""
    return words().gettext(string, **variables)


def ngettext(singular: str, plural: str, num: int, **variables) -> str:
    """Flask-Babel's ngettext, in the current language."""
    return words().ngettext(singular, plural, num, **variables)


def pgettext(context: str, string: str, **variables) -> str:
    """Flask-Babel's pgettext, in the current language."""
    return words().pgettext(context, string, **variables)


def _jinja_gettext(catalog) -> dict:
    """Jinja's gettext, ngettext and pgettext bound to `catalog`, to pass to a render.

    They replace Flask-Babel's, which look the catalog up again on every call (a table has
    dozens of them), and format as Jinja's "newstyle" gettext does. They take the evaluation
    context, not the context (all they need is whether to escape): called in a loop, a
    function that takes the context gets a copy of it made for the call. A message without
    variables is looked up and escaped once.
    """

    @functools.cache  # by message: the catalog's words, as markup
    def plain(string: str) -> Markup:
        return Markup(catalog.ugettext(string)) % {}

    def finish(eval_ctx, text: str, variables: dict) -> str:
        if eval_ctx.autoescape:
            text = Markup(text)
        return text % variables

    @pass_eval_context
    def gettext(eval_ctx, string: str, **variables):
        if variables or not eval_ctx.autoescape:
            return finish(eval_ctx, catalog.ugettext(string), variables)
        return plain(string)

    @pass_eval_context
    def ngettext(eval_ctx, singular: str, plural: str, num: int, **variables):
        variables.setdefault("num", num)
        return finish(eval_ctx, catalog.ungettext(singular, plural, num), variables)

    @pass_eval_context
    def pgettext(eval_ctx, string_ctx: str, string: str, **variables):
        variables.setdefault("context", string_ctx)
        return finish(eval_ctx, catalog.upgettext(string_ctx, string), variables)

    # `_` too: Jinja's own `_` looks `gettext` up in the context and calls it, every time.
    return {"_": gettext, "gettext": gettext, "ngettext": ngettext, "pgettext": pgettext}


def init_app(app) -> None:
    """Attach Flask-Babel with our catalogs and the language choice (the switch is a route:
    web/routes/languages.py)."""
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(CATALOGS))
    babel.init_app(app, locale_selector=chosen_language)

    @app.context_processor
    def languages():
        return {"LANGUAGES": LANGUAGES, "lang": str(get_locale() or "en")}
