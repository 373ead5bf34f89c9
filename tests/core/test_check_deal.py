"""The standalone checker tools/check_deal.py (docs/fair-deals.md) against the server's own deals.

The corpus is 1,000 finished rounds dealt as a room deals (tests/support/deal_corpus.py). The
script must pass every one, and fail every one after each kind of tampering.
tests/browser/test_fair_check.py puts the same records through the browser's check.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from domino.fair import check_record
from domino.record import dumps
from tests.support.deal_corpus import COUNT, TAMPERINGS, corpus, tampered

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "check_deal.py"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def write(path: Path, lines) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_corpus_is_varied():
    records = [json.loads(line) for line in corpus()]
    assert {len(r["deal"]["hands"]) for r in records} == {2, 3, 4}
    seeds = [s for r in records for s in r["fairness"]["client_seeds"]]
    assert None in seeds and len(set(seeds)) > 1000
    assert sum("rotation" in r["fairness"] for r in records) > 100
    assert all(r["deal"]["boneyard"] for r in records)


def test_every_honest_deal_checks(tmp_path):
    path = write(tmp_path / "deals.jsonl", corpus())
    done = run(str(path))
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    assert lines[:-1] == [f"record {n}: ok" for n in range(1, COUNT + 1)]
    assert lines[-1] == "1000 ok, 0 failed, 0 not checked"
    assert [check_record(json.loads(line)) for line in corpus()] == [[]] * COUNT


@pytest.mark.slow  # the checker script over the corpus, once per change
@pytest.mark.parametrize("name", list(TAMPERINGS))
def test_one_change_fails_every_record(tmp_path, name):
    path = write(tmp_path / f"{name}.jsonl", tampered(name))
    done = run(str(path))
    lines = done.stdout.splitlines()
    assert done.returncode == 1, done.stderr
    assert lines[-1] == "0 ok, 1000 failed, 0 not checked"
    assert all(line.startswith(f"record {n}: FAILED: ") for n, line in enumerate(lines[:-1], 1))
    assert all(check_record(json.loads(line)) for line in tampered(name))


def test_the_reasons_name_what_differs(tmp_path):
    reasons = {}
    for name in TAMPERINGS:
        first = run(stdin=tampered(name)[1] + "\n").stdout.splitlines()[0]
        reasons[name] = first.split("FAILED: ", 1)[1]
    assert "commitment" in reasons["server_byte"]
    assert "commitment" in reasons["commitment"]
    assert "hand of seat" in reasons["hand_tiles"]
    assert "boneyard" in reasons["boneyard_order"]
    python = check_record(json.loads(tampered("hand_tiles")[1]))
    assert python and python[0].startswith("hands: seat")


def test_records_without_fairness_are_not_checked_and_stdin_is_read():
    plain = json.loads(corpus()[0])
    del plain["fairness"]
    done = run(stdin="\n".join([corpus()[1], dumps(plain), corpus()[2]]) + "\n")
    assert done.returncode == 0
    assert done.stdout.splitlines() == [
        "record 1: ok",
        "record 2: not checked (no fairness)",
        "record 3: ok",
        "2 ok, 0 failed, 1 not checked",
    ]


def test_malformed_blocks_fail_with_a_reason():
    record = json.loads(corpus()[3])
    record["fairness"]["client_seeds"][0] = "ABCDEF" * 5 + "AB"  # upper case
    short = json.loads(corpus()[3])
    short["fairness"]["client_seeds"].pop()
    done = run(stdin=dumps(record) + "\n" + dumps(short) + "\n")
    assert done.returncode == 1
    first, second, _summary = done.stdout.splitlines()
    assert "client seed of seat 0" in first
    assert "one seed per seat" in second


def test_usage_errors_exit_2(tmp_path):
    missing = run(str(tmp_path / "nowhere.jsonl"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    broken = write(tmp_path / "broken.jsonl", [corpus()[0], "{not json"])
    done = run(str(broken))
    assert done.returncode == 2 and "line 2: not JSON" in done.stderr


def test_the_script_is_a_second_reading_with_the_standard_library_only():
    tree = ast.parse(SCRIPT.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported
