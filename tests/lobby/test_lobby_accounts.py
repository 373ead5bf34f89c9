"""The lobby's database: migrations, names, sessions, recovery codes and deleting an account
(domino/lobby/, SPEC §11)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlite_utils import Database

from domino.lobby import Lobby, NameTaken
from domino.lobby.accounts import SESSION_SECONDS, TOUCH_SECONDS
from domino.lobby.schema import migrations
from tests.support.results import result

TABLES = {"players", "sessions", "passkeys", "recovery_codes", "invitations", "blocks"}


def schema(path: Path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()


def count(path: Path, table: str) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def test_migrations_make_every_table_from_an_empty_file_in_wal_mode(path, canonical):
    Lobby(path, canonical).close()
    names = {name for kind, name, _ in schema(path) if kind == "table"}
    assert names >= TABLES
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        applied = conn.execute("SELECT name FROM _sqlite_migrations").fetchall()
    assert [name for (name,) in applied] == [
        "m001_players",
        "m002_challenges",
        "m003_queue",
        "m004_results",
        "m005_ledger",
        "m006_stakes",
    ]
    with sqlite3.connect(path) as conn:
        assert migrations.pending(Database(conn)) == []
    assert path.stat().st_mode & 0o777 == 0o600


def test_migrations_run_again_change_nothing_and_keep_the_data(path, canonical):
    lobby = Lobby(path, canonical)
    player, secret, _ = lobby.take_name("Ana")
    lobby.close()
    before = schema(path)
    again = Lobby(path, canonical)
    assert schema(path) == before
    assert again.player(player.id) == player
    assert again.session(secret).player == player.id
    again.close()


def test_a_confirmed_write_is_in_the_file_when_the_call_returns(lobby, path):
    player, _, session = lobby.take_name("Ana")
    with sqlite3.connect(path) as other:  # another connection sees only what is committed
        rows = other.execute("SELECT id FROM players").fetchall()
        sessions = other.execute("SELECT id FROM sessions").fetchall()
    assert rows == [(player.id,)] and sessions == [(session.id,)]


@pytest.mark.parametrize("other", ["ana", "ANA", "Ａｎａ", "AnA"])
def test_a_name_is_unique_by_its_canonical_form_and_a_refusal_writes_nothing(lobby, path, other):
    player, _, _ = lobby.take_name("Ana")
    with pytest.raises(NameTaken):
        lobby.take_name(other)
    assert count(path, "players") == 1 and count(path, "sessions") == 1
    assert lobby.player_named(other) == player
    assert player.name == "Ana" and player.canonical == "ana"


def test_names_that_differ_in_canonical_form_are_two_players(lobby):
    ana, _, _ = lobby.take_name("Ana")
    anna, _, _ = lobby.take_name("Anna")
    assert ana.id != anna.id
    assert lobby.player_named("anna") == anna


def test_a_session_secret_is_never_stored_only_its_hash(lobby, path):
    player, first, _ = lobby.take_name("Ana")
    second, _ = lobby.new_session(player.id, "phone")
    lobby.close()
    files = [p for p in path.parent.iterdir() if p.name.startswith(path.name)]
    data = b"".join(p.read_bytes() for p in files)
    for secret in (first, second):
        assert len(secret) >= 40  # 32 random bytes
        assert secret.encode() not in data
        assert secret.encode().hex().encode() not in data


def test_a_session_with_a_key_stores_an_hmac_not_the_plain_hash(path, canonical):
    keyed = Lobby(path, canonical, key=b"the secret key")
    player, secret, _ = keyed.take_name("Ana")
    assert keyed.session(secret).player == player.id
    keyed.close()
    assert Lobby(path, canonical).session(secret) is None  # without the key: another hash


def test_a_session_ended_is_refused_and_the_others_live_on(lobby):
    player, here, this = lobby.take_name("Ana")
    there, that = lobby.new_session(player.id, "phone")
    assert {s.id for s in lobby.sessions(player.id)} == {this.id, that.id}
    assert lobby.end_session(player.id, that.id)
    assert lobby.session(there) is None
    assert lobby.session(here).id == this.id
    assert not lobby.end_session(player.id, that.id)  # ended once: nothing left to end
    assert [s.id for s in lobby.sessions(player.id)] == [this.id]


def test_ending_all_sessions_but_this_one_keeps_this_one(lobby):
    player, here, this = lobby.take_name("Ana")
    others = [lobby.new_session(player.id, f"browser {n}")[0] for n in range(3)]
    assert lobby.end_other_sessions(player.id, this.id) == 3
    assert [lobby.session(secret) for secret in others] == [None, None, None]
    assert lobby.session(here).id == this.id


def test_a_player_cannot_end_another_players_session(lobby):
    _, ana_secret, ana_session = lobby.take_name("Ana")
    bob, _, bob_session = lobby.take_name("Bob")
    assert not lobby.end_session(bob.id, ana_session.id)
    assert lobby.end_other_sessions(bob.id, bob_session.id) == 0
    assert lobby.session(ana_secret).id == ana_session.id


def test_a_session_lasts_400_days_from_its_last_use(lobby):
    _, secret, session = lobby.take_name("Ana", now=1000.0)
    assert lobby.session("not the secret", now=1001.0) is None
    assert lobby.session(secret, now=1001.0) == session  # a use that is not written
    later = 1000.0 + TOUCH_SECONDS + 1  # a use that is written
    assert lobby.session(secret, now=later).used_at == later
    assert lobby.session(secret, now=later + SESSION_SECONDS - 1) is not None
    assert lobby.session(secret, now=later + 2 * SESSION_SECONDS) is None


def test_ten_recovery_codes_each_spent_once_and_refused_twice(lobby):
    ana, _, _ = lobby.take_name("Ana")
    codes = lobby.new_recovery_codes(ana.id)
    assert len(codes) == len(set(codes)) == 10
    assert lobby.recovery_codes_left(ana.id) == 10
    assert lobby.spend_recovery_code(ana.id, codes[3])
    assert not lobby.spend_recovery_code(ana.id, codes[3])
    assert lobby.spend_recovery_code(ana.id, f"  {codes[4].upper().replace('-', ' ')} ")
    assert not lobby.spend_recovery_code(ana.id, codes[4])
    assert lobby.recovery_codes_left(ana.id) == 8


def test_a_wrong_or_anothers_recovery_code_is_refused_and_spends_nothing(lobby):
    ana, _, _ = lobby.take_name("Ana")
    bob, _, _ = lobby.take_name("Bob")
    codes = lobby.new_recovery_codes(ana.id)
    assert not lobby.spend_recovery_code(bob.id, codes[0])
    assert not lobby.spend_recovery_code(ana.id, "aaaa-aaaa-aaaa")
    assert not lobby.spend_recovery_code(ana.id, "")
    assert lobby.recovery_codes_left(ana.id) == 10


def test_new_recovery_codes_replace_the_old_ones_which_are_kept_hashed(lobby, path):
    ana, _, _ = lobby.take_name("Ana")
    old = lobby.new_recovery_codes(ana.id)
    new = lobby.new_recovery_codes(ana.id)
    assert not lobby.spend_recovery_code(ana.id, old[0])
    assert lobby.spend_recovery_code(ana.id, new[0])
    lobby.close()
    data = b"".join(p.read_bytes() for p in path.parent.iterdir())
    for code in old + new:
        assert code.encode() not in data and code.replace("-", "").encode() not in data


def everything_of(lobby: Lobby, path: Path, player) -> list[tuple[str, str]]:
    """Every (table, column) holding the player's id, name or canonical name."""
    marks = {player.id, player.name, player.canonical}
    found = []
    with sqlite3.connect(path) as conn:
        tables = [t for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            cursor = conn.execute(f"SELECT * FROM {table}")
            columns = [c[0] for c in cursor.description]
            for row in cursor:
                pairs = zip(columns, row, strict=True)
                found += [(table, column) for column, value in pairs if value in marks]
    return found


def furnish(lobby: Lobby, player, other) -> None:
    """Give a player something in every table, with another player."""
    lobby.new_session(player.id, "phone")
    lobby.add_passkey(player.id, b"cred-" + player.id.encode(), b"key", 0, "laptop")
    lobby.new_recovery_codes(player.id)
    lobby.invite(player.id, other.id, "room-1")
    lobby.invite(other.id, player.id, "room-2")
    lobby.block(player.id, other.id)
    lobby.block(other.id, player.id)
    lobby.join_queue(player.id, "classic")
    key = f"room-{player.id}"
    lobby.apply_result(result(key, 1, [(player.id, 1), (other.id, 2)]))


def test_deleting_a_player_leaves_nothing_of_theirs_and_keeps_the_others(lobby, path):
    ana, ana_secret, _ = lobby.take_name("Ana")
    bob, bob_secret, _ = lobby.take_name("Bob")
    cleo, _, _ = lobby.take_name("Cleo")
    furnish(lobby, ana, bob)
    furnish(lobby, bob, cleo)
    assert everything_of(lobby, path, ana)
    assert lobby.delete_player(ana.id)
    assert everything_of(lobby, path, ana) == []
    assert lobby.player(ana.id) is None and lobby.session(ana_secret) is None
    assert lobby.session(bob_secret).player == bob.id
    assert len(lobby.passkeys(bob.id)) == 1 and lobby.recovery_codes_left(bob.id) == 10
    assert [i.guest for i in lobby.invitations_from(bob.id, "room-1")] == [cleo.id]
    assert lobby.blocked_by(bob.id) == [cleo.id]
    assert not lobby.delete_player(ana.id)
    again, _, _ = lobby.take_name("ana")  # the name is free again, for a new player
    assert again.id != ana.id
