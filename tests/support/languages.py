"""The translations as the language tests read them: a catalog, its English phrases that a
translated page must not show, and the text a person reads on a page."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

from babel.messages.pofile import read_po

CATALOGS = Path(__file__).resolve().parents[2] / "domino" / "translations"


def catalog(lang: str):
    with (CATALOGS / lang / "LC_MESSAGES" / "messages.po").open("rb") as po:
        return read_po(po, locale=lang)


def english_phrases(lang: str) -> list[str]:
    """English source texts whose translation differs, long enough to spot in a page."""
    found = []
    for message in catalog(lang):
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for text in ids:
            if not text or text in strings:
                continue
            parts = [part.strip(" :.…◀▶") for part in re.split(r"%\(\w+\)[sd]", text)]
            whole = len(parts) == 1
            # a fragment cut out of a longer message counts only if it is a phrase
            found += [p for p in parts if len(p) >= 5 and (whole or " " in p)]
    return found


def visible_text(html: str) -> str:
    """What a person reads: text and the attributes that are spoken or shown."""
    # an option's, a radio button's or a hidden field's value is sent, never shown; so is a
    # button's (e.g. a rules card preset's name, `value="three"`)
    shown = re.sub(r'<option\b[^>]*>|<input\b[^>]*type="(?:radio|hidden)"[^>]*>', " ", html)
    shown = re.sub(r'(<button\b[^>]*?)\svalue="[^"]*"', r"\1", shown)
    # (whole attribute names: `data-fair-value="round"` is a hook, not a value shown)
    found = re.findall(r'(?<![\w-])(?:aria-label|title|value|data-copied)="([^"]*)"', shown)
    attrs = " ".join(found)
    text = re.sub(r"<script.*?</script>|<[^>]+>", " ", html, flags=re.S)
    return unescape(text + " " + attrs)


# Common English words that are not words in Dutch, Polish or French: text never wrapped for
# translation shows up through them even though no catalog knows it.
ENGLISH_WORDS = re.compile(
    r"\b(the|your|you|and|with|this|that|tiles?|turn|friend|round|please)\b", re.I
)
