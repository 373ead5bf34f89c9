"""A cluster (domino.cluster) run process by process, for tests and benches.

`make cluster` runs the same programs under supervisord, which starts a killed one again at
once. Here each program is a process group of ours, so that a test can SIGKILL a shard, see
what players see while it is down, and start it again when it chooses. The configurations,
commands and settings are those `make cluster` writes (domino.cluster.files).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from domino.cluster import Cluster, Shard, folders, tool  # noqa: E402
from domino.cluster.__main__ import prepare  # noqa: E402
from domino.cluster.files import Program, programs  # noqa: E402

PR_SET_PDEATHSIG = 1
# Every limit still checked on every request, set far above what a run can reach (scripted
# clients all come from 127.0.0.1, which the real limits would soon refuse).
SATURATION_LIMITS = {
    "RATELIMIT_ACT": "1000000 per minute",
    "RATELIMIT_CREATE": "1000000 per minute",
    "RATELIMIT_JOIN": "1000000 per minute",
}
HIGH_LIMITS = {f"DOMINO_{name}": value for name, value in SATURATION_LIMITS.items()}


def nginx_missing() -> bool:
    """Whether this machine lacks nginx (Debian's package), for a test to skip; in CI, which
    installs it (`.ci/run`), its absence is an error, never a skip."""
    missing = not Path(tool("nginx")).is_file()
    if missing and os.environ.get("CI"):
        raise RuntimeError("CI runs the cluster's tests: nginx must be installed (.ci/run)")
    return missing


def _die_with_parent() -> None:
    """In a child before it runs: SIGKILL it when the process that started it dies, so that
    no shard outlives a test run that was itself killed (Linux's PR_SET_PDEATHSIG)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def free_ports(count: int) -> list[int]:
    """`count` distinct loopback ports free at the moment."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def cluster_in(folder: Path, count: int, env: dict | None = None, **options) -> Cluster:
    """`count` shards (s1...) and nginx on free ports, every file of theirs under `folder`."""
    port, *ports = free_ports(count + 1)
    shards = tuple(Shard(f"s{i}", "127.0.0.1", p) for i, p in enumerate(ports, start=1))
    settings = {"DOMINO_BOT_DELAY_MS": "0", "DOMINO_SECRET_KEY": "cluster-test", **(env or {})}
    return Cluster(
        shards,
        listen=f"127.0.0.1:{port}",
        env=settings,
        **folders(folder),
        **options,
    )


class Processes:
    """A cluster's programs, each started, killed or stopped on its own."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.programs = {program.name: program for program in programs(cluster)}
        self.running: dict[str, subprocess.Popen] = {}
        self.url = f"http://{cluster.listen}"

    def __enter__(self) -> Processes:
        try:
            self.start_all()
        except BaseException:
            self.stop_all()  # those that did start
            raise
        return self

    def __exit__(self, *_exc) -> None:
        self.stop_all()

    def start_all(self) -> None:
        """Write the configurations, then start every program, in supervisord's order."""
        prepare(self.cluster)
        for program in sorted(self.programs.values(), key=lambda p: p.priority):
            self.start(program.name)

    def start(self, name: str, deadline: float = 30.0) -> None:
        """Start program `name` and wait until it answers (a shard or nginx: /healthz)."""
        program = self.programs[name]
        with open(self.cluster.state / "logs" / f"{name}.log", "ab") as log:
            self.running[name] = subprocess.Popen(
                program.argv,
                cwd=program.cwd,
                env={**os.environ, **program.env},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
        url = self._health(program)
        if url is not None:
            self._wait_healthy(name, url, deadline)

    def _health(self, program: Program) -> str | None:
        if program.name == "nginx":
            return f"{self.url}/static/favicon.svg"  # nginx's own answer, shards or not
        if program.name.startswith("shard-"):
            shard = self.cluster.shard(program.name.removeprefix("shard-"))
            return f"http://{shard.address}/healthz"
        return None

    def _wait_healthy(self, name: str, url: str, deadline: float) -> None:
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            if self.running[name].poll() is not None:
                raise RuntimeError(f"{name} exited with {self.running[name].returncode}")
            try:
                with urllib.request.urlopen(url, timeout=1) as reply:
                    if reply.status == 200:
                        return
            except (OSError, urllib.error.URLError):
                time.sleep(0.05)
        raise RuntimeError(f"{name} did not come up within {deadline} s")

    def kill(self, name: str) -> None:
        """SIGKILL program `name` and everything it started (a crash, or the OOM killer)."""
        self._signal(name, signal.SIGKILL)

    def stop(self, name: str) -> None:
        """Stop program `name` as supervisord would (SIGTERM: a shard finishes its requests,
        Litestream syncs once more)."""
        self._signal(name, signal.SIGTERM)

    def _signal(self, name: str, signum: int) -> None:
        process = self.running.pop(name, None)
        if process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signum)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)

    def stop_all(self) -> None:
        """Stop every program, last started first (nginx, the shards, then replication);
        one that will not stop does not keep the others running."""
        failed = []
        for name in sorted(self.running, key=lambda n: -self.programs[n].priority):
            try:
                self.stop(name)
            except Exception as error:
                failed.append(f"{name}: {error}")
        if failed:
            raise RuntimeError(f"could not stop {failed}")

    def pid(self, name: str) -> int:
        return self.running[name].pid


@contextlib.contextmanager
def running_cluster(count: int, env: dict | None = None, **options):
    """A cluster of `count` shards in a temporary folder, stopped and removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="cluster-") as folder:
        cluster = cluster_in(Path(folder), count, env, **options)
        with Processes(cluster) as processes:
            yield processes
