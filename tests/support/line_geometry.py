"""Measuring the line of play in the browser: is it one snake inside the felt?

`check(page, line, where)` measures the felt, each tile of the line and each end button at
360×740 and 1280×800 and fails with every problem found: a tile outside the felt or over
another, shorter than 44 px, not touching the next one, or turning the wrong half to it (a
tile in a row running right to left must be turned); an end button outside the felt, on a tile,
covered where a finger would press it, or not next to its own end of the line; `data-chain` not
reading `line`. `problems_of` is the same check on one measurement.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

from playwright.sync_api import Page

SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "line"
PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 800}
SIZES = (PHONE, DESKTOP)
GAP_MOST = 6  # px between two tiles that touch (line.js leaves 3)
SHORTEST = 44  # px: the long side of a tile in the line, at the least

NEXT_FRAME_JS = "() => new Promise((done) => requestAnimationFrame(() => done()))"
# The line's own animations (the newest tile drawn in) are over.
LINE_SETTLED_JS = """() => document.querySelector('#line').getAnimations({subtree: true})
  .every((a) => a.playState === 'finished' || a.playState === 'idle')"""
# The felt's inner box, each line tile's face (its box, the angle it is turned by, whether it is
# a double) and each end button's box (and whether it is on top at its middle), in page pixels.
GEOMETRY_JS = """() => {
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom};
  };
  const felt = document.querySelector('#line');
  const edge = getComputedStyle(felt);
  const outer = box(felt);
  const inner = {
    left: outer.left + parseFloat(edge.borderLeftWidth),
    top: outer.top + parseFloat(edge.borderTopWidth),
    right: outer.right - parseFloat(edge.borderRightWidth),
    bottom: outer.bottom - parseFloat(edge.borderBottomWidth),
  };
  const tiles = [...document.querySelectorAll('[data-chain] [data-tile]')].map((li) => {
    const face = li.querySelector('svg.face');
    const turned = getComputedStyle(face).transform;
    const m = new DOMMatrix(turned === 'none' ? undefined : turned);
    return {
      tile: li.getAttribute('data-tile'),
      double: face.classList.contains('v'),
      angle: Math.atan2(m.b, m.a),
      box: box(face),
      last: li.hasAttribute('data-last'),
    };
  });
  const ends = {};
  document.querySelectorAll('[data-end]').forEach((b) => {
    const at = box(b);
    const hit = document.elementFromPoint((at.left + at.right) / 2, (at.top + at.bottom) / 2);
    ends[b.getAttribute('data-end')] = {...at, onTop: !!hit && b.contains(hit)};
  });
  return {felt: inner, tiles, ends};
}"""


# --- geometry -------------------------------------------------------------------------------


def inside(box: dict, frame: dict, margin: float = 0) -> bool:
    return (
        box["left"] >= frame["left"] + margin - 0.5
        and box["top"] >= frame["top"] + margin - 0.5
        and box["right"] <= frame["right"] - margin + 0.5
        and box["bottom"] <= frame["bottom"] - margin + 0.5
    )


def overlap(a: dict, b: dict) -> bool:
    wide = min(a["right"], b["right"]) - max(a["left"], b["left"])
    high = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    return wide > 0.5 and high > 0.5


def distance(a: dict, b: dict) -> float:
    """The shortest distance between two boxes (0 when they meet)."""
    dx = max(0.0, b["left"] - a["right"], a["left"] - b["right"])
    dy = max(0.0, b["top"] - a["bottom"], a["top"] - b["bottom"])
    return math.hypot(dx, dy)


def point(x: float, y: float) -> dict:
    return {"left": x, "right": x, "top": y, "bottom": y}


def centre(tile: dict) -> dict:
    box = tile["box"]
    return point((box["left"] + box["right"]) / 2, (box["top"] + box["bottom"]) / 2)


def halves(tile: dict) -> tuple[dict, dict]:
    """The centres of a tile's first and second half as written in `data-tile`, on screen."""
    box, middle = tile["box"], centre(tile)
    reach = max(box["right"] - box["left"], box["bottom"] - box["top"]) / 4
    dx, dy = reach * math.cos(tile["angle"]), reach * math.sin(tile["angle"])
    return point(middle["left"] - dx, middle["top"] - dy), point(
        middle["left"] + dx, middle["top"] + dy
    )


def problems_of(shown: dict) -> list[str]:
    """What is wrong with the line as measured (an empty list: nothing)."""
    felt, tiles, ends = shown["felt"], shown["tiles"], shown["ends"]
    found = []
    for k, tile in enumerate(tiles):
        box, name = tile["box"], f"tile {k} ({tile['tile']})"
        if not inside(box, felt, margin=5 if tile["last"] else 0):  # the glow of the newest too
            found.append(f"{name} is not inside the felt: {box} / {felt}")
        long = max(box["right"] - box["left"], box["bottom"] - box["top"])
        if long < SHORTEST - 0.5:
            found.append(f"{name} is only {long:.0f} px long")
        found += [
            f"{name} overlaps tile {j} ({tiles[j]['tile']})"
            for j in range(k + 1, len(tiles))
            if overlap(box, tiles[j]["box"])
        ]
    for k, (one, two) in enumerate(itertools.pairwise(tiles)):
        pair = f"tiles {k} and {k + 1} ({one['tile']}, {two['tile']})"
        gap = distance(one["box"], two["box"])
        if gap > GAP_MOST:
            found.append(f"{pair} do not touch: {gap:.0f} px apart")
        if not one["double"]:
            first, second = halves(one)
            if distance(second, centre(two)) >= distance(first, centre(two)):
                found.append(f"{pair}: the first turns the wrong half to the second")
        if not two["double"]:
            first, second = halves(two)
            if distance(first, centre(one)) >= distance(second, centre(one)):
                found.append(f"{pair}: the second turns the wrong half to the first")
    return found + end_problems(felt, tiles, ends)


def end_problems(felt: dict, tiles: list[dict], ends: dict) -> list[str]:
    """The end buttons: inside the felt, on no tile, each next to its own end of the line."""
    found = []
    long = max(
        (
            max(t["box"]["right"] - t["box"]["left"], t["box"]["bottom"] - t["box"]["top"])
            for t in tiles
        ),
        default=0,
    )
    for end, box in ends.items():
        if not box["onTop"]:
            found.append(f"the {end} end button is covered where a finger would press it")
        if not inside(box, felt):
            found.append(f"the {end} end button is not inside the felt: {box} / {felt}")
        found += [
            f"the {end} end button covers tile {k}"
            for k, t in enumerate(tiles)
            if overlap(box, t["box"])
        ]
        own = 0 if end == "left" else len(tiles) - 1
        gaps = [distance(box, t["box"]) for t in tiles]
        nearest = min(range(len(tiles)), key=gaps.__getitem__)
        if nearest != own or gaps[own] > long / 2 + GAP_MOST:
            found.append(
                f"the {end} end button is {gaps[own]:.0f} px from its end tile {own}, "
                f"nearest to tile {nearest} ({gaps[nearest]:.0f} px)"
            )
    if len(ends) == 2 and overlap(ends["left"], ends["right"]):
        found.append("the end buttons overlap")
    return found


def measure(page: Page) -> dict:
    """The geometry once the next frame is drawn (a resize is handled before it) and the
    newest tile is drawn in (at once with less motion)."""
    page.evaluate(NEXT_FRAME_JS)
    page.wait_for_function(LINE_SETTLED_JS)
    return page.evaluate(GEOMETRY_JS)


def check(
    page: Page, line: list[str], where: str, ends: int = 0, shot: str | None = None, sizes=SIZES
):
    """At each size: the line reads `line`, as a snake with `ends` end buttons; optionally a
    picture of the felt, line-<width>-<shot>.png. The page is left at the last size."""
    problems = []
    for size in sizes:
        page.set_viewport_size(size)
        shown = measure(page)
        here = f"{where} at {size['width']} px"
        if shot is not None:
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.locator("#line").screenshot(path=SHOTS / f"line-{size['width']}-{shot}.png")
        if [t["tile"] for t in shown["tiles"]] != line:
            problems.append(f"{here}: data-chain reads {[t['tile'] for t in shown['tiles']]}")
        if len(shown["ends"]) != ends:
            problems.append(f"{here}: {len(shown['ends'])} end buttons, not {ends}")
        problems += [f"{here}: {p}" for p in problems_of(shown)]
    assert not problems, "\n".join(problems)
