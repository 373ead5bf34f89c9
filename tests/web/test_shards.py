"""One shard of several: its rooms carry its name, its pages create rooms at home, its fair
deals are its own."""

from __future__ import annotations

import re

import pytest

from app import create_app
from tests.support.fairness import deals, home_fields, seed_of
from tests.support.webkit import Table, make_app, parse

TOKEN = r"[A-Za-z0-9_-]{22}"  # 128 random bits, as room.new_room_id draws them


@pytest.fixture
def shard_app(tmp_path):
    """Shard s2's app (its database its own, its secret key the cluster's)."""
    return make_app(tmp_path / "s2.sqlite3", SHARD="s2")


def shard(tmp_path, name: str):
    """Another process of the cluster: shard `name` ("": no shard), the same secret key."""
    return make_app(tmp_path / f"{name or 'alone'}.sqlite3", SHARD=name)


def created(app, path: str = "/rooms", **fields) -> Table:
    """A room created from the home page by posting to `path`, its creator at it."""
    player = Table(app)
    player.create_room(path, **fields)
    return player


def creation_forms(app) -> dict[str, str]:
    """Where the home page's rules card posts: for a friend, for the computer."""
    doc = parse(Table(app).home().get_data(as_text=True))
    form = doc.one("data-rules-form")
    assert form.get("method") == "post"
    computer = form.one("data-action", "play-computer", tag="button")
    return {"friend": form.get("action"), "computer": computer.get("formaction")}


# --- room ids ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/rooms", "/computer"])
def test_a_shards_rooms_start_with_its_name(shard_app, path):
    player = created(shard_app, path)
    assert re.fullmatch(f"s2-{TOKEN}", player.room), player.room
    assert player.open().status_code == 200  # the room's own page, found by that id
    assert player.services.rooms.get(player.room).id == player.room


@pytest.mark.parametrize("path", ["/rooms", "/computer"])
def test_a_lone_servers_rooms_have_no_shard_name(app, path):
    player = created(app, path)
    assert re.fullmatch(TOKEN, player.room), player.room


def test_the_shard_comes_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("DOMINO_SHARD", "s7")
    player = created(make_app(tmp_path / "s7.sqlite3"))
    assert player.room.startswith("s7-")


# --- creation forms ---------------------------------------------------------------------------


def test_a_shards_home_page_creates_rooms_at_that_shard(shard_app):
    forms = creation_forms(shard_app)
    assert forms == {"friend": "/rooms?shard=s2", "computer": "/computer?shard=s2"}
    for kind, path in forms.items():  # and posting there creates the room
        assert created(shard_app, path).room.startswith("s2-"), kind


def test_a_lone_servers_home_page_creates_rooms_at_plain_addresses(app):
    assert creation_forms(app) == {"friend": "/rooms", "computer": "/computer"}


def test_a_missing_rooms_page_starts_a_table_at_its_own_shard(shard_app):
    response = Table(shard_app).get("/r/s2-AAAAAAAAAAAAAAAAAAAAAA")
    assert response.status_code == 404
    doc = parse(response.get_data(as_text=True))
    start = doc.one("data-action", "create-room", tag="button")
    while start.tag != "form":
        start = start.parent
    assert start.get("action") == "/rooms?shard=s2"


# --- fair deals -------------------------------------------------------------------------------


def fairness_of(room: Table) -> dict:
    return deals(room)[0]["fairness"]


def kept(block: dict, fields: dict, seed: str) -> bool:
    """Whether the first deal is the one the page committed to, with the player's seed."""
    return block["commitment"] == fields["commitment"] and block["client_seeds"][0] == seed


@pytest.mark.parametrize(
    ("maker", "taker", "keeps"),
    [
        ("s2", "s2", True),
        ("", "", True),
        ("s1", "s2", False),  # another shard's nonce: it could be spent there too
        ("", "s2", False),
        ("s2", "", False),
    ],
)
def test_only_the_shard_that_committed_deals_the_committed_deal(tmp_path, maker, taker, keeps):
    drawing = shard(tmp_path, maker)
    posting = drawing if taker == maker else shard(tmp_path, taker)
    fields = home_fields(Table(drawing))
    room = created(posting, "/computer", **fields, client_seed=seed_of(7))
    block = fairness_of(room)
    assert kept(block, fields, seed_of(7)) is keeps
    if not keeps:  # committed afresh, the browser's seed dropped (as a spent token's)
        assert block["commitment"] != fields["commitment"]
        assert block["client_seeds"] == [None, None]


def test_a_token_another_shard_refused_still_counts_at_its_own(tmp_path):
    s1, s2 = shard(tmp_path, "s1"), shard(tmp_path, "s2")
    fields = home_fields(Table(s1))
    elsewhere = created(s2, "/computer", **fields, client_seed=seed_of(3))
    assert elsewhere.room.startswith("s2-")  # the room is made all the same, dealt afresh
    assert fairness_of(elsewhere)["client_seeds"] == [None, None]
    at_home = created(s1, "/computer", **fields, client_seed=seed_of(4))
    assert at_home.room.startswith("s1-")
    assert kept(fairness_of(at_home), fields, seed_of(4))


# --- bad names --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["S1", "s-1", "1s", "s 1", "s" * 17, "s1\n"])
def test_a_bad_shard_name_stops_the_app(tmp_path, name):
    config = {"TESTING": True, "DOMINO_DB": str(tmp_path / "x.sqlite3"), "SECRET_KEY": "x"}
    with pytest.raises(ValueError, match="a shard's name is a-z"):
        create_app({**config, "SHARD": name})


def test_a_bad_shard_name_in_the_environment_stops_the_app(tmp_path, monkeypatch):
    monkeypatch.setenv("DOMINO_SHARD", "S1")
    with pytest.raises(ValueError, match="a shard's name is a-z"):
        make_app(tmp_path / "x.sqlite3")


def test_an_empty_shard_name_is_no_shard(tmp_path):
    player = created(shard(tmp_path, ""))
    assert re.fullmatch(TOKEN, player.room), player.room
