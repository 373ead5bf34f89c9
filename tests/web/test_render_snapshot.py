"""Every table of the render corpus (tools/render_corpus.py, ~4,800 tables) is drawn byte for
byte as the snapshot holds it: tests/web/render_corpus.sha256, one SHA-256 a line, in the corpus's
order. A refactor of the renderer leaves it as it is; a change to what a table shows changes it
on purpose, and then the snapshot is written again and committed with it:

    make snapshot
    (that is: .venv/bin/python tools/render_corpus.py --digests tests/web/render_corpus.sha256)

On a mismatch the test names the first table that differs and shows its diff against the same
table drawn by the last commit (HEAD, checked out apart), when HEAD draws it as the snapshot has it.
"""

from __future__ import annotations

import difflib
import hashlib
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = ROOT / "tests" / "web" / "render_corpus.sha256"
TOOL = Path("tools") / "render_corpus.py"
LANGUAGES = ("en", "nl", "pl", "fr")


def tables(path: Path) -> list[str]:
    """The corpus file's tables, each as written: its `=== label` line, the table, a newline."""
    found: list[list[str]] = []
    with path.open(encoding="utf-8", newline="") as file:
        for line in file:
            if line.startswith("=== "):
                found.append([])
            found[-1].append(line)
    return ["".join(lines) for lines in found]


def digest(chunk: str) -> str:
    return hashlib.sha256(chunk.encode("utf-8")).hexdigest()


def render_corpus(root: Path, out: Path) -> list[str]:
    """The corpus as the checkout at `root` draws it."""
    subprocess.run(
        [sys.executable, str(root / TOOL), str(out)],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        check=True,
        capture_output=True,
    )
    return tables(out)


def head_tables(work: Path) -> list[str] | None:
    """The corpus as the last commit draws it, or None outside a git checkout."""
    archive = subprocess.run(
        ["git", "archive", "HEAD", "domino", "templates", "tools"],
        cwd=ROOT,
        capture_output=True,
    )
    if archive.returncode != 0:
        return None
    base = work / "head"
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(base, filter="data")
    for lang in LANGUAGES:  # the catalogs are compiled by the setup, never in git
        messages = base / "domino" / "translations" / lang / "LC_MESSAGES" / "messages"
        compile_catalog(messages.with_suffix(".po"), messages.with_suffix(".mo"))
    return render_corpus(base, work / "head.txt")


def compile_catalog(po: Path, mo: Path) -> None:
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as source:
        catalog = read_po(source)
    with mo.open("wb") as target:
        write_mo(target, catalog)


def test_every_table_of_the_corpus_is_drawn_as_the_snapshot_holds_it(tmp_path):
    drawn = render_corpus(ROOT, tmp_path / "corpus.txt")
    kept = SNAPSHOT.read_text(encoding="ascii").split()
    now = [digest(chunk) for chunk in drawn]
    if now == kept:
        return
    first = next((i for i, (a, b) in enumerate(zip(now, kept, strict=False)) if a != b), None)
    if first is None:
        raise AssertionError(
            f"the corpus has {len(now)} tables, the snapshot {len(kept)}: "
            "if the corpus changed on purpose, run `make snapshot`"
        )
    label = drawn[first].partition("\n")[0]
    shown = f"table {first} differs from the snapshot: {label}\n"
    with tempfile.TemporaryDirectory() as work:
        before = head_tables(Path(work))
    if before is not None and first < len(before) and digest(before[first]) == kept[first]:
        diff = difflib.unified_diff(
            before[first].splitlines(keepends=True),
            drawn[first].splitlines(keepends=True),
            "HEAD (as the snapshot)",
            "the working tree",
        )
        shown += "".join(diff)
    else:
        shown += "(HEAD does not draw it as the snapshot either: no diff to show)\n"
        shown += drawn[first][:4000]
    raise AssertionError(shown + "\nA deliberate change? Run `make snapshot` and commit it.")
