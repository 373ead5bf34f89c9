"""WebAuthn challenges as the lobby keeps them, and recovery codes that sign in without a name
(domino/lobby/keys.py, accounts.py; SPEC §11): each challenge is taken once, within five
minutes, for the purpose it was made for; each code signs in once."""

from __future__ import annotations

import sqlite3

import pytest

from domino.lobby.keys import CHALLENGE_SECONDS


def rows(path, table: str) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        return conn.execute(f"SELECT * FROM {table}").fetchall()


def test_a_challenge_is_taken_once_with_what_it_was_made_for(lobby):
    ana, _, _ = lobby.take_name("Ana")
    made = lobby.store_challenge("register", b"\x01" * 32, ana.id, now=100.0)
    taken = lobby.take_challenge(made.id, "register", now=101.0)
    assert taken == made
    assert (taken.purpose, taken.player, taken.challenge) == ("register", ana.id, b"\x01" * 32)
    assert lobby.take_challenge(made.id, "register", now=101.0) is None


def test_two_challenges_are_two(lobby):
    one = lobby.store_challenge("sign-in", b"one", now=100.0)
    two = lobby.store_challenge("sign-in", b"two", now=100.0)
    assert one.id != two.id and one.player is None
    assert lobby.take_challenge(two.id, "sign-in", now=100.0).challenge == b"two"
    assert lobby.take_challenge(one.id, "sign-in", now=100.0).challenge == b"one"


def test_an_expired_challenge_is_refused_and_spent(lobby, path):
    made = lobby.store_challenge("sign-in", b"old", now=100.0)
    assert lobby.take_challenge(made.id, "sign-in", now=100.0 + CHALLENGE_SECONDS + 1) is None
    assert rows(path, "challenges") == []
    fresh = lobby.store_challenge("sign-in", b"new", now=100.0)
    edge = lobby.take_challenge(fresh.id, "sign-in", now=100.0 + CHALLENGE_SECONDS)
    assert edge is not None


def test_a_challenge_from_the_future_is_refused(lobby):
    made = lobby.store_challenge("sign-in", b"later", now=500.0)
    assert lobby.take_challenge(made.id, "sign-in", now=100.0) is None


def test_a_challenge_taken_for_another_purpose_is_refused_and_spent(lobby):
    made = lobby.store_challenge("sign-in", b"x", now=100.0)
    assert lobby.take_challenge(made.id, "register", now=100.0) is None
    assert lobby.take_challenge(made.id, "sign-in", now=100.0) is None


def test_unknown_challenges_and_purposes(lobby):
    assert lobby.take_challenge("nothing", "sign-in") is None
    with pytest.raises(ValueError):
        lobby.store_challenge("pay", b"x")


def test_storing_a_challenge_deletes_the_expired_ones(lobby, path):
    lobby.store_challenge("sign-in", b"old", now=100.0)
    kept = lobby.store_challenge("sign-in", b"recent", now=100.0 + CHALLENGE_SECONDS - 1)
    lobby.store_challenge("sign-in", b"new", now=100.0 + CHALLENGE_SECONDS + 1)
    assert sorted(row[3] for row in rows(path, "challenges")) == [b"new", b"recent"]
    assert lobby.take_challenge(kept.id, "sign-in", now=100.0 + CHALLENGE_SECONDS) is not None


def test_a_deleted_players_challenges_are_gone(lobby, path):
    ana, _, _ = lobby.take_name("Ana")
    lobby.store_challenge("register", b"x", ana.id)
    assert lobby.delete_player(ana.id)
    assert rows(path, "challenges") == []


def test_a_recovery_code_signs_its_player_in_once_without_the_name(lobby):
    ana, _, _ = lobby.take_name("Ana")
    bob, _, _ = lobby.take_name("Bob")
    codes = lobby.new_recovery_codes(ana.id)
    bobs = lobby.new_recovery_codes(bob.id)
    assert lobby.spend_any_recovery_code(codes[3].upper().replace("-", " ")) == ana.id
    assert lobby.recovery_codes_left(ana.id) == 9
    assert lobby.spend_any_recovery_code(codes[3]) is None  # spent
    assert lobby.recovery_codes_left(ana.id) == 9
    assert lobby.spend_any_recovery_code(bobs[0]) == bob.id
    assert lobby.recovery_codes_left(bob.id) == 9


def test_a_wrong_recovery_code_changes_nothing(lobby, path):
    ana, _, _ = lobby.take_name("Ana")
    lobby.new_recovery_codes(ana.id)
    before = rows(path, "recovery_codes")
    for wrong in ("", "abcd-efgh-jkmn", "x" * 200):
        assert lobby.spend_any_recovery_code(wrong) is None
    assert rows(path, "recovery_codes") == before


def test_replaced_recovery_codes_no_longer_sign_in(lobby):
    ana, _, _ = lobby.take_name("Ana")
    old = lobby.new_recovery_codes(ana.id)
    new = lobby.new_recovery_codes(ana.id)
    assert lobby.spend_any_recovery_code(old[0]) is None
    assert lobby.spend_any_recovery_code(new[0]) == ana.id


def test_the_migration_keeps_a_lobby_made_before_it(path, canonical):
    from sqlite_utils import Database

    from domino.lobby import Lobby
    from domino.lobby.schema import migrations

    path.parent.mkdir(parents=True)
    db = Database(path)
    migrations.apply(db, stop_before="m002_challenges")
    assert not db["challenges"].exists()
    db.execute(
        "INSERT INTO players (id, name, canonical, created_at) VALUES ('p', 'Ana', 'ana', 1)"
    )
    db.conn.commit()
    db.conn.close()
    lobby = Lobby(path, canonical)
    try:
        assert lobby.player("p").name == "Ana"
        made = lobby.store_challenge("register", b"c", "p")
        assert lobby.take_challenge(made.id, "register").challenge == b"c"
    finally:
        lobby.close()
