"""A reference for every game's observation and action fields, read from the SDK itself.

``arena games GAME --describe`` prints it and ``docs/games/<game>.md`` holds it
(``make docs`` or ``arena games --write-docs docs/games`` regenerates the files;
``tests/test_game_docs.py`` fails when a committed file differs from what this module
writes). Everything comes from the SDK's own dataclasses, so the reference cannot drift
from the code a bot receives:

* field names and types from the dataclass fields and their annotations;
* meanings from attribute docstrings (the string literal under a field in the
  class body, read from the source with :mod:`ast`, since Python keeps no such
  docstring at run time) and the docstrings of properties;
* an example observation from a seeded in-process match
  (:func:`sdk.local.play_callables`), so it is what a bot really sees.

Run as ``python -m sdk.describe GAME`` for the same text without the CLI.
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import importlib
import inspect
import itertools
import pprint
import random
import re
import sys
import textwrap
import types
import typing
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.core.catalogue import BUILTIN_GAMES, entries, get_entry, get_game
from sdk.local import play_callables

EXAMPLE_SEED = 7
"""The seed of the match the example observation comes from."""
EXAMPLE_DECISION = 3
"""The example is the observation of the 3rd decision (or the last, in a shorter match),
so that it shows some history, not only an opening position."""
NO_MEANING = "—"
"""What the reference prints for a field nobody has documented yet."""


@dataclass(frozen=True, slots=True)
class FieldDoc:
    """One field (or property) of a dataclass: its name, its type as text, its meaning."""

    name: str
    type: str
    meaning: str
    derived: bool = False
    """A property computed from the fields (not sent on the wire)."""


@dataclass(frozen=True, slots=True)
class ClassDoc:
    """A dataclass or enum a bot meets: its docstring and its fields (or members)."""

    name: str
    doc: str
    fields: tuple[FieldDoc, ...]
    is_enum: bool = False


@dataclass(frozen=True, slots=True)
class GameDoc:
    """Everything the reference says about one game."""

    name: str
    title: str
    sdk: str
    observation: ClassDoc
    actions: tuple[ClassDoc, ...]
    parts: tuple[ClassDoc, ...]
    """The dataclasses and enums that the observation and the actions contain."""
    num_seats: int
    example: str


class UnknownGameError(LookupError):
    """``--describe`` was given a name that is not in the catalogue."""


def format_type(annotation: Any) -> str:
    """``tuple[int, ...]``, ``Bid | None``: an annotation as a bot author writes it."""
    if annotation is type(None):
        return "None"
    if annotation is Ellipsis:
        return "..."
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(format_type(arg) for arg in args)
    if origin is typing.Literal:
        return "Literal[" + ", ".join(repr(arg) for arg in args) + "]"
    if origin is not None:
        name = getattr(origin, "__name__", str(origin))
        return f"{name}[{', '.join(format_type(arg) for arg in args)}]" if args else name
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def attribute_docstrings(cls: type) -> dict[str, str]:
    """``{field: docstring}`` for the string literals that follow fields in ``cls``'s body."""
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):  # no source (a class built at run time)
        return {}
    tree = ast.parse(source)
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    found: dict[str, str] = {}
    for statement, following in itertools.pairwise(body):
        target = None
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            target = statement.target.id
        elif (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            target = statement.targets[0].id
        if (
            target is not None
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            found[target] = inspect.cleandoc(following.value.value)
    return found


def _one_line(text: str) -> str:
    """Docstrings joined into one line for a table cell (reST literals kept as code)."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", text)  # Sphinx roles: plain code
    return " ".join(text.replace("``", "`").split()).replace("|", "\\|")


def class_doc_text(cls: type) -> str:
    """The class's own docstring, never the signature that ``dataclass`` invents."""
    doc = cls.__dict__.get("__doc__") or ""
    if doc.startswith(f"{cls.__name__}("):
        return ""
    return _one_line(inspect.cleandoc(doc))


def _describe_enum(cls: type[enum.Enum]) -> ClassDoc:
    meanings = attribute_docstrings(cls)
    members = tuple(
        FieldDoc(member.name, repr(member.value), _one_line(meanings.get(member.name, "")))
        for member in cls
    )
    return ClassDoc(cls.__name__, class_doc_text(cls), members, is_enum=True)


def describe_class(cls: type) -> ClassDoc:
    """A dataclass's fields (then its public properties), or an enum's members."""
    if issubclass(cls, enum.Enum):
        return _describe_enum(cls)
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is neither a dataclass nor an enum")
    hints = typing.get_type_hints(cls)
    meanings = attribute_docstrings(cls)
    fields = [
        FieldDoc(f.name, format_type(hints[f.name]), _one_line(meanings.get(f.name, "")))
        for f in dataclasses.fields(cls)
    ]
    for name, member in vars(cls).items():
        if isinstance(member, property) and not name.startswith("_") and member.fget:
            returns = typing.get_type_hints(member.fget).get("return", Any)
            doc = _one_line(inspect.getdoc(member.fget) or "")
            fields.append(FieldDoc(name, format_type(returns), doc, derived=True))
    return ClassDoc(cls.__name__, class_doc_text(cls), tuple(fields))


def _documented_types(annotation: Any) -> Iterator[type]:
    """The dataclasses and enums inside an annotation (``tuple[PlacedBid, ...]``...)."""
    if isinstance(annotation, type) and (
        dataclasses.is_dataclass(annotation) or issubclass(annotation, enum.Enum)
    ):
        yield annotation
    for arg in typing.get_args(annotation):
        yield from _documented_types(arg)


def _reachable(roots: list[type]) -> list[type]:
    """Every dataclass and enum reachable from ``roots`` through field types, in order."""
    seen: list[type] = []
    pending = list(roots)
    while pending:
        cls = pending.pop(0)
        if cls in seen:
            continue
        seen.append(cls)
        if dataclasses.is_dataclass(cls):
            for hint in typing.get_type_hints(cls).values():
                pending.extend(_documented_types(hint))
    return seen


def example_observation(name: str, num_seats: int) -> str:
    """A seat's observation at its :data:`EXAMPLE_DECISION`-th decision, seeded."""
    module = importlib.import_module(get_entry(name).sdk)
    rng = random.Random(EXAMPLE_SEED)
    seen: list[Any] = []

    def policy(observation: Any) -> Any:
        seen.append(observation)
        return rng.choice(list(module.legal_actions(observation)))

    play_callables(name, [policy] * num_seats, seed=EXAMPLE_SEED)
    chosen = seen[min(EXAMPLE_DECISION, len(seen)) - 1]
    return pprint.pformat(chosen, width=88, compact=True, sort_dicts=False)


def describe_game(name: str) -> GameDoc:
    """The reference of one catalogued game (:class:`UnknownGameError` if there is none)."""
    names = [entry.name for entry in entries()]
    if name not in names:
        raise UnknownGameError(f"unknown game {name!r}; the games are: {', '.join(names)}")
    entry = get_entry(name)
    game = get_game(name)
    module = importlib.import_module(entry.sdk)
    action_classes = [cls for cls in typing.get_args(module.Action) if isinstance(cls, type)]
    if not action_classes:  # a game with a single action class
        action_classes = [module.Action]
    observation = module.Observation
    parts = [
        cls
        for cls in _reachable([observation, *action_classes])
        if cls is not observation and cls not in action_classes
    ]
    num_seats = entry.roster.table_size if entry.roster else game.min_seats
    num_seats = max(game.min_seats, min(num_seats, game.max_seats))
    return GameDoc(
        name=name,
        title=game.title,
        sdk=entry.sdk,
        observation=describe_class(observation),
        actions=tuple(describe_class(cls) for cls in action_classes),
        parts=tuple(describe_class(cls) for cls in parts),
        num_seats=num_seats,
        example=example_observation(name, num_seats),
    )


def _cell(text: str) -> str:
    """``text`` as code in a table cell: GitHub splits cells at every ``|``, even in code."""
    return "`" + text.replace("|", "\\|") + "`"


def _field_table(doc: ClassDoc) -> list[str]:
    if not doc.fields:
        return ["No fields."]
    if doc.is_enum:  # members are named for what they mean; a docstring is optional
        if not any(f.meaning for f in doc.fields):
            return ["| member | value |", "|---|---|"] + [
                f"| `{f.name}` | {_cell(f.type)} |" for f in doc.fields
            ]
        lines = ["| member | value | meaning |", "|---|---|---|"]
        lines += [f"| `{f.name}` | {_cell(f.type)} | {f.meaning} |" for f in doc.fields]
        return lines
    lines = ["| field | type | meaning |", "|---|---|---|"]
    for f in doc.fields:
        meaning = f.meaning or NO_MEANING
        if f.derived:
            meaning = f"*(property)* {meaning}"
        lines.append(f"| `{f.name}` | {_cell(f.type)} | {meaning} |")
    return lines


def _section(heading: str, doc: ClassDoc) -> list[str]:
    lines = [f"{heading} `{doc.name}`", ""]
    if doc.doc:
        lines += [doc.doc, ""]
    return [*lines, *_field_table(doc), ""]


def _rules_link(name: str) -> str:
    """The built-in games' rules are in docs/rules/; a plugin game ships its own."""
    if name in BUILTIN_GAMES:
        return f"[docs/rules/{name}.md](../rules/{name}.md)"
    return "see the game's package"


def render_markdown(doc: GameDoc) -> str:
    """The reference page of one game (what ``docs/games/<game>.md`` holds)."""
    lines = [
        f"# {doc.title} (`{doc.name}`): observation and action fields",
        "",
        "<!-- Generated by sdk/describe.py from the SDK's dataclasses: do not edit by hand;",
        "     `make docs` rewrites it, tests/test_game_docs.py checks it. -->",
        "",
        f"A bot imports these from `{doc.sdk}` (`from {doc.sdk} import Action, Observation`)."
        f" Rules: {_rules_link(doc.name)}; every helper: `python -m pydoc {doc.sdk}`;"
        f" the same text: `arena games {doc.name} --describe`.",
        "",
        "## Observation",
        "",
        *_section("###", doc.observation),
        "## Actions",
        "",
        f"`Action` is `{' | '.join(action.name for action in doc.actions)}`.",
        "",
    ]
    for action in doc.actions:
        lines += _section("###", action)
    if doc.parts:
        lines += ["## Parts of the observation and the actions", ""]
        for part in doc.parts:
            lines += _section("###", part)
    lines += [
        "## Example observation",
        "",
        f"What the acting seat's `act` received at decision {EXAMPLE_DECISION} of a"
        f" {doc.num_seats}-seat match under the default rules, every seat playing random"
        f" legal actions (`seed={EXAMPLE_SEED}`):",
        "",
        "```python",
        doc.example,
        "```",
        "",
    ]
    return "\n".join(lines)


def expected_docs(names: Iterable[str] | None = None) -> dict[str, str]:
    """``{file name: text}`` of the reference page of each game in ``names`` (default:
    every catalogued game, plugins included)."""
    chosen = [entry.name for entry in entries()] if names is None else list(names)
    return {f"{name}.md": render_markdown(describe_game(name)) for name in chosen}


def write_docs(directory: Path) -> list[Path]:
    """Write every game's page into ``directory`` (created if missing); the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for file_name, text in expected_docs().items():
        path = directory / file_name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str]) -> int:
    """``python -m sdk.describe GAME``: print one game's reference."""
    if len(argv) != 1:
        print("usage: python -m sdk.describe GAME", file=sys.stderr)
        return 2
    try:
        print(render_markdown(describe_game(argv[0])))
    except UnknownGameError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
