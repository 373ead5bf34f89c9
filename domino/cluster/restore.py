"""A shard's (or the lobby's) database brought back from its Litestream replica, never over a
live one."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

from . import LOBBY, Cluster, Part, tool
from .files import litestream_yml, write_litestream

SHM_DMS_BYTE = 128  # SQLite's "dead man switch": every open connection holds a read lock on it


def files_of(db: Path) -> list[Path]:
    """A database's files: itself, its log and index, and Litestream's local state."""
    names = [db.name, f"{db.name}-wal", f"{db.name}-shm", f".{db.name}-litestream"]
    return [db.with_name(name) for name in names]


def in_use(db: Path) -> bool:
    """Whether a process (the shard, its Litestream) has the database open: SQLite's read
    lock on the index file's DMS byte then keeps out an exclusive one."""
    shm = db.with_name(f"{db.name}-shm")
    try:
        fd = os.open(shm, os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, SHM_DMS_BYTE)
    except OSError:
        return True
    else:
        fcntl.lockf(fd, fcntl.LOCK_UN, 1, SHM_DMS_BYTE)
        return False
    finally:
        os.close(fd)


def _litestream(cluster: Cluster, shard: Part) -> str:
    """The shard's Litestream configuration, written if missing (a new machine); an error if
    it names another replica than the one asked for now."""
    config = cluster.litestream_config(shard)
    wanted = litestream_yml(cluster, shard)
    if config.exists() and config.read_text() != wanted:
        raise ValueError(
            f"{config} replicates elsewhere than {cluster.replica_at(shard)}: "
            "pass the cluster's own --replica (REPLICA=...)"
        )
    write_litestream(cluster, shard)
    return str(config)


def _run(cluster: Cluster, shard: Part, out: Path, *flags: str) -> int:
    db = str(cluster.db(shard))
    config = _litestream(cluster, shard)
    command = [tool("litestream"), "restore", "-no-expand-env", *flags, "-config", config]
    return subprocess.run([*command, "-o", str(out), db], check=False).returncode


def restore_missing(cluster: Cluster, shard: Part) -> None:
    """Before a shard (or the lobby) starts on a disk without its database: bring it back from
    its replica if there is one (else Litestream would replicate a new, empty database over
    it)."""
    db = cluster.db(shard)
    if any(path.exists() for path in files_of(db)):
        return
    if _run(cluster, shard, db, "-if-replica-exists") != 0:
        raise SystemExit(f"{shard.name}: {db} is missing and could not be restored")
    if db.exists():
        print(f"{shard.name}: {db} was missing; restored it from {cluster.replica_at(shard)}")


def server_program(name: str) -> str:
    """The supervisord program that serves shard `name` (or the lobby)."""
    return LOBBY if name == LOBBY else f"shard-{name}"


def restore(cluster: Cluster, name: str, force: bool) -> int:
    """Restore shard `name`'s (or the lobby's) database from its replica; 2 if it is open or
    still there."""
    shard = cluster.part(name)
    db = cluster.db(shard)
    if in_use(db):
        server = server_program(name)
        print(f"{name}: {db} is open: stop {server} and replicate-{name} first.", file=sys.stderr)
        return 2
    present = [path for path in files_of(db) if path.exists()]
    if present and not force:
        print(
            f"{name}: {', '.join(map(str, present))} still there. Stop the "
            f"{'lobby' if name == LOBBY else 'shard'} and its replication, then move them away "
            "(or pass --force to have them moved aside).",
            file=sys.stderr,
        )
        return 2
    stamp = f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
    aside = {path: path.with_name(f"{path.name}.before-restore-{stamp}") for path in present}
    for path, moved in aside.items():
        os.replace(path, moved)
    fresh = db.with_name(f"{db.name}.restoring-{stamp}")
    try:
        code = _run(cluster, shard, fresh)
    except ValueError as error:
        print(f"{name}: {error}", file=sys.stderr)
        code = 2
    where = cluster.replica_at(shard)
    if code == 0:
        os.replace(fresh, db)
        print(f"{name}: restored {db} from {where}; start its replication and the shard again.")
        return 0
    fresh.unlink(missing_ok=True)
    for path, moved in aside.items():  # as it was
        os.replace(moved, path)
    print(f"{name}: nothing restored from {where}; its files are as they were.", file=sys.stderr)
    return code
