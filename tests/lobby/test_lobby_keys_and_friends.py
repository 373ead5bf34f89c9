"""The lobby's passkeys as stored, invitations by name and blocks (domino/lobby/, SPEC §11)."""

from __future__ import annotations

import pytest

from domino.lobby import KnownCredential, LastPasskey


def test_a_passkey_is_stored_with_its_key_count_and_name_and_registered_once(lobby):
    ana, _, _ = lobby.take_name("Ana")
    bob, _, _ = lobby.take_name("Bob")
    key = lobby.add_passkey(ana.id, b"\x00cred", b"\x01public", 5, "laptop", now=10.0)
    assert lobby.passkey(b"\x00cred") == key
    stored = (key.player, key.public_key, key.sign_count, key.name)
    assert stored == (ana.id, b"\x01public", 5, "laptop")
    with pytest.raises(KnownCredential):
        lobby.add_passkey(bob.id, b"\x00cred", b"other", 0, "mine")
    assert lobby.passkeys(bob.id) == [] and lobby.passkey(b"\x00cred") == key


def test_a_sign_in_counter_that_does_not_grow_is_refused(lobby):
    ana, _, _ = lobby.take_name("Ana")
    lobby.add_passkey(ana.id, b"counting", b"k", 5, "phone")
    lobby.add_passkey(ana.id, b"not counting", b"k", 0, "key")
    assert lobby.use_passkey(b"counting", 6, now=20.0)
    assert not lobby.use_passkey(b"counting", 6)  # a clone's replay
    assert not lobby.use_passkey(b"counting", 3)
    assert lobby.passkey(b"counting").sign_count == 6
    assert lobby.passkey(b"counting").used_at == 20.0
    assert lobby.use_passkey(b"not counting", 0)
    assert not lobby.use_passkey(b"unknown", 9)


def test_a_passkey_is_renamed_and_removed_by_its_player_only(lobby):
    ana, _, _ = lobby.take_name("Ana")
    bob, _, _ = lobby.take_name("Bob")
    lobby.add_passkey(ana.id, b"one", b"k", 0, "laptop")
    lobby.add_passkey(ana.id, b"two", b"k", 0, "phone")
    assert not lobby.rename_passkey(bob.id, b"one", "stolen")
    assert lobby.rename_passkey(ana.id, b"one", "work laptop")
    assert [k.name for k in lobby.passkeys(ana.id)] == ["work laptop", "phone"]
    assert not lobby.remove_passkey(bob.id, b"one")
    assert lobby.remove_passkey(ana.id, b"one")
    assert [k.credential_id for k in lobby.passkeys(ana.id)] == [b"two"]


def test_the_last_passkey_is_kept_unless_a_recovery_code_is_left(lobby):
    ana, _, _ = lobby.take_name("Ana")
    lobby.add_passkey(ana.id, b"only", b"k", 0, "laptop")
    with pytest.raises(LastPasskey):
        lobby.remove_passkey(ana.id, b"only")
    assert [k.credential_id for k in lobby.passkeys(ana.id)] == [b"only"]
    lobby.new_recovery_codes(ana.id)
    assert lobby.remove_passkey(ana.id, b"only")
    assert lobby.passkeys(ana.id) == []


def test_an_invitation_is_shown_to_its_guest_and_answered_once(lobby):
    ana, _, _ = lobby.take_name("Ana")
    bob, _, _ = lobby.take_name("Bob")
    sent = lobby.invite(ana.id, bob.id, "room-1", now=1.0)
    assert lobby.invite(ana.id, bob.id, "room-1", now=2.0) == sent  # the same one again
    assert lobby.invitations_for(bob.id) == [sent] and lobby.invitations_for(ana.id) == []
    assert lobby.answer(ana.id, sent.id, accept=True) is None  # not the guest
    declined = lobby.answer(bob.id, sent.id, accept=False, now=3.0)
    assert (declined.state, declined.answered_at) == ("declined", 3.0)
    assert lobby.answer(bob.id, sent.id, accept=True) is None  # answered already
    assert lobby.invitations_for(bob.id) == []
    assert lobby.invitations_from(ana.id, "room-1") == [declined]  # the host sees the decline


def test_an_accepted_invitation_is_no_longer_shown(lobby):
    ana, _, _ = lobby.take_name("Ana")
    bob, _, _ = lobby.take_name("Bob")
    sent = lobby.invite(ana.id, bob.id, "room-1")
    assert lobby.answer(bob.id, sent.id, accept=True).state == "accepted"
    assert lobby.invitations_for(bob.id) == []


def test_a_player_cannot_invite_or_block_themselves(lobby):
    ana, _, _ = lobby.take_name("Ana")
    with pytest.raises(ValueError):
        lobby.invite(ana.id, ana.id, "room-1")
    with pytest.raises(ValueError):
        lobby.block(ana.id, ana.id)
    assert lobby.invitations_for(ana.id) == [] and lobby.blocked_by(ana.id) == []


def test_a_blocked_players_invitations_are_not_shown_until_unblocked(lobby):
    ana, _, _ = lobby.take_name("Ana")
    bob, _, _ = lobby.take_name("Bob")
    cleo, _, _ = lobby.take_name("Cleo")
    from_ana = lobby.invite(ana.id, bob.id, "room-1")
    from_cleo = lobby.invite(cleo.id, bob.id, "room-2", now=0.0)
    lobby.block(bob.id, ana.id)
    lobby.block(bob.id, ana.id)  # again: nothing changes
    assert lobby.invitations_for(bob.id) == [from_cleo]
    assert lobby.blocked_by(bob.id) == [ana.id]
    assert lobby.either_blocks(ana.id, bob.id) and lobby.either_blocks(bob.id, ana.id)
    assert not lobby.either_blocks(ana.id, cleo.id)
    assert lobby.unblock(bob.id, ana.id) and not lobby.unblock(bob.id, ana.id)
    assert lobby.invitations_for(bob.id) == [from_ana, from_cleo]
