"""Production settings for gunicorn: `make serve`, and the benches, run `gunicorn -c` this file.

One process with one gevent worker holds every room and socket (a room lives in one process's
memory), so the worker's connections are sized for 10,000 sockets (5,000 rooms of two seats)
plus the plain HTTP connections beside them. The worker is gunicorn's gevent worker with a time
limit per request and a cap on one address's connections (domino/server/worker.py), both read
from the environment: DOMINO_REQUEST_TIMEOUT and DOMINO_MAX_CONNECTIONS_PER_ADDRESS.
"""

import resource

from domino.server.worker import read_limits

try:
    read_limits()  # the worker reads them again; a bad value stops the server here, clearly
except ValueError as error:
    raise SystemExit(f"gunicorn.conf.py: {error}") from None

worker_class = "domino.server.worker.Worker"
workers = 1
worker_connections = 12_000
control_socket_disable = True
keepalive = 75
timeout = 60
graceful_timeout = 10
# A full collection scans every tracked object (~300 per live room: ~0.4 s at 2,000 rooms);
# Python runs one whenever the objects promoted since the last one reach a quarter of the
# heap. Moves promote whatever is in flight at each young collection, so with the default
# thresholds (700, 10, 10) that took ~10 s at 300 moves/s. Fewer young collections promote
# far less. (Nearly all garbage here is freed by reference counting, not by the collector.)
GC_THRESHOLDS = (5_000, 20, 50)
# The store's writer commits on an OS thread of its own (domino/store/writer.py). Between its SQLite
# calls it needs the GIL back from the event loop, which keeps it for up to Python's switch
# interval (5 ms) while it renders: a batch of a few statements then took tens of ms, and every
# room waited on it. A short interval hands the GIL over as soon as the writer asks for it.
SWITCH_SECONDS = 0.0002


def post_fork(server, worker):
    """Lighter greenlets, a garbage collector that seldom scans the long-lived heap, and the
    GIL handed to the store's writer without delay."""
    import gc
    import sys

    import gevent

    gevent.config.track_greenlet_tree = False  # each greenlet's spawning stack, for debugging
    gc.set_threshold(*GC_THRESHOLDS)
    sys.setswitchinterval(SWITCH_SECONDS)


def post_worker_init(worker):
    """Start the app's background work before serving (the computer's deciders: starting one
    blocks the event loop for a moment; the sweep of idle rooms), leave what the app loaded at
    start out of every later collection, and from then on freeze the long-lived heap every half
    minute (domino/server/worker.py: keep_heap_frozen)."""
    import gc

    import gevent

    from domino.server.worker import keep_heap_frozen
    from domino.web import start_background

    start_background(worker.wsgi)
    gc.freeze()
    gevent.spawn(keep_heap_frozen)


def on_starting(server):
    """Allow the process as many open files as its connections need (up to the hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = worker_connections + 1_000
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        server.log.info("open files: raised the soft limit from %d to %d", soft, wanted)
