"""Browser tests: Debian's Chromium driven by Playwright against the app on a live server.

Every test in this folder is marked `browser`; the folder is skipped when Chromium is missing.
A failing test leaves a Playwright trace and a screenshot of each of its pages in
`test-artifacts/` (open a trace with `playwright show-trace FILE.zip`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

from domino import dealing, game
from domino.record import deal_to_dict
from tests.support.axe import SHOTS, Scanner
from tests.support.browsing import SEED, TIMEOUT_MS
from tests.support.live import live_server
from tests.support.planned_line import planned_server
from tests.support.shards import HIGH_LIMITS, Processes, cluster_in, nginx_missing

HERE = Path(__file__).resolve().parent
ARTIFACTS = HERE.parents[1] / "test-artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
]
FAILED = pytest.StashKey[bool]()
# Traces always hold the actions and the network; DOM snapshots and screenshots triple the
# time of a round, so they are only recorded with DOMINO_FULL_TRACES=1.
FULL_TRACES = os.environ.get("DOMINO_FULL_TRACES") == "1"


def chromium_path() -> str | None:
    """Debian's Chromium, if this machine has it."""
    if os.access("/usr/bin/chromium", os.X_OK):
        return "/usr/bin/chromium"
    return shutil.which("chromium")


CHROMIUM = chromium_path()
expect.set_options(timeout=TIMEOUT_MS)


def pytest_collection_modifyitems(config, items):
    """Mark the tests of this folder `browser`, and skip them all without Chromium."""
    skip = pytest.mark.skip(reason="Chromium not found at /usr/bin/chromium nor on PATH")
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.browser)
            if CHROMIUM is None:
                item.add_marker(skip)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Remember whether the test failed, for the artifacts fixture's teardown."""
    report = yield
    if report.failed:
        item.stash[FAILED] = True
    return report


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """pytest-playwright launches the system Chromium (nothing is downloaded), headless."""
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def base_url():
    """No base URL: tests use the live server's address (this also replaces the plugin's own
    fixture, which pytest 9 warns about)."""
    return None


@pytest.fixture
def server(tmp_path):
    """The real app on 127.0.0.1, with a fresh database and a fixed dealing seed."""
    with live_server(tmp_path / "domino.sqlite3", seed=SEED) as live:
        yield live


@pytest.fixture
def open_context(new_context, request):
    """Open a separate browser context (its own cookies): a separate player's browser.

    Each context is traced; when the test fails, its trace and a full-page screenshot of each
    of its pages are written to test-artifacts/<test>/.
    """
    opened = []

    def open_():
        context = new_context()
        context.set_default_timeout(TIMEOUT_MS)
        context.tracing.start(screenshots=FULL_TRACES, snapshots=FULL_TRACES)
        opened.append(context)
        return context

    yield open_
    failed = request.node.stash.get(FAILED, False)
    folder = ARTIFACTS / re.sub(r"[^\w.-]+", "_", request.node.name)
    for number, context in enumerate(opened):
        if not failed:
            context.tracing.stop()
            continue
        folder.mkdir(parents=True, exist_ok=True)
        for tab, page in enumerate(context.pages):
            try:
                page.screenshot(path=folder / f"context{number}-page{tab}.png", full_page=True)
            except Exception as error:  # a crashed page must not hide the test's own failure
                print(f"no screenshot of context {number} page {tab}: {error}")
        context.tracing.stop(path=folder / f"context{number}-trace.zip")


@pytest.fixture
def rng_deals(monkeypatch):
    """Rooms deal straight from the server's seeded rng, unproven, as rooms did before fair
    deals (docs/fair-deals.md): for tests that need a known deal, since browsers send random
    seeds."""

    def deal_events(_fair, rules, _humans, rng):
        return [("deal", deal_to_dict(game.deal(rules, rng)))]

    monkeypatch.setattr(dealing, "deal_events", deal_events)


@pytest.fixture
def planned(tmp_path, rng_deals):
    """The app on a live server, dealing the planned hands, with a test-only page of a room's
    table whose line holds the whole set (tests/support/planned_line.py)."""
    server = planned_server(tmp_path / "domino.sqlite3")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def cluster(tmp_path):
    """A cluster of two shards behind nginx, started for the test (its browsers use nginx's
    address)."""
    if nginx_missing():
        pytest.skip("nginx is not installed (Debian's package nginx; CI installs it)")
    processes = Processes(cluster_in(tmp_path, 2, HIGH_LIMITS))
    try:
        processes.start_all()
        yield processes
    finally:
        processes.stop_all()


@pytest.fixture(scope="session")
def screenshots(request):
    """The screenshot folder, emptied once per run; its path is written at the end."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for old in [*SHOTS.glob("*.png"), *SHOTS.glob("axe-*.json")]:
        old.unlink()
    yield SHOTS
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is not None and capture is not None:
        with capture.global_and_fixture_disabled():
            reporter.write_line(f"\naxe screenshots: {SHOTS.resolve()}")


@pytest.fixture
def scan(screenshots, request):
    """A Scanner; axe's findings of every impact are kept in axe-<test>.json."""
    scanner = Scanner(screenshots)
    yield scanner
    test = re.sub(r"[^\w.-]+", "_", request.node.name)
    (screenshots / f"axe-{test}.json").write_text(json.dumps(scanner.findings, indent=1))
