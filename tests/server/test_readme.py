"""A bot's README on its public page: Markdown, sanitised, without local paths
(``league/server/readme.py``), and the scaffold's README names no local path."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

from league.cli.scaffold import write_project
from league.server.readme import readme_html, strip_local_paths

HOSTILE = """# Sly bot <script>alert(1)</script>

<img src=x onerror=alert(2)>

<a href="javascript:alert(3)">raw link</a> and [md link](javascript:alert(4)),
[data](data:text/html;base64,PHNjcmlwdD4=) and ![pixel](https://tracker.example/p.png).

Run it: `python /home/alice/bots/sly/sly_bot.py` or

    arena bot check "python /Users/alice/sly/sly_bot.py" --game liars_dice

Notes in ~/notes/sly/plan.md, C:\\Users\\alice\\sly\\sly_bot.py and file:///home/alice/x.md.
Source: [on GitHub](https://github.com/alice/sly) — *mine*.
"""


class _Tags(HTMLParser):
    """Every element and its attributes in an HTML fragment."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def tags_of(page: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Tags()
    parser.feed(page)
    return parser.tags


def test_script_handlers_and_bad_links_are_text() -> None:
    page = readme_html(HOSTILE)
    tags = tags_of(page)
    assert {tag for tag, _ in tags} <= {"h1", "p", "a", "code", "pre", "em"}, tags
    links = [attrs for tag, attrs in tags if tag == "a"]
    assert links == [
        {"href": "https://tracker.example/p.png", "rel": "nofollow noopener noreferrer"},
        {"href": "https://github.com/alice/sly", "rel": "nofollow noopener noreferrer"},
    ]
    assert all(name in ("href", "rel") for _, attrs in tags for name in attrs)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # shown, escaped
    assert "&lt;img src=x onerror=alert(2)&gt;" in page
    assert "[md link](javascript:alert(4))" in page  # no link made of it
    assert "<h1>Sly bot" in page and "<em>mine</em>" in page  # Markdown is rendered


def test_no_local_path_survives() -> None:
    page = readme_html(HOSTILE)
    for leak in ("/home/", "/Users/", "alice/bots", "~/notes", "C:\\", "Users\\alice", "file://"):
        assert leak not in page, leak
    assert "<code>python sly_bot.py</code>" in page
    assert "arena bot check &quot;python sly_bot.py&quot; --game liars_dice" in page
    assert "plan.md" in page


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("python /home/alice/b/my_bot.py --x", "python my_bot.py --x"),
        ("cd /tmp/work/my_bot/", "cd my_bot"),
        ("see ~/bots/x.py", "see x.py"),
        (r"C:\Users\al\bot.py", "bot.py"),
        (
            "https://example.org/a/b/c and http://h/x/y",
            "https://example.org/a/b/c and http://h/x/y",
        ),
        ("wins/draws/losses and 1/2/3", "wins/draws/losses and 1/2/3"),
        ("/bin", "/bin"),  # one component: names no one's files
    ],
)
def test_strip_local_paths(text: str, shown: str) -> None:
    assert strip_local_paths(text) == shown


def test_the_scaffolds_readme_names_no_local_path(tmp_path: Path) -> None:
    directory = tmp_path / "home" / "alice" / "my_bot"
    write_project("my_bot", "liars_dice", directory)
    readme = (directory / "README.md").read_text()
    assert str(tmp_path) not in readme and "/home/" not in readme
    assert 'arena bot check "python my_bot.py" --game liars_dice' in readme
    assert strip_local_paths(readme) == readme
