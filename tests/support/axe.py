"""The axe-core scan of a page (tests/vendor's pinned axe-core) at both sizes and in both colour
schemes, with the checks of its own it adds (targets too small, the line's layout), and the
screenshots it keeps."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page

ROOT = Path(__file__).resolve().parents[2]
VENDOR = ROOT / "tests" / "vendor"
AXE = VENDOR / "axe-core-4.14.1.min.js"
SHOTS = ROOT / "test-artifacts" / "screenshots"
FAILING = ("serious", "critical")
SCHEMES = ("light", "dark")
PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 800}
# Everything a thumb has to hit on the pages scanned here.
TARGETS = (
    "[data-hand] [data-tile], [data-end], [data-action]:not([data-move]), [data-level], "
    "header.site a, header.site [aria-current]"
)
# Violations, and what axe could not decide ("needs review", e.g. text over a gradient).
RUN_AXE_JS = """async () => {
  const results = await axe.run(document, {
    resultTypes: ['violations', 'incomplete'],
    rules: {'target-size': {enabled: true}},  // WCAG 2.2 target size, off by default
  });
  const brief = (list) => list.map((v) => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    nodes: v.nodes.map((n) => ({target: n.target, summary: n.failureSummary})),
  }));
  return {violations: brief(results.violations), incomplete: brief(results.incomplete)};
}"""
# Elements of TARGETS that are shown and smaller than 44 px on a side.
SMALL_TARGETS_JS = """(selector) => [...document.querySelectorAll(selector)]
  .filter((el) => el.getClientRects().length)
  .map((el) => {
    const box = el.getBoundingClientRect();
    const name = el.getAttribute('data-tile') || el.getAttribute('data-end') ||
      el.getAttribute('data-action') || el.textContent.trim().slice(0, 30);
    return {name: `${el.tagName.toLowerCase()} ${name}`, width: box.width, height: box.height};
  })
  .filter((t) => Math.min(t.width, t.height) < 44 - 0.01)"""
SETTLED_JS = """() => document.getAnimations().every(
  (a) => a.playState === 'finished' || a.playState === 'idle')"""


class Scanner:
    """scanner(page, state): check the page as it shows now, in each scheme and at each size.

    Problems are collected, so one run lists all of them; `assert_clean` fails on any.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.problems: list[str] = []
        self.findings: dict[str, list] = {}

    def __call__(self, page: Page, state: str) -> None:
        if not page.evaluate("typeof window.axe !== 'undefined'"):
            page.evaluate(AXE.read_text())  # no <script> tag: the CSP refuses inline ones
        page.mouse.move(0, 0)  # no hover styles in the pictures or the contrast checks
        for scheme in SCHEMES:
            page.emulate_media(color_scheme=scheme)
            for size in (PHONE, DESKTOP):
                page.set_viewport_size(size)
                page.wait_for_function(SETTLED_JS)
                where = f"{state} [{scheme}, {size['width']}x{size['height']}]"
                name = f"{state}-{scheme}-{size['width']}x{size['height']}.png"
                page.screenshot(path=self.folder / name, full_page=True)
                self.problems.extend(check_layout(page, size, where))
                found = page.evaluate(RUN_AXE_JS)
                self.findings[where] = found
                violations = found["violations"]
                self.problems.extend(
                    f"{where}: {v['id']} ({v['impact']}): {v['help']}\n"
                    + "\n".join(f"    {n['target']}  {n['summary']!r}" for n in v["nodes"])
                    for v in violations
                    if v["impact"] in FAILING
                )
        page.emulate_media(color_scheme="light")
        page.set_viewport_size(DESKTOP)

    def assert_clean(self) -> None:
        assert not self.problems, f"{len(self.problems)} problems:\n" + "\n".join(self.problems)


def check_layout(page: Page, size: dict, where: str) -> list[str]:
    """No sideways scrolling of the page; at phone width, thumb-sized targets."""
    problems = []
    width = page.evaluate("document.documentElement.scrollWidth")
    if width > size["width"]:
        problems.append(f"{where}: the page is {width} px wide")
    if size is PHONE:
        for tile in page.locator("[data-hand] [data-tile]").all():
            box = tile.bounding_box()
            if box is not None and min(box["width"], box["height"]) < 44:
                problems.append(f"{where}: hand tile {tile.get_attribute('data-tile')}: {box}")
        for small in page.evaluate(SMALL_TARGETS_JS, TARGETS):
            problems.append(
                f"{where}: {small['name']} is {small['width']:.0f}×{small['height']:.0f} px"
            )
    return problems
