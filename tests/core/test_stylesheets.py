"""The stylesheets are well formed: every block closes where it should (a merge once left a
rule open, and every rule after it was read as nested inside it, and dropped)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "static"
COMMENT = re.compile(r"/\*.*?\*/", re.S)
STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
NESTING = ("@media", "@supports", "@layer", "@container", "@keyframes")


@pytest.mark.parametrize("sheet", sorted(STATIC.glob("*.css")), ids=lambda p: p.name)
def test_every_block_closes_and_rules_nest_only_in_at_rules(sheet):
    text = STRING.sub('""', COMMENT.sub("", sheet.read_text()))
    stack: list[str] = []
    start = 0
    for match in re.finditer(r"[{}]", text):
        if match.group() == "{":
            head = text[start : match.start()].strip().rsplit(";", 1)[-1].strip()
            if stack and not stack[-1].startswith(NESTING):
                line = text.count("\n", 0, match.start()) + 1
                raise AssertionError(f"{sheet.name}:{line}: {head!r} opens inside {stack[-1]!r}")
            stack.append(head)
        else:
            assert stack, f"{sheet.name}: a '}}' closes nothing at offset {match.start()}"
            stack.pop()
        start = match.end()
    assert not stack, f"{sheet.name}: {stack[-1]!r} is never closed"
