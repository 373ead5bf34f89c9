"""Many shards behind nginx, each with its own database replicated by Litestream, and the lobby.

A shard is the one-process server (`make serve`) with a name: its room ids start with
`<name>-`, so nginx sends each room home by its path alone, and anything without a room (the
home page, creation, help) goes to the least busy shard. Nothing is shared between shards but
the secret key. The lobby (SPEC §11: players, sessions, passkeys) is one process of its own,
the same server with DOMINO_LOBBY=only; nginx sends it the lobby's paths (/me/, /p/, /play/,
/league), and its database is replicated and restored as a shard's is. The lobby opens quick
match's tables on the shards at their own addresses (DOMINO_SHARD_URLS), and the shards send it
finished matches' results at its own (DOMINO_LOBBY_URL), never through nginx. `Cluster` says
where everything lives; `domino.cluster.files` writes the configurations from it (nginx,
Litestream, supervisord) and `python -m domino.cluster` runs them. This package is tooling
around the app: the rules core and the web layer never import it.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..room import SHARD_NAME

ROOT = Path(__file__).resolve().parent.parent.parent  # the checkout: app.py, static/, .venv
SYNC_INTERVAL = "1s"  # Litestream's: how often a shard's new moves reach its replica
LOBBY = "lobby"  # the lobby's name in a cluster: its program, database, replica and upstream
# nginx, supervisord and Litestream read the folders' paths raw: none of these in them.
UNSAFE = re.compile(r"""[\s%$"'\\;{}#]""")


@dataclass(frozen=True)
class Shard:
    """One shard: its name and the address it listens on; `local` if this machine runs it."""

    name: str
    host: str
    port: int
    local: bool = True

    def __post_init__(self) -> None:
        if not SHARD_NAME.fullmatch(self.name):
            raise ValueError(f"a shard's name is a-z then up to 15 of a-z, 0-9: {self.name!r}")
        if not 0 < self.port < 65536:
            raise ValueError(f"shard {self.name}: no such port {self.port}")

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def upstream(self) -> str:
        """The name of nginx's server group that holds this shard alone."""
        return f"shard_{self.name}"


@dataclass(frozen=True)
class LobbyServer:
    """The lobby's process: where it listens; `local` if this machine runs it. Named `lobby`
    wherever a shard has its name (its program, database file, replica, nginx's upstream)."""

    host: str
    port: int
    local: bool = True

    def __post_init__(self) -> None:
        if not 0 < self.port < 65536:
            raise ValueError(f"the lobby: no such port {self.port}")

    @property
    def name(self) -> str:
        return LOBBY

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def upstream(self) -> str:
        return LOBBY


Part = Shard | LobbyServer  # a process of the cluster with a database of its own


@dataclass(frozen=True)
class Cluster:
    """Where a cluster's parts listen and keep their files.

    `state` holds the generated configurations, logs and nginx's scratch files; `data` each
    local shard's database, and the lobby's; `replicas` each one's Litestream replica, a folder
    here, unless `replica_url` names a place for them all (e.g. `s3://bucket/domino`:
    docs/cluster.md). `trusted` are the addresses (or CIDR blocks) whose X-Forwarded-For nginx
    believes, e.g. a load balancer in front of it; with none, the client is whoever connects to
    nginx. `lobby` is where the lobby runs (None: not on this machine, and no router here).
    """

    shards: tuple[Shard, ...]
    listen: str = "127.0.0.1:8000"
    router: bool = True
    state: Path = ROOT / "instance" / "cluster"
    data: Path = ROOT / "instance" / "shards"
    replicas: Path = ROOT / "instance" / "replicas"
    replica_url: str = ""
    root: Path = ROOT
    trusted: tuple[str, ...] = ()
    sync_interval: str = SYNC_INTERVAL
    env: dict[str, str] = field(default_factory=dict)  # more settings for every local server
    lobby: LobbyServer | None = None

    def __post_init__(self) -> None:
        names = [shard.name for shard in self.shards]
        if not names and (self.router or self.lobby is None):
            raise ValueError("a cluster needs at least one shard")
        if len(set(names)) != len(names):
            raise ValueError(f"two shards share a name: {names}")
        if LOBBY in names:
            raise ValueError(f"{LOBBY!r} is the lobby's name, not a shard's")
        for folder in (self.root, self.state, self.data, self.replicas):
            if UNSAFE.search(str(folder)):
                shown = "spaces or any of % $ \" ' \\ ; { } #"
                raise ValueError(f"{folder}: a cluster's folders may not hold {shown}")
        for key, value in self.env.items():
            if "%" in value or '"' in value:
                raise ValueError(f"{key}: a shard's setting may not hold % or \" (supervisord)")
        if self.router and self.lobby is None:
            raise ValueError(
                "nginx sends the lobby's paths (/me/, /p/) to the lobby: run it here, or name "
                "the machine that does (--remote-lobby HOST:PORT)"
            )

    @property
    def workers(self) -> str:
        """How many worker processes nginx runs: one beside local shards (they need the
        cores), as many as there are cores on a router of its own."""
        return "1" if self.local else "auto"

    @property
    def local(self) -> tuple[Shard, ...]:
        return tuple(shard for shard in self.shards if shard.local)

    @property
    def local_parts(self) -> tuple[Part, ...]:
        """What this machine runs with a database: its shards, then the lobby if it is here."""
        lobby = (self.lobby,) if self.lobby is not None and self.lobby.local else ()
        return (*self.local, *lobby)

    @property
    def servers(self) -> int:
        """How many servers nginx proxies to: the shards and the lobby."""
        return len(self.shards) + (self.lobby is not None)

    def shard(self, name: str) -> Shard:
        for shard in self.shards:
            if shard.name == name:
                return shard
        raise ValueError(f"no shard named {name!r} (there are {[s.name for s in self.shards]})")

    def part(self, name: str) -> Part:
        """The shard named `name`, or the lobby (`lobby`)."""
        if name == LOBBY and self.lobby is not None:
            return self.lobby
        return self.shard(name)

    def db(self, shard: Part) -> Path:
        return self.data / f"{shard.name}.sqlite3"

    def replica(self, shard: Part) -> Path:
        """The shard's (or the lobby's) replica folder (when no `replica_url` is set)."""
        return self.replicas / shard.name

    def replica_at(self, shard: Part) -> str:
        """Where the shard's (or the lobby's) replica lives, as Litestream's URL."""
        if self.replica_url:
            return f"{self.replica_url.rstrip('/')}/{shard.name}"
        return self.replica(shard).as_uri()

    def litestream_config(self, shard: Part) -> Path:
        return self.state / f"litestream-{shard.name}.yml"

    @property
    def nginx_config(self) -> Path:
        return self.state / "nginx.conf"

    @property
    def supervisor_config(self) -> Path:
        return self.state / "supervisord.conf"

    @property
    def pages(self) -> Path:
        """nginx's own pages: "temporarily unavailable", one per language."""
        return self.state / "pages"


def folders(instance: Path) -> dict[str, Path]:
    """A cluster's folders under one `instance` folder (the app's: instance/)."""
    return {
        "state": instance / "cluster",
        "data": instance / "shards",
        "replicas": instance / "replicas",
    }


def tool(name: str) -> str:
    """A program installed beside this Python (gunicorn, litestream, supervisord), else on
    PATH, else in /usr/sbin (Debian's nginx, off a plain user's PATH); else just its name."""
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return str(beside)
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin")
    return found or name


def running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0
