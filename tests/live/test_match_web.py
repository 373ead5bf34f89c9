"""Matches at the table: the running score, the round's arithmetic, Continue and New match."""

from __future__ import annotations

import json
import random

from domino import game
from domino.rules import PRESETS, Rules
from tests.support import checker
from tests.support.computer_room import computer_room, newest, settle
from tests.support.webkit import Table, button, friends, make_app, parse


def tiles_in(node) -> list[str]:
    """The `data-tile` values inside a node."""
    return [tile.get("data-tile") for tile in node.find_all("data-tile")]


def pips(tiles: list[str]) -> int:
    return sum(int(half) for tile in tiles for half in tile.split("-"))


def scores(doc) -> dict[str, int]:
    """The running score per side, by `data-seats`."""
    return {node.get("data-seats"): int(node.text) for node in doc.find_all("data-score")}


def play_round_out(tables, rng: random.Random) -> None:
    """Random legal moves, clicked through each seat's own table, until the round ends."""
    while not tables[0].state.over:
        state = tables[0].state
        mover = tables[state.turn]
        mover.fragment()
        assert mover.click(rng.choice(game.legal_actions(state, state.turn))).status_code == 200


def block_round_points(mine: int, theirs: int, went_out: str | None) -> tuple[int, int]:
    """What each seat writes in a round of the block preset: winner scoring, blocked 'others'."""
    if went_out == "me":
        return theirs, 0
    if went_out == "them":
        return 0, mine
    if mine == theirs:
        return 0, 0
    return (theirs, 0) if mine < theirs else (0, mine)


def test_a_block_match_to_20_scores_every_round_from_the_open_hands(tmp_path):
    app = make_app(tmp_path / "db.sqlite3")
    tables = friends(app, preset="block", target="20")
    rules = Rules.from_json(json.loads(tables[0].doc.one("data-rules").get("data-rules")))
    assert rules == Rules(**{**PRESETS["block"].to_json(), "target": 20})
    rng, running = random.Random(4), {"0": 0, "1": 0}
    for _ in range(40):
        play_round_out(tables, rng)
        host = tables[0].doc
        mine, theirs = tiles_in(host.one("data-hand")), tiles_in(host.one("data-opponent-hand"))
        went_out = "me" if not mine else "them" if not theirs else None
        won = block_round_points(pips(mine), pips(theirs), went_out)
        running = {"0": running["0"] + won[0], "1": running["1"] + won[1]}
        for table in tables:
            assert scores(table.doc) == running
        if max(running.values()) >= 20:
            break
        assert tables[0].doc.find("data-match-result") is None
        assert tables[0].post("new-round").status_code == 200  # "Continue"
        assert tables[0].state.over  # one seat's word deals nothing
        assert tables[1].doc.one("data-next").get("data-next") == "continue"
        assert tables[1].post("new-round").status_code == 200
        assert not tables[0].state.over
    verdicts = {table.doc.one("data-match-result").get("data-winner") for table in tables}
    leader = "0" if running["0"] > running["1"] else "1"
    assert tables[int(leader)].doc.one("data-match-result").get("data-winner") == "you"
    assert verdicts == {"you", "opponent"}
    # a new match, on both seats' word, starts from nothing
    assert tables[1].post("new-round").status_code == 200
    assert tables[0].post("accept-new-round").status_code == 200
    assert scores(tables[0].doc) == {"0": 0, "1": 0} and tables[0].doc.find("data-result") is None


def test_a_reload_a_second_tab_and_a_restart_show_the_same_score(tmp_path):
    db = tmp_path / "db.sqlite3"
    app = make_app(db)
    tables = friends(app, preset="goat", target="150")
    rng = random.Random(9)
    for _ in range(2):
        play_round_out(tables, rng)
        tables[0].post("new-round")
        tables[1].post("new-round")
    shown = scores(tables[0].doc)
    assert sum(shown.values()) > 0
    assert scores(parse(tables[0].open().get_data(as_text=True))) == shown
    second = Table(app, tables[0].room)
    second.client = tables[0].client  # the same browser, another tab
    assert scores(parse(second.open().get_data(as_text=True))) == shown
    again = Table(make_app(db), tables[0].room)
    again.client.set_cookie("seat", tables[0].secret, path=tables[0].url)
    assert scores(parse(again.open().get_data(as_text=True))) == shown


def test_the_previous_winner_opens_the_next_round_of_an_international_match(tmp_path):
    app = make_app(tmp_path / "db.sqlite3", DOMINO_BOT_DELAY_MS=0)
    player = computer_room(app, card={"preset": "international"})
    rng = random.Random(1)
    for _ in range(3):
        while not player.state.over:
            state = player.state
            if state.turn == 0:
                player.send(rng.choice(game.legal_actions(state, 0)))
            settle(app)
        winner = game.outcome(player.state).winner
        assert (
            player.post("new-round", seq=player.services.rooms.get(player.room).seq).status_code
            == 200
        )
        settle(app)
        state = player.state
        if winner is not None:
            first = state.moves[0].seat if state.moves else state.turn
            assert first == winner and state.opening is None
        assert parse(newest(player)).find("data-score") is not None


def test_the_record_download_carries_the_rules_and_the_match(tmp_path):
    app = make_app(tmp_path / "db.sqlite3")
    tables = friends(app, preset="match-100", target="other", target_points="30")
    rng = random.Random(6)
    play_round_out(tables, rng)
    tables[0].post("new-round")
    tables[1].post("new-round")
    play_round_out(tables, rng)
    response = tables[1].get(f"{tables[1].url}/record.jsonl")
    records = [json.loads(line) for line in response.get_data(as_text=True).splitlines()]
    assert len(records) == 2
    expected = {**PRESETS["match-100"].to_json(), "target": 30}
    assert all(record["rules"] == expected for record in records)
    assert [record["match"]["round"] for record in records] == [1, 2]
    assert records[1]["match"]["before"] == records[0]["match"]["after"]
    assert records[1]["match"]["after"] == [int(v) for v in scores(tables[0].doc).values()]
    path = tmp_path / "records.jsonl"
    path.write_text(response.get_data(as_text=True))
    assert checker.check_file(str(path)) == (2, [])


def test_a_match_table_shows_its_score_and_rules_while_the_creator_waits(tmp_path):
    host = Table(make_app(tmp_path / "db.sqlite3"))
    host.create_room(preset="goat")
    assert scores(host.doc) == {"0": 0, "1": 0}
    assert json.loads(host.doc.one("data-rules").get("data-rules")) == PRESETS["goat"].to_json()
    classic = Table(host.app)
    classic.create_room()
    assert classic.doc.find("data-score") is None  # single rounds keep no score


def test_a_new_round_request_is_declined_with_keep_playing_mid_round_and_not_now_after(
    tmp_path,
):
    tables = friends(make_app(tmp_path / "db.sqlite3"))
    assert tables[0].post("new-round").status_code == 200
    assert " ".join(button(tables[1].doc, "decline-new-round").text.split()) == "Keep playing"
    tables[1].post("decline-new-round")
    play_round_out(tables, random.Random(2))
    assert tables[0].post("new-round").status_code == 200
    assert " ".join(button(tables[1].doc, "decline-new-round").text.split()) == "Not now"
