"""A cluster's processes and configuration files, written from its `Cluster`."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined

from ..web.i18n import LANGUAGES
from ..worker import MAX_CONNECTIONS_PER_ADDRESS
from . import Cluster, Shard, running_as_root, tool

SHARD_CONNECTIONS = 12_000  # what one shard's worker takes (gunicorn.conf.py)
# What one client may have in progress at nginx: an address, as a lone shard allows it
# (domino/worker.py: an office behind one IPv4 address), and an IPv6 /64, one subscriber's
# network whose every device has addresses of its own, twice that.
PER_NETWORK = 2 * MAX_CONNECTIONS_PER_ADDRESS

_templates = Environment(
    loader=PackageLoader("domino.cluster", "templates"),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)


@dataclass(frozen=True)
class Program:
    """One long-running process of the cluster: what supervisord (or a test) starts."""

    name: str
    argv: tuple[str, ...]
    cwd: Path
    env: dict[str, str] = field(default_factory=dict)
    priority: int = 100  # supervisord starts low numbers first and stops them last
    stop_signal: str = "TERM"
    stop_wait: int = 15  # seconds supervisord waits after stop_signal before SIGKILL

    @property
    def command(self) -> str:
        return shlex.join(self.argv)

    @property
    def environment(self) -> str:
        """The settings as supervisord's `environment=` line (each value quoted)."""
        return ",".join(f'{key}="{value}"' for key, value in sorted(self.env.items()))


def shard_program(cluster: Cluster, shard: Shard) -> Program:
    """A shard: the production server (`make serve`) with its name, database and a proxy."""
    env = {
        "DOMINO_SHARD": shard.name,
        "DOMINO_DB": str(cluster.db(shard)),
        "DOMINO_PROXIES": "1",  # nginx's X-Forwarded-For is the client (web/limits.py)
        **cluster.env,
    }
    argv = (
        tool("gunicorn"),
        "--config=gunicorn.conf.py",
        f"--bind={shard.address}",
        "app:create_app()",
    )
    return Program(f"shard-{shard.name}", argv, cluster.root, env, priority=200)


def replication_program(cluster: Cluster, shard: Shard) -> Program:
    """Litestream replicating one shard's database; started first, stopped last."""
    config = str(cluster.litestream_config(shard))
    argv = (tool("litestream"), "replicate", "-no-expand-env", "-config", config)
    # Its last sync on the way out may take Litestream's own 30 s with a slow replica.
    return Program(f"replicate-{shard.name}", argv, cluster.root, priority=100, stop_wait=40)


def router_program(cluster: Cluster) -> Program:
    """nginx in the foreground, with its files under the cluster's state folder."""
    argv = (
        tool("nginx"),
        "-p",
        str(cluster.state / "nginx"),
        "-c",
        str(cluster.nginx_config),
        "-e",
        "stderr",
        "-g",
        "daemon off;",
    )
    return Program("nginx", argv, cluster.root, priority=300)


def programs(cluster: Cluster) -> list[Program]:
    """Every process this machine runs: each local shard and its replication, then nginx."""
    found = []
    for shard in cluster.local:
        found += [replication_program(cluster, shard), shard_program(cluster, shard)]
    if cluster.router:
        found.append(router_program(cluster))
    return found


def nginx_conf(cluster: Cluster) -> str:
    """nginx's configuration: rooms to their shards, the rest to the least busy one."""
    return _templates.get_template("nginx.conf").render(
        as_root=running_as_root(),
        workers=cluster.workers,
        state=cluster.state,
        root=cluster.root,
        pages=cluster.pages,
        listen=cluster.listen,
        shards=cluster.shards,
        trusted=cluster.trusted,
        languages=tuple(LANGUAGES),
        per_address=MAX_CONNECTIONS_PER_ADDRESS,
        per_network=PER_NETWORK,
        per_shard=SHARD_CONNECTIONS,
        connections=max(16384, 2 * SHARD_CONNECTIONS * len(cluster.shards)),
    )


def litestream_yml(cluster: Cluster, shard: Shard) -> str:
    """Litestream's configuration for one shard: its database to its replica folder."""
    return _templates.get_template("litestream.yml").render(
        shard=shard,
        db=cluster.db(shard),
        replica=cluster.replica_at(shard),
        sync_interval=cluster.sync_interval,
    )


def supervisord_conf(cluster: Cluster) -> str:
    """supervisord's configuration: every program, restarted if it dies."""
    return _templates.get_template("supervisord.conf").render(
        as_root=running_as_root(),
        config=cluster.supervisor_config,
        state=cluster.state,
        programs=programs(cluster),
    )


def write(cluster: Cluster, pages: dict[str, str]) -> None:
    """Write every configuration, the unavailable pages (language -> HTML) and the folders."""
    for folder in (cluster.state / "logs", cluster.state / "nginx", cluster.pages):
        folder.mkdir(parents=True, exist_ok=True)
    cluster.data.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not cluster.replica_url:
        cluster.replicas.mkdir(mode=0o700, parents=True, exist_ok=True)
    if cluster.router:
        cluster.nginx_config.write_text(nginx_conf(cluster))
        for code, page in pages.items():
            (cluster.pages / f"unavailable.{code}.html").write_text(page)
    for shard in cluster.local:
        write_litestream(cluster, shard)
    cluster.supervisor_config.write_text(supervisord_conf(cluster))


def write_litestream(cluster: Cluster, shard: Shard) -> None:
    """Write one shard's Litestream configuration (a restore on a new machine needs it too)."""
    cluster.state.mkdir(parents=True, exist_ok=True)
    cluster.litestream_config(shard).write_text(litestream_yml(cluster, shard))
