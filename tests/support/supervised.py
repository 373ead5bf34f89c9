"""A cluster run as `make cluster` runs it: its configurations written, then every program under
supervisord, which starts one that dies again. tests/support/shards.py runs the same programs
one by one instead, for tests that choose when a killed one comes back; here supervisord does.

`Supervised` has the `url` and `cluster` of a `shards.Processes`, so that the seats and rooms of
tests/support/faults.py and cluster_rooms.py play on it alike.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request

from domino.cluster import Cluster, tool
from domino.cluster.__main__ import prepare
from domino.cluster.files import programs
from tests.support.shards import _die_with_parent


class Supervised:
    """supervisord running a cluster's programs; `ctl(...)` is supervisorctl on it."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.url = f"http://{cluster.listen}"
        self.names = [program.name for program in programs(cluster)]
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> Supervised:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *_exc) -> None:
        self.stop()

    def start(self, deadline: float = 60.0) -> None:
        """Write everything (`prepare`, as `python -m domino.cluster run` does), start
        supervisord, and wait until every program runs and nginx and the lobby answer."""
        prepare(self.cluster)
        config = str(self.cluster.supervisor_config)
        with open(self.cluster.state / "supervisord.out", "ab") as out:
            self.process = subprocess.Popen(
                [tool("supervisord"), "-c", config],
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
        self.wait_running(self.names, deadline)

    def ctl(self, *args: str) -> str:
        """supervisorctl's output for `args` (status, pid NAME, stop NAME, ...)."""
        command = [tool("supervisorctl"), "-c", str(self.cluster.supervisor_config), *args]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        return done.stdout

    def states(self) -> dict[str, str]:
        """Each program's state as supervisorctl says it (RUNNING, STARTING, STOPPED, ...)."""
        found = {}
        for line in self.ctl("status").splitlines():
            words = line.split()
            if len(words) >= 2:
                found[words[0]] = words[1]
        return found

    def pid(self, name: str) -> int:
        """The pid supervisord started program `name` as (0: not running)."""
        text = self.ctl("pid", name).strip()
        return int(text) if text.isdigit() else 0

    def wait_running(self, names: list[str], deadline: float = 30.0) -> None:
        """Until each of `names` is RUNNING (past supervisord's startsecs) and every server
        among them answers /healthz."""
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"supervisord exited with {self.process.returncode}")
            states = self.states()
            if all(states.get(name) == "RUNNING" for name in names) and all(
                self.answers(name) for name in names
            ):
                return
            time.sleep(0.2)
        raise RuntimeError(f"not all running within {deadline} s: {self.states()}")

    def answers(self, name: str) -> bool:
        """Whether program `name`'s server answers /healthz (true for what serves nothing)."""
        if name == "nginx":
            url = f"{self.url}/static/favicon.svg"
        elif name == "lobby" or name.startswith("shard-"):
            part = self.cluster.part(name.removeprefix("shard-"))
            url = f"http://{part.address}/healthz"
        else:
            return True
        try:
            with urllib.request.urlopen(url, timeout=1) as reply:
                return reply.status == 200
        except (OSError, urllib.error.URLError):
            return False

    def stop(self) -> None:
        """Stop supervisord, which stops every program (nginx first, Litestream last)."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=90)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
