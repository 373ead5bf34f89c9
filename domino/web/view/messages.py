"""What a player reads when an action is refused, by the refusal's stable code."""

from __future__ import annotations

from flask_babel import gettext

from ...room import Room


def N_(message: str) -> str:
    """Mark a message for translation; it is translated when it is shown."""
    return message


FALLBACK = N_("That action is not possible right now.")
REFUSALS = {
    # the rules core (IllegalMove.rule)
    "not-your-turn": N_("It is not your turn."),
    "round-over": N_("This round is over. Start a new one to play on."),
    "tile-not-held": N_("You do not hold that tile."),
    "must-open": N_("The round opens with the marked tile: play it first."),
    "does-not-fit": N_("That tile does not fit that end."),
    "bad-end": N_("Choose the left or the right end."),
    "must-play": N_("You hold a tile that fits, so you must play it."),
    "must-draw": N_("You cannot pass while the boneyard still has tiles: draw one."),
    "no-drawing": N_("There is no drawing in this game: pass instead."),
    "boneyard-empty": N_("The boneyard is empty."),
    "not-next-tile": N_("A draw takes the next tile of the boneyard."),
    "not-an-event": N_("That is not a move."),
    "not-an-action": N_("That is not a move."),
    # the room
    "no-guest": N_("Your friend has not joined yet: send them the invitation link."),
    "opponent-away": N_("The other player is away. Play goes on when they are back."),
    "already-asked": N_("You have already asked for a new round."),
    "no-request": N_("There is no new-round request to answer."),
    "stale": N_("The table changed in the meantime; here it is as it stands now."),
    "bad-tile": N_("That is not a tile."),
    "bad-seq": N_("This request is incomplete. Reload the page."),
    "unknown-action": N_("That is not something you can do here."),
    "no-room": N_("This room does not exist or has expired."),
    "bad-level": N_("Choose easy, medium or hard."),
    "not-computer": N_("Only a seat the computer plays has a level."),
    "bad-rules": N_("These rules cannot be played at a table here."),
    "computer-plays": N_("The computer plays your seat for now: it is yours again at your turn."),
    "not-creator": N_("Only the player who set up the table can give a seat to the computer."),
    "not-your-level": N_("Only the player who set up the table can change the computer's level."),
    "seat-taken": N_("That seat is already taken."),
    "bad-seat": N_("There is no such seat at this table."),
    "not-away": N_("That player has not been away long enough to hand their seat over."),
    "not-handed": N_("The computer does not play that seat."),
    "stand-in-level": N_(
        "The computer keeps its own level while it plays for someone who is away: "
        "nobody else at the table can change it."
    ),
    "bad-name": N_("A name is one line of at most 20 characters."),
    "reserved-name": N_(
        "The table already uses that name for a seat (such as “you”, “your partner” or "
        "“East”), so others could mistake you for that seat: choose another name."
    ),
    "bad-seed": N_("This page sent a malformed seed for the deal. Reload the page and try again."),
    "no-rematch": N_("A rematch replays a round just finished, and not a rematch itself."),
    "other-request": N_("Another request is waiting for an answer: answer it first."),
    # a public table's clock (SPEC §12)
    "timed-out": N_("Your time ran out: the computer is making this move for you."),
    "match-lost": N_(
        "You left this match, so it counts as lost: the computer plays your seat until it ends."
    ),
    "public-over": N_(
        "This public match is over, and so is the table: press “Play again” for a new one."
    ),
    "public-round": N_("At a public table every round is played to its end: no new round midway."),
    "public-rematch": N_(
        "A rematch counts for nothing, so public tables have none: start a new match instead."
    ),
    "public-clock": N_(
        "At a public table nobody hands a seat over: the clock gives the computer the seat of "
        "a player who stays away."
    ),
    # a player's name (domino.players.names.CODES, SPEC §11)
    "name-control": N_(
        "A name cannot hold invisible characters, such as control characters or marks that "
        "change the direction of the text."
    ),
    "name-characters": N_("A name is made of letters, digits, “_”, “-” and “.”, without spaces."),
    "name-scripts": N_(
        "A name cannot mix Latin, Cyrillic or Greek letters, which look alike (a Cyrillic "
        "“а” in a Latin name): write it in one alphabet."
    ),
    "name-length": N_("A name has 3 to 20 characters."),
    "name-reserved": N_(
        "That name could pass for the site, the computer or a seat at the table (such as "
        "“admin”, “computer” or “your partner”): choose another name."
    ),
    "name-taken": N_(
        "Another player already has that name (names that differ only in capitals or in the "
        "width of their letters count as one): choose another name."
    ),
    "name-signed-in": N_(
        "This browser already plays under a name: sign out first to take another."
    ),
    # passkeys and recovery codes (domino/lobby/ceremonies.py, web/routes/passkeys.py)
    "passkey-failed": N_(
        "This passkey could not be checked, so nothing was changed. Try again, or use another "
        "passkey or a recovery code."
    ),
    "passkey-expired": N_(
        "This passkey request has expired or was already used: press the button again."
    ),
    "passkey-unknown": N_(
        "This site does not know that passkey (it may have been removed): use another one or a "
        "recovery code."
    ),
    "passkey-known": N_("That passkey is already added."),
    "passkey-last": N_(
        "This is your last passkey and no recovery code is left: add another passkey before "
        "you remove this one, or you could not sign in again."
    ),
    "passkey-name": N_("A passkey's name is one line of 1 to 40 characters."),
    "no-passkey": N_("You have no such passkey."),
    "recovery-code-wrong": N_(
        "That recovery code is not right, or it was already used: each code signs in once."
    ),
    "signed-in-already": N_(
        "This browser is already signed in: sign out first to sign in as another player."
    ),
    "not-signed-in": N_("Sign in first: this is for a signed-in player only."),
    "delete-unconfirmed": N_(
        "To delete the account, type its name exactly as it is shown, then press the button."
    ),
    # friends by name (routes/friends.py, SPEC §11)
    "invite-not-seated": N_(
        "This table's invite form is out of date, or not yours: reload the table and try again."
    ),
    "invite-self": N_("That is your own name: invite another player."),
    "no-such-player": N_("There is no player of that name. Check its spelling."),
    "too-many-invitations": N_(
        "This table has sent many invitations already: share its link instead."
    ),
    "no-invitation": N_("This invitation is no longer open."),
    "block-self": N_("You cannot block yourself."),
    # public tables and quick match (SPEC §12: routes/play.py, web/live/grants.py)
    "public-table": N_(
        "At a public table the computer plays at its own level and every player is called by "
        "their name: nobody changes either."
    ),
    "bad-grant": N_("This seat link is not valid: it may have been copied wrongly."),
    "grant-expired": N_("This seat link has expired: seat links work for a few minutes only."),
    "grant-used": N_("This seat link was used already: each one seats its player once."),
    "grant-not-yours": N_(
        "This seat link belongs to another player: sign in as that player to use it."
    ),
    "bad-game": N_("Choose one of the public games."),
    "quick-match-closed": N_(
        "Quick match is not open on this server yet: play a friend or the computer meanwhile."
    ),
    "bad-stake": N_("Choose a stake of 100, 250, 500 or 1,000 coins, or no stake."),
    "stake-game": N_("Stakes are played at Match to 100 and at Pairs only: choose one of them."),
    "not-enough-coins": N_(
        "You do not have enough coins for that stake: choose a smaller one, or play without."
    ),
    "already-staked": N_(
        "Your stake is held at a table that is filling: wait for it, or leave it to get your "
        "coins back before you join another."
    ),
    # a rate limit (web/guard/limits.py)
    "too-many-deals": N_(
        "That is a lot of fresh deals in a short time: wait a little before dealing again. "
        "A new round once a round is over can always be dealt."
    ),
    # the connection
    "not-seated": N_("You do not have a seat at this table."),
    "not-connected": N_("Your connection to the table is not open yet. Try again in a moment."),
    "superseded": N_("This table is now open in another tab or window."),
    "no-finished-round": N_("No round of this room has finished yet."),
    "csrf": N_("This form has expired. Reload the page and try again."),
}


# The HTTP status of a refusal, by code; any other refusal is a conflict with the table (409).
STATUSES = {
    "quick-match-closed": 503,
    "bad-tile": 400,
    "bad-end": 400,
    "bad-seq": 400,
    "bad-level": 400,
    "unknown-action": 400,
    "not-computer": 400,
    "bad-rules": 400,
    "bad-seat": 400,
    "bad-name": 400,
    "reserved-name": 400,
    "name-control": 400,
    "name-characters": 400,
    "name-scripts": 400,
    "name-length": 400,
    "name-reserved": 400,
    "delete-unconfirmed": 400,
    "passkey-failed": 400,
    "passkey-expired": 400,
    "passkey-unknown": 400,
    "passkey-name": 400,
    "no-passkey": 404,
    "recovery-code-wrong": 400,
    "not-signed-in": 403,
    "bad-seed": 400,
    "invite-self": 400,
    "block-self": 400,
    "invite-not-seated": 403,
    "no-such-player": 404,
    "no-invitation": 404,
    "not-creator": 403,
    "not-your-level": 403,
    "stand-in-level": 403,
    "not-seated": 403,
    "no-room": 404,
    "too-many-deals": 429,
    "public-table": 403,
    "public-clock": 403,
    "public-rematch": 403,
    "public-over": 403,
    "public-round": 403,
    "match-lost": 403,
    "bad-grant": 400,
    "grant-expired": 410,
    "grant-used": 409,
    "grant-not-yours": 403,
    "bad-game": 400,
    "bad-stake": 400,
    "stake-game": 400,
    "not-enough-coins": 409,
    "already-staked": 409,
}


def refusal(code: str) -> str:
    """The player-facing message for a refusal code."""
    return gettext(REFUSALS.get(code, FALLBACK))


def status_of(code: str) -> int:
    """The HTTP status that answers a refusal."""
    return STATUSES.get(code, 409)


NOTICES = {
    "dealt-afresh": N_(
        "Your friend has taken their seat, so the tiles were dealt afresh: "
        "the hand you had while waiting was only a preview."
    ),
    "all-seated": N_(
        "Every seat is taken, so the tiles were dealt afresh: "
        "the hand you had while waiting was only a preview."
    ),
    "handed-over": N_("A player who was away is played by the computer until they are back."),
    "taken-back": N_("A player is back and plays their own seat again."),
    "timed-out": N_("Time ran out: the computer made the move for the player on turn."),
    "abandoned": N_(
        "A player left the match: the computer plays their seat until it ends, and the match "
        "counts as lost for them."
    ),
    # the answer to a request for the next deal (`answered`): "-many" at three or four seats
    "declined-continue": N_(
        "Your friend answered “Not yet”: they are not ready for the next round."
    ),
    "declined-continue-many": N_(
        "Another player answered “Not yet”: they are not ready for the next round."
    ),
    "declined-round": N_("Your friend answered “Not now”: no new round for now."),
    "declined-round-many": N_("Another player answered “Not now”: no new round for now."),
    "declined-match": N_("Your friend answered “Not now”: no new match for now."),
    "declined-match-many": N_("Another player answered “Not now”: no new match for now."),
    "declined-rematch": N_("Your friend answered “Not now”: no rematch for now."),
    "declined-rematch-many": N_("Another player answered “Not now”: no rematch for now."),
    "kept-round": N_("Your friend wants to keep playing this round: no new round for now."),
    "kept-round-many": N_("Another player wants to keep playing this round: no new round for now."),
    "kept-match": N_("Your friend wants to keep playing this match: no new match for now."),
    "kept-match-many": N_("Another player wants to keep playing this match: no new match for now."),
    "cancelled-round": N_("A move was played, so the request for a new round is withdrawn."),
    "cancelled-match": N_("A move was played, so the request for a new match is withdrawn."),
}


def notice(code: str) -> str:
    """The player-facing text of a notice the table shows once."""
    return gettext(NOTICES[code])


def answered(before: Room, after: Room) -> str | None:
    """The notice the other seats get when a change ends a request for the next deal without
    a deal: a "Not yet" / "Not now" / "Keep playing" (a decline), or a move played instead
    (web/live/tables.py passes this as the `news` of moves and answers). None otherwise."""
    if before.request is None or after.request is not None:
        return None
    if after.dealt_at != before.dealt_at or after.matches != before.matches:
        return None  # granted: the next deal is here
    what = _asked(before)
    if after.round is not before.round and after.round.moves != before.round.moves:
        return f"cancelled-{what}"  # a move cancels a request (only mid-round: round or match)
    declined = "kept" if not before.round.over else "declined"
    return f"{declined}-{what}" + ("-many" if before.rules.seats > 2 else "")


def _asked(room: Room) -> str:
    """What an open request asks for, as the next-deal area names it (render._next):
    "rematch", "continue" (between a match's rounds), "match" or "round"."""
    if room.request_kind == "rematch":
        return "rematch"
    if room.match is None:
        return "round"
    return "continue" if room.between_rounds else "match"


ERRORS = {
    400: N_("That request was not understood."),
    403: N_("You are not allowed to do that."),
    404: N_("This page does not exist."),
    405: N_("That is not how this page is used."),
    413: N_("That request is too large."),
    429: N_("Too many requests. Wait a moment and try again."),
}
SERVER_ERROR = N_("Something went wrong on our side. Please try again.")


def error_message(status: int) -> str:
    """The player-facing text of an HTTP error page."""
    return gettext(ERRORS.get(status, SERVER_ERROR))
