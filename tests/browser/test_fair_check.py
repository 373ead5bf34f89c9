"""Fair deals in the browser (docs/fair-deals.md): static/fair.js checks what the server dealt.

Part A needs no room: on any page of the app, `DominoFair.checkRecord` goes over the 1,000
records of tests/support/deal_corpus.py and must pass every one, recomputing Python's hands tile
for tile, then fail every one of each tampered copy. Part B plays a round against the
computer, presses "Check this deal" (verdict ok, with the seed this browser sent found in the
deal), then checks again with a record.jsonl altered on its way to the page (verdict failed,
at the hands), and in a tab without Web Crypto (it says the check needs HTTPS). Part A also
sends a seed from a form marked `data-fair-seed`, through htmx and as a plain form.
"""

from __future__ import annotations

import hashlib
import json
import re
from urllib.parse import parse_qs

import pytest
from playwright.sync_api import expect

from domino.fair import fair_deal
from domino.rules import DEFAULT
from tests.support.browser_computer import MAX_MOVES, Player
from tests.support.deal_corpus import COUNT, TAMPERINGS, corpus, tampered

CHECK_ALL_JS = """async (lines) => {
  const out = [];
  for (const line of lines) {
    const result = await window.DominoFair.checkRecord(JSON.parse(line));
    out.push({
      ok: result.ok,
      failed: result.steps.filter((s) => !s.ok).map((s) => s.step),
      hands: result.deal && result.deal.hands,
      boneyard: result.deal && result.deal.boneyard,
    });
  }
  return out;
}"""
DEAL_JS = """async ([seed, round, seeds]) => {
  const commitment = await window.DominoFair.commitment(seed);
  const dealt = await window.DominoFair.deal(seed, round, seeds, 2, 7);
  return {commitment, ...dealt};
}"""
STEPS_JS = """() => Object.fromEntries([...document.querySelectorAll('[data-fair-step]')].map(
  (li) => [li.getAttribute('data-fair-step'),
           [li.getAttribute('data-fair-ok'), li.getAttribute('data-fair-note')]]))"""
STORED_JS = "(key) => window.localStorage.getItem('domino-fair:' + key)"


def open_page(server, open_context):
    """Any page of the app: the home page, with static/fair.js loaded."""
    page = open_context().new_page()
    page.goto(server.url)
    page.wait_for_function("() => !!window.DominoFair")
    return page


def test_part_a_the_browser_agrees_with_python_on_1000_deals(server, open_context):
    page = open_page(server, open_context)
    seed, seeds = bytes(range(32)).hex(), ["00112233445566778899aabbccddeeff", None]
    shown = page.evaluate(DEAL_JS, [seed, 1, seeds])
    python = fair_deal(DEFAULT, seed, 1, seeds)
    assert shown["commitment"] == hashlib.sha256(bytes(range(32))).hexdigest()
    assert shown["hands"] == [[str(t) for t in hand] for hand in python.hands]
    assert shown["boneyard"] == [str(t) for t in python.boneyard]

    results = page.evaluate(CHECK_ALL_JS, list(corpus()))
    assert len(results) == COUNT
    failed = [(n, r["failed"]) for n, r in enumerate(results) if not r["ok"]]
    assert failed == [], f"{len(failed)} honest deals failed: {failed[:5]}"
    for line, result in zip(corpus(), results, strict=True):
        record = json.loads(line)
        assert result["hands"] == record["deal"]["hands"]  # Python's, tile for tile
        assert result["boneyard"] == record["deal"]["boneyard"]


@pytest.mark.parametrize("name", list(TAMPERINGS))
def test_part_a_every_tampered_deal_fails_in_the_browser(server, open_context, name):
    page = open_page(server, open_context)
    results = page.evaluate(CHECK_ALL_JS, tampered(name))
    assert len(results) == COUNT
    passed = [n for n, r in enumerate(results) if r["ok"]]
    assert passed == [], f"{name}: {len(passed)} tampered records passed, e.g. {passed[:5]}"


PROBE_JS = """([commitment, htmxDriven]) => {
  const holder = document.createElement('div');
  holder.setAttribute('data-next-commitment', commitment);
  const form = document.createElement('form');
  form.method = 'post';
  form.action = '/fair-probe';
  if (htmxDriven) form.setAttribute('hx-post', '/fair-probe');
  form.setAttribute('data-fair-seed', '');
  form.innerHTML = '<input name="seq" value="3"><button type="submit">go</button>';
  holder.appendChild(form);
  document.querySelector('main').appendChild(holder);
  if (htmxDriven) window.htmx.process(form);
  form.querySelector('button').click();
}"""


@pytest.mark.parametrize("driven", ["htmx", "plain"])
def test_part_a_a_request_that_deals_carries_a_fresh_seed_and_the_commitment_seen(
    server, open_context, driven
):
    page = open_page(server, open_context)
    page.wait_for_function("() => !!window.htmx")
    page.route("**/fair-probe", lambda route: route.fulfill(status=204, body=""))
    shown = "ab" * 32
    sent = []
    for _ in range(2):
        with page.expect_request("**/fair-probe") as request:
            page.evaluate(PROBE_JS, [shown, driven == "htmx"])
        fields = parse_qs(request.value.post_data)
        assert fields["seq"] == ["3"] and fields["commitment"] == [shown], fields
        assert re.fullmatch("[0-9a-f]{32}", fields["client_seed"][0]), fields
        sent.append(fields["client_seed"][0])
    assert sent[0] != sent[1], "the same seed twice"
    assert page.evaluate(STORED_JS, shown) == sent[1]  # the latest counts, as on the server


def play_to_the_end(player: Player) -> None:
    """Play the computer until the round is over."""
    shown = player.start()
    moves: list[str] = []
    while shown["result"] is None:
        assert len(moves) < MAX_MOVES, f"the round does not end: {moves[-10:]}"
        moves.append(player.take_turn(shown))
        shown = player.wait_current(moves[-1])


def swap_two_hand_tiles(text: str, commitment: str) -> str:
    """record.jsonl with a tile of seat 0 and one of seat 1 swapped in this deal's record."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        record = json.loads(line)
        if record.get("fairness", {}).get("commitment") == commitment:
            hands = record["deal"]["hands"]
            hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
            lines[index] = json.dumps(record)
    return "\n".join(lines) + "\n"


def test_part_b_check_this_deal_after_a_round_against_the_computer(server, open_context):
    player = Player(server, open_context())
    page = player.page
    play_to_the_end(player)

    table = page.locator("#table")
    commitment = table.get_attribute("data-commitment")
    server_seed = table.get_attribute("data-server-seed")
    assert commitment and server_seed, "the table shows no fair deal"
    assert hashlib.sha256(bytes.fromhex(server_seed)).hexdigest() == commitment
    sent = page.evaluate(STORED_JS, commitment)
    assert sent, "this browser kept no seed for the deal it played"

    box = page.locator("[data-fair-check]")
    page.locator('[data-action="check-deal"]').click()
    expect(box).to_have_attribute("data-fair-verdict", "ok")
    steps = page.evaluate(STEPS_JS)
    assert steps == {
        "commitment": ["true", ""],
        "seeds": ["true", "yours"],  # the seed this browser sent is in the deal
        "hands": ["true", ""],
        "boneyard": ["true", ""],
    }
    expect(box.locator(".fair-verdict [data-when='ok']")).to_be_visible()
    expect(box.locator(".fair-verdict [data-when='fail']")).to_be_hidden()

    def altered(route) -> None:
        answer = route.fetch()
        route.fulfill(response=answer, body=swap_two_hand_tiles(answer.text(), commitment))

    page.route("**/record.jsonl", altered)
    page.locator('[data-action="check-deal"]').click()
    expect(box).to_have_attribute("data-fair-verdict", "failed")
    steps = page.evaluate(STEPS_JS)
    assert steps["hands"][0] == "false", steps
    assert steps["commitment"][0] == "true" and steps["seeds"][0] == "true", steps
    hands = box.locator('[data-fair-step="hands"]')
    expect(hands.locator("[data-when='fail']")).to_be_visible()
    expect(hands.locator("[data-fair-detail]")).to_contain_text("≠")
    expect(box.locator(".fair-verdict [data-when='fail']")).to_be_visible()

    # Without Web Crypto (a page not served over HTTPS) the check says so instead.
    plain = player.page.context.new_page()
    plain.add_init_script(
        "Object.defineProperty(Crypto.prototype, 'subtle', {get: () => undefined});"
    )
    plain.goto(page.url)
    plain.locator('[data-action="check-deal"]').click()
    box = plain.locator("[data-fair-check]")
    expect(box).to_have_attribute("data-fair-verdict", "unavailable")
    expect(box.locator(".fair-verdict [data-when='unavailable']")).to_be_visible()
    expect(box.locator("[data-fair-steps]")).to_be_hidden()
