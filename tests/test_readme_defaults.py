"""Every default the README quotes for an option is the command's real default (issue
43, item 4: the README called ``--max-pairs 200`` the default; it is 20,000).

The README quotes a default in one of two ways, both read here from its text:

* ``[--option VALUE]`` in an ``arena`` command (a shell line, or a code span in the
  prose or a shell comment): an option you may leave out, with its default (the
  README says so where its command-line section starts). A VALUE in capitals is a
  placeholder (``[--bot B]``) and one with ``|`` a list of choices: neither is a
  default;
* a shell block led by a paragraph that says "the options shown are the defaults":
  every option of its ``arena`` commands that has a default.

Any other mention of "default" beside a code span holding ``--option VALUE`` fails
the test, so a default cannot be quoted where nothing checks it.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.core import TyperGroup

from league.cli import app

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SHOWN_ARE_DEFAULTS = "the options shown are the defaults"
CODE_SPAN = re.compile(r"`([^`]+)`")
PLACEHOLDER = re.compile(r"[A-Z][A-Z0-9_@.-]*")


@dataclass(frozen=True)
class Quote:
    """One default the README states: where, the command, the option, the value."""

    line: int
    command: str
    option: str
    value: str


def command_texts(markdown: str) -> Iterator[tuple[int, str, bool]]:
    """``(line, text, all defaults)`` for every ``arena`` command the README writes:
    the shell lines of fenced blocks (continuations joined; ``all defaults`` when the
    paragraph before the block says so), and code spans starting with ``arena`` in
    the prose and in shell comments."""
    lines = markdown.splitlines()
    inside, shown_are_defaults, pending = False, False, ""
    for number, line in enumerate(lines, start=1):
        if line.startswith("```"):
            if not inside:
                paragraph: list[str] = []
                for before in reversed(lines[: number - 1]):
                    if not before.strip():
                        if paragraph:
                            break
                        continue
                    paragraph.append(before)
                shown_are_defaults = SHOWN_ARE_DEFAULTS in " ".join(reversed(paragraph))
            inside = not inside
            continue
        if inside:
            code, _, comment = line.partition(" #")
            pending += code.rstrip().removesuffix("\\") + " "
            if not code.rstrip().endswith("\\"):
                if pending.strip().startswith("arena "):
                    yield number, pending.strip(), shown_are_defaults
                pending = ""
            spans = CODE_SPAN.findall(comment)
        else:
            spans = CODE_SPAN.findall(line)
        for span in spans:
            if span.startswith("arena "):
                yield number, span, False


def resolve(words: list[str]) -> tuple[str, Any, list[str]]:
    """The command ``arena WORDS`` names (``"arena league run"``), its click command,
    and the words after its name."""
    command: Any = typer.main.get_command(app)
    ctx = command.make_context("arena", [], resilient_parsing=True)
    path, rest = ["arena"], words[1:]
    while rest and rest[0] == "--db":
        rest = rest[2:]
    while rest and isinstance(command, TyperGroup) and rest[0] in command.list_commands(ctx):
        path.append(rest[0])
        command = command.get_command(ctx, rest[0])
        rest = rest[1:]
    return " ".join(path), command, rest


def quotes(markdown: str) -> Iterator[Quote]:
    """Every default the README states (see the module docstring)."""
    for line, text, all_defaults in command_texts(markdown):
        words = shlex.split(text)
        path, command, rest = resolve(words)
        options = {opt: param for param in command.params for opt in param.opts}
        for index, word in enumerate(rest):
            bracketed = word.startswith("[")
            name = word.strip("[]")
            param = options.get(name)
            if param is None or getattr(param, "is_flag", False) or index + 1 >= len(rest):
                continue
            value = rest[index + 1]
            if bracketed and not value.endswith("]"):
                continue
            value = value.rstrip("]")
            if PLACEHOLDER.fullmatch(value) or "|" in value:
                continue
            if bracketed or (all_defaults and not param.required):
                yield Quote(line, path, name, value)


def unchecked_mentions(markdown: str) -> list[str]:
    """Lines that say "default" beside a code span ``--option VALUE`` that is not a
    bracketed ``[--option VALUE]`` of an ``arena`` command."""
    found = []
    for number, line in enumerate(markdown.splitlines(), start=1):
        if "default" not in line.lower():
            continue
        for span in CODE_SPAN.findall(line):
            for match in re.finditer(r"(\[?)--[\w-]+ ([^\s\]`]+)", span):
                literal = not PLACEHOLDER.fullmatch(match.group(2))
                if literal and not (match.group(1) and span.startswith("arena ")):
                    found.append(f"README.md:{number}: `{span}`")
    return found


def real_default(command: Any, option: str) -> Any:
    return next(param for param in command.params if option in param.opts).default


def as_typed(value: str, default: Any) -> Any:
    """``value`` read as the default's type (a number, or text); None if it is not one."""
    if isinstance(default, bool) or not isinstance(default, int | float):
        return value
    try:
        return type(default)(value)
    except ValueError:
        return None


def test_every_default_the_readme_quotes_is_the_real_one() -> None:
    markdown = README.read_text(encoding="utf-8")
    found = list(quotes(markdown))
    wrong = []
    assert found
    for quote in found:
        _, command, _ = resolve(quote.command.split())
        default = real_default(command, quote.option)
        if as_typed(quote.value, default) != default:
            wrong.append(f"README.md:{quote.line}: `{quote.command} {quote.option}"
                         f" {quote.value}`, but its default is {default!r}")  # fmt: skip
    assert wrong == []
    quoted = {(quote.command, quote.option) for quote in found}
    # What the README is known to quote: a quote the parser stopped seeing fails here.
    assert {
        ("arena sprt", "--max-pairs"),
        ("arena sprt", "--elo1"),
        ("arena rolling create", "--rate"),
        ("arena rolling create", "--concurrency"),
        ("arena league run", "--concurrency"),
        ("arena serve", "--port"),
    } <= quoted, quoted


def test_no_default_is_quoted_where_nothing_checks_it() -> None:
    assert unchecked_mentions(README.read_text(encoding="utf-8")) == []


def test_the_reader_catches_a_wrong_default() -> None:
    """The README of issue 43: ``--max-pairs 200`` under "the options shown are the
    defaults", a bracketed wrong rate, and a default quoted in a bare code span."""
    markdown = (
        "With the bots (the options shown are the defaults):\n\n"
        "```sh\narena sprt a b --game liars_dice --max-pairs 200 --alpha 0.05\n```\n\n"
        "Then `arena rolling create l --game liars_dice [--rate 30] [--bot B]`.\n"
        "so the default `--concurrency 1` referees in the runner itself.\n"
    )
    found = {(q.command, q.option, q.value) for q in quotes(markdown)}
    assert found == {
        ("arena sprt", "--max-pairs", "200"),
        ("arena sprt", "--alpha", "0.05"),
        ("arena rolling create", "--rate", "30"),
    }
    _, sprt, _ = resolve(["arena", "sprt"])
    assert real_default(sprt, "--max-pairs") == 20_000
    assert unchecked_mentions(markdown) == ["README.md:8: `--concurrency 1`"]
    assert as_typed("200", 20_000) == 200 and as_typed("60", 60.0) == 60.0


@pytest.mark.parametrize("text", ["arena league run cup", "arena --db sqlite:///x.db league run"])
def test_commands_resolve_past_global_options(text: str) -> None:
    assert resolve(shlex.split(text))[0] == "arena league run"
