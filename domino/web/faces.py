"""A domino face in SVG, drawn once per tile and orientation and then reused."""

from __future__ import annotations

from functools import cache

from markupsafe import Markup

# Pip centres in one 50×50 half, for 0 to 6.
PIPS = {
    0: (),
    1: ((25, 25),),
    2: ((13, 13), (37, 37)),
    3: ((13, 13), (25, 25), (37, 37)),
    4: ((13, 13), (37, 13), (13, 37), (37, 37)),
    5: ((13, 13), (37, 13), (25, 25), (13, 37), (37, 37)),
    6: ((13, 13), (37, 13), (13, 25), (37, 25), (13, 37), (37, 37)),
}


@cache
def face(a: int, b: int, vertical: bool = False) -> Markup:
    """`a` on the left (on top when vertical), `b` on the right; hidden from screen readers."""
    if vertical:
        head = '<svg class="face v" viewBox="0 0 50 100" aria-hidden="true" focusable="false">'
        body = '<rect class="body" x="1" y="1" width="48" height="98" rx="7"/>'
        bar = '<line class="bar" x1="6" y1="50" x2="44" y2="50"/>'
    else:
        head = '<svg class="face h" viewBox="0 0 100 50" aria-hidden="true" focusable="false">'
        body = '<rect class="body" x="1" y="1" width="98" height="48" rx="7"/>'
        bar = '<line class="bar" x1="50" y1="6" x2="50" y2="44"/>'
    pips = []
    for value, shift in ((a, 0), (b, 50)):
        for x, y in PIPS[value]:
            cx, cy = (x, y + shift) if vertical else (y + shift, x)
            pips.append(f'<circle class="pip" cx="{cx}" cy="{cy}" r="5"/>')
    return Markup(f"{head}\n{body}{bar}{''.join(pips)}</svg>")
