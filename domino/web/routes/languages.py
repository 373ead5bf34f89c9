"""The language switch on every page: `/lang/<code>` remembers a language in a cookie."""

from __future__ import annotations

import re

from flask import Blueprint, abort, redirect, request

from ..view.i18n import COOKIE, LANGUAGES

YEAR = 365 * 24 * 3600
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # C0 and C1 controls, CR and LF among them

bp = Blueprint("i18n", __name__)  # its endpoint stays i18n.switch, as the pages link it


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
