"""The restore drill: a shard's disk is lost, its database comes back from its Litestream replica.

Players play friend rooms through nginx; once the replica holds their last acknowledged move
the shard and its replication stop and every file of its database is deleted; the restore
command (`python -m domino.cluster restore s1`, run as a person runs it) brings it back, every
acknowledged move is there, and the rooms go on. Sockets are opened but never read, so the
shards ping every 60 s here (an unread socket would miss its pong and be let go).
"""

from __future__ import annotations

import itertools
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from domino.cluster import Cluster, tool
from domino.store import Store
from tests.support.faults import Seat, new_room, next_action, position, stored
from tests.support.shards import HIGH_LIMITS, Processes, cluster_in, nginx_missing

ROOT = Path(__file__).resolve().parents[2]

ENV = {**HIGH_LIMITS, "DOMINO_PING_SECONDS": "60"}
ROOMS = 3
MOVES = 8  # acknowledged in each room before the disk is lost
WAVES = 2  # of moves, each one in the replica before the next
REPLICA_DEADLINE = 30.0  # seconds for the replica to hold a move (it syncs every second)
needs_nginx = pytest.mark.skipif(
    nginx_missing(), reason="nginx is not installed (apt-get install nginx)"
)


FILES = [("", ""), ("", "-wal"), ("", "-shm"), (".", "-litestream")]  # around the db's name


def files_of(db: Path) -> list[Path]:
    """A shard's database on disk: itself, its log and index, Litestream's own state."""
    return [db.with_name(f"{prefix}{db.name}{suffix}") for prefix, suffix in FILES]


def lose_disk(db: Path) -> None:
    """Delete every file of the database, as a lost disk would."""
    for path in files_of(db):
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()


def restore(instance: Path, *options: str) -> subprocess.CompletedProcess:
    """`python -m domino.cluster restore s1`, as a person runs it, on this test's folders."""
    command = [sys.executable, "-m", "domino.cluster", "restore", "s1", "--instance", str(instance)]
    env = {key: value for key, value in os.environ.items() if key != "DOMINO_REPLICA_URL"}
    return subprocess.run(
        [*command, *options], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def play(db: Path, seats: list[Seat], rng: random.Random, acked: dict) -> None:
    """One move in the room, which must be acknowledged; `acked` records it: (room, seq)."""
    seq = position(db, seats[0].room).seq
    seat, action, fields, kind = next_action(position(db, seats[0].room), seats, rng.choice)
    assert seat.post(action, fields) == 200, f"{action} in {seat.room} was not acknowledged"
    acked[(seat.room, seq + 1)] = kind


def sit_down(seats: list[Seat]) -> None:
    """Each seat loads its room's page and opens its socket, as a browser does."""
    for seat in seats:
        assert seat.load() == 200, f"{seat.room} did not load"
        seat.connect()


def replica_holding(cluster: Cluster, name: str, wanted: dict, scratch: Path) -> dict:
    """What the shard's replica holds, once it holds every move in `wanted`: restored into a
    scratch file again and again until then, or a failure at the deadline."""
    url = cluster.replica_at(cluster.shard(name))
    scratch.mkdir(exist_ok=True)
    end = time.monotonic() + REPLICA_DEADLINE
    for attempt in itertools.count():
        copy = scratch / f"{name}-{attempt}.sqlite3"
        command = [tool("litestream"), "restore", "-o", str(copy), url]
        result = subprocess.run(command, capture_output=True, text=True, timeout=60)
        held = stored(copy) if result.returncode == 0 else {}
        if wanted.items() <= held.items():
            return held
        if time.monotonic() > end:
            missing = sorted(set(wanted) - set(held))
            raise AssertionError(f"the replica lacks {missing[:5]}: {result.stderr[-300:]}")
        time.sleep(0.2)  # the next look at the replica, not a wait for it
    raise AssertionError("unreachable")  # for the type checker: count() never ends


@pytest.fixture
def cluster(tmp_path):
    """One shard, its replication and nginx, every file under tmp_path."""
    with Processes(cluster_in(tmp_path, 1, ENV)) as processes:
        yield processes


@pytest.mark.slow
@needs_nginx
def test_a_lost_shard_comes_back_from_its_replica_and_its_rooms_go_on(cluster, tmp_path):
    processes, config = cluster, cluster.cluster
    db, rng, acked = config.db(config.shard("s1")), random.Random(18), {}
    rooms = [new_room(processes) for _ in range(ROOMS)]
    assert all(seats[0].room.startswith("s1-") for seats in rooms)
    for seats in rooms:
        sit_down(seats)
    for _wave in range(WAVES):  # the replica then holds them in several syncs
        for seats in rooms:
            for _ in range(MOVES // WAVES):
                play(db, seats, rng, acked)
        replica_holding(config, "s1", acked, tmp_path / "scratch")
    assert len(acked) == ROOMS * MOVES

    for seats in rooms:
        for seat in seats:
            seat.close()
    processes.stop("shard-s1")
    processes.stop("replicate-s1")
    before = stored(db)
    assert acked.items() <= before.items()
    lose_disk(db)
    assert not any(path.exists() for path in files_of(db))

    done = restore(tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"s1: restored {db} from {config.replica_at(config.shard('s1'))}" in done.stdout
    restored = stored(db)
    assert acked.items() <= restored.items(), "an acknowledged move was not restored"
    assert restored.items() <= before.items(), "the restored log is not the shard's"

    processes.start("replicate-s1")
    processes.start("shard-s1")
    again = {}
    for seats in rooms:  # through nginx, as the players come back
        sit_down(seats)
        play(db, seats, rng, again)
    assert len(again) == ROOMS and not again.keys() & acked.keys()
    assert {**acked, **again}.items() <= stored(db).items()
    replica_holding(config, "s1", again, tmp_path / "scratch")  # replication goes on too
    for seats in rooms:
        for seat in seats:
            seat.close()


@pytest.mark.parametrize("left", range(len(FILES)), ids=["db", "wal", "shm", "litestream"])
def test_restore_refuses_while_a_file_of_the_database_is_there(tmp_path, left):
    config = cluster_in(tmp_path, 1)
    there = files_of(config.db(config.shard("s1")))[left]
    config.data.mkdir(parents=True)
    config.replicas.mkdir(parents=True)
    if there.name.startswith("."):
        there.mkdir()
        (there / "generation").write_text("kept")
    else:
        there.write_bytes(b"the shard's own bytes")
    before = snapshot(tmp_path)

    refused = restore(tmp_path)
    assert refused.returncode == 2
    said = refused.stderr
    assert str(there) in said and "--force" in said and "Stop the shard" in said
    assert snapshot(tmp_path) == before  # nothing moved, nothing restored, nothing written


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every path under `folder`, with each file's bytes (a folder: None)."""
    return {
        str(path.relative_to(folder)): None if path.is_dir() else path.read_bytes()
        for path in folder.rglob("*")
    }


def played_until_replicated(config: Cluster, scratch: Path, seed: int):
    """A friend room played on the lone shard s1 of `config` (no nginx) until its replica
    holds every acknowledged move; then every program stopped. (db, seats, rng, acked)"""
    shard = config.shard("s1")
    db, rng, acked = config.db(shard), random.Random(seed), {}
    with Processes(config):
        seats = new_room(SimpleNamespace(url=f"http://{shard.address}"))
        sit_down(seats)
        for _ in range(MOVES):
            play(db, seats, rng, acked)
        replica_holding(config, "s1", acked, scratch)
        for seat in seats:
            seat.close()
    return db, seats, rng, acked


@pytest.mark.slow
def test_restore_with_force_moves_the_present_files_aside_first(tmp_path):
    config = cluster_in(tmp_path, 1, ENV, router=False)  # no nginx needed
    db, _seats, _rng, acked = played_until_replicated(config, tmp_path / "scratch", seed=5)
    present = [path for path in files_of(db) if path.exists()]
    assert db in present and files_of(db)[-1] in present  # the db and Litestream's state
    before = snapshot(db.parent)
    assert restore(tmp_path).returncode == 2
    assert snapshot(db.parent) == before

    kept = {path.name: contents(path) for path in present}
    done = restore(tmp_path, "--force")
    assert done.returncode == 0, done.stderr
    for path in present:
        (aside,) = path.parent.glob(f"{path.name}.before-restore-*")
        stamp, pid = aside.name.removeprefix(f"{path.name}.before-restore-").rsplit("-", 1)
        assert time.strptime(stamp, "%Y%m%d-%H%M%S") and pid.isdigit(), aside.name
        assert contents(aside) == kept[path.name], f"{path.name} was not kept whole"
    assert acked.items() <= stored(db).items()
    Store(db).close()  # the restored file is a database the shard opens


def contents(path: Path) -> bytes | dict:
    """A file's bytes, or a folder's paths and files (`snapshot`)."""
    return snapshot(path) if path.is_dir() else path.read_bytes()


@pytest.mark.slow
def test_restore_refuses_a_database_its_shard_has_open_even_with_force(tmp_path):
    config = cluster_in(tmp_path, 1, ENV, router=False)
    db = config.db(config.shard("s1"))
    with Processes(config):
        refused = restore(tmp_path, "--force")
        assert refused.returncode == 2
        assert "is open: stop shard-s1 and replicate-s1 first" in refused.stderr
        # Nothing moved aside. (Litestream, running, adds and drops files of its own meanwhile:
        # the folder as a whole is not compared.)
        assert db.exists() and not list(db.parent.rglob("*.before-restore-*"))


def test_a_failed_restore_puts_the_files_back_as_they_were(tmp_path):
    config = cluster_in(tmp_path, 1)
    db = config.db(config.shard("s1"))
    config.data.mkdir(parents=True)
    Store(db).close()  # a database, and a replica folder that holds nothing
    config.replicas.mkdir(parents=True)
    before = snapshot(db.parent)
    failed = restore(tmp_path, "--force")
    assert failed.returncode not in (0, 2), failed.stderr
    assert "its files are as they were" in failed.stderr
    assert snapshot(db.parent) == before


@pytest.mark.slow
def test_a_cluster_started_without_a_shards_database_restores_it_first(tmp_path):
    """`make cluster` on a new disk brings each missing database back from its replica
    before Litestream starts: it never replicates a new, empty one over it."""
    config = cluster_in(tmp_path, 1, ENV, router=False)
    db, seats, rng, acked = played_until_replicated(config, tmp_path / "scratch", seed=7)
    lose_disk(db)
    with Processes(config):  # as `make cluster` starts it: prepare(), then the programs
        assert acked.items() <= stored(db).items()
        sit_down(seats)
        play(db, seats, rng, acked)  # and the room goes on
        for seat in seats:
            seat.close()
