"""Shared pytest fixtures and Hypothesis profiles."""

import os
import threading

import pytest
from hypothesis import settings

from app import create_app

settings.register_profile("ci", derandomize=True, max_examples=200, deadline=None)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


@pytest.fixture
def app(tmp_path):
    """An app in testing mode with its database in a temporary folder."""
    return create_app(
        {
            "TESTING": True,
            "DOMINO_DB": str(tmp_path / "domino.sqlite3"),
            "BOT_DELAY_MS": 0,
            "SECRET_KEY": "test",
        }
    )


@pytest.fixture
def client(app):
    """A Flask test client for the app."""
    return app.test_client()


@pytest.fixture
def hold(monkeypatch):
    """`hold()` makes the computer's decisions wait from then on until the event it returns is
    set, so nothing the computer does comes first however slow the machine; all are released
    at the end."""
    from domino.web.live.computer import Computer

    releases: list[threading.Event] = []

    def start() -> threading.Event:
        release, original = threading.Event(), Computer._decide

        def waiting(self, level, view, seed):
            assert release.wait(60), "a held decision was never released"
            return original(self, level, view, seed)

        monkeypatch.setattr(Computer, "_decide", waiting)
        releases.append(release)
        return release

    yield start
    for release in releases:
        release.set()
