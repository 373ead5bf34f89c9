"""Domino online: the Flask application factory."""

import os
import secrets
from pathlib import Path

from flask import Flask

from domino.clock import ABANDON_SECONDS, BANK_SECONDS, MOVE_SECONDS

DEFAULT_BOT_DELAY_MS = 700
# A socket whose peer misses a ping is let go at the next one: a peer that vanished (no close
# frame, e.g. its network was lost) is seen gone, and shown "away", 2 to 4 s later.
DEFAULT_PING_SECONDS = 2
DEFAULT_AWAY_SECONDS = 120  # a seat away this long may be handed to the computer


def create_app(config=None):
    """Build and configure the Flask app; `config` overrides the environment and the defaults."""
    app = Flask(__name__)
    instance = Path(app.instance_path)
    _private_folder(instance)

    app.config.from_mapping(
        DOMINO_DB=os.environ.get("DOMINO_DB") or str(instance / "domino.sqlite3"),
        BOT_DELAY_MS=int(os.environ.get("DOMINO_BOT_DELAY_MS", DEFAULT_BOT_DELAY_MS)),
        SECRET_KEY=os.environ.get("DOMINO_SECRET_KEY") or None,
        PROXIES=int(os.environ.get("DOMINO_PROXIES", "0")),
        PING_SECONDS=float(os.environ.get("DOMINO_PING_SECONDS", DEFAULT_PING_SECONDS)),
        BOT_PROCESSES=int(os.environ.get("DOMINO_BOT_PROCESSES", "1")),
        REVIEW_PROCESSES=int(os.environ.get("DOMINO_REVIEW_PROCESSES", "1")),
        AWAY_SECONDS=float(os.environ.get("DOMINO_AWAY_SECONDS", DEFAULT_AWAY_SECONDS)),
        # Test setting: a fixed wait after each commit of the store's writer (a slow disk).
        SYNC_DELAY_MS=float(os.environ.get("DOMINO_SYNC_DELAY_MS", "0")),
        # One shard of several (docs/cluster.md): its room ids start with "<SHARD>-".
        SHARD=os.environ.get("DOMINO_SHARD", ""),
        # The players' lobby (SPEC §11): "here" in this process, "elsewhere" (a shard of a
        # cluster: nginx sends the lobby's paths to its own process), or "only" (that process).
        LOBBY=os.environ.get("DOMINO_LOBBY", "here"),
        LOBBY_DB=os.environ.get("DOMINO_LOBBY_DB") or None,
        # A shard of a cluster: the lobby's own address, where finished matches' results are
        # sent (web/live/results_sender.py), e.g. "http://127.0.0.1:9080".
        LOBBY_URL=os.environ.get("DOMINO_LOBBY_URL") or None,
        # The lobby's process of a cluster: the shards' own addresses, comma-separated, where
        # quick match opens its tables (web/live/waves.py `over_http`), e.g.
        # "http://127.0.0.1:8001,http://127.0.0.1:8002".
        SHARD_URLS=tuple(
            url.strip() for url in os.environ.get("DOMINO_SHARD_URLS", "").split(",") if url.strip()
        ),
        # The site's address as browsers see it ("https://domino.example"): the passkeys' origin
        # and relying party; unset, each request's own scheme and host.
        ORIGIN=os.environ.get("DOMINO_ORIGIN") or None,
        # Quick match (SPEC §12): a table not full after FILL_SECONDS gets the computer; the
        # lobby pairs its queue every WAVE_SECONDS (and at once when someone joins).
        FILL_SECONDS=float(os.environ.get("DOMINO_FILL_SECONDS", "30")),
        WAVE_SECONDS=float(os.environ.get("DOMINO_WAVE_SECONDS", "2")),
        # A stake table (SPEC §13) not full this long after it opened expires, refunded.
        STAKE_WAIT_SECONDS=float(os.environ.get("DOMINO_STAKE_WAIT_SECONDS", "120")),
        # A public table's clock (SPEC §12, domino/clock.py): seconds a move, the bank a match,
        # and how long a player may be away before the match is lost.
        MOVE_SECONDS=float(os.environ.get("DOMINO_MOVE_SECONDS", MOVE_SECONDS)),
        BANK_SECONDS=float(os.environ.get("DOMINO_BANK_SECONDS", BANK_SECONDS)),
        ABANDON_SECONDS=float(os.environ.get("DOMINO_ABANDON_SECONDS", ABANDON_SECONDS)),
    )
    if config:
        app.config.update(config)
    from domino.room import SHARD_NAME

    if not app.config["LOBBY_DB"]:  # beside the rooms' database: instance/lobby.sqlite3
        app.config["LOBBY_DB"] = str(Path(app.config["DOMINO_DB"]).with_name("lobby.sqlite3"))
    if app.config["LOBBY"] not in ("here", "elsewhere", "only"):
        raise ValueError(f"DOMINO_LOBBY is here, elsewhere or only: {app.config['LOBBY']!r}")
    shard = app.config["SHARD"]
    if shard and not SHARD_NAME.fullmatch(shard):
        raise ValueError(f"a shard's name is a-z then up to 15 of a-z, 0-9: {shard!r}")
    if not app.config["SECRET_KEY"]:
        app.config["SECRET_KEY"] = _persistent_secret_key(instance / "secret_key")

    if app.config["PROXIES"] > 0:  # trust that many proxies' X-Forwarded-* headers
        from werkzeug.middleware.proxy_fix import ProxyFix

        hops = app.config["PROXIES"]
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops)

    from domino.web import init_app

    init_app(app, rng=app.config.get("DOMINO_RNG"))
    return app


def _private_folder(path):
    """Create `path` readable by its owner only (0700), or make an existing one so."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if path.stat().st_mode & 0o077:
        path.chmod(0o700)


def _persistent_secret_key(path):
    """Return the key stored at `path`, creating it (mode 0600) on first use."""
    if not path.exists():
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(32))
        try:
            os.link(tmp, path)  # atomic, and never replaces a key another process wrote first
        except FileExistsError:
            pass
        finally:
            tmp.unlink()
    return path.read_text().strip()


def main(argv=None) -> None:
    """`make run`: the app on Werkzeug's development server at --host and --port, its background
    work started first (as gunicorn's hooks start it for `make serve`)."""
    import argparse

    from domino.web import start_background

    parser = argparse.ArgumentParser(description="Domino online on a development server.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    app = create_app()
    start_background(app)
    app.run(host=args.host, port=args.port, threaded=True)


if __name__ == "__main__":
    main()
