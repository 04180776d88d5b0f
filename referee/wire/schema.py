"""The ``.proto`` of a game, written from its engine's types.

The derived codec (:mod:`referee.wire.derived`) reads a game's messages beside its
engine's dataclasses; this module writes those messages from the dataclasses alone,
by the same table read the other way, so a built-in game's ``.proto`` is generated
(``proto/generate.py``) and never written by hand:

* each dataclass is a message named the game's prefix + its class name (the codec's
  ``names`` says otherwise), its fields numbered 1.. in declaration order (a field
  declared ``compare=False`` does not travel);
* ``int`` is ``uint32``, ``bool``, ``str`` themselves; ``X | None`` is ``optional X``
  (for a message or an enum, the field itself: ``None`` is absent or ``*_UNSPECIFIED``);
  ``tuple[X, ...]`` is ``repeated X`` (``| None``: a ``bool has_<name>`` before it);
  a tuple of tuples is a repeated wrapper message (``Field.wrapper`` names it);
* an ``Enum``, a ``Literal`` (named after its alias in the engine module) or a ``str``
  of known ``values`` (named after its field) is an enum: ``*_UNSPECIFIED = 0``, then
  the values in order from 1 (an ``IntEnum``'s member ``NONE = 0`` is ``UNSPECIFIED``);
* a union of dataclasses is a ``oneof`` named after its field, one field per member
  (``Field.members`` names them); the action union is the ``oneof`` of
  ``<prefix>Action`` (named ``action_oneof``);
* a field with its own ``encode``/``decode`` is what its ``Field.writes`` says.

Comments come from the docstrings: a class's for its message, an attribute's (the
string right after it in the class body) for its field. Messages are written
dependencies first (the observation's, then the observation, then each action's, then
the action message), fields by number; enums in the order the messages first use them.
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import functools
import inspect
import itertools
import re
import sys
import textwrap
import typing
from typing import Any, Literal

from referee.wire.derived import (
    DerivedCodec,
    Field,
    Wire,
    WireShapeError,
    _observation_type,
    _optional,
    _union_members,
    _upper_snake,
)

WIDTH = 88
"""Comment lines are wrapped to fit this many columns."""
SCALARS = {int: "uint32", bool: "bool", str: "string", float: "double"}


def proto_path(codec: type[DerivedCodec[Any, Any]]) -> str:
    """Where the game's ``.proto`` lives, relative to the repository: ``proto/arena/v1/``
    for a built-in game."""
    return f"proto/arena/v1/{codec.engine.name}.proto"


def proto_source(codec: type[DerivedCodec[Any, Any]], *, package: str = "arena.v1") -> str:
    """The ``.proto`` source of ``codec``'s game, a header line saying where it comes from."""
    schema = _Schema(codec)
    schema.write()
    engine = type(codec.engine).__module__.replace(".", "/") + ".py"
    lines = [
        f"// Generated from {engine} by proto/generate.py: do not edit.",
        'syntax = "proto3";',
        "",
        f"package {package};",
    ]
    for block in [*schema.enums.values(), *schema.messages.values()]:
        lines += ["", *block]
    return "\n".join(lines) + "\n"


# -- docstrings ------------------------------------------------------------------------


@functools.cache
def _module_tree(module: str) -> ast.Module:
    return ast.parse(inspect.getsource(sys.modules[module]))


def _class_node(cls: type) -> ast.ClassDef:
    for node in _module_tree(cls.__module__).body:
        if isinstance(node, ast.ClassDef) and node.name == cls.__name__:
            return node
    raise WireShapeError(f"{cls.__qualname__}: no class of that name in {cls.__module__}")


def _string(node: ast.stmt) -> str | None:
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        value = node.value.value
        return inspect.cleandoc(value) if isinstance(value, str) else None
    return None


def _assigned(node: ast.stmt) -> str | None:
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return node.target.id
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        return target.id if isinstance(target, ast.Name) else None
    return None


def _docstrings(body: list[ast.stmt]) -> dict[str, str]:
    """Per name assigned in ``body``, the string literal right after it."""
    found = {}
    for node, after in itertools.pairwise(body):
        name, text = _assigned(node), _string(after)
        if name is not None and text is not None:
            found[name] = text
    return found


def _class_doc(cls: type) -> str:
    return ast.get_docstring(_class_node(cls)) or ""


def _attribute_docs(cls: type) -> dict[str, str]:
    return _docstrings(_class_node(cls).body)


def _first_sentence(text: str) -> str:
    paragraph = text.split("\n\n")[0].replace("\n", " ")
    match = re.match(r"(.+?\.)(\s|$)", paragraph)
    return match.group(1) if match else paragraph


def _comment(text: str, indent: int) -> list[str]:
    """``text`` (a docstring) as ``//`` lines, reST markup made plain, wrapped."""
    text = re.sub(r":\w+:`~?([^`]+)`", r"`\1`", text)
    text = text.replace("``", "`")
    width = WIDTH - indent - 3
    lines = []
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        words = " ".join(paragraph.split())
        wrapped = textwrap.wrap(words, width, break_long_words=False, break_on_hyphens=False)
        lines += wrapped or [""]
    pad = " " * indent
    return [f"{pad}// {line}".rstrip() for line in lines]


# -- the schema --------------------------------------------------------------------------


def _spoken(name: str) -> str:
    """A value's name as the comment of its enum value: ``FULL_HOUSE`` is "Full house."."""
    return name.replace("_", " ").capitalize() + "."


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


class _Schema:
    """The messages and enums of one game, as ``.proto`` lines, in the order written."""

    def __init__(self, codec: type[DerivedCodec[Any, Any]]) -> None:
        self.codec = codec
        self.prefix = _camel(codec.engine.name)
        self.messages: dict[str, list[str]] = {}
        self.enums: dict[str, list[str]] = {}
        self._pending_enums: list[tuple[str, list[str]]] = []

    def write(self) -> None:
        self.message(_observation_type(self.codec.engine))
        members = tuple(self.codec.engine.action_types)
        body = self.oneof(self.codec.action_oneof, members, (), 1, "Exactly one is set.")
        for enum_name, block in self._pending_enums:
            self.enums.setdefault(enum_name, block)
        self._pending_enums = []
        action = f"{self.prefix}Action"
        self.messages[action] = self.block(action, f"{action} is one move.", body[0])

    # -- messages --------------------------------------------------------------------

    def name(self, cls: type) -> str:
        return self.codec.names.get(cls) or self.prefix + cls.__name__

    def block(self, name: str, comment: str, body: list[str], kind: str = "message") -> list[str]:
        if not body:
            return [*_comment(comment, 0), f"{kind} {name} {{}}"]
        return [*_comment(comment, 0), f"{kind} {name} {{", *body, "}"]

    def message(self, cls: type) -> str:
        """The message of dataclass ``cls`` (written once, its dependencies first)."""
        name = self.name(cls)
        if name in self.messages:
            return name
        self.messages[name] = []  # taken: a second way to it writes nothing
        outer, self._pending_enums = self._pending_enums, []
        hints = typing.get_type_hints(cls)
        docs = _attribute_docs(cls)
        chunks: list[tuple[int, list[str]]] = []  # (first number, lines), sorted at the end
        number = 1
        used: dict[int, str] = {}
        for attribute in dataclasses.fields(cls):
            if not attribute.compare or not attribute.init:
                continue  # not part of the value
            key = attribute.name
            rule = self.codec.fields.get((cls, key), Field())
            doc = docs.get(key, "")
            written: list[tuple[str, Any, str, int | None, Field]]
            if rule.encode is not None and rule.decode is not None:
                writes = rule.writes or (Wire(key, hints[key]),)
                written = [(w.name, w.hint, w.comment or doc, w.number, rule) for w in writes]
            else:
                hint = hints[key]
                if rule.values:
                    choices: Any = typing.cast(Any, Literal)[rule.values]
                    hint = choices | None if _optional(hint)[1] else choices
                    hint = _Named(hint, _camel(key), doc)
                written = [(rule.wire or key, hint, doc, None, rule)]
            for wire, hint, comment, fixed, own in written:
                first = fixed or number
                lines, count = self.field(cls, wire, hint, comment, first, own)
                for taken in range(first, first + count):
                    if taken in used:
                        raise WireShapeError(f"{name}: {wire} and {used[taken]} share {taken}")
                    used[taken] = wire
                number += 0 if fixed else count
                chunks.append((first, lines))
        for enum_name, block in self._pending_enums:
            self.enums.setdefault(enum_name, block)
        self._pending_enums = outer
        del self.messages[name]  # dependencies first: written after what it uses
        body = [line for _, lines in sorted(chunks, key=lambda chunk: chunk[0]) for line in lines]
        self.messages[name] = self.block(name, _class_doc(cls), body)
        return name

    def field(
        self, cls: type, wire: str, hint: Any, comment: str, number: int, rule: Field
    ) -> tuple[list[str], int]:
        """Lines of one engine field as message fields, and how many numbers they take."""
        where = _Where(cls, wire, comment)
        members = _union_members(hint)
        if members is not None:
            return self.oneof(wire, members, rule.members, number, comment)
        inner, optional = _optional(hint)
        if typing.get_origin(inner) is tuple:
            kind = self.element(inner, rule, where)
            lines = []
            if optional:  # None travels as a flag beside the list
                lines += _comment(f"Whether `{wire}` is set.", 2)
                lines.append(f"  bool has_{wire} = {number};")
                number += 1
            lines += [*_comment(comment, 2), f"  repeated {kind} {wire} = {number};"]
            return lines, 2 if optional else 1
        kind = self.kind(inner, where)
        label = "optional " if optional and inner in SCALARS else ""
        return [*_comment(comment, 2), f"  {label}{kind} {wire} = {number};"], 1

    def oneof(
        self, name: str, members: tuple[type, ...], names: tuple[str, ...], number: int, doc: str
    ) -> tuple[list[str], int]:
        if names and len(names) != len(members):
            raise WireShapeError(f"oneof {name}: {len(members)} members, names {names}")
        lines = [*_comment(doc, 2), f"  oneof {name} {{"]
        for index, member in enumerate(members):
            field = names[index] if names else _upper_snake(member.__name__).lower()
            lines += _comment(_first_sentence(_class_doc(member)), 4)
            lines.append(f"    {self.message(member)} {field} = {number + index};")
        return [*lines, "  }"], len(members)

    def element(self, hint: Any, rule: Field, where: _Where) -> str:
        """The type of one entry of a ``repeated`` field holding tuple ``hint``."""
        args = typing.get_args(hint)
        if len(args) != 2 or args[1] is not Ellipsis:  # fixed size: scalars
            if len(set(args)) != 1 or args[0] not in SCALARS:
                raise WireShapeError(f"{where}: fixed-size tuples hold one scalar, not {hint}")
            return SCALARS[args[0]]
        item = args[0]
        if typing.get_origin(item) is not tuple:
            return self.kind(item, where)
        if rule.wrapper is None:
            raise WireShapeError(f"{where}: a tuple of tuples needs a Field(wrapper=...)")
        wrapper, inner = rule.wrapper
        if wrapper not in self.messages:
            self.messages[wrapper] = []
            kind = self.element(item, Field(), where)
            body = [*_comment("Its entries, in order.", 2), f"  repeated {kind} {inner} = 1;"]
            del self.messages[wrapper]
            comment = f"One entry of `{where}` (a tuple of tuples)."
            self.messages[wrapper] = self.block(wrapper, comment, body)
        return wrapper

    def kind(self, hint: Any, where: _Where) -> str:
        """The type of a value of ``hint``: a scalar, a message, an enum."""
        if hint in SCALARS:
            return SCALARS[hint]
        if dataclasses.is_dataclass(hint) and isinstance(hint, type):
            return self.message(hint)
        if isinstance(hint, _Named) or typing.get_origin(hint) is Literal:
            return self.literal(hint, where)
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            return self.enumeration(hint)
        raise WireShapeError(f"{where}: no wire form for {hint!r}")

    # -- enums -----------------------------------------------------------------------

    def enumeration(self, cls: type[enum.Enum]) -> str:
        name = self.codec.names.get(cls) or self.prefix + cls.__name__
        docs = _attribute_docs(cls)
        values: list[tuple[str, str]] = []
        unspecified = "Not set."
        for member in cls:
            doc = docs.get(member.name, _spoken(member.name))
            if isinstance(member, int) and member == 0 and member.name == "NONE":
                unspecified = docs.get(member.name, f"Not set ({cls.__name__}.NONE).")
                continue
            values.append((member.name, doc))
        self.enum(name, _class_doc(cls), values, unspecified)
        return name

    def literal(self, hint: Any, where: _Where) -> str:
        """The enum of a ``Literal``: named after its alias in the module of the class
        holding it, its values described by the alias's docstring if it says
        ```value`: text;`` for each (else by the field's)."""
        if isinstance(hint, _Named):
            name, doc, hint = self.prefix + hint.name, hint.doc, hint.hint
        else:
            alias, doc = _alias(hint, sys.modules[where.owner.__module__])
            name = self.codec.names.get(hint) or self.prefix + alias
        doc = " ".join(doc.replace("``", "`").split())
        described = dict(re.findall(r"`([^`]+)`: ([^;]+?)(?:;|$)", doc))
        values = []
        for value in typing.get_args(hint):
            text = described.get(str(value), _spoken(str(value))).rstrip(".")
            values.append((str(value), f"{text[:1].upper()}{text[1:]}."))
        comment = where.comment if described or not doc else doc
        self.enum(name, comment, values, "Not set.")
        return name

    def enum(self, name: str, doc: str, values: list[tuple[str, str]], unspecified: str) -> None:
        prefix = _upper_snake(name)
        body = [*_comment(unspecified, 2), f"  {prefix}_UNSPECIFIED = 0;"]
        for number, (value, comment) in enumerate(values, start=1):
            key = value.upper().replace("-", "_").replace(" ", "_")
            body += [*_comment(comment, 2), f"  {prefix}_{key} = {number};"]
        self._pending_enums.append((name, self.block(name, doc, body, "enum")))


@dataclasses.dataclass(frozen=True)
class _Where:
    """The field being written: its class, its wire name, its comment."""

    owner: type
    wire: str
    comment: str

    def __str__(self) -> str:
        return f"{self.owner.__name__}.{self.wire}"


@dataclasses.dataclass(frozen=True)
class _Named:
    """A ``str`` field's known values, named after the field (``Field(values=...)``)."""

    hint: Any
    name: str
    doc: str


def _alias(hint: Any, module: Any) -> tuple[str, str]:
    """The name a ``Literal`` has in ``module`` and the docstring after it."""
    for name, value in vars(module).items():
        if value == hint and not name.startswith("_"):
            return name, _docstrings(_module_tree(module.__name__).body).get(name, "")
    raise WireShapeError(f"{hint!r} has no name in {module.__name__}: name it there")
