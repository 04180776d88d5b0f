"""A submitted bot's README, shown on its public page: Markdown made safe.

The README is the author's text, and the page is everybody's. So:

* it is parsed by markdown-it-py (CommonMark) with raw HTML **off**: a ``<script>``
  or an ``<img onerror=...>`` in the README reads as text, escaped;
* links keep only ``http:``, ``https:`` and ``mailto:`` targets and ``#`` anchors;
  anything else (``javascript:``, ``data:``, ``file:``, a local path) stays the
  Markdown text it was, not a link; links that stay get ``rel="nofollow noopener
  noreferrer"``;
* images are not drawn (``![alt](src)`` reads as ``!`` and a link): a README must
  not make a visitor's browser fetch from elsewhere (the page's CSP would refuse
  it anyway);
* absolute local paths (``/home/alice/bots/my_bot.py``, ``~/bots/x.py``,
  ``C:\\Users\\alice\\bot.py``, ``file:///...``) are cut to their last component
  (``my_bot.py``) before anything else, in the HTML and in the API's ``readme``
  text alike: where an author keeps their files (their user name, the server's
  store) is nobody's business. Web addresses (``https://host/a/b``) are kept.
"""

from __future__ import annotations

import re
from typing import Final

from markdown_it import MarkdownIt

SAFE_LINK: Final = re.compile(r"(?:https?:|mailto:|#)", re.IGNORECASE)
"""The link targets a README may keep (at the start of the target)."""

_PATHISH: Final = re.compile(
    r"(?P<url>\b(?!file:)[A-Za-z][A-Za-z0-9+.-]*://[^\s<>()\[\]\"']*)"
    r"|(?P<path>(?:\bfile://|(?<![\w.~:-]))(?:[A-Za-z]:|~)?(?:[/\\][\w.@+-]+){2,}[/\\]?)"
)
"""A web address (kept as it is), or an absolute local path of two or more components
(POSIX, home-relative or a Windows drive, or a ``file://`` address of one)."""


def strip_local_paths(text: str) -> str:
    """``text`` with every absolute local path cut to its last component; web
    addresses untouched. ``python /home/alice/b/my_bot.py`` → ``python my_bot.py``."""

    def cut(match: re.Match[str]) -> str:
        if match.group("url") is not None:
            return match.group("url")
        parts = [part for part in re.split(r"[/\\]", match.group("path")) if part]
        return parts[-1] if parts else ""

    return _PATHISH.sub(cut, text)


def _safe_link(url: str) -> bool:
    return SAFE_LINK.match(url.strip()) is not None


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.disable("image")
    md.validateLink = _safe_link  # type: ignore[method-assign]
    return md


_MD: Final = _markdown()


def readme_html(text: str) -> str:
    """The README ``text`` (Markdown) as HTML safe to place in a page as it is."""
    tokens = _MD.parse(strip_local_paths(text))
    for token in tokens:
        for child in token.children or ():
            if child.type == "link_open":
                child.attrSet("rel", "nofollow noopener noreferrer")
    return str(_MD.renderer.render(tokens, _MD.options, {}))
