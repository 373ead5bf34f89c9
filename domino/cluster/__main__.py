"""`python -m domino.cluster`: run shards and the lobby behind nginx, or bring a shard's (or the
lobby's) database back from its replica.

    run      write the configurations, then run every process under supervisord (Ctrl-C stops all)
    write    only write them (to read them, or to run them another way)
    restore  bring one shard's (or the lobby's: `restore lobby`) database back from its
             Litestream replica

`make cluster SHARDS=N` runs `run`; `make restore SHARD=s1` (or SHARD=lobby) runs `restore`
(docs/cluster.md).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

from . import LOBBY, ROOT, Cluster, LobbyServer, Shard, folders, tool
from .files import Budget, nginx_budget, programs, write
from .restore import restore, restore_missing

LOBBY_OFFSET = 1000  # the lobby's port by default: nginx's + this (shard K's is + K)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog="python -m domino.cluster", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("run", "write"):
        command = commands.add_parser(name)
        command.add_argument("--shards", type=int, default=2, help="shards on this machine")
        command.add_argument("--first", type=int, default=1, help="the first one's number (sK)")
        command.add_argument("--host", default="127.0.0.1", help="where nginx listens")
        command.add_argument("--port", type=int, default=8000, help="nginx's port; shard K's is +K")
        command.add_argument("--shard-host", default="127.0.0.1", help="where the shards listen")
        command.add_argument(
            "--remote",
            action="append",
            default=[],
            metavar="NAME=HOST:PORT",
            help="a shard another machine runs, for nginx to route to (repeatable)",
        )
        command.add_argument("--no-router", dest="router", action="store_false")
        command.add_argument(
            "--lobby-port",
            type=int,
            default=None,
            help=f"the lobby's port, on --shard-host (default: nginx's +{LOBBY_OFFSET})",
        )
        lobby = command.add_mutually_exclusive_group()
        lobby.add_argument(
            "--no-lobby", dest="lobby", action="store_false", help="this machine runs no lobby"
        )
        lobby.add_argument(
            "--remote-lobby",
            default="",
            metavar="HOST:PORT",
            help="the lobby another machine runs, for nginx to route to (then none runs here)",
        )
        _replica_option(command)
        command.add_argument(
            "--trust",
            action="append",
            default=[],
            metavar="CIDR",
            help="a proxy in front of nginx whose X-Forwarded-For it believes (repeatable)",
        )
    restore = commands.add_parser("restore")
    restore.add_argument("shard", help=f"the shard's name, e.g. s1, or {LOBBY}")
    restore.add_argument(
        "--force", action="store_true", help="move the shard's present database files aside first"
    )
    _replica_option(restore)
    return parser.parse_args(argv)


def _replica_option(command) -> None:
    command.add_argument(
        "--instance",
        type=Path,
        default=ROOT / "instance",
        help="the folder of the cluster's files, databases and replicas (default: instance/)",
    )
    command.add_argument(
        "--replica",
        default=os.environ.get("DOMINO_REPLICA_URL", ""),
        metavar="URL",
        help="where replicas live, one folder per shard (e.g. s3://bucket/domino); "
        "default: instance/replicas",
    )


def cluster_of(args) -> Cluster:
    """The cluster the command line describes."""
    if args.shards < 0 or args.first < 1:
        raise ValueError("--shards is 0 or more (0: only --remote ones), --first 1 or more")
    numbers = range(args.first, args.first + args.shards)
    shards = [Shard(f"s{k}", args.shard_host, args.port + k) for k in numbers]
    for spec in args.remote:
        name, _, address = spec.partition("=")
        host, _, port = address.rpartition(":")
        if not (name and host and port.isdigit()):
            raise ValueError(f"--remote takes NAME=HOST:PORT, not {spec!r}")
        shards.append(Shard(name, host, int(port), local=False))
    return Cluster(
        tuple(shards),
        f"{args.host}:{args.port}",
        router=args.router,
        lobby=lobby_of(args),
        trusted=tuple(args.trust),
        replica_url=args.replica,
        **folders(args.instance.resolve()),
    )


def lobby_of(args) -> LobbyServer | None:
    """The lobby the command line names: here (on --shard-host, at --lobby-port), another
    machine's (--remote-lobby), or none at all (--no-lobby)."""
    if args.remote_lobby:
        host, _, port = args.remote_lobby.rpartition(":")
        if not (host and port.isdigit()):
            raise ValueError(f"--remote-lobby takes HOST:PORT, not {args.remote_lobby!r}")
        return LobbyServer(host, int(port), local=False)
    if not args.lobby:
        return None
    port = args.port + LOBBY_OFFSET if args.lobby_port is None else args.lobby_port
    return LobbyServer(args.shard_host, port)


def prepare(cluster: Cluster, budget: Budget | None = None) -> None:
    """Write everything, and create each local shard's database and the lobby's (Litestream
    starts first).

    nginx gets the connections `budget` gives it, by default as many as its shards call for
    or, if this machine allows fewer open files, as many as it allows, said in one line on
    stderr; too few to run it: ValueError, before anything is written."""
    from ..lobby.database import LobbyDatabase
    from ..store import Store
    from .pages import unavailable_pages

    missing = [name for name in _needed(cluster) if shutil.which(tool(name)) is None]
    if missing:
        raise SystemExit(
            f"not installed: {', '.join(missing)}. nginx is Debian's package "
            "(`apt-get install nginx`); the rest come with `make` (pyproject.toml)."
        )
    if cluster.router:
        budget = budget or nginx_budget(cluster)
        if budget.note:
            print(budget.note, file=sys.stderr)
    write(cluster, unavailable_pages() if cluster.router else {}, budget)
    for shard in cluster.local:
        restore_missing(cluster, shard)  # a new machine's disk: the replica, if any
        Store(cluster.db(shard)).close()  # its tables, before Litestream looks at it
    if cluster.lobby is not None and cluster.lobby.local:
        restore_missing(cluster, cluster.lobby)
        LobbyDatabase(cluster.db(cluster.lobby)).close()  # its tables (its migrations)
    if cluster.router:
        check = [tool("nginx"), "-t", "-q", "-p", str(cluster.state / "nginx")]
        subprocess.run([*check, "-c", str(cluster.nginx_config), "-e", "stderr"], check=True)


def _needed(cluster: Cluster) -> list[str]:
    return sorted({program.argv[0].rsplit("/", 1)[-1] for program in programs(cluster)})


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.command == "restore":
        try:  # only the shard's name and folders count here, not where it listens
            places = folders(args.instance.resolve())
            if args.shard == LOBBY:
                lobby, shards = LobbyServer("127.0.0.1", 1), ()
            else:
                lobby, shards = None, (Shard(args.shard, "127.0.0.1", 1),)
            cluster = Cluster(shards, router=False, lobby=lobby, replica_url=args.replica, **places)
        except ValueError as error:
            raise SystemExit(str(error)) from None
        return restore(cluster, args.shard, args.force)
    try:
        cluster = cluster_of(args)
        prepare(cluster)
    except ValueError as error:
        raise SystemExit(str(error)) from None
    if args.command == "write":
        print(f"written: {cluster.state}")
        return 0
    conf = str(cluster.supervisor_config)
    os.execv(tool("supervisord"), [tool("supervisord"), "-c", conf])  # Ctrl-C stops them all


if __name__ == "__main__":
    sys.exit(main())
