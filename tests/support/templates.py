"""Templates compiled once for the whole test run.

Every test makes an app of its own, and each app's Jinja environment would compile every
template again: most of a web test's time. `compiled(app)` gives the app the run's shared
bytecode cache (Jinja checks each template's source against its checksum, so an edited
template is compiled anew); what the app renders is unchanged.
"""

from __future__ import annotations

from flask import Flask
from jinja2 import BytecodeCache
from jinja2.bccache import Bucket


class SharedBytecode(BytecodeCache):
    """Compiled templates kept in memory, shared by every app of this process."""

    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        code = self.compiled.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


SHARED = SharedBytecode()


def compiled(app: Flask) -> Flask:
    """`app`, its templates compiled once for the run."""
    app.jinja_env.bytecode_cache = SHARED
    return app
