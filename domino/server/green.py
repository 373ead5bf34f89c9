"""gevent helpers: whether gevent runs the process, and what to use then (the OS's sleep, bare
greenlets). Nothing here imports gevent unless gevent has patched the process."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable


def under_gevent() -> bool:
    """True when gevent has patched threads into greenlets (gunicorn's gevent worker)."""
    monkey = sys.modules.get("gevent.monkey")
    return monkey is not None and monkey.is_module_patched("threading")


def real_sleep() -> Callable[[float], None]:
    """`time.sleep` as the OS has it (gevent's would try to run an event loop on the thread)."""
    if under_gevent():
        from gevent.monkey import get_original

        return get_original("time", "sleep")
    return time.sleep


def in_background(function) -> None:
    """Run `function` on its own: a bare greenlet under gevent, else a thread."""
    if under_gevent():
        from gevent import spawn_raw

        spawn_raw(function)
    else:
        threading.Thread(target=function, daemon=True).start()
