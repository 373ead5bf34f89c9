"""The layout's contracts (pyproject.toml, [tool.importlinter]) cover every module of the pure core:
a module added directly to domino/ (or a pure subpackage) is checked as soon as it exists."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PURE_PACKAGES = ("bots", "players")  # pure subpackages (players: one to come)


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
