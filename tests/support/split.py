"""A browser of a cluster through the Flask test client: the lobby's process and a shard as
two apps with one secret key, each path sent where nginx would send it (docs/cluster.md)."""

from __future__ import annotations

from domino.web import LOBBY_PREFIXES
from tests.support.webkit import make_app, parse

KEY = "one-cluster"


def lobby_process(tmp_path, **config):
    """The lobby's process of a cluster: its database alone, the cluster's secret key."""
    settings = {"LOBBY": "only", "LOBBY_DB": str(tmp_path / "lobby.sqlite3"), "SECRET_KEY": KEY}
    return make_app(tmp_path / "never.sqlite3", **{**settings, **config})


def shard_process(tmp_path, **config):
    """Shard s1 of a cluster: its rooms, no lobby database, the cluster's secret key."""
    settings = {
        "SHARD": "s1",
        "LOBBY": "elsewhere",
        "LOBBY_DB": str(tmp_path / "not-the-shards.sqlite3"),
        "SECRET_KEY": KEY,
    }
    return make_app(tmp_path / "s1.sqlite3", **{**settings, **config})


class Browser:
    """One browser's cookies, sent to the lobby for its paths and to the shard for the rest."""

    def __init__(self, lobby, shard) -> None:
        self.lobby, self.shard = lobby.test_client(), shard.test_client()

    def client(self, path: str):
        return self.lobby if path.startswith(LOBBY_PREFIXES) else self.shard

    def _carry(self, source, target) -> None:
        for cookie in source._cookies.values():
            target.set_cookie(cookie.key, cookie.value, domain=cookie.domain, path=cookie.path)

    def get(self, path: str, **kw):
        client = self.client(path)
        answer = client.get(path, **kw)
        self._share(client)
        return answer

    def post(self, path: str, **kw):
        client = self.client(path)
        answer = client.post(path, **kw)
        self._share(client)
        return answer

    def _share(self, client) -> None:
        other = self.shard if client is self.lobby else self.lobby
        for name in {c.key for c in other._cookies.values()} - {
            c.key for c in client._cookies.values()
        }:
            other.delete_cookie(name)
        self._carry(client, other)


def take_name(browser: Browser, name: str):
    """The home page's name form (drawn by the shard), posted to the lobby."""
    home = parse(browser.get("/").get_data(as_text=True))
    form = home.one("data-name-form")
    token = form.one("name", "csrf_token", tag="input").get("value")
    return browser.post(form.get("action"), data={"name": name, "csrf_token": token})
