"""Markup lives in templates or in web/view/markup.py (ARCHITECTURE.md, principle 6): no other
module of the web layer writes an HTML tag, formats HTML with `%` or escapes by hand."""

from __future__ import annotations

import ast
import re
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "domino" / "web"
FENCE = WEB / "view" / "markup.py"
TAG = re.compile(r"<(?:[a-zA-Z][a-zA-Z0-9-]*[\s>/]|/[a-zA-Z]|!doctype)")


def texts(tree: ast.Module):
    """Every string literal of a module that is not a docstring."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        is_text = isinstance(node, ast.Constant) and isinstance(node.value, str)
        if is_text and id(node) not in docstrings:
            yield node


def is_html(text: str) -> bool:
    """True for a text with an HTML tag in it (a route's rule, "/r/<room_id>", is none)."""
    return not text.startswith("/") and TAG.search(text) is not None


def test_no_module_of_the_web_but_the_markup_module_writes_html():
    found = []
    for path in sorted(WEB.rglob("*.py")):
        if path == FENCE:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = path.relative_to(WEB.parent.parent)
        found += [f"{where}:{node.lineno}" for node in texts(tree) if is_html(node.value)]
        for node in ast.walk(tree):
            names = [alias.name for alias in getattr(node, "names", ())]
            if (
                isinstance(node, ast.ImportFrom)
                and node.module == "markupsafe"
                and "escape" in names
            ):
                found.append(f"{where}:{node.lineno} imports escape")
    assert not found, "markup outside web/view/markup.py: " + ", ".join(found)


def test_the_markup_module_fills_markup_by_fill_alone():
    """No `%`, no f-string, and `escape` only where `fill` and `joined` escape every argument."""
    tree = ast.parse(FENCE.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        assert not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)), node.lineno
        assert not isinstance(node, ast.JoinedStr), node.lineno
        if isinstance(node, ast.FunctionDef) and node.name not in ("fill", "joined"):
            names = {name.id for name in ast.walk(node) if isinstance(name, ast.Name)}
            assert "escape" not in names, node.name


def test_fill_is_markup_format_byte_for_byte():
    from markupsafe import Markup

    from domino.web.view.markup import fill, joined

    template = Markup('<a href="{}/x?t={}" title="{}">{}{}</a>')
    for args in [
        ("/r/a&b", 5, 'say "hi"', Markup("<b>ok</b>"), "<i>"),
        ("", 0, "", "", Markup("")),
    ]:
        assert fill(template, *args) == template.format(*args)
    assert joined([Markup("<b>"), "<&>", 3]) == Markup("").join([Markup("<b>"), "<&>", "3"])
