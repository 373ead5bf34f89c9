"""Shared pytest fixtures and Hypothesis profiles."""

import os

import pytest
from hypothesis import settings

from app import create_app
from tests.support.doubles import Decider
from tests.support.templates import compiled

settings.register_profile("ci", derandomize=True, max_examples=200, deadline=None)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.register_profile("fast", max_examples=20, deadline=None)  # make test-fast
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


@pytest.fixture
def app(tmp_path):
    """An app in testing mode with its database in a temporary folder."""
    return compiled(
        create_app(
            {
                "TESTING": True,
                "DOMINO_DB": str(tmp_path / "domino.sqlite3"),
                "BOT_DELAY_MS": 0,
                "SECRET_KEY": "test",
            }
        )
    )


@pytest.fixture
def client(app):
    """A Flask test client for the app."""
    return app.test_client()


@pytest.fixture
def decider():
    """The computer's decider, to pass in as BOT_DECIDE (tests/support/doubles.py): it keeps
    what it is asked, and `decider.hold()` makes decisions wait from then on until the event it
    returns is set, so nothing the computer does comes first however slow the machine; all are
    released at the end."""
    decider = Decider()
    yield decider
    decider.release_all()
