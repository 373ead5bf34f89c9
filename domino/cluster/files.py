"""A cluster's processes and configuration files, written from its `Cluster`."""

from __future__ import annotations

import resource
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined

from ..server.worker import MAX_CONNECTIONS_PER_ADDRESS
from ..web import LOBBY_PREFIXES
from ..web.view.i18n import LANGUAGES
from . import Cluster, LobbyServer, Part, Shard, running_as_root, tool

SHARD_CONNECTIONS = 12_000  # what one shard's worker takes (gunicorn.conf.py)
# nginx's connections to one shard (max_conns), out of its 12,000: for what is sent to it by
# name (its rooms, sockets mostly, and its pages' creation forms), and for what goes to the
# least busy shard (home pages, help, /healthz); the 500 left over are for nginx's idle
# keep-alive connections, which max_conns does not count.
ROOM_CONNECTIONS = 10_000
OTHER_CONNECTIONS = 1_500
# The lobby's worker is a shard's (gunicorn.conf.py) and everything it gets is sent to it by
# name (its paths): both parts, the same 500 left for idle keep-alive connections.
LOBBY_CONNECTIONS = ROOM_CONNECTIONS + OTHER_CONNECTIONS
# What one client may have in progress at nginx: an address, as a lone shard allows it
# (domino/server/worker.py: an office behind one IPv4 address), and an IPv6 /64, one subscriber's
# network whose every device has addresses of its own, twice that.
PER_NETWORK = 2 * MAX_CONNECTIONS_PER_ADDRESS
FILES_BESIDE = 1_000  # nginx's open files besides its connections: logs, listeners, pages
# Fewer than this and eight /64s at their caps would fill nginx: refused, not run.
FEWEST_CONNECTIONS = 8 * PER_NETWORK
NR_OPEN = Path("/proc/sys/fs/nr_open")  # Linux's ceiling on any process's open files
STATUS = Path("/proc/self/status")  # this process's capabilities (CapEff:)
CAP_SYS_RESOURCE = 24  # the capability that may raise a hard limit (linux/capability.h)
RAISE_IT = (
    "raise the hard limit of the shell or service that starts it "
    "(`ulimit -Hn` as root, LimitNOFILE= under systemd, --ulimit nofile= for a container)"
)

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
        "DOMINO_LOBBY": "elsewhere",  # no lobby database: nginx sends its paths to the lobby
        "DOMINO_PROXIES": "1",  # nginx's X-Forwarded-For is the client (web/guard/limits.py)
        # Where finished matches' results go (web/live/results_sender.py): the lobby's own
        # address, never through nginx, which refuses /internal/ from outside.
        **({"DOMINO_LOBBY_URL": f"http://{cluster.lobby.address}"} if cluster.lobby else {}),
        **cluster.env,
    }
    return Program(f"shard-{shard.name}", _server(shard), cluster.root, env, priority=200)


def lobby_program(cluster: Cluster, lobby: LobbyServer) -> Program:
    """The lobby: the same server, serving the lobby's paths alone from its own database (no
    rooms, no computer: domino/web/__init__.py), signing cookies with the shared secret key,
    and opening quick match's tables on the shards this machine knows, at their own addresses
    (DOMINO_SHARD_URLS: web/live/waves.py `over_http`; a setting of the same name given to the
    cluster replaces them)."""
    env = {
        "DOMINO_LOBBY": "only",
        "DOMINO_LOBBY_DB": str(cluster.db(lobby)),
        "DOMINO_PROXIES": "1",  # its name limits count per client, as nginx saw it
        **({"DOMINO_SHARD_URLS": shard_urls(cluster)} if cluster.shards else {}),
        **cluster.env,
    }
    return Program(lobby.name, _server(lobby), cluster.root, env, priority=200)


def shard_urls(cluster: Cluster) -> str:
    """The shards' own addresses as the lobby reaches them, past nginx (which refuses
    /internal/ from outside): "http://HOST:PORT,..."."""
    return ",".join(f"http://{shard.address}" for shard in cluster.shards)


def _server(part: Part) -> tuple[str, ...]:
    """The production server (`make serve`) on the part's address."""
    return (
        tool("gunicorn"),
        "--config=gunicorn.conf.py",
        f"--bind={part.address}",
        "app:create_app()",
    )


def replication_program(cluster: Cluster, shard: Part) -> Program:
    """Litestream replicating one shard's (or the lobby's) database; started first, stopped
    last."""
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
    """Every process this machine runs: each local shard and its replication, the lobby and
    its replication if it is here, then nginx."""
    found = []
    for shard in cluster.local:
        found += [replication_program(cluster, shard), shard_program(cluster, shard)]
    if cluster.lobby is not None and cluster.lobby.local:
        found += [
            replication_program(cluster, cluster.lobby),
            lobby_program(cluster, cluster.lobby),
        ]
    if cluster.router:
        found.append(router_program(cluster))
    return found


@dataclass(frozen=True)
class Budget:
    """nginx's connections: what the servers call for (two a proxied request or socket, client
    and server, for each one's 12,000: the shards' and the lobby's), and what this machine lets
    it open."""

    servers: int
    allowed: int  # the open files nginx may set itself (worker_rlimit_nofile) here

    @property
    def wanted(self) -> int:
        return max(16384, 2 * SHARD_CONNECTIONS * self.servers)

    @property
    def connections(self) -> int:
        """nginx's worker_connections: what is wanted, or as many as the machine allows."""
        return min(self.wanted, self.allowed - FILES_BESIDE)

    @property
    def open_files(self) -> int:
        return self.connections + FILES_BESIDE

    @property
    def fitted(self) -> bool:
        return self.connections < self.wanted

    def share(self, connections: int) -> int:
        """A shard's max_conns, cut down as nginx's connections are, so that nginx always
        has room left for the clients its shards' caps refuse."""
        return max(1, connections * self.connections // self.wanted)

    def check(self) -> None:
        """ValueError, saying what to do, if the machine allows too few to run nginx."""
        if self.connections < FEWEST_CONNECTIONS:
            raise ValueError(
                f"nginx may open only {self.allowed:,} files here (the hard RLIMIT_NOFILE, "
                f"which this process may not raise): {max(self.connections, 0):,} "
                f"connections, fewer than the {FEWEST_CONNECTIONS:,} a router needs at the "
                f"least ({self.wanted:,} for {self.servers} servers); {RAISE_IT}, then start again"
            )

    @property
    def note(self) -> str:
        """One line saying what was cut down to fit, or "" if nothing was."""
        if not self.fitted:
            return ""
        return (
            f"nginx: {self.connections:,} connections, not {self.wanted:,}: this machine lets "
            f"it open {self.allowed:,} files (the hard RLIMIT_NOFILE, which this process may "
            f"not raise), so {self.connections // 2:,} requests and sockets at once instead of "
            f"{self.wanted // 2:,}, each shard's capped at {self.share(ROOM_CONNECTIONS):,} "
            f"for its rooms and {self.share(OTHER_CONNECTIONS):,} for the rest; to have them "
            f"all, {RAISE_IT}"
        )


def open_files_allowed() -> int:
    """How many open files nginx started from this process may set itself: the hard limit,
    which only a process with CAP_SYS_RESOURCE (root, unless a container withholds it) may
    raise, and never past Linux's fs.nr_open."""
    try:
        ceiling = int(NR_OPEN.read_text())
    except (OSError, ValueError):
        ceiling = 1 << 20
    if may_raise_limits():
        return ceiling
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return ceiling if hard == resource.RLIM_INFINITY else min(hard, ceiling)


def may_raise_limits() -> bool:
    """Whether this process holds CAP_SYS_RESOURCE (Linux: its effective capabilities)."""
    try:
        status = STATUS.read_text()
    except OSError:
        return running_as_root()
    for line in status.splitlines():
        if line.startswith("CapEff:"):
            return bool(int(line.split()[1], 16) >> CAP_SYS_RESOURCE & 1)
    return running_as_root()


def nginx_budget(cluster: Cluster, allowed: int | None = None) -> Budget:
    """The cluster's nginx connections on this machine (or one allowing `allowed` open
    files); ValueError if it allows too few."""
    budget = Budget(cluster.servers, open_files_allowed() if allowed is None else allowed)
    budget.check()
    return budget


def nginx_conf(cluster: Cluster, budget: Budget | None = None) -> str:
    """nginx's configuration: rooms to their shards, the lobby's paths to the lobby, the rest
    to the least busy shard."""
    budget = budget or nginx_budget(cluster)
    return _templates.get_template("nginx.conf").render(
        as_root=running_as_root(),
        workers=cluster.workers,
        state=cluster.state,
        root=cluster.root,
        pages=cluster.pages,
        listen=cluster.listen,
        shards=cluster.shards,
        lobby=cluster.lobby,
        lobby_prefixes=LOBBY_PREFIXES,
        lobby_conns=budget.share(LOBBY_CONNECTIONS),
        trusted=cluster.trusted,
        languages=tuple(LANGUAGES),
        per_address=MAX_CONNECTIONS_PER_ADDRESS,
        per_network=PER_NETWORK,
        per_shard=SHARD_CONNECTIONS,
        budget=budget,
        room_conns=budget.share(ROOM_CONNECTIONS),
        other_conns=budget.share(OTHER_CONNECTIONS),
    )


def litestream_yml(cluster: Cluster, shard: Part) -> str:
    """Litestream's configuration for one shard (or the lobby): its database to its replica."""
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


def write(cluster: Cluster, pages: dict[str, str], budget: Budget | None = None) -> None:
    """Write every configuration, the unavailable pages (language -> HTML) and the folders;
    nginx's connections as `budget` says, else as this machine allows (ValueError if too few)."""
    if cluster.router:
        budget = budget or nginx_budget(cluster)
    for folder in (cluster.state / "logs", cluster.state / "nginx", cluster.pages):
        folder.mkdir(parents=True, exist_ok=True)
    cluster.data.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not cluster.replica_url:
        cluster.replicas.mkdir(mode=0o700, parents=True, exist_ok=True)
    if cluster.router:
        cluster.nginx_config.write_text(nginx_conf(cluster, budget))
        for code, page in pages.items():
            (cluster.pages / f"unavailable.{code}.html").write_text(page)
    for part in cluster.local_parts:
        write_litestream(cluster, part)
    cluster.supervisor_config.write_text(supervisord_conf(cluster))


def write_litestream(cluster: Cluster, shard: Part) -> None:
    """Write one shard's (or the lobby's) Litestream configuration (a restore on a new machine
    needs it too)."""
    cluster.state.mkdir(parents=True, exist_ok=True)
    cluster.litestream_config(shard).write_text(litestream_yml(cluster, shard))
