"""The match part of the independent record checker (docs/contracts.md: the round record's
``match``, the rules object's ``target``).

Part of ``checker.py``'s clean-room implementation: standard library only, nothing from the
``domino`` package. ``game`` is the checker's ``Game`` (its ``seats``, ``side_of`` and the
rules by name).
"""

from __future__ import annotations

MATCH_KEYS = {"number", "round", "before", "after", "over", "winners"}


def is_count(value: object, least: int = 0) -> bool:
    """True for a JSON integer of at least ``least`` (booleans are not numbers)."""
    return type(value) is int and value >= least


def check_match(match: object, game, scores: object) -> list[str]:
    """Check one record's ``match``: its shape and the arithmetic of its running score.

    ``scores`` is what the round gave each seat (the record's ``result.scores``).
    """
    target = game["target"] if game.written else None
    if target is None:
        return ["match: only a round of rules with a target belongs to a match"]
    if not isinstance(match, dict) or set(match) != MATCH_KEYS:
        return [f"match: expected exactly the keys {sorted(MATCH_KEYS)}, got {match!r}"]
    problems = []
    if not (is_count(match["number"]) and is_count(match["round"], 1)):
        problems.append(f"match: number is a whole number and round counts from 1: {match}")
    for name in ("before", "after"):
        problems += score_problems(name, match[name], game)
    if problems:
        return problems
    before, after = match["before"], match["after"]
    if match["round"] == 1 and any(before):
        problems.append(f"match: round 1 starts from nothing, not {before}")
    if max(before) >= target:
        problems.append(f"match: {before} had reached the target {target}: the match was over")
    if isinstance(scores, list) and len(scores) == game.seats:
        added = [a + b for a, b in zip(before, scores, strict=True)]
        if added != after:
            problems.append(f"match: after must be before + the round's scores = {added}")
    over = max(after) >= target
    if match["over"] is not over:
        problems.append(f"match: over must be {str(over).lower()} with {after} to {target}")
    wanted = match_winners(game, after) if over else []
    if match["winners"] != wanted:
        problems.append(f"match: winners must be {wanted}, not {match['winners']!r}")
    return problems


def score_problems(name: str, scores: object, game) -> list[str]:
    """A running score is a number per seat, the same for partners."""
    if not (isinstance(scores, list) and len(scores) == game.seats):
        return [f"match: {name} must list {game.seats} scores, got {scores!r}"]
    if not all(is_count(score) for score in scores):
        return [f"match: {name} must hold non-negative integers, got {scores!r}"]
    for seat, score in enumerate(scores):
        partner = game.side_of.index(game.side_of[seat])
        if score != scores[partner]:
            return [f"match: {name}: partners {partner} and {seat} must show the same score"]
    return []


def match_winners(game, after: list[int]) -> list[int]:
    """The seats of the side that won a finished match: the most points, or with Goat the
    fewest penalty points; a tie for the lead is a draw (no winners)."""
    side_scores = {game.side_of[seat]: score for seat, score in enumerate(after)}
    best = (min if game["scoring"] == "goat" else max)(side_scores.values())
    leading = [side for side, score in side_scores.items() if score == best]
    if len(leading) > 1:
        return []
    return [seat for seat in range(game.seats) if game.side_of[seat] == leading[0]]


def follows(match: object, previous: object) -> bool:
    """True when ``previous`` is a record of the round just before ``match``'s, same match."""
    earlier = previous.get("match") if isinstance(previous, dict) else None
    if not (isinstance(match, dict) and isinstance(earlier, dict)):
        return False
    return earlier.get("number") == match.get("number") and earlier.get("round") == (
        match.get("round") - 1 if is_count(match.get("round"), 1) else None
    )


def check_sequence(record: dict, previous: dict) -> list[str]:
    """Check a round of a match against the previous record of the same match in the file."""
    match, earlier = record["match"], previous["match"]
    number = match["number"]
    if earlier.get("over") is True:
        return [f"match: match {number} went on after it ended"]
    problems = []
    if not follows(match, previous):
        problems.append(
            f"match: round {match.get('round')!r} of match {number} follows its round "
            f"{earlier.get('round')!r}"
        )
    if match.get("before") != earlier.get("after"):
        problems.append(f"match: before must be the previous round's after {earlier.get('after')}")
    if record.get("rules") != previous.get("rules"):
        problems.append(f"match: the rules changed within match {number}")
    return problems


def leader(record: dict, game, previous: dict | None) -> int | str | None:
    """Who leads a round: None for the rules' opener; under ``previous-winner``, from a
    match's second round, the previous round's winner (the rules' opener after a drawn round),
    or ``"unknown"`` when that round is not in the file."""
    match = record.get("match")
    if not game.written or game["next_opener"] != "previous-winner":
        return None
    if not (isinstance(match, dict) and is_count(match.get("round"), 2)):
        return None
    if previous is None or not follows(match, previous):
        return "unknown"
    result = previous.get("result")
    winner = result.get("winner") if isinstance(result, dict) else None
    return winner if is_count(winner) and winner < game.seats else None
