"""The vendored front-end files are the pinned ones."""

import hashlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENDOR = ROOT / "static" / "vendor"


def test_vendored_files_match_their_checksums():
    lines = (VENDOR / "SHA256SUMS").read_text().split("\n")
    pinned = dict(reversed(line.split()) for line in lines if line.strip())
    assert set(pinned) == {p.name for p in VENDOR.glob("*.js")}
    for name, digest in pinned.items():
        assert hashlib.sha256((VENDOR / name).read_bytes()).hexdigest() == digest, name


def test_htmx_is_version_2_and_the_page_loads_the_pinned_files():
    htmx = (VENDOR / "htmx-2.0.11.min.js").read_text()
    assert re.search(r'version:"2\.\d+\.\d+"', htmx)
    base = (ROOT / "templates" / "base.html").read_text()
    for name in ("htmx-2.0.11.min.js", "htmx-ext-ws-2.0.4.min.js"):
        assert f"vendor/{name}" in base
    assert "unpkg" not in base and "cdn" not in base.lower()
