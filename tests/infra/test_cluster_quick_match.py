"""Quick match in a real cluster (issue 31, docs/cluster.md): two shards, the lobby and nginx,
as `make cluster` writes and runs them (tests/support/shards.py). Two signed-in players whose
home pages two different shards drew press quick match for `classic` (the lobby's /play/,
through nginx); the lobby's waves open their table on a shard over HTTP (POST
/internal/tables at the shard's own address, DOMINO_SHARD_URLS), and each browser, asking the
waiting page, is sent through its seat grant to the same room's page on that shard, seated: a
seat each. Over three pairs the rooms are opened on both shards. The shards' endpoint is
reached at their own addresses alone: nginx and the lobby's process answer it 404."""

from __future__ import annotations

import dataclasses
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from domino.cluster.__main__ import cluster_of, parse_args
from domino.cluster.files import lobby_program, shard_program
from domino.web.live.waves import PATH, signer
from tests.support.faults import Seat, csrf_field
from tests.support.shards import HIGH_LIMITS, Processes, cluster_in, nginx_missing, post_status
from tests.support.webkit import parse

ENV = {
    **HIGH_LIMITS,
    "DOMINO_RATELIMIT_NAME": "1000 per minute",
    "DOMINO_PING_SECONDS": "60",
    "DOMINO_WAVE_SECONDS": "0.5",
    "DOMINO_FILL_SECONDS": "600",  # nobody waits for the computer here: people only
}
SEATING = 15.0  # seconds for a wave to seat a pair (one runs at once when someone joins)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if nginx_missing():
        pytest.skip("nginx is not installed (Debian's package nginx; CI installs it)")
    with Processes(cluster_in(tmp_path_factory.mktemp("quickmatch"), 2, ENV)) as running:
        yield running


def signed_in(cluster, name: str) -> Seat:
    """A new browser that took `name` on a home page's form, through nginx."""
    seat = Seat(cluster)
    _status, home, _url = seat.request("/")
    status, _page, url = seat.request("/me/name", {"name": name, "csrf_token": csrf_field(home)})
    assert status == 200 and url == f"{cluster.url}/", (status, url)
    return seat


def quick_match_from(seat: Seat, shard: str) -> None:
    """Press quick match for `classic` on a home page that `shard` drew."""
    for _ in range(20):
        _status, home, _url = seat.request("/")
        if drawn_by(home) == shard:
            break
    else:
        raise AssertionError(f"20 home pages and none drawn by {shard}")
    form = parse(home).one("data-quick-match")
    token = form.one("name", "csrf_token", tag="input").get("value")
    status, _page, url = seat.request(form.get("action"), {"game": "classic", "csrf_token": token})
    assert status == 200, (status, url)  # the waiting page (or, seated at once, the room's)


def drawn_by(page: str) -> str:
    """The shard that drew a home page (its creation form posts `?shard=` it)."""
    action = parse(page).one("data-rules-form").get("action")
    return urllib.parse.parse_qs(urllib.parse.urlsplit(action).query)["shard"][0]


def seated(seat: Seat) -> tuple[str, str]:
    """Ask the waiting page until the wave has seated this browser: it is sent through its
    seat grant to its room's page. (room id, that page)."""
    end = time.monotonic() + SEATING
    while True:
        status, page, url = seat.request("/play/")
        path = urllib.parse.urlsplit(url).path
        if path.startswith("/r/"):
            assert status == 200, (status, url, page[:300])
            return path.removeprefix("/r/"), page
        assert status == 200 and time.monotonic() < end, (status, url, "never seated")
        time.sleep(0.2)


def hand(page: str) -> set[str]:
    return {tile.get("data-tile") for tile in parse(page).one("data-hand").find_all("data-tile")}


@pytest.mark.slow
def test_players_from_two_shards_pages_quick_match_into_one_room_on_either_shard(cluster):
    shards_used = []
    for pair in range(3):
        ana = signed_in(cluster, f"Ana_Q{pair}")
        bob = signed_in(cluster, f"Bob_Q{pair}")
        quick_match_from(ana, "s1")
        quick_match_from(bob, "s2")
        (room_a, page_a), (room_b, page_b) = seated(ana), seated(bob)
        assert room_a == room_b, "the two were not seated together"
        shard = room_a.split("-", 1)[0]
        assert shard in ("s1", "s2"), room_a
        shards_used.append(shard)
        for page in (page_a, page_b):
            doc = parse(page)
            assert doc.one("id", "table").has("data-public")
            assert len(hand(page)) == 7  # this browser holds a seat: its own hand
        assert not hand(page_a) & hand(page_b), "both pages show the same seat"
        turns = sorted(parse(p).one("data-turn").get("data-turn") for p in (page_a, page_b))
        assert turns == ["opponent", "you"], turns  # one seat each, one of them to move
        assert f"Bob_Q{pair}" in parse(page_a).one("class", "who").text
        assert f"Ana_Q{pair}" in parse(page_b).one("class", "who").text
    assert set(shards_used) == {"s1", "s2"}, shards_used


@pytest.mark.slow
def test_tables_are_opened_at_a_shards_own_address_alone(cluster):
    """nginx refuses /internal/ from outside, the lobby's process has no rooms to open, and
    a shard opens a table signed with the cluster's key only (cluster_in: "cluster-test")."""
    table = {"game": "classic", "seats": [["p-outside", "Out"], None]}
    good = signer("cluster-test").dumps(table)
    assert post_status(cluster.url + PATH, good) == 404  # through nginx: no route
    assert post_status(f"http://{cluster.cluster.lobby.address}{PATH}", good) == 404
    shard = f"http://{cluster.cluster.shard('s2').address}{PATH}"
    assert post_status(shard, signer("another key").dumps(table)) == 403
    assert post_status(shard, good) == 200


def test_the_lobby_is_told_every_shard_it_may_open_tables_on(tmp_path):
    """`python -m domino.cluster` gives the lobby its shards' own addresses, the remote ones
    too; a DOMINO_SHARD_URLS among the cluster's settings replaces them."""
    options = ["write", "--instance", str(tmp_path), "--no-router", "--lobby-port", "9000"]
    cluster = cluster_of(parse_args([*options, "--remote", "s3=10.0.0.2:8003"]))
    env = lobby_program(cluster, cluster.lobby).env
    assert env["DOMINO_SHARD_URLS"] == (
        "http://127.0.0.1:8001,http://127.0.0.1:8002,http://10.0.0.2:8003"
    )
    for shard in cluster.local:
        assert "DOMINO_SHARD_URLS" not in shard_program(cluster, shard).env
    told = dataclasses.replace(cluster, env={"DOMINO_SHARD_URLS": "http://10.0.0.9:8009"})
    assert lobby_program(told, told.lobby).env["DOMINO_SHARD_URLS"] == "http://10.0.0.9:8009"
    lobby_only = cluster_of(parse_args(["write", "--shards", "0", "--no-router"]))
    assert "DOMINO_SHARD_URLS" not in lobby_program(lobby_only, lobby_only.lobby).env
