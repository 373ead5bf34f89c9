"""A player's name (SPEC §11), checked as the product fixes it, pure and without words.

SPEC §11 fixes a name of 3 to 20 characters, letters of any script, digits, `_`, `-`, `.`;
unique after Unicode NFKC case folding; refused when it impersonates the site or the computer
(`admin`, `computer`, `bot`, the levels, …). This module reads that as follows:

- **Length.** 3 to 20 characters, counted on the name as it is kept: its NFKC form
  (`shown`), so a ligature such as "ﬁ" counts as the two letters it stands for; its
  `canonical` form must hold too, so that it is a name itself (eleven "ß" fold to 22 "s").
- **Characters.** Letters of any script (Unicode categories L*), digits (Nd), `_`, `-` and
  `.`. Combining marks (M*) are allowed after a letter or another mark, since many scripts
  spell letters with them (Devanagari "राम", a decomposed "é"); a mark cannot start a name or
  follow a digit or a sign. Spaces are not allowed; spaces around the name are trimmed.
- **Uniqueness.** Two names are one when their `canonical` forms are equal: NFKC case folding
  ("Ana" and "ana", "ＡＢＣ" and "abc", "ﬁnn" and "Finn" are one name). The lobby keeps the
  canonical form under a unique index; `check` refuses a name whose form is in `taken`.
- **Impersonation.** A name is refused when one of its words is one the site or the computer
  goes by (`IMPERSONATED`: "admin", "computer", "bot", the computer's levels, …) or when it
  holds, as whole words in a row, one of the caller's `reserved` words or phrases: the web
  layer passes the words the table uses for a seat in all four languages
  (`domino.web.view.names.reserved_words`), which live in the catalogs, not here. Words are
  compared after NFKC case folding with accents dropped, and a word is a run of letters:
  digits, `_`, `-` and `.` part words ("Computer2", "the_computer" and "Cómputer" are
  refused; "Abbot" and "Hardy" are names).
- **Lookalike scripts.** A name's letters may not mix the scripts whose letters look alike
  (`LOOKALIKE`: Latin, Cyrillic, Greek, Armenian, Cherokee, Coptic, by the first word of each
  letter's Unicode name): "Аna", with a Cyrillic "А" in a Latin name, is refused, since it
  would pass for "Ana". Other mixes stay names ("Jun_山田").
- **Control and bidi characters.** Any control, format (bidi marks and embeddings,
  zero-width joiners), surrogate, private-use or unassigned character is refused with its own
  code, before anything else, since such a name could look like another one.

Each refusal is a `NameRefused` with a stable `code` (`CODES`); the web layer words it in
every language (domino/web/view/messages.py). A name written wholly in another script that
looks like a taken one (a Cyrillic "аре" for "ape") is not caught: that needs Unicode's
confusables data (UTS #39 skeletons), which the standard library does not carry.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Container, Iterable

from ..bots import LEVELS

MIN_LENGTH = 3
MAX_LENGTH = 20
SIGNS = frozenset("_-.")  # the only characters besides letters, digits and marks

# The words the site and the computer go by, in the four languages where they differ: a
# name holding one as a word would pass for the site's staff or for a computer player.
IMPERSONATED = frozenset(
    {
        "admin",
        "administrator",
        "administrateur",
        "beheerder",
        "moderator",
        "moderateur",
        "root",
        "system",
        "staff",
        "support",
        "official",
        "domino",
        "computer",
        "komputer",
        "ordinateur",
        "cpu",
        "bot",
        "robot",
        *LEVELS,
    }
)

# The refusals, by stable code, in the order `check` tries them.
CODES = (
    "name-control",  # a control, format (bidi) or unassigned character
    "name-characters",  # a character other than letters, digits, marks, "_", "-", "."
    "name-scripts",  # letters of two lookalike scripts, such as a Cyrillic "а" in a Latin name
    "name-length",  # fewer than 3 or more than 20 characters
    "name-reserved",  # a word the site, the computer or a seat goes by
    "name-taken",  # another player's name after NFKC case folding
)

HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})  # invisible or unknown
LETTERS = re.compile(r"[^\W\d_]+")  # a word: a run of letters (marks follow their letter)


class NameRefused(Exception):
    """A name SPEC §11 refuses, named by a stable `code` (one of `CODES`)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def shown(name: str) -> str:
    """The name as it is kept and shown: in NFKC form ("ＡＢＣ" is kept as "ABC"), its case
    as given, trimmed of the spaces around it."""
    return unicodedata.normalize("NFKC", name).strip(" ")


def canonical(name: str) -> str:
    """The form two names are compared in: the kept name (`shown`), NFKC case-folded ("Ana"
    and "ａｎａ" → "ana")."""
    folded = shown(name)
    # Folding after NFKC may leave a string NFKC changes again; one round holds for every
    # single character, and a few rounds (bounded, whatever the input) settle any string.
    for _ in range(8):
        again = unicodedata.normalize("NFKC", folded.casefold())
        if again == folded:
            break
        folded = again
    return folded


def check(name: str, *, reserved: Iterable[str] = (), taken: Container[str] = ()) -> str:
    """The name as it is kept (`shown`), or `NameRefused` with the first refusal's code:
    `reserved` are words or phrases no name may hold (the table's seat words), `taken` the
    canonical forms of the names other players hold."""
    kept = shown(str(name))
    if any(unicodedata.category(c) in HIDDEN for c in str(name).strip(" ") + kept):
        raise NameRefused("name-control")
    if not _allowed(kept):
        raise NameRefused("name-characters")
    if len(scripts(kept) & LOOKALIKE) > 1:
        raise NameRefused("name-scripts")
    if not all(MIN_LENGTH <= len(form) <= MAX_LENGTH for form in (kept, canonical(kept))):
        raise NameRefused("name-length")
    if impersonates(kept, reserved):
        raise NameRefused("name-reserved")
    if canonical(kept) in taken:
        raise NameRefused("name-taken")
    return kept


def refusal(name: str, *, reserved: Iterable[str] = (), taken: Container[str] = ()) -> str | None:
    """The code `check` refuses `name` with, or None when the name may be taken."""
    try:
        check(name, reserved=reserved, taken=taken)
    except NameRefused as refused:
        return refused.code
    return None


LOOKALIKE = frozenset({"LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "COPTIC"})


def scripts(name: str) -> set[str]:
    """The scripts of a name's letters, by the first word of each letter's Unicode name
    ("LATIN", "CYRILLIC", "CJK", …)."""
    return {
        unicodedata.name(c, "UNKNOWN").split(" ", 1)[0]
        for c in name
        if unicodedata.category(c)[0] == "L"
    }


def _allowed(name: str) -> bool:
    """True when every character is a letter, a digit, `_`, `-`, `.`, or a mark after a
    letter or a mark."""
    before = ""
    for c in name:
        kind = unicodedata.category(c)
        if kind[0] == "M":
            if before not in ("L", "M"):
                return False
        elif kind[0] != "L" and kind != "Nd" and c not in SIGNS:
            return False
        before = kind[0]
    return True


def words(text: str) -> tuple[str, ...]:
    """The words of `text` as impersonation is judged: NFKC case-folded, accents dropped,
    runs of letters ("Cómputer_2" → ("computer",))."""
    bare = unicodedata.normalize("NFD", canonical(text))
    bare = "".join(c for c in bare if not unicodedata.combining(c))
    return tuple(LETTERS.findall(unicodedata.normalize("NFKC", bare)))


def impersonates(name: str, reserved: Iterable[str] = ()) -> bool:
    """True when a word of `name` is in `IMPERSONATED`, or `name` holds one of the
    `reserved` words or phrases as whole words in a row, or is one run together
    ("YourPartner", "your_partner" and "Your.Partner" all pass for "your partner")."""
    held = words(name)
    if any(word in IMPERSONATED for word in held):
        return True
    joined = "".join(held)
    for phrase in reserved:
        wanted = words(phrase)
        size = len(wanted)
        if size and any(held[i : i + size] == wanted for i in range(len(held) - size + 1)):
            return True
        if size > 1 and joined == "".join(wanted):
            return True
    return False
