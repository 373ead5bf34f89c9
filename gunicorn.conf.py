"""Production settings for gunicorn: `make serve`, and the benches, run `gunicorn -c` this file.

One process with one gevent worker holds every room and socket (a room lives in one process's
memory), so the worker's connections are sized for 10,000 sockets (5,000 rooms of two seats)
plus the plain HTTP connections beside them.
"""

import resource

worker_class = "gevent"
workers = 1
worker_connections = 12_000
control_socket_disable = True
keepalive = 75
timeout = 60
graceful_timeout = 10


def on_starting(server):
    """Allow the process as many open files as its connections need (up to the hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = worker_connections + 1_000
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        server.log.info("open files: raised the soft limit from %d to %d", soft, wanted)
