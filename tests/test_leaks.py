"""The leak scanner (bench/leaks.py): a short run finds nothing, and it does find a leak."""

from __future__ import annotations

import random
import sys
from pathlib import Path

from flask import current_app

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import leaks

from domino import game
from domino.rules import DEFAULT
from domino.web import pages, tables


def test_a_short_scan_through_the_server_finds_no_hidden_tile(tmp_path):
    result = leaks.scan(rounds=12, seed=7, db_dir=str(tmp_path), per_room=3)
    assert result["rounds"] >= 12
    assert result["computer_rooms"] >= 1
    assert result["responses"] > 0 and result["frames"] > 0
    assert result["leaks"] == 0, result["examples"]


def test_the_scanner_detects_a_boneyard_tile_in_the_markup(tmp_path, monkeypatch):
    original = tables.render_table

    def leaky(tv, *args, **kwargs):
        html = original(tv, *args, **kwargs)
        state = current_app.extensions["domino"].rooms.get(tv.room).round
        if state.boneyard:
            html += f'<span data-tile="{state.boneyard[0]}"></span>'
        return html

    for module in (tables, pages):
        monkeypatch.setattr(module, "render_table", leaky)
    result = leaks.scan(rounds=2, seed=7, db_dir=str(tmp_path))
    assert result["responses"] > 0 and result["frames"] > 0
    assert result["leaks"] > 0


def test_the_scanner_reads_bare_tiles_but_not_tokens():
    state = game.start(game.deal(DEFAULT, random.Random(1)))
    hidden = str(state.boneyard[0])
    low, high = hidden.split("-")
    assert leaks.leaked_tiles(f"<p>{high}-{low}</p>", state, 0) == {hidden}
    assert leaks.leaked_tiles(f'<a href="/r/abc{low}-{high}xyz">x</a>', state, 0) == set()
