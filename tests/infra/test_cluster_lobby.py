"""The lobby as a process of its own in a cluster (issue 30): written, routed, killed, restored.

The cluster runs as `make cluster` runs it, under supervisord (tests/support/supervised.py): two
shards, the lobby, a Litestream for each, nginx. A browser takes a name through nginx (the lobby
answers /me/name) and its name shows on room pages the two shards serve, from the signed cookie
alone: no shard has the lobby's database open. The lobby is SIGKILLed; supervisord starts it
again and its players, sessions and passkeys are all there. Its restore drill is a shard's:
stopped, its disk lost, `python -m domino.cluster restore lobby`, started, everyone back.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from supervisor.datatypes import dict_of_key_value_pairs

from domino.cluster import LOBBY, Cluster, LobbyServer, Shard, folders, tool
from domino.cluster.__main__ import cluster_of, main, parse_args
from domino.cluster.files import programs, write
from domino.lobby import Lobby
from domino.players import names
from domino.web import LOBBY_PREFIXES
from tests.support.cluster_rooms import home_form
from tests.support.faults import Seat, csrf_field
from tests.support.shards import HIGH_LIMITS, Processes, cluster_in, nginx_missing
from tests.support.supervised import Supervised
from tests.support.webkit import parse

ROOT = Path(__file__).resolve().parents[2]
ENV = {**HIGH_LIMITS, "DOMINO_PING_SECONDS": "60"}
REPLICA_DEADLINE = 30.0  # seconds for the replica to hold a write (it syncs every second)
needs_nginx = pytest.mark.skipif(
    nginx_missing(), reason="nginx is not installed (apt-get install nginx)"
)
FILES = [("", ""), ("", "-wal"), ("", "-shm"), (".", "-litestream")]  # around the db's name


# --- what is written ---------------------------------------------------------------------------


def written(folder: Path, **options) -> Cluster:
    """Two shards and the lobby, their files written (`python -m domino.cluster write`)."""
    shards = (Shard("s1", "127.0.0.1", 8101), Shard("s2", "127.0.0.1", 8102))
    settings = {
        "listen": "127.0.0.1:8100",
        "env": {"DOMINO_SECRET_KEY": "shared"},
        "lobby": LobbyServer("127.0.0.1", 9100),
        **folders(folder),
        **options,
    }
    cluster = Cluster(shards, **settings)
    write(cluster, {"en": "<p>back soon</p>"})
    return cluster


def supervisord_programs(cluster: Cluster) -> dict:
    import configparser

    conf = configparser.ConfigParser(interpolation=None)
    conf.read(cluster.supervisor_config)
    return {name[8:]: conf[name] for name in conf if name.startswith("program:")}


def test_the_lobby_runs_under_supervisord_with_its_database_and_the_shared_key(tmp_path):
    cluster = written(tmp_path)
    found = supervisord_programs(cluster)
    lobby = found[LOBBY]
    assert dict_of_key_value_pairs(lobby["environment"]) == {
        "DOMINO_LOBBY": "only",
        "DOMINO_LOBBY_DB": str(tmp_path / "shards" / "lobby.sqlite3"),
        "DOMINO_PROXIES": "1",
        "DOMINO_SECRET_KEY": "shared",
        # quick match's tables go to the shards' own addresses (web/live/waves.py over_http)
        "DOMINO_SHARD_URLS": "http://127.0.0.1:8101,http://127.0.0.1:8102",
    }
    assert "--bind=127.0.0.1:9100" in lobby["command"].split()
    assert lobby["command"].split()[0].endswith("gunicorn") and lobby["autorestart"] == "true"
    for shard in cluster.shards:  # no lobby database on a shard: its paths go to the lobby
        shard_env = dict_of_key_value_pairs(found[f"shard-{shard.name}"]["environment"])
        assert shard_env["DOMINO_LOBBY"] == "elsewhere"
        assert shard_env["DOMINO_SECRET_KEY"] == "shared"
    priority = {name: int(section["priority"]) for name, section in found.items()}
    assert priority["replicate-lobby"] < priority[LOBBY] < priority["nginx"]
    replicate = found["replicate-lobby"]["command"].split()
    assert replicate[-2:] == ["-config", str(cluster.state / "litestream-lobby.yml")]


def test_litestream_replicates_the_lobbys_database_to_its_own_folder(tmp_path):
    cluster = written(tmp_path)
    config = cluster.state / "litestream-lobby.yml"
    command = [tool("litestream"), "databases", "-json", "-config", str(config)]
    reads = subprocess.run(command, capture_output=True, text=True, timeout=30, check=True)
    assert str(tmp_path / "shards" / "lobby.sqlite3") in reads.stdout
    assert f'"{(tmp_path / "replicas" / "lobby").as_uri()}"' in config.read_text()
    assert "sync-interval: 1s" in config.read_text()
    remote = written(tmp_path / "s3", replica_url="s3://bucket/domino")
    text = (remote.state / "litestream-lobby.yml").read_text()
    assert '"s3://bucket/domino/lobby"' in text


def test_nginx_sends_the_lobbys_paths_to_the_lobby(tmp_path):
    conf = written(tmp_path).nginx_config.read_text()
    upstream = conf.split("    upstream lobby {\n", 1)[1].split("\n    }", 1)[0]
    assert "server 127.0.0.1:9100 max_conns=" in upstream and "zone lobby 64k;" in upstream
    for prefix in LOBBY_PREFIXES:
        block = conf.split(f"        location ^~ {prefix} {{\n", 1)[1].split("\n        }\n", 1)[0]
        assert block.startswith("            proxy_pass http://lobby;"), block
    # each prefix, and its sockets
    assert conf.count("proxy_pass http://lobby;") == 2 * len(LOBBY_PREFIXES)
    assert '"~^(?<player_page>/p/[^/?]+)" $player_page;' in conf  # retried when it is down


@needs_nginx
def test_nginx_accepts_a_router_whose_lobby_another_machine_runs(tmp_path):
    options = ["write", "--instance", str(tmp_path), "--shards", "0"]
    options += ["--remote", "s1=10.0.0.5:9001", "--remote-lobby", "10.0.0.6:9000"]
    assert main(options) == 0
    cluster = cluster_of(parse_args(options))
    assert [program.name for program in programs(cluster)] == ["nginx"]
    assert "server 10.0.0.6:9000 max_conns=" in cluster.nginx_config.read_text()
    check = [tool("nginx"), "-t", "-q", "-p", str(cluster.state / "nginx")]
    result = subprocess.run(
        [*check, "-c", str(cluster.nginx_config), "-e", "stderr"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_the_command_line_places_the_lobby(tmp_path):
    here = cluster_of(parse_args(["write", "--port", "9000", "--shard-host", "10.0.0.2"]))
    assert here.lobby == LobbyServer("10.0.0.2", 10000)  # nginx's port + 1000, by default
    moved = cluster_of(parse_args(["write", "--lobby-port", "8500"]))
    assert moved.lobby.address == "127.0.0.1:8500" and moved.lobby.local
    shards_only = cluster_of(parse_args(["write", "--no-router", "--no-lobby"]))
    assert shards_only.lobby is None
    assert LOBBY not in [program.name for program in programs(shards_only)]
    lobby_only = cluster_of(parse_args(["write", "--shards", "0", "--no-router"]))
    names_of = [program.name for program in programs(lobby_only)]
    assert names_of == ["replicate-lobby", LOBBY]  # a machine of the lobby alone


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--no-lobby"], "nginx sends the lobby's paths"),  # a router needs one
        (["--remote-lobby", "10.0.0.6"], "--remote-lobby takes HOST:PORT"),
        (["--remote-lobby", ":9000"], "--remote-lobby takes HOST:PORT"),
        (["--lobby-port", "70000"], "the lobby: no such port"),
        (["--remote", "lobby=10.0.0.5:9001"], "'lobby' is the lobby's name, not a shard's"),
    ],
)
def test_a_cluster_without_a_place_for_its_lobby_is_refused(tmp_path, options, message):
    with pytest.raises(SystemExit, match=message):
        main(["write", "--instance", str(tmp_path), *options])
    assert not list(tmp_path.iterdir()), "something was written"


def test_the_lobbys_restore_refuses_while_a_file_of_its_database_is_there(tmp_path):
    cluster = written(tmp_path)
    db = cluster.db(cluster.lobby)
    db.write_bytes(b"the lobby's own bytes")
    refused = restore_lobby(tmp_path)
    assert refused.returncode == 2
    assert str(db) in refused.stderr and "Stop the lobby and its replication" in refused.stderr
    assert db.read_bytes() == b"the lobby's own bytes"


# --- the cluster running ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """Two shards, the lobby and nginx under supervisord, as `make cluster` runs them."""
    if nginx_missing():
        pytest.skip("nginx is not installed (Debian's package nginx; CI installs it)")
    with Supervised(cluster_in(tmp_path_factory.mktemp("lobbycluster"), 2, ENV)) as running:
        yield running


def take_name(cluster, name: str) -> Seat:
    """A new browser takes `name` on the home page's form, through nginx: signed in."""
    seat = Seat(cluster)
    status, home, _url = seat.request("/")
    assert status == 200
    form = parse(home).one("data-name-form")
    assert form.get("action") == "/me/name"
    status, page, url = seat.request("/me/name", {"name": name, "csrf_token": csrf_field(home)})
    assert status == 200 and url == f"{cluster.url}/", (status, url, page[:300])
    assert shown_name(page) == name  # the home page, drawn by a shard
    return seat


def shown_name(page: str) -> str | None:
    """The name the page's player bar shows (SPEC §14 `data-player`), or None."""
    found = parse(page).find("data-player")
    return found.text if found is not None else None


def room_on(cluster, seat: Seat, shard: str) -> str:
    """A friend room created by `seat` from a home page `shard` drew: its page, from `shard`."""
    for _ in range(20):
        drawn_by, path, fields = home_form(seat, "create-room")
        if drawn_by == shard:
            break
    else:
        raise AssertionError(f"20 home pages and none drawn by {shard}")
    status, page, url = seat.request(path, fields)
    room = url.rsplit("/", 1)[-1]
    assert status == 200 and room.startswith(f"{shard}-"), (status, url)
    return page


def bar(seat: Seat) -> str | None:
    """The player bar as the lobby checks it (GET /me/bar through nginx): the name, or None."""
    status, text, _url = seat.request("/me/bar", headers={"HX-Request": "true"})
    assert status == 200, status
    return shown_name(text)


@contextlib.contextmanager
def lobby_db(cluster):
    """The lobby's database, opened here for a moment (the Lobby API), then closed."""
    lobby = Lobby(cluster.cluster.db(cluster.cluster.lobby), names.canonical)
    try:
        yield lobby
    finally:
        lobby.close()


def add_passkey(cluster, name: str) -> bytes:
    """A passkey row for the player named `name`, written with the Lobby API."""
    credential = os.urandom(16)
    with lobby_db(cluster) as lobby:
        player = lobby.player_named(name)
        lobby.add_passkey(player.id, credential, b"public key bytes", 1, "Laptop")
    return credential


def kept(cluster, name: str, credential: bytes) -> None:
    """The player named `name` is in the lobby's database with the passkey `credential`."""
    with lobby_db(cluster) as lobby:
        player = lobby.player_named(name)
        assert player is not None and player.name == name, f"{name} was lost"
        assert [key.credential_id for key in lobby.passkeys(player.id)] == [credential]
        assert len(lobby.sessions(player.id)) == 1


def open_files(pid: int) -> set[str]:
    """What process `pid` and its children (a gunicorn master and worker) have open."""
    found = set()
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    for each in (pid, *map(int, children)):
        folder = Path(f"/proc/{each}/fd")
        for fd in folder.iterdir():
            with contextlib.suppress(OSError):
                found.add(os.readlink(fd))
    return found


@pytest.mark.slow
def test_a_name_taken_through_nginx_shows_on_the_room_pages_of_every_shard(cluster):
    seat = take_name(cluster, "Ada_Cluster")
    assert bar(seat) == "Ada_Cluster"  # the lobby checked the session behind the cookie
    for shard in ("s1", "s2"):  # the rooms' pages, each drawn by its own shard
        page = room_on(cluster, seat, shard)
        assert shown_name(page) == "Ada_Cluster", f"{shard}'s page shows no name"
        assert parse(page).one("id", "player-bar").get("hx-get") == "/me/bar"
    status, page, _url = seat.request("/p/Ada_Cluster")
    assert status == 200 and "Ada_Cluster" in page
    lobby_file = str(cluster.cluster.db(cluster.cluster.lobby))
    for shard in ("s1", "s2"):  # who is signed in, a shard knows from the signed cookie alone
        opened = open_files(cluster.pid(f"shard-{shard}"))
        assert not [path for path in opened if path.startswith(lobby_file)], shard
    assert lobby_file in open_files(cluster.pid(LOBBY))
    stranger = Seat(cluster)
    assert bar(stranger) is None
    assert stranger.request("/p/Nobody_Here")[0] == 404


@pytest.mark.slow
def test_the_lobby_sigkilled_is_started_again_by_supervisord_and_nothing_is_lost(cluster):
    seat = take_name(cluster, "Bo_Killed")
    credential = add_passkey(cluster, "Bo_Killed")
    before = cluster.pid(LOBBY)
    assert before > 0
    os.killpg(before, signal.SIGKILL)  # the server and its worker, as the OOM killer may
    end = time.monotonic() + 30
    while cluster.pid(LOBBY) in (0, before):
        assert time.monotonic() < end, (
            f"supervisord did not start the lobby again: {cluster.ctl('status')}"
        )
        time.sleep(0.1)
    cluster.wait_running([LOBBY])
    assert cluster.pid(LOBBY) != before
    assert "exited: lobby (terminated by SIGKILL" in supervisord_log(cluster)
    kept(cluster, "Bo_Killed", credential)
    assert bar(seat) == "Bo_Killed"  # the same cookies: the session is still there
    page = room_on(cluster, seat, "s1")
    assert shown_name(page) == "Bo_Killed"


def supervisord_log(cluster) -> str:
    return (cluster.cluster.state / "supervisord.log").read_text()


def restore_lobby(instance: Path) -> subprocess.CompletedProcess:
    """`python -m domino.cluster restore lobby`, as a person runs it, on these folders."""
    command = [sys.executable, "-m", "domino.cluster", "restore", LOBBY]
    command += ["--instance", str(instance)]
    env = {key: value for key, value in os.environ.items() if key != "DOMINO_REPLICA_URL"}
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def replica_holds(cluster: Cluster, name: str, scratch: Path) -> None:
    """Once the lobby's replica holds player `name`, a session and a passkey of theirs:
    restored into a scratch file again and again until then, or a failure at the deadline."""
    url = cluster.replica_at(cluster.lobby)
    scratch.mkdir(exist_ok=True)
    end = time.monotonic() + REPLICA_DEADLINE
    for attempt in itertools.count():
        copy = scratch / f"lobby-{attempt}.sqlite3"
        command = [tool("litestream"), "restore", "-o", str(copy), url]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        if done.returncode == 0 and counts(copy, name) == (1, 1, 1):
            return
        assert time.monotonic() < end, f"the replica lacks {name}: {done.stderr[-300:]}"
        time.sleep(0.2)


def counts(db: Path, name: str) -> tuple[int, int, int]:
    """The player `name`'s rows in a copy of the lobby's database: (players, sessions, keys)."""
    conn = sqlite3.connect(db)
    try:
        query = "SELECT id FROM players WHERE name = ?"
        ids = [row[0] for row in conn.execute(query, [name])]
        if not ids:
            return (0, 0, 0)
        sessions = conn.execute("SELECT count(*) FROM sessions WHERE player = ?", ids).fetchone()
        keys = conn.execute("SELECT count(*) FROM passkeys WHERE player = ?", ids).fetchone()
        return (len(ids), sessions[0], keys[0])
    finally:
        conn.close()


@pytest.mark.slow
def test_the_lobbys_restore_drill_brings_back_its_players_and_sessions(cluster, tmp_path):
    config = cluster.cluster
    db = config.db(config.lobby)
    seat = take_name(cluster, "Cy_Restored")
    credential = add_passkey(cluster, "Cy_Restored")
    replica_holds(config, "Cy_Restored", tmp_path / "scratch")
    refused = restore_lobby(config.state.parent)  # while it runs: refused, even with --force
    assert refused.returncode == 2
    assert "is open: stop lobby and replicate-lobby first" in refused.stderr

    cluster.ctl("stop", LOBBY, "replicate-lobby")  # the drill, as docs/cluster.md words it
    assert cluster.states()[LOBBY] == "STOPPED"
    assert seat.request("/me/bar")[0] == 503  # nginx answers for the lobby that is down
    for prefix, suffix in FILES:  # the disk is lost
        path = db.with_name(f"{prefix}{db.name}{suffix}")
        if path.is_dir():
            subprocess.run(["rm", "-rf", str(path)], check=True)
        else:
            path.unlink(missing_ok=True)
    done = restore_lobby(config.state.parent)
    assert done.returncode == 0, done.stderr
    assert f"lobby: restored {db} from {config.replica_at(config.lobby)}" in done.stdout
    assert counts(db, "Cy_Restored") == (1, 1, 1)
    cluster.ctl("start", "replicate-lobby", LOBBY)
    cluster.wait_running(["replicate-lobby", LOBBY])

    kept(cluster, "Cy_Restored", credential)
    assert bar(seat) == "Cy_Restored"  # the same cookies sign in again
    page = room_on(cluster, seat, "s2")
    assert shown_name(page) == "Cy_Restored"
    taken_again = Seat(cluster)  # and the name is taken still
    status, home, _url = taken_again.request("/")
    status, page, _url = taken_again.request(
        "/me/name", {"name": "cy_restored", "csrf_token": csrf_field(home)}
    )
    assert status == 409 and shown_name(page) is None, status


@pytest.mark.slow
def test_a_cluster_started_without_the_lobbys_database_restores_it_first(tmp_path):
    """`make cluster` on a new disk brings the lobby's database back from its replica before
    its Litestream starts, as a shard's: a new, empty one is never replicated over it."""
    config = cluster_in(tmp_path, 0, ENV, router=False)  # the lobby alone, no nginx
    db = config.db(config.lobby)
    with Processes(config) as running:
        with lobby_db(running) as lobby:
            player, _secret, _session = lobby.take_name("Di_New_Disk", "a test")
            lobby.add_passkey(player.id, b"credential", b"public key bytes", 1, "Phone")
        replica_holds(config, "Di_New_Disk", tmp_path / "scratch")
    for prefix, suffix in FILES:
        path = db.with_name(f"{prefix}{db.name}{suffix}")
        if path.is_dir():
            subprocess.run(["rm", "-rf", str(path)], check=True)
        else:
            path.unlink(missing_ok=True)
    with Processes(config):  # as `make cluster` starts it: prepare(), then the programs
        assert counts(db, "Di_New_Disk") == (1, 1, 1)
