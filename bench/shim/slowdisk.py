"""A slow disk for the load bench: the store's own sync delay, or a stand-in for older code.

gunicorn serves `slowdisk:create_app(config)` (bench/load.py --sync-delay-ms) in the checkout
it runs in. A store that takes a sync delay (domino.store.writer: DOMINO_SYNC_DELAY_MS) needs
nothing more. An older store committed on the event loop: there each commit is followed by a
wait that holds the whole process, as a slow fsync does, so that two commits can be compared
on the same slow disk.
"""

from __future__ import annotations

import inspect
import os


def create_app(config=None):
    """The app of the checkout in the current directory, its commits slowed if need be."""
    import app
    from domino import store

    delay = float(os.environ.get("DOMINO_SYNC_DELAY_MS", "0")) / 1000
    if delay > 0 and "sync_delay" not in inspect.signature(store.Store.__init__).parameters:
        _slow_down(store.Store, delay)
    return app.create_app(config)


def _slow_down(cls, delay: float) -> None:
    """Make each of the store's committing writes wait `delay` seconds, holding the process."""
    from gevent.monkey import get_original  # the server is gunicorn's gevent worker

    sleep = get_original("time", "sleep")  # not gevent's, which would let others run
    for name in ("append", "create_room"):
        original = getattr(cls, name)

        def slowed(self, *args, _original=original, **kwargs):
            result = _original(self, *args, **kwargs)
            sleep(delay)
            return result

        setattr(cls, name, slowed)
