"""Fair deals as a seat's browser sees them: the home page's fields for the first deal, the deals
in a seat's log, a client seed."""

from __future__ import annotations

from tests.support.webkit import Table, parse


def seed_of(n: int) -> str:
    return f"{n:032x}"


def home_fields(player: Table) -> dict:
    """What the home page's form carries for the first deal, with a client seed added as
    static/fair.js adds it."""
    form = parse(player.home().get_data(as_text=True)).one("data-rules-form")
    token = form.find("name", "fair", tag="input").get("value")
    return {"fair": token, "commitment": form.get("data-next-commitment")}


def deals(player: Table) -> list[dict]:
    return [data for _seq, kind, data in player.log if kind == "deal"]
