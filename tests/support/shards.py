"""A cluster (domino.cluster) run process by process, for tests and benches.

`make cluster` runs the same programs under supervisord, which starts a killed one again at
once. Here each program is a process group of ours, so that a test can SIGKILL a shard, see
what players see while it is down, and start it again when it chooses. The configurations,
commands and settings are those `make cluster` writes (domino.cluster.files).

`python -m bench.shards` measures nginx's caps on slow bodies (`slow_body_figures`): how many
it holds and refuses from one IPv6 /64, and how long /healthz takes meanwhile.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import selectors
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from domino.cluster import LOBBY, Cluster, LobbyServer, Shard, folders, tool
from domino.cluster.__main__ import prepare
from domino.cluster.files import Budget, Program, programs

ROOT = Path(__file__).resolve().parents[2]


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
    """`count` shards (s1...), the lobby and nginx on free ports, every file of theirs under
    `folder` (`lobby=None` in `options`: no lobby, and no nginx either)."""
    port, lobby, *ports = free_ports(count + 2)
    shards = tuple(Shard(f"s{i}", "127.0.0.1", p) for i, p in enumerate(ports, start=1))
    settings = {"DOMINO_BOT_DELAY_MS": "0", "DOMINO_SECRET_KEY": "cluster-test", **(env or {})}
    options.setdefault("lobby", LobbyServer("127.0.0.1", lobby))
    return Cluster(
        shards,
        listen=f"127.0.0.1:{port}",
        env=settings,
        **folders(folder),
        **options,
    )


class Processes:
    """A cluster's programs, each started, killed or stopped on its own."""

    def __init__(self, cluster: Cluster, budget: Budget | None = None) -> None:
        self.cluster = cluster
        self.budget = budget  # nginx's connections; by default what the machine allows
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
        prepare(self.cluster, self.budget)
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
        if program.name == LOBBY:
            return f"http://{self.cluster.part(LOBBY).address}/healthz"
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
def running_cluster(count: int, env: dict | None = None, budget: Budget | None = None, **options):
    """A cluster of `count` shards in a temporary folder, stopped and removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="cluster-") as folder:
        cluster = cluster_in(Path(folder), count, env, **options)
        with Processes(cluster, budget) as processes:
            yield processes


# --- slow clients ------------------------------------------------------------------------------


@dataclass
class SlowBody:
    """One POST through nginx whose body never comes whole: its client (the X-Forwarded-For
    nginx believes), when its headers went, and nginx's answer once one came (b"": closed)."""

    client: str
    sock: socket.socket
    sent: float
    answer: bytes | None = None
    answered: float | None = None

    @property
    def status(self) -> int | None:
        return int(self.answer.split(b" ", 2)[1]) if self.answer else None

    @property
    def seconds(self) -> float:
        """How long after its headers the answer came."""
        assert self.answered is not None, "not answered"
        return self.answered - self.sent


class SlowBodies:
    """Slow-body POSTs through nginx: the headers sent at once, then the body a byte at a
    time (`drip`), never all of it. Every connection goes to nginx's own (loopback) address;
    a client's address is only the X-Forwarded-For value that nginx believes (`trusted`)."""

    LENGTH = 1000  # the body's announced length: far more than is ever sent

    def __init__(self, listen: str) -> None:
        host, port = listen.rsplit(":", 1)
        self.address = (host, int(port))
        self.bodies: list[SlowBody] = []
        self.selector = selectors.DefaultSelector()  # epoll: past select()'s 1,024 descriptors

    def __enter__(self) -> SlowBodies:
        return self

    def __exit__(self, *_exc) -> None:
        self.close()

    def open(self, client: str, path: str, count: int = 1) -> list[SlowBody]:
        """`count` more from `client` to `path`, each its headers and a first byte of body."""
        head = (
            f"POST {path} HTTP/1.1\r\nHost: localhost\r\nX-Forwarded-For: {client}\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {self.LENGTH}\r\n\r\na"
        ).encode()
        opened = []
        for _ in range(count):
            sock = socket.create_connection(self.address, timeout=5)
            body = SlowBody(client, sock, time.monotonic())
            sock.sendall(head)
            sock.setblocking(False)
            self.selector.register(sock, selectors.EVENT_READ, body)
            opened.append(body)
        self.bodies += opened
        self.poll()
        return opened

    def poll(self, seconds: float = 0.0) -> None:
        """Take the answers that have come, waiting up to `seconds` for more."""
        end = time.monotonic() + seconds
        while self.selector.get_map():
            for key, _events in self.selector.select(max(0.0, end - time.monotonic())):
                body = key.data
                try:
                    body.answer = body.sock.recv(4096)
                except OSError:
                    body.answer = b""
                body.answered = time.monotonic()
                self.selector.unregister(body.sock)
            if time.monotonic() >= end:
                return

    def drip(self) -> None:
        """One more byte of every body that has no answer yet."""
        for body in self.waiting():
            with contextlib.suppress(OSError):  # closed: the next poll says so
                body.sock.send(b"a")

    def waiting(self, bodies: list[SlowBody] | None = None) -> list[SlowBody]:
        """Those (of `bodies`) nginx holds: no answer yet."""
        return [body for body in (self.bodies if bodies is None else bodies) if not body.answered]

    def close(self) -> None:
        for body in self.bodies:
            body.sock.close()
        self.selector.close()


class HealthProbe:
    """GET /healthz through nginx every `every` seconds on a new connection, in a thread of
    its own while the `with` lasts: each answer's status (None: none came) and seconds."""

    def __init__(self, url: str, every: float = 0.2, timeout: float = 5.0) -> None:
        self.url = f"{url}/healthz"
        self.every = every
        self.timeout = timeout
        self.answers: list[tuple[int | None, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> HealthProbe:
        self._thread.start()
        return self

    def __exit__(self, *_exc) -> None:
        self._stop.set()
        self._thread.join(timeout=2 * self.timeout)

    def _run(self) -> None:
        while not self._stop.is_set():
            start = time.monotonic()
            try:
                with urllib.request.urlopen(self.url, timeout=self.timeout) as reply:
                    status = reply.status
            except urllib.error.HTTPError as error:
                status = error.code
            except OSError:
                status = None
            self.answers.append((status, time.monotonic() - start))
            self._stop.wait(self.every)

    @property
    def slowest(self) -> float:
        return max(seconds for _status, seconds in self.answers)


def network_addresses(prefix: str, count: int) -> list[str]:
    """`count` addresses of one IPv6 /64, e.g. "2001:db8:1:2::" -> 2001:db8:1:2::1, ::2 ..."""
    return [f"{prefix}{n:x}" for n in range(1, count + 1)]


def slow_body_figures(
    processes: Processes, prefix: str = "2001:db8:1:2::", addresses: int = 100, each: int = 6
) -> dict:
    """Slow bodies from `addresses` addresses of one /64, `each` apiece, to rooms' paths of
    every shard, dripped a byte every 2 s until the shards' 10 s request timeout ends them,
    while /healthz is probed through nginx five times a second."""
    names = [shard.name for shard in processes.cluster.shards]
    with HealthProbe(processes.url) as probe, SlowBodies(processes.cluster.listen) as slow:
        start = time.monotonic()
        for n, client in enumerate(network_addresses(prefix, addresses)):
            slow.open(client, f"/r/{names[n % len(names)]}-slowbody/join", each)
        slow.poll(1.0)
        refused = [body for body in slow.bodies if body.answered]
        most_held, last_drip = len(slow.waiting()), time.monotonic()
        while slow.waiting() and time.monotonic() - start < 20:
            slow.poll(0.25)
            most_held = max(most_held, len(slow.waiting()))
            if time.monotonic() - last_drip >= 2:
                slow.drip()
                last_drip = time.monotonic()
        held = [body for body in slow.bodies if body not in refused]
        return {
            "sent": len(slow.bodies),
            "held": len(held),
            "most held at once": most_held,
            "refused": len(refused),
            "refused statuses": sorted({body.status for body in refused}, key=str),
            "slowest refusal (s)": round(max((b.seconds for b in refused), default=0), 3),
            "held ended by": sorted({body.status for body in held}, key=str),
            "held for (s)": round(max((b.seconds for b in held if b.answered), default=0), 1),
            "healthz probes": len(probe.answers),
            "healthz statuses": sorted({status for status, _ in probe.answers}, key=str),
            "healthz slowest (s)": round(probe.slowest, 3),
        }


def main() -> None:
    """Two shards behind nginx, believing 127.0.0.1's X-Forwarded-For: the figures."""
    with running_cluster(2, HIGH_LIMITS, trusted=("127.0.0.1",)) as processes:
        for name, value in slow_body_figures(processes).items():
            print(f"{name}: {value}")


if __name__ == "__main__":
    main()


def post_status(url: str, body: str) -> int:
    """POST `body` to a server's own address; the HTTP status it answered."""
    request = urllib.request.Request(url, data=body.encode(), method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
