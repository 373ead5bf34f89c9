"""A cluster's written configuration: nginx routes rooms home, Litestream and supervisord agree."""

from __future__ import annotations

import configparser
import json
import subprocess
import sys
from pathlib import Path

import pytest
from supervisor.datatypes import dict_of_key_value_pairs

from domino.cluster import Cluster, Shard, folders, tool
from domino.cluster.__main__ import cluster_of, main, parse_args
from domino.cluster.files import write

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from shards import nginx_missing

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
        assert f"upstream shard_{shard.name} {{\n        server {shard.address} " in conf
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
    assert sorted(programs) == ["nginx", "replicate-s1", "replicate-s2", "shard-s1", "shard-s2"]
    for shard in cluster.local:
        program = programs[f"shard-{shard.name}"]
        env = dict_of_key_value_pairs(program["environment"])  # as supervisord reads it
        assert env == {
            "DOMINO_SHARD": shard.name,
            "DOMINO_DB": str(tmp_path / "shards" / f"{shard.name}.sqlite3"),
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
