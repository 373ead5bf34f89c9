"""What bench/load.py loads: the one production server, or N shards behind nginx (--cluster N).

Either way a `Target`: the address the browsers use, each gunicorn worker that serves it (by
shard name; "" for the one server), each one's database, and with shards the processes around
them whose CPU is reported too: nginx's workers and each shard's Litestream. The cluster is the
one `make cluster` runs (domino.cluster), process by process (bench/shards.py), with nginx
believing the load client's X-Forwarded-For (`trusted`), as it would a load balancer's: each
browser keeps its own address, and so its own budget under the per-address limits.
"""

from __future__ import annotations

import contextlib
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.faults import Server, stored
from tests.support.shards import HIGH_LIMITS, Processes, cluster_in

CLIENT = "127.0.0.1"  # where the load client connects from: nginx believes its header


def worker_pid(master: int) -> int:
    """The gunicorn worker of a master process."""
    return children(master)[0]


def children(pid: int) -> list[int]:
    """A process's child processes (e.g. nginx's workers under its master)."""
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time the process has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


@dataclass
class Target:
    """The server(s) under load: their address, workers (by shard) and databases."""

    url: str
    workers: dict[str, int]  # shard name ("" for the one server) -> its gunicorn worker
    dbs: dict[str, Path]  # shard name -> its database
    helpers: dict[str, list[int]] = field(default_factory=dict)  # "nginx", "litestream"

    @property
    def sharded(self) -> bool:
        return "" not in self.workers

    def shard_of(self, room_id: str) -> str:
        """The shard a room lives on: its id's prefix (app.py, SHARD)."""
        return room_id.split("-", 1)[0] if self.sharded else ""

    def rss_kb(self) -> int:
        """The workers' resident memory, together."""
        return sum(rss_kb(pid) for pid in self.workers.values())

    def cpu(self) -> dict[str, float]:
        """CPU seconds used so far by each worker (by shard name) and each group of helpers."""
        found = {name: cpu_seconds(pid) for name, pid in self.workers.items()}
        found.update((name, sum(map(cpu_seconds, pids))) for name, pids in self.helpers.items())
        return found

    def lost(self, acknowledged: set[tuple[str, int]]) -> int:
        """How many acknowledged actions no database holds."""
        kept: set[tuple[str, int]] = set()
        for db in self.dbs.values():
            kept.update(stored(db))
        return len(acknowledged - kept)

    def leaks(self, rooms) -> tuple[int, int]:
        """The leak check (tests/support/leakcheck.py) of every table the seats kept, each room
        against its own shard's log: (tables checked, leaks)."""
        from tests.support.leakcheck import check_kept

        checked = leaked = 0
        for name, db in self.dbs.items():
            found = check_kept(db, [room for room in rooms if self.shard_of(room.id) == name])
            checked, leaked = checked + found[0], leaked + found[1]
        return checked, leaked


@contextlib.contextmanager
def one_server(server: Server):
    """The production server, started, and SIGKILLed at the end."""
    server.start()
    try:
        yield Target(server.url, {"": worker_pid(server.proc.pid)}, {"": server.db})
    finally:
        server.kill()


@contextlib.contextmanager
def sharded(count: int, folder: Path, env: dict[str, str]):
    """`count` shards with their replication and nginx in front, files under `folder`."""
    cluster = cluster_in(folder, count, env, trusted=(CLIENT,))
    with Processes(cluster) as processes:
        names = [shard.name for shard in cluster.local]
        yield Target(
            processes.url,
            {name: worker_pid(processes.pid(f"shard-{name}")) for name in names},
            {name: cluster.db(cluster.shard(name)) for name in names},
            {
                "nginx": children(processes.pid("nginx")),
                "litestream": [processes.pid(f"replicate-{name}") for name in names],
            },
        )


def cluster_env(args) -> dict[str, str]:
    """The shards' settings for a run: the saturation limits, a slow disk."""
    env = dict(HIGH_LIMITS) if args.think[1] == 0 else {}
    if args.sync_delay_ms:
        env["DOMINO_SYNC_DELAY_MS"] = str(args.sync_delay_ms)
    return env


def shard_report(target: Target, used: dict[str, float], played_s: float, run, rooms) -> dict:
    """Print and return the cluster's figures: each shard's rooms, actions and worker CPU, and
    the CPU of nginx's workers, of Litestream and of this client, in % of one core."""
    moves = Counter(target.shard_of(room_id) for room_id, _seq in run.acknowledged)
    seated = Counter(target.shard_of(room.id) for room in rooms)
    share = lambda seconds: round(seconds * 100 / played_s, 1)  # noqa: E731
    per_shard = {}
    for name in target.workers:
        per_action = round(used[name] * 1000 / max(moves[name], 1), 3)
        per_shard[name] = {
            "rooms": seated[name],
            "moves": moves[name],
            "cpu_pct": share(used[name]),
            "cpu_ms_per_action": per_action,
        }
        print(
            f"shard {name}: {seated[name]} rooms, {moves[name]} actions, worker CPU "
            f"{share(used[name])}% of one core, {per_action} ms per action"
        )
    helpers = {name: share(used[name]) for name in target.helpers}
    print(
        f"nginx's workers {helpers['nginx']}%, Litestream {helpers['litestream']}%, "
        f"this client {share(run.client_cpu * played_s)}% of one core"
    )
    return {
        "shards": len(target.workers),
        "per_shard": per_shard,
        "nginx_cpu_pct": helpers["nginx"],
        "litestream_cpu_pct": helpers["litestream"],
        "client_cpu_pct": share(run.client_cpu * played_s),
    }
