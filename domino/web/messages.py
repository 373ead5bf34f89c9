"""What a player reads when an action is refused, by the refusal's stable code."""

from __future__ import annotations

REFUSALS = {
    # the rules core (IllegalMove.rule)
    "not-your-turn": "It is not your turn.",
    "round-over": "This round is over. Start a new one to play on.",
    "tile-not-held": "You do not hold that tile.",
    "must-open": "The round opens with the marked tile: play it first.",
    "does-not-fit": "That tile does not fit that end.",
    "bad-end": "Choose the left or the right end.",
    "must-play": "You hold a tile that fits, so you must play it.",
    "must-draw": "You cannot pass while the boneyard still has tiles: draw one.",
    "no-drawing": "There is no drawing in this game: pass instead.",
    "boneyard-empty": "The boneyard is empty.",
    "not-next-tile": "A draw takes the next tile of the boneyard.",
    "not-an-event": "That is not a move.",
    "not-an-action": "That is not a move.",
    # the room
    "no-guest": "Your friend has not joined yet: send them the invitation link.",
    "opponent-away": "The other player is away. Play goes on when they are back.",
    "already-asked": "You have already asked for a new round.",
    "no-request": "There is no new-round request to answer.",
    "stale": "The table changed in the meantime; here it is as it stands now.",
    "bad-tile": "That is not a tile.",
    "bad-seq": "This request is incomplete. Reload the page.",
    "unknown-action": "That is not something you can do here.",
    "no-room": "This room does not exist or has expired.",
    "bad-level": "Choose easy, medium or hard.",
    "not-computer": "Only a table against the computer has a level.",
    # the connection
    "not-seated": "You do not have a seat at this table.",
    "not-connected": "Your connection to the table is not open yet. Try again in a moment.",
    "superseded": "This table is now open in another tab or window.",
    "no-finished-round": "No round of this room has finished yet.",
    "csrf": "This form has expired. Reload the page and try again.",
}


def refusal(code: str) -> str:
    """The player-facing message for a refusal code."""
    return REFUSALS.get(code, "That action is not possible right now.")
