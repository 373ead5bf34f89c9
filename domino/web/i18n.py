"""Languages: chosen from Accept-Language, switched on any page, remembered in a cookie."""

from __future__ import annotations

import re
from pathlib import Path

from flask import Blueprint, abort, redirect, request
from flask_babel import Babel, get_locale, get_translations
from jinja2 import pass_context
from markupsafe import Markup

CATALOGS = Path(__file__).resolve().parent.parent / "translations"
LANGUAGES = {"nl": "Nederlands", "pl": "Polski", "fr": "Français", "en": "English"}
COOKIE = "lang"
YEAR = 365 * 24 * 3600
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # C0 and C1 controls, CR and LF among them

bp = Blueprint("i18n", __name__)
babel = Babel()


def chosen_language() -> str:
    """The cookie's language if it is one of ours, else the browser's best match."""
    if request is None:
        return "en"
    wanted = request.cookies.get(COOKIE)
    if wanted in LANGUAGES:
        return wanted
    return request.accept_languages.best_match(list(LANGUAGES), default="en")


def bound_gettext() -> dict:
    """Jinja's gettext, ngettext and pgettext bound to the current language's catalog.

    Passed to one render, they replace Flask-Babel's, which look the catalog up again on every
    call (a table has dozens of them). They format as Jinja's "newstyle" gettext does.
    """
    catalog = get_translations()

    def finish(context, text: str, variables: dict) -> str:
        if context.eval_ctx.autoescape:
            text = Markup(text)
        return text % variables

    @pass_context
    def gettext(context, string: str, **variables):
        return finish(context, catalog.ugettext(string), variables)

    @pass_context
    def ngettext(context, singular: str, plural: str, num: int, **variables):
        variables.setdefault("num", num)
        return finish(context, catalog.ungettext(singular, plural, num), variables)

    @pass_context
    def pgettext(context, string_ctx: str, string: str, **variables):
        variables.setdefault("context", string_ctx)
        return finish(context, catalog.upgettext(string_ctx, string), variables)

    # `_` too: Jinja's own `_` looks `gettext` up in the context and calls it, every time.
    return {"_": gettext, "gettext": gettext, "ngettext": ngettext, "pgettext": pgettext}


@bp.get("/lang/<code>")
def switch(code: str):
    """Remember a language and go back to the page the switch was on.

    `next` is a path of this app, below its script root (`request.full_path`); anything
    else goes back to the home page, and a control character in it is refused (400).
    """
    target = request.args.get("next", "/")
    if CONTROL.search(target):
        abort(400)
    if not is_local_path(target):
        target = "/"  # only ever back to a page of ours
    response = redirect(request.script_root + target, 303)
    if code in LANGUAGES:
        response.set_cookie(COOKIE, code, max_age=YEAR, samesite="Lax", secure=request.is_secure)
    return response


def is_local_path(target: str) -> bool:
    """True for a path of this site: "/…" but not "//host", and with no backslash (browsers
    read "/\\host" as "//host")."""
    return target.startswith("/") and not target.startswith("//") and "\\" not in target


def init_app(app) -> None:
    """Attach Flask-Babel with our catalogs and the language choice."""
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(CATALOGS))
    babel.init_app(app, locale_selector=chosen_language)
    app.register_blueprint(bp)

    @app.context_processor
    def languages():
        return {"LANGUAGES": LANGUAGES, "lang": str(get_locale() or "en")}
