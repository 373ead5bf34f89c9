"""nginx's caps on what one client holds, in a cluster of its own: slow bodies from 100
addresses of one IPv6 /64 are capped as one network's, other clients keep theirs, /healthz
answers throughout, and a shard's connections are capped (max_conns).

Every connection goes to nginx's loopback address. The clients' addresses are only
X-Forwarded-For values, which nginx believes from 127.0.0.1 (`--trust`, realip), all of them
from the documentation prefixes (2001:db8::/32, 192.0.2.0/24). nginx's connections are set
as on a machine allowing it 5,096 open files (4,096 connections), so each shard's caps are
small and known: 853 connections for its rooms, 128 for the rest.
"""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from domino.cluster.files import (
    OTHER_CONNECTIONS,
    PER_NETWORK,
    ROOM_CONNECTIONS,
    Budget,
)
from domino.server.worker import MAX_CONNECTIONS_PER_ADDRESS, REQUEST_TIMEOUT
from tests.support.shards import (
    HIGH_LIMITS,
    HealthProbe,
    Processes,
    SlowBodies,
    cluster_in,
    network_addresses,
    nginx_missing,
)

ROOT = Path(__file__).resolve().parents[2]


pytestmark = pytest.mark.slow

BUDGET = Budget(2, 5_096)
AT_ONCE = 1.0  # seconds: a refusal, or /healthz, comes within this
DRIP = 2.0  # seconds between a slow body's bytes: well inside nginx's 10 s between reads
NETWORK = "2001:db8:1:2::"  # the /64 whose 100 addresses send too many
EACH = 6  # slow bodies per address of it: 600 in all
OTHER_NETWORK = "2001:db8:1:3::"
ONE_ADDRESS = "2001:db8:1:4::7"  # one address alone of its /64, sending too many
IPV4 = "192.0.2.10"
SHARDS = ("s1", "s2")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if nginx_missing():
        pytest.skip("nginx is not installed (Debian's package nginx; CI installs it)")
    folder = tmp_path_factory.mktemp("limits")
    processes = Processes(cluster_in(folder, 2, HIGH_LIMITS, trusted=("127.0.0.1",)), BUDGET)
    try:
        processes.start_all()
        yield processes
    finally:
        processes.stop_all()


def room_path(n: int) -> str:
    """A room's path on each shard in turn: a shard's room connections (853) are more than a
    /64 may hold (512), so nginx's per-client caps are what refuses here."""
    return f"/r/{SHARDS[n % len(SHARDS)]}-slowbody/join"


def limited_by(cluster: Processes, zone: str, since: int) -> int:
    """How many connections nginx has refused under `zone` since the log was `since` long."""
    log = (cluster.cluster.state / "logs" / "nginx.log").read_text()[since:]
    return log.count(f'limiting connections by zone "{zone}"')


def log_size(cluster: Processes) -> int:
    return len((cluster.cluster.state / "logs" / "nginx.log").read_text())


def refused_at_once(bodies) -> None:
    for body in bodies:
        assert body.status == 503, (body.client, body.answer)
        assert b"Retry-After" not in body.answer, "the unavailable page, not limit_conn's refusal"
        assert body.seconds < AT_ONCE, f"{body.client}: refused after {body.seconds:.2f} s"


def test_slow_bodies_from_one_64_are_capped_and_healthz_answers_throughout(cluster):
    """600 slow bodies from 100 addresses of one /64: nginx holds 512 (the /64's cap) until
    the shards' request timeout ends them, refuses the other 88 at once (503); another /64,
    an IPv4 address and 127.0.0.1's /healthz are not held back meanwhile; one address alone
    gets 256 (its own cap), not its /64's 512."""
    since = log_size(cluster)
    addresses = network_addresses(NETWORK, 100)
    with HealthProbe(cluster.url) as probe, SlowBodies(cluster.cluster.listen) as slow:
        network = []
        for n, client in enumerate(addresses):
            network += slow.open(client, room_path(n), EACH)
        others = [
            slow.open(client, room_path(n))[0]
            for n, client in enumerate(network_addresses(OTHER_NETWORK, 10))
        ]
        ipv4 = slow.open(IPV4, room_path(0), 10)
        alone = slow.open(ONE_ADDRESS, room_path(1), MAX_CONNECTIONS_PER_ADDRESS + 4)
        slow.poll(AT_ONCE)

        held = slow.waiting(network)
        refused = [body for body in network if body.answered]
        assert len(held) == PER_NETWORK == 512, len(held)
        assert len(refused) == EACH * len(addresses) - PER_NETWORK == 88
        refused_at_once(refused)
        assert limited_by(cluster, "per_network", since) == 88
        assert slow.waiting(others) == others, "another /64 was held back"
        assert slow.waiting(ipv4) == ipv4, "an IPv4 address was held back"
        assert len(slow.waiting(alone)) == MAX_CONNECTIONS_PER_ADDRESS == 256
        refused_at_once([body for body in alone if body.answered])
        assert limited_by(cluster, "per_address", since) == 4

        counts, last_drip = [], time.monotonic()  # held, at each drip until a timeout is near
        while slow.waiting() and time.monotonic() - slow.bodies[0].sent < REQUEST_TIMEOUT + 5:
            slow.poll(0.1)
            if time.monotonic() - last_drip >= DRIP:
                slow.drip()
                last_drip = time.monotonic()
                if last_drip - slow.bodies[-1].sent < REQUEST_TIMEOUT - 1:
                    counts.append(len(slow.waiting(network)))
        assert len(counts) >= 3 and set(counts) == {PER_NETWORK}, counts

        kept = [*held, *others, *ipv4, *slow.waiting(alone)]
        assert not slow.waiting(), f"{len(slow.waiting())} bodies still held after 15 s"
    for body in kept:  # ended by the shard 10 s after it began, though never 10 s silent
        assert body.status == 408, (body.client, body.answer)
        assert REQUEST_TIMEOUT - 0.5 < body.seconds < REQUEST_TIMEOUT + 3, body.seconds
    print(
        f"\nslow bodies from one /64: {len(network)} sent, {len(held)} held "
        f"(at each drip: {counts}), {len(refused)} refused (slowest refusal "
        f"{max(b.seconds for b in refused):.3f} s); held for up to "
        f"{max(b.seconds for b in kept):.1f} s; /healthz: {len(probe.answers)} probes, "
        f"slowest {probe.slowest:.3f} s"
    )
    assert len(probe.answers) >= 3 * REQUEST_TIMEOUT  # several a second throughout
    assert {status for status, _seconds in probe.answers} == {200}
    assert probe.slowest < AT_ONCE, f"/healthz took {probe.slowest:.2f} s"


def test_a_shards_connections_are_capped_and_past_them_the_unavailable_page_comes_at_once(
    cluster,
):
    """Slow creations (not a room's: the least busy shard's) from many addresses fill each
    shard's 128 connections for the rest; past them, nginx answers its unavailable page at
    once, and a room's requests still reach its shard."""
    cap = BUDGET.share(OTHER_CONNECTIONS)
    assert (cap, BUDGET.share(ROOM_CONNECTIONS)) == (128, 853)
    clients = [f"2001:db8:2:{n:x}::1" for n in range(1, len(SHARDS) * cap + 21)]
    with SlowBodies(cluster.cluster.listen) as slow:
        for client in clients:
            slow.open(client, "/rooms")
        slow.poll(AT_ONCE)
        held, refused = slow.waiting(), [body for body in slow.bodies if body.answered]
        assert len(held) == len(SHARDS) * cap == 256, len(held)
        assert len(refused) == 20
        for body in refused:
            assert body.status == 503, body.answer
            assert b"Retry-After: 5" in body.answer, "not the unavailable page"
            assert body.seconds < AT_ONCE, f"{body.seconds:.2f} s"
        for shard in SHARDS:  # a room's own connections are not the rest's: its shard answers
            with pytest.raises(urllib.error.HTTPError) as answer:
                urllib.request.urlopen(f"{cluster.url}/r/{shard}-nosuchroom", timeout=AT_ONCE)
            assert answer.value.code == 404, answer.value.code
