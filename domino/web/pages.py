"""Server-rendered pages: the home page and a health check."""

from flask import Blueprint, render_template

bp = Blueprint("pages", __name__)


@bp.get("/")
def home():
    """Show the home page."""
    return render_template("home.html")


@bp.get("/healthz")
def healthz():
    """Answer a liveness probe with plain "ok"."""
    return "ok", 200, {"Content-Type": "text/plain; charset=utf-8"}
