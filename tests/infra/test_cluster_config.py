"""A cluster's written configuration: nginx routes rooms home, Litestream and supervisord agree."""

from __future__ import annotations

import configparser
import contextlib
import ctypes
import ipaddress
import json
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from supervisor.datatypes import dict_of_key_value_pairs

from domino import addresses
from domino.cluster import ROOT, Cluster, LobbyServer, Shard, files, folders, tool
from domino.cluster.__main__ import cluster_of, main, parse_args
from domino.cluster.files import Budget, router_program, write
from tests.support.shards import free_ports, nginx_missing

needs_nginx = pytest.mark.skipif(
    nginx_missing(), reason="nginx is not installed (apt-get install nginx)"
)
PAGES = {"en": "<p>back soon</p>", "fr": "<p>bientôt</p>"}
REMOTE = Shard("s3", "10.0.0.5", 9000, local=False)


def cluster_at(folder: Path, **options) -> Cluster:
    """Two local shards and one another machine runs, every file under `folder`."""
    shards = (Shard("s1", "127.0.0.1", 8101), Shard("s2", "127.0.0.1", 8102), REMOTE)
    settings = {
        "listen": "127.0.0.1:8100",
        **folders(folder),
        "env": {"DOMINO_SECRET_KEY": "shared"},
        "lobby": LobbyServer("127.0.0.1", 8200),
        **options,
    }
    return Cluster(shards, **settings)


def written(folder: Path, **options) -> Cluster:
    """That cluster, its files written (`python -m domino.cluster write`)."""
    cluster = cluster_at(folder, **options)
    write(cluster, PAGES)
    return cluster


def programs_of(cluster: Cluster) -> dict[str, configparser.SectionProxy]:
    """supervisord's programs, by name, as its ini file lists them."""
    conf = configparser.ConfigParser(interpolation=None)
    conf.read(cluster.supervisor_config)
    prefix = "program:"
    return {name[len(prefix) :]: conf[name] for name in conf if name.startswith(prefix)}


# --- nginx ----------------------------------------------------------------------------------


def nginx_accepts(cluster: Cluster) -> None:
    """nginx's own check of the written configuration passes (`nginx -t`)."""
    check = [tool("nginx"), "-t", "-q", "-p", str(cluster.state / "nginx")]
    check += ["-c", str(cluster.nginx_config), "-e", "stderr"]
    result = subprocess.run(check, capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr


@needs_nginx
@pytest.mark.parametrize("trusted", [(), ("10.1.0.0/16", "192.0.2.7")])
def test_nginx_accepts_the_written_configuration(tmp_path, trusted):
    nginx_accepts(written(tmp_path, trusted=trusted))


@needs_nginx
def test_a_router_of_remote_shards_alone_runs_nginx_alone(tmp_path):
    args = parse_args(["write", "--shards", "0", "--remote", "s1=10.0.0.5:9001"])
    args.remote_lobby = "10.0.0.5:9000"
    args.instance = tmp_path
    cluster = cluster_of(args)
    assert cluster.local == ()
    write(cluster, PAGES)
    nginx_accepts(cluster)
    assert sorted(programs_of(cluster)) == ["nginx"]
    assert "worker_processes auto;" in cluster.nginx_config.read_text()  # the cores are its own
    assert not list(cluster.state.glob("litestream-*.yml"))


def test_every_shard_has_its_rooms_and_its_creation_forms(tmp_path):
    cluster = written(tmp_path)
    conf = cluster.nginx_config.read_text()
    for shard in cluster.shards:  # the remote one too: nginx routes to it all the same
        assert f"location ^~ /r/{shard.name}- {{\n" in conf
        assert f"proxy_pass http://shard_{shard.name};" in conf
        assert f"upstream shard_{shard.name} {{\n        zone shard_{shard.name} 64k;\n" in conf
        assert f"        server {shard.address} max_conns=" in conf
        assert f"        {shard.name} shard_{shard.name};\n" in conf  # map $arg_shard $creation
    creation = conf.split("map $arg_shard $creation {", 1)[1].split("}", 1)[0]
    assert creation.split() == ["default", "shards;"] + [
        word for shard in cluster.shards for word in (shard.name, f"shard_{shard.name};")
    ]
    assert conf.count("proxy_pass http://$creation;") == 2  # /rooms and /computer
    assert f"listen {cluster.listen};" in conf
    assert "worker_processes 1;" in conf  # the other cores are the shards'
    for code, page in PAGES.items():
        assert (cluster.pages / f"unavailable.{code}.html").read_text() == page


def test_only_trusted_proxies_may_name_the_client(tmp_path):
    plain = written(tmp_path / "plain").nginx_config.read_text()
    assert "set_real_ip_from" not in plain and "real_ip_header" not in plain

    blocks = ("10.1.0.0/16", "192.0.2.7")
    behind = written(tmp_path / "behind", trusted=blocks).nginx_config.read_text()
    for block in blocks:
        assert f"set_real_ip_from {block};" in behind
    assert "real_ip_header X-Forwarded-For;" in behind and "real_ip_recursive on;" in behind


def test_only_trusted_proxies_may_say_the_client_came_over_https(tmp_path):
    plain = written(tmp_path / "plain").nginx_config.read_text()
    assert "proxy_set_header X-Forwarded-Proto $scheme;" in plain
    assert "$http_x_forwarded_proto" not in plain

    behind = written(tmp_path / "behind", trusted=("10.1.0.0/16",)).nginx_config.read_text()
    assert "proxy_set_header X-Forwarded-Proto $client_scheme;" in behind
    assert "geo $realip_remote_addr $via_trusted" in behind and "10.1.0.0/16 1;" in behind
    assert '"1:https" https;' in behind  # only a trusted peer's "https" counts


# --- nginx's caps and open files -------------------------------------------------------------

ROOMY = Budget(3, 1 << 20)  # a machine that lets nginx open all it wants


def upstream_servers(conf: str) -> dict[str, list[str]]:
    """Each upstream's `server` lines, by the upstream's name."""
    groups = re.findall(r"\n    upstream (\w+) \{\n(.*?)\n    \}", conf, re.S)
    return {name: re.findall(r"^ +(server .*);$", body, re.M) for name, body in groups}


def test_each_shard_takes_its_connections_in_two_capped_parts(tmp_path):
    cluster = cluster_at(tmp_path)
    write(cluster, PAGES, ROOMY)
    conf = cluster.nginx_config.read_text()
    assert "worker_rlimit_nofile 73000;" in conf and "worker_connections 72000;" in conf
    servers = upstream_servers(conf)
    assert servers["shards"] == [  # home pages, help, creation, /healthz: counted together
        f"server {shard.address} max_conns=1500 max_fails=1 fail_timeout=5s"
        for shard in cluster.shards
    ]
    for shard in cluster.shards:  # its rooms, sockets and all
        assert servers[shard.upstream] == [f"server {shard.address} max_conns=10000 max_fails=0"]
    for name in servers:  # counted across nginx's workers, not per worker
        assert f"upstream {name} {{\n" in conf and f"        zone {name} " in conf
    assert files.ROOM_CONNECTIONS + files.OTHER_CONNECTIONS < files.SHARD_CONNECTIONS


def test_one_client_is_counted_by_its_address_and_by_its_ipv6_64(tmp_path):
    conf = written(tmp_path).nginx_config.read_text()
    assert "limit_conn_zone $client_address zone=per_address:10m;" in conf
    assert "limit_conn_zone $client_network zone=per_network:10m;" in conf
    assert "limit_conn per_address 256;" in conf and "limit_conn per_network 512;" in conf
    assert "limit_conn_status 503;" in conf
    assert "proxy_request_buffering off;" in conf  # a body's whole time is its shard's to cut


KEYS_CONF = """pid {folder}/nginx.pid;
error_log stderr warn;
events {{ worker_connections 64; }}
http {{
    access_log off;
    default_type application/octet-stream;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    set_real_ip_from 127.0.0.1;
    real_ip_header X-Forwarded-For;
{maps}
    server {{
        listen 127.0.0.1:{port};
        location = /binary {{ return 200 $binary_remote_addr; }}
        location = /address {{ return 200 $client_address; }}
        location = /network {{ return 200 $client_network; }}
    }}
}}
"""


@contextlib.contextmanager
def nginx_running(argv: list[str], log: Path, port: int, preexec=None):
    """nginx in the foreground (`argv`, its messages to `log`), once it accepts on `port`;
    its master process."""
    with open(log, "ab") as output:
        process = subprocess.Popen(
            argv,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=preexec,
        )
    try:
        end = time.monotonic() + 10
        while True:
            assert process.poll() is None, log.read_text()
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            assert time.monotonic() < end, "nginx did not come up"
            time.sleep(0.05)
        yield process
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)


def raw_get(port: int, path: str, forwarded: str | None) -> bytes:
    """The body of a GET from 127.0.0.1 that names `forwarded` as the client (or no one)."""
    header = f"X-Forwarded-For: {forwarded}\r\n" if forwarded else ""
    with socket.create_connection(("127.0.0.1", port), 5) as sock:
        sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: x\r\n{header}Connection: close\r\n\r\n".encode()
        )
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 "), head
    (length,) = re.findall(rb"Content-Length: (\d+)", head)
    assert len(body) == int(length), (head, body)
    return body


@needs_nginx
@pytest.mark.parametrize(
    "client",
    [
        "2001:db8:1:2::5",
        "2001:db8:1:2:a:b:c:d",  # the same /64
        "2001:db8:1:3::5",
        "2001:db8:a0a:a0a::1",  # its bytes hold newlines (0x0a)
        "2001:d0d:a0d:a0d::1",  # and carriage returns
        "192.0.2.10",
        "::ffff:192.0.2.10",  # IPv4 written in IPv6: that IPv4 address
        "::ffff:10.10.10.10",
        "::1",
        None,  # no header: the peer itself, 127.0.0.1
    ],
)
def test_nginx_keys_a_client_by_its_address_and_its_network_as_the_shards_do(tmp_path, client):
    """The written maps, in an nginx of their own that answers with their keys: behind a
    trusted proxy $binary_remote_addr is the forwarded address (realip), the network is its
    IPv6 /64 or its IPv4 address, as domino/addresses.py's `subscriber` counts a client."""
    conf = written(tmp_path / "cluster", trusted=("127.0.0.1",)).nginx_config.read_text()
    found = r"^    map \$binary_remote_addr \$client_\w+ \{\n.*?\n    \}\n"
    maps = re.findall(found, conf, re.S | re.M)
    assert len(maps) == 2, maps
    (port,) = free_ports(1)
    keys = tmp_path / "keys.conf"
    keys.write_text(KEYS_CONF.format(folder=tmp_path, maps="".join(maps), port=port))
    ip = ipaddress.ip_address(client or "127.0.0.1")
    plain = getattr(ip, "ipv4_mapped", None) or ip  # an IPv4 address, however written
    subscriber = ipaddress.ip_network(addresses.subscriber(str(ip)))
    argv = [tool("nginx"), "-p", str(tmp_path), "-c", str(keys), "-e", "stderr"]
    with nginx_running([*argv, "-g", "daemon off;"], tmp_path / "nginx.log", port):
        assert raw_get(port, "/binary", client) == ip.packed
        assert raw_get(port, "/address", client) == plain.packed
        network = raw_get(port, "/network", client)
    assert network == (plain.packed if plain.version == 4 else plain.packed[:8])
    assert network == subscriber.network_address.packed[: len(network)]
    assert subscriber.prefixlen == 8 * len(network)


def test_a_machine_that_allows_nginx_what_it_wants_gets_it_and_hears_nothing():
    budget = ROOMY
    assert (budget.wanted, budget.connections, budget.open_files) == (72_000, 72_000, 73_000)
    assert not budget.fitted and budget.note == ""
    assert (budget.share(files.ROOM_CONNECTIONS), budget.share(files.OTHER_CONNECTIONS)) == (
        10_000,
        1_500,
    )


def write_with(monkeypatch, tmp_path, allowed: int, *options: str) -> Cluster:
    """`python -m domino.cluster write` on a machine letting nginx open `allowed` files."""
    monkeypatch.setattr(files, "open_files_allowed", lambda: allowed)
    port = str(free_ports(1)[0])
    main(["write", "--instance", str(tmp_path), "--port", port, *options])
    return cluster_of(parse_args(["write", "--instance", str(tmp_path), "--port", port, *options]))


@needs_nginx
def test_a_machine_allowing_fewer_open_files_fits_nginx_to_them_and_says_so_once(
    tmp_path, monkeypatch, capsys
):
    cluster = write_with(monkeypatch, tmp_path, 20_000)  # this machine's, as issue 27 found
    (line,) = capsys.readouterr().err.splitlines()
    # Two shards and the lobby: 24,000 connections each.
    assert line.startswith("nginx: 19,000 connections, not 72,000: this machine lets it open ")
    assert "20,000 files (the hard RLIMIT_NOFILE" in line
    assert "9,500 requests and sockets at once instead of 36,000" in line
    assert "capped at 2,638 for its rooms and 395 for the rest" in line
    assert "`ulimit -Hn` as root, LimitNOFILE= under systemd" in line
    conf = cluster.nginx_config.read_text()
    assert "worker_rlimit_nofile 20000;" in conf and "worker_connections 19000;" in conf
    assert "# But this machine lets nginx open only 20,000 files" in conf
    servers = upstream_servers(conf)
    assert servers["shard_s1"] == [
        f"server {cluster.shard('s1').address} max_conns=2638 max_fails=0"
    ]
    assert all("max_conns=395 " in line for line in servers["shards"])
    assert servers["lobby"] == [f"server {cluster.lobby.address} max_conns=3034 max_fails=0"]
    nginx_accepts(cluster)


@pytest.mark.parametrize("allowed", [4_000, 5_095, 1_024])
def test_a_machine_allowing_too_few_open_files_is_refused_before_anything_is_written(
    tmp_path, monkeypatch, allowed
):
    with pytest.raises(SystemExit, match=f"nginx may open only {allowed:,} files here") as refused:
        write_with(monkeypatch, tmp_path, allowed)
    message = str(refused.value)
    assert "fewer than the 4,096 a router needs at the least" in message
    assert "`ulimit -Hn` as root" in message and "then start again" in message
    assert not list(tmp_path.iterdir()), "something was written"
    with pytest.raises(ValueError, match="fewer than the 4,096"):
        Budget(2, allowed).check()
    Budget(2, 5_096).check()  # the fewest it runs with


def test_a_router_alone_is_not_refused_for_what_local_shards_would_need(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "open_files_allowed", lambda: 4_000)
    cluster = cluster_at(tmp_path, router=False)
    write(cluster, {})  # no nginx here: its open files are none of this machine's business
    assert not cluster.nginx_config.exists() and cluster.supervisor_config.exists()


def test_what_nginx_may_open_is_the_hard_limit_unless_this_process_may_raise_it(
    tmp_path, monkeypatch
):
    ceiling = int(Path("/proc/sys/fs/nr_open").read_text())
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    monkeypatch.setattr(files, "may_raise_limits", lambda: False)
    assert files.open_files_allowed() == min(hard, ceiling)
    monkeypatch.setattr(files, "may_raise_limits", lambda: True)
    assert files.open_files_allowed() == ceiling
    monkeypatch.undo()
    status = tmp_path / "status"
    monkeypatch.setattr(files, "STATUS", status)
    status.write_text("Name:\tpython\nCapEff:\t000001ffffffffff\n")  # root, every capability
    assert files.may_raise_limits()
    status.write_text("Name:\tpython\nCapEff:\t000001fffeffffff\n")  # a container's root
    assert not files.may_raise_limits()
    status.write_text("Name:\tpython\nCapEff:\t0000000000000000\n")  # a plain user
    assert not files.may_raise_limits()


HARD_LIMIT = 9_000  # open files, for the processes below
PR_CAPBSET_DROP = 24
CAP_SYS_RESOURCE = 24


def as_a_plain_user() -> None:
    """In a child before it runs: a hard limit of HARD_LIMIT open files that it may not
    raise (root too: CAP_SYS_RESOURCE leaves its bounding set, so its next program lacks it)."""
    resource.setrlimit(resource.RLIMIT_NOFILE, (HARD_LIMIT, HARD_LIMIT))
    ctypes.CDLL(None, use_errno=True).prctl(PR_CAPBSET_DROP, CAP_SYS_RESOURCE, 0, 0, 0)


def open_files_of(pid: int) -> tuple[int, int]:
    """A process's soft and hard limits on open files."""
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return int(soft), int(hard)
    raise AssertionError("no open files limit")


@needs_nginx
def test_nginx_started_under_a_lower_hard_limit_has_the_open_files_its_configuration_names(
    tmp_path,
):
    """As a plain user with a hard limit of 9,000: `write` says it fitted nginx, and nginx's
    worker really has the 9,000 open files its configuration names, with no alert (a
    configuration asking for more gets an alert and the hard limit: issue 27)."""
    (port,) = free_ports(1)
    options = ["write", "--instance", str(tmp_path), "--port", str(port)]
    command = [sys.executable, "-m", "domino.cluster", *options]
    result = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=60, preexec_fn=as_a_plain_user
    )
    assert result.returncode == 0, result.stderr
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("nginx:")]
    assert line.startswith("nginx: 8,000 connections, not 72,000"), line
    cluster = cluster_of(parse_args(options))
    conf = cluster.nginx_config.read_text()
    assert f"worker_rlimit_nofile {HARD_LIMIT};" in conf
    log = cluster.state / "logs" / "nginx.log"
    argv = list(router_program(cluster).argv)  # as supervisord starts it
    with nginx_running(argv, log, port, preexec=as_a_plain_user) as master:
        (worker,) = Path(f"/proc/{master.pid}/task/{master.pid}/children").read_text().split()
        assert open_files_of(int(worker)) == (HARD_LIMIT, HARD_LIMIT)
    text = log.read_text()
    assert "setrlimit" not in text and "[alert]" not in text, text


def test_without_a_router_no_nginx_is_written_or_run(tmp_path):
    cluster = written(tmp_path, router=False)
    assert not cluster.nginx_config.exists()
    assert "nginx" not in programs_of(cluster)


# --- Litestream -------------------------------------------------------------------------------


def replica_url(config: Path) -> str:
    """The replica's URL in a Litestream configuration (its one `url:` line)."""
    (line,) = [line for line in config.read_text().splitlines() if line.strip().startswith("url:")]
    return json.loads(line.split(":", 1)[1].strip())  # written quoted, as JSON is valid YAML


def litestream_reads(config: Path) -> list[dict]:
    """The databases Litestream itself reads in `config`."""
    command = [tool("litestream"), "databases", "-json", "-config", str(config)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=30, check=True)
    return json.loads(result.stdout)


def test_each_local_shard_replicates_its_database_to_its_own_folder(tmp_path):
    cluster = written(tmp_path)
    assert sorted(p.name for p in cluster.state.glob("litestream-*.yml")) == [
        "litestream-lobby.yml",
        "litestream-s1.yml",
        "litestream-s2.yml",
    ]  # none for the shard another machine runs
    for shard in cluster.local:
        config = cluster.litestream_config(shard)
        assert replica_url(config) == (tmp_path / "replicas" / shard.name).as_uri()
        assert replica_url(config).startswith("file:///")
        assert "sync-interval: 1s" in config.read_text()
        db = str(tmp_path / "shards" / f"{shard.name}.sqlite3")
        assert litestream_reads(config) == [{"path": db, "replica": "file"}]
    assert (tmp_path / "replicas").is_dir()


def test_a_replica_url_holds_every_shards_replica_in_its_own_folder(tmp_path):
    cluster = written(tmp_path, replica_url="s3://bucket/domino/")
    for shard in cluster.local:
        config = cluster.litestream_config(shard)
        assert replica_url(config) == f"s3://bucket/domino/{shard.name}"
        assert litestream_reads(config)[0]["replica"] == "s3"
    assert not (tmp_path / "replicas").exists()


# --- supervisord ------------------------------------------------------------------------------


def test_supervisord_runs_each_local_shard_with_its_settings(tmp_path):
    cluster = written(tmp_path)
    programs = programs_of(cluster)
    assert sorted(programs) == [
        "lobby",
        "nginx",
        "replicate-lobby",
        "replicate-s1",
        "replicate-s2",
        "shard-s1",
        "shard-s2",
    ]
    for shard in cluster.local:
        program = programs[f"shard-{shard.name}"]
        env = dict_of_key_value_pairs(program["environment"])  # as supervisord reads it
        assert env == {
            "DOMINO_SHARD": shard.name,
            "DOMINO_DB": str(tmp_path / "shards" / f"{shard.name}.sqlite3"),
            "DOMINO_LOBBY": "elsewhere",
            "DOMINO_LOBBY_URL": "http://127.0.0.1:8200",  # where its results go
            "DOMINO_PROXIES": "1",
            "DOMINO_SECRET_KEY": "shared",
        }
        assert f"--bind={shard.address}" in program["command"].split()
        replicate = programs[f"replicate-{shard.name}"]["command"]
        assert replicate.split()[-4:] == [
            "replicate",
            "-no-expand-env",  # a "$" in a path is a "$"
            "-config",
            str(cluster.litestream_config(shard)),
        ]


def test_replication_starts_before_its_shard_and_nginx_last(tmp_path):
    programs = programs_of(written(tmp_path))
    priority = {name: int(section["priority"]) for name, section in programs.items()}
    for name in ("s1", "s2"):
        assert priority[f"replicate-{name}"] < priority[f"shard-{name}"] < priority["nginx"]
    assert all(section["autorestart"] == "true" for section in programs.values())


# --- the command line -------------------------------------------------------------------------


def test_the_command_line_names_local_and_remote_shards(tmp_path):
    args = parse_args(["write", "--shards", "2", "--first", "3", "--port", "9000"])
    args.remote = ["s9=10.0.0.9:7001", "db=[::1]:7002"]
    cluster = cluster_of(args)
    assert [(s.name, s.address, s.local) for s in cluster.shards] == [
        ("s3", "127.0.0.1:9003", True),
        ("s4", "127.0.0.1:9004", True),
        ("s9", "10.0.0.9:7001", False),
        ("db", "[::1]:7002", False),
    ]
    assert cluster.listen == "127.0.0.1:9000"
    options = ["--trust", "10.0.0.0/8", "--replica", "s3://b/d", "--no-router"]
    cluster = cluster_of(parse_args(["run", *options, "--instance", str(tmp_path)]))
    assert cluster.trusted == ("10.0.0.0/8",)
    assert cluster.replica_url == "s3://b/d" and not cluster.router
    assert (cluster.state, cluster.data, cluster.replicas) == (
        tmp_path / "cluster",
        tmp_path / "shards",
        tmp_path / "replicas",
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--shards", "-1"], "--shards is 0 or more"),
        (["--first", "0"], "--first 1 or more"),
        (["--shards", "0"], "at least one shard"),  # and no --remote
    ],
)
def test_the_command_line_needs_a_shard_to_route_to(options, message):
    with pytest.raises(ValueError, match=message):
        cluster_of(parse_args(["write", *options]))
    with pytest.raises(SystemExit, match=message):
        main(["write", *options])


@pytest.mark.parametrize(
    "spec", ["s3", "s3=", "s3=host", "s3=host:", "s3=:80", "=host:80", "s3=h:x"]
)
def test_a_remote_shard_needs_a_name_a_host_and_a_port(spec, capsys):
    args = parse_args(["write", "--remote", spec])
    with pytest.raises(ValueError, match="--remote takes NAME=HOST:PORT"):
        cluster_of(args)
    with pytest.raises(SystemExit, match="--remote takes NAME=HOST:PORT"):
        main(["write", "--remote", spec])  # refused before anything is written


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("S3=h:80", "a shard's name is a-z"),
        ("s-3=h:80", "a shard's name is a-z"),
        ("s1=h:80", "two shards share a name"),  # --shards 1 is s1 already
        ("s3=h:0", "no such port"),
        ("s3=h:70000", "no such port"),
    ],
)
def test_a_remote_shard_with_a_bad_name_or_port_is_refused(spec, message):
    args = parse_args(["write", "--shards", "1", "--remote", spec])
    with pytest.raises(ValueError, match=message):
        cluster_of(args)
    with pytest.raises(SystemExit, match=message):
        main(["write", "--shards", "1", "--remote", spec])


def test_restore_refuses_a_bad_shard_name_before_touching_anything():
    with pytest.raises(SystemExit, match="a shard's name is"):
        main(["restore", "S1"])


# --- the plan -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["s-1", "S1", "sA", "", "1s", "s" * 17, "s 1", "s_1"])
def test_a_shards_name_is_lowercase_without_a_dash(name):
    with pytest.raises(ValueError, match="a shard's name is a-z"):
        Shard(name, "127.0.0.1", 8001)


def test_a_shard_name_may_be_sixteen_characters_and_a_cluster_needs_distinct_ones():
    assert Shard("s" * 16, "127.0.0.1", 8001).upstream == f"shard_{'s' * 16}"
    with pytest.raises(ValueError, match="no such port"):
        Shard("s1", "127.0.0.1", 0)
    with pytest.raises(ValueError, match="share a name"):
        Cluster((Shard("s1", "127.0.0.1", 8001), Shard("s1", "127.0.0.1", 8002)))
    with pytest.raises(ValueError, match="at least one"):
        Cluster(())


@pytest.mark.parametrize("folder", ["my games", "100%", "a$b", 'a"b', "a;b", "a#b"])
def test_folders_that_nginx_supervisord_or_litestream_would_misread_are_refused(tmp_path, folder):
    with pytest.raises(ValueError, match="may not hold spaces"):
        Cluster((Shard("s1", "127.0.0.1", 8001),), **folders(tmp_path / folder))


def test_a_shard_setting_that_supervisord_would_misread_is_refused():
    for value in ("100%", 'say "hi"'):
        with pytest.raises(ValueError, match="DOMINO_X: a shard's setting may not hold"):
            Cluster((Shard("s1", "127.0.0.1", 8001),), env={"DOMINO_X": value})
