"""The layout's contracts (pyproject.toml, [tool.importlinter]) cover every module of the pure core:
a module added directly to domino/ (or a pure subpackage) is checked as soon as it exists."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PURE_PACKAGES = ("bots", "players")  # pure subpackages


def contracts() -> dict[str, dict]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return {contract["id"]: contract for contract in config["contracts"]}


def test_every_module_directly_in_domino_is_held_to_the_pure_core():
    core = ROOT / "domino"
    found = {f"domino.{path.stem}" for path in core.glob("*.py") if path.stem != "__init__"}
    found |= {f"domino.{name}" for name in PURE_PACKAGES if (core / name).is_dir()}
    assert set(contracts()["pure-core"]["source_modules"]) == found


def test_the_web_layers_name_every_folder_of_the_web():
    web = ROOT / "domino" / "web"
    folders = {f"domino.web.{p.name}" for p in web.iterdir() if (p / "__init__.py").is_file()}
    modules = {f"domino.web.{p.stem}" for p in web.glob("*.py") if p.stem != "__init__"}
    layers = contracts()["web-layers"]["layers"]
    named = {part.strip() for layer in layers for part in layer.split("|")}
    assert folders | modules <= named


TIERS = ("core", "room", "lobby", "web", "live", "infra", "browser")
A_TIER = re.compile(r"^\s*(?:from|import)\s+tests\.(?:" + "|".join(TIERS) + r")\b", re.M)


def test_no_test_module_imports_another_and_the_support_imports_no_test():
    """What tests share lives in tests/support: a test module imported by another would tie two
    tiers together. The benches and tools may import the support, never a test."""
    paths = [p for folder in ("tests", "bench", "tools") for p in (ROOT / folder).rglob("*.py")]
    found = [str(p.relative_to(ROOT)) for p in paths if A_TIER.search(p.read_text())]
    assert found == []
