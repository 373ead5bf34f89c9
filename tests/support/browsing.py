"""What the browser tests share (tests/browser/conftest.py starts their server): the live
server's dealing seed, and how long a page may take to show what is waited for."""

SEED = 20240611
TIMEOUT_MS = 10_000
