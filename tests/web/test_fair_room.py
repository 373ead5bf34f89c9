"""Fair deals in rooms (docs/fair-deals.md): committed before, seeded by the players, revealed
after."""

from __future__ import annotations

import json
import random

import pytest

from domino import game
from domino.actions import fold_in, next_round
from domino.fair import commitment, fair_deal
from domino.room import fold
from tests.support.fairness import deals, home_fields, seed_of
from tests.support.webkit import Table, friends, make_app, parse


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "domino.sqlite3", seed=5, BOT_DELAY_MS=0)


def server_seeds(player: Table) -> list[str]:
    return [data["seed"] for _seq, kind, data in player.log if kind == "commit"]


def computer_room(app, **fields) -> Table:
    """A computer room, its first moves made and its table as it stands."""
    player = Table(app)
    player.create_room("/computer", **fields)
    assert app.extensions["domino"].computer.wait_idle(10), "the computer is still thinking"
    player.connect("9.a")
    player.fragment()
    return player


def play_out(tables, rng) -> None:
    """Random legal moves until the round is over."""
    while not tables[0].state.over:
        state = tables[0].state
        mover = tables[state.turn]
        assert mover.send(rng.choice(game.legal_actions(state, state.turn))).status_code == 200


def test_a_friend_round_is_committed_before_and_revealed_after(app):
    creator, guest = Table(app), Table(app)
    creator.create_room(**home_fields(creator), client_seed=seed_of(1))
    guest.room = creator.room
    join_form = parse(guest.open().get_data(as_text=True)).one("data-fair-seed")
    promised = join_form.get("data-next-commitment")
    assert guest.join(client_seed=seed_of(2), commitment=promised).status_code == 303
    creator.connect("1.a"), guest.connect("1.b")
    creator.fragment(), guest.fragment()

    block = deals(creator)[-1]["fairness"]
    assert block["commitment"] == promised  # the join page showed it before the seed was sent
    assert block["client_seeds"] == [None, seed_of(2)]  # the creator's went into the preview
    secret = block["server_seed"]
    play_out((creator, guest), random.Random(3))
    *before, _last = creator.seen
    for text in before + guest.seen[:-1]:  # mid-round: the commitment, never the seed
        assert secret not in text
    for player in (creator, guest):
        table = player.doc.one("data-commitment")
        assert table.get("data-commitment") == promised
        assert table.get("data-server-seed") == secret
        assert commitment(table.get("data-server-seed")) == promised
        shown = player.doc.one("data-fair-value", "round").text.strip()
        assert shown == str(block["round"])  # the number the deal was shuffled with
    record = json.loads(creator.get(f"{creator.url}/record.jsonl").get_data(as_text=True))
    assert record["fairness"] == block
    dealt = fair_deal(creator.state.rules, secret, block["round"], block["client_seeds"])
    assert [list(map(str, hand)) for hand in dealt.hands] == record["deal"]["hands"]


def test_no_table_shows_the_server_seed_before_the_round_is_over(app):
    creator, guest = friends(app, "2.a", "2.b")
    rng = random.Random(9)
    while not creator.state.over:
        state = creator.state
        for player in (creator, guest):
            assert player.doc.one("data-commitment") is not None
            assert player.doc.find("data-server-seed") is None
        mover = (creator, guest)[state.turn]
        assert mover.send(rng.choice(game.legal_actions(state, state.turn))).status_code == 200
    assert creator.doc.find("data-server-seed") is not None


def test_the_home_page_commits_to_a_computer_rooms_first_deal_once(app):
    player = Table(app)
    assert player.home().headers["Cache-Control"] == "no-store"
    fields = home_fields(player)
    player.create_room("/computer", **fields, client_seed=seed_of(7))
    block = deals(player)[0]["fairness"]
    assert block["commitment"] == fields["commitment"] and block["round"] == 1
    assert block["client_seeds"] == [seed_of(7), None]  # the computer's seat sends none

    again = Table(app)  # the same page's token a second time: spent, so committed afresh
    again.create_room("/computer", **fields, client_seed=seed_of(8))
    block = deals(again)[0]["fairness"]
    assert block["commitment"] != fields["commitment"] and block["client_seeds"] == [None, None]


def test_a_seed_sent_for_another_commitment_counts_for_nothing(app):
    player = computer_room(app)
    stale = player.doc.one("data-commitment").get("data-commitment")  # the current deal's
    assert player.post("new-round", client_seed=seed_of(2), commitment=stale).status_code == 200
    assert deals(player)[-1]["fairness"]["client_seeds"] == [None, None]
    promised = player.doc.one("data-next-commitment").get("data-next-commitment")
    assert player.post("new-round", client_seed=seed_of(3), commitment=promised).status_code == 200
    block = deals(player)[-1]["fairness"]
    assert block["client_seeds"] == [seed_of(3), None] and block["commitment"] == promised
    assert [data["fairness"]["round"] for data in deals(player)] == [1, 2, 3]


def test_every_persons_seed_goes_into_a_new_round(app):
    creator, guest = friends(app, "3.a", "3.b")
    promised = creator.doc.one("data-next-commitment").get("data-next-commitment")
    assert creator.post("new-round", client_seed=seed_of(4), commitment=promised).status_code == 200
    assert (
        guest.post("accept-new-round", client_seed=seed_of(5), commitment=promised).status_code
        == 200
    )
    block = deals(creator)[-1]["fairness"]
    assert block["client_seeds"] == [seed_of(4), seed_of(5)] and block["commitment"] == promised


@pytest.mark.parametrize("seed", ["XYZ", "A" * 32, "0" * 31, "0" * 33])
def test_a_malformed_seed_is_refused_and_changes_nothing(app, seed):
    player = computer_room(app)
    before = player.log
    response = player.post("new-round", client_seed=seed)
    assert response.status_code == 400 and player.log == before


def test_a_tampered_log_does_not_fold(app):
    player = Table(app)
    player.create_room("/computer")
    events = player.log
    fold(player.room, "computer", events)  # as stored, it folds
    at = next(i for i, (_seq, kind, _data) in enumerate(events) if kind == "deal")
    seq, kind, data = events[at]
    hands = [list(hand) for hand in data["hands"]]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    for changed in (
        {**data, "hands": hands},  # tiles swapped between hands
        {**data, "boneyard": data["boneyard"][::-1]},
        {**data, "fairness": {**data["fairness"], "client_seeds": [seed_of(1), None]}},
        {**data, "fairness": {**data["fairness"], "round": 2}},
    ):
        with pytest.raises(ValueError):
            fold(player.room, "computer", [*events[:at], (seq, kind, changed), *events[at + 1 :]])
    commit = replace_seed(events, at - 1)
    with pytest.raises(ValueError):
        fold(player.room, "computer", commit)


def replace_seed(events, index):
    """The log with the commitment at `index` to another server seed."""
    seq, kind, _data = events[index]
    assert kind == "commit"
    return [*events[:index], (seq, kind, {"seed": "ab" * 32}), *events[index + 1 :]]


def test_an_old_rooms_plain_deal_still_folds_and_the_next_is_fair(app):
    player = Table(app)
    player.create_room("/computer")
    events = [
        (seq, kind, {k: v for k, v in data.items() if k != "fairness"})
        for seq, kind, data in player.log
        if kind != "commit"
    ]
    room = fold(player.room, "computer", events)  # a room from before fair deals
    assert room.fair.current is None and room.fair.deals == 1
    assert room.round.start == player.state.start
    after = fold_in(room, next_round(room, random.Random(1)))
    assert after.fair.current["round"] == 2 and after.fair.pending is not None
