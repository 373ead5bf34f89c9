"""A player's friends as the lobby keeps them (SPEC §11): the players of an accepted invitation,
either way, without blocked ones; and who is online, as this process last saw them."""

from __future__ import annotations

from domino.lobby.friends import LastSeen


def test_friends_are_the_players_of_an_accepted_invitation_either_way(lobby):
    ana, _, _ = lobby.take_name("Ana")
    bob, _, _ = lobby.take_name("bob")
    cleo, _, _ = lobby.take_name("Cleo")
    dan, _, _ = lobby.take_name("Dan")
    to_bob = lobby.invite(ana.id, bob.id, "room-1")
    from_cleo = lobby.invite(cleo.id, ana.id, "room-2")
    to_dan = lobby.invite(ana.id, dan.id, "room-3")
    assert lobby.friends(ana.id) == []  # nothing accepted yet
    lobby.answer(bob.id, to_bob.id, accept=True)
    lobby.answer(ana.id, from_cleo.id, accept=True)
    lobby.answer(dan.id, to_dan.id, accept=False)  # a decline makes no friend
    lobby.invite(bob.id, ana.id, "room-4")  # open: no second entry either
    assert lobby.friends(ana.id) == [(bob.id, "bob"), (cleo.id, "Cleo")]  # by name
    assert lobby.friends(bob.id) == [(ana.id, "Ana")]
    assert lobby.friends(dan.id) == []


def test_a_block_either_way_takes_a_friend_off_the_list(lobby):
    ana, _, _ = lobby.take_name("Ana")
    bob, _, _ = lobby.take_name("Bob")
    lobby.answer(bob.id, lobby.invite(ana.id, bob.id, "room").id, accept=True)
    lobby.block(bob.id, ana.id)
    assert lobby.friends(ana.id) == [] and lobby.friends(bob.id) == []
    lobby.unblock(bob.id, ana.id)
    assert lobby.friends(ana.id) == [(bob.id, "Bob")]


def test_online_is_seen_in_the_last_two_minutes_and_the_map_stays_bounded():
    now = [0.0]
    seen = LastSeen(online=120, most=3, clock=lambda: now[0])
    assert not seen.is_online("ana")
    seen.saw("ana")
    now[0] = 120
    assert seen.is_online("ana")
    now[0] = 121
    assert not seen.is_online("ana")
    for player in ("ana", "bob", "cleo", "dan"):
        seen.saw(player)
    assert not seen.is_online("ana") and seen.is_online("dan")  # the oldest went first
    seen.saw("bob")  # seen again: now the newest
    seen.saw("eve")
    assert seen.is_online("bob") and not seen.is_online("cleo")
