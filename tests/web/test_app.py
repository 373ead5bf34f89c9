"""The app factory, its configuration and the home page."""

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

from app import create_app
from domino.web import start_background

ROOT = Path(__file__).resolve().parents[2]


def test_home_page_offers_both_ways_to_play(client):
    response = client.get("/")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert 'data-action="create-room"' in html
    assert 'data-action="play-computer"' in html
    assert '<html lang="en">' in html


def test_healthz_says_ok(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.get_data(as_text=True) == "ok"
    assert response.mimetype == "text/plain"


def test_passed_config_wins_over_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("DOMINO_DB", str(tmp_path / "from-env.sqlite3"))
    db = str(tmp_path / "passed.sqlite3")
    app = create_app({"DOMINO_DB": db, "SECRET_KEY": "x"})
    assert app.config["DOMINO_DB"] == db


def test_environment_sets_db_and_bot_delay(tmp_path, monkeypatch):
    db = tmp_path / "sub" / "env.sqlite3"
    monkeypatch.setenv("DOMINO_DB", str(db))
    monkeypatch.setenv("DOMINO_BOT_DELAY_MS", "0")
    monkeypatch.setenv("DOMINO_SECRET_KEY", "from-env")
    app = create_app()
    assert app.config["DOMINO_DB"] == str(db)
    assert app.config["BOT_DELAY_MS"] == 0
    assert app.config["SECRET_KEY"] == "from-env"
    assert db.parent.is_dir()


def test_defaults(monkeypatch):
    monkeypatch.delenv("DOMINO_DB", raising=False)
    monkeypatch.delenv("DOMINO_BOT_DELAY_MS", raising=False)
    monkeypatch.setenv("DOMINO_SECRET_KEY", "x")
    app = create_app()
    assert app.config["DOMINO_DB"] == os.path.join(app.instance_path, "domino.sqlite3")
    assert app.config["BOT_DELAY_MS"] == 700


def _run_copy_of_app(tmp_path, code):
    """Run `code` in a fresh interpreter where `app` is a copy of app.py living in tmp_path."""
    shutil.copy(ROOT / "app.py", tmp_path / "app.py")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOMINO_")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(ROOT)])
    subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, check=True)


def test_importing_app_creates_no_files(tmp_path):
    _run_copy_of_app(tmp_path, "import app; assert callable(app.create_app)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.py"]


def test_generated_secret_key_is_private_and_survives_restarts(tmp_path):
    code = "import app; app.create_app()"
    _run_copy_of_app(tmp_path, code)
    key_file = tmp_path / "instance" / "secret_key"
    assert key_file.stat().st_mode & 0o777 == 0o600
    key = key_file.read_text().strip()
    assert len(key) == 64
    same_key = f"import app; assert app.create_app().config['SECRET_KEY'] == {key!r}"
    _run_copy_of_app(tmp_path, same_key)
    names = {p.name for p in (tmp_path / "instance").iterdir()}
    assert {"secret_key", "domino.sqlite3"} <= names
    assert not any(name.endswith(".tmp") for name in names)


def test_behind_a_proxy_the_forwarded_scheme_and_address_are_trusted(tmp_path, monkeypatch):
    monkeypatch.setenv("DOMINO_PROXIES", "1")
    app = create_app({"TESTING": True, "DOMINO_DB": str(tmp_path / "p.sqlite3"), "SECRET_KEY": "p"})
    client = app.test_client()
    headers = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"}
    response = client.post("/rooms", data={}, headers=headers)
    assert response.status_code == 400  # CSRF still applies; take the token and try again
    page = client.get("/", headers=headers).get_data(as_text=True)
    token = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    headers["Referer"] = "https://localhost/"  # Flask-WTF checks it over https
    created = client.post("/rooms", data={"csrf_token": token}, headers=headers)
    assert created.status_code == 303
    seat_cookie = next(c for c in created.headers.get_all("Set-Cookie") if c.startswith("seat="))
    assert "Secure" in seat_cookie


def test_without_proxies_forwarded_headers_are_ignored(app):
    client = app.test_client()
    page = client.get("/").get_data(as_text=True)
    token = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    created = client.post(
        "/rooms", data={"csrf_token": token}, headers={"X-Forwarded-Proto": "https"}
    )
    seat_cookie = next(c for c in created.headers.get_all("Set-Cookie") if c.startswith("seat="))
    assert "Secure" not in seat_cookie


def test_the_factory_starts_no_background_work_and_the_servers_hook_does(tmp_path):
    def sweepers() -> int:
        return sum(1 for thread in threading.enumerate() if thread.name == "purge-rooms")

    before = sweepers()
    app = create_app({"DOMINO_DB": str(tmp_path / "d.sqlite3"), "SECRET_KEY": "x"})
    assert sweepers() == before  # create_app only builds (flaskr): nothing runs yet
    start_background(app)  # gunicorn.conf.py's post_worker_init, app.py's development server
    assert sweepers() == before + 1
    assert app.extensions["domino"].computer.wait_idle(10)
