"""One codec for every game, derived from the engine's dataclasses and the game's messages.

An engine's observation and actions are frozen dataclasses, and the ``.proto`` of the
game names its message fields after theirs. So the translation is read off the two
sides once, when the codec is built, by walking the dataclass's type hints beside the
message's descriptor:

===============================  ==================================================
engine field                     message field
===============================  ==================================================
``int``, ``bool``, ``str``       the scalar of the same name
a dataclass                      a message field (translated the same way, nested)
``X | None``                     ``optional X`` (present when not ``None``); for an
                                 enum without presence, ``None`` is value 0
                                 (``*_UNSPECIFIED``); for a repeated field, a
                                 ``bool has_<name>`` beside it says ``None``
``tuple[X, ...]``                ``repeated X``; ``tuple[tuple[X, ...], ...]`` is a
                                 repeated message with one repeated field
``tuple[int, int]``              ``repeated`` of exactly that length
an ``Enum`` or a ``Literal``     a protobuf enum, value by value by name
                                 (``"roll-off"`` is ``*_ROLL_OFF``, ``Kind.RAT`` is
                                 ``*_RAT``); an ``IntEnum`` member whose name the
                                 enum lacks maps to the value of the same number
a union of dataclasses           a ``oneof`` of the same name; each member goes to
                                 the field whose message is named after it (the
                                 game's prefix + class name) or the field named
                                 after it (``SumBid`` → ``sum_bid``)
===============================  ==================================================

The action union (the engine's ``action_types``) is the ``oneof`` of the game's
action message. The same table read the other way writes a built-in game's ``.proto``
from its engine's types (:mod:`referee.wire.schema`). A field that needs more than
this says so with a :class:`Field` (its own encode and decode, beside the codec of its
game, with the reason), and a value that must be checked when it arrives from outside
(a card, a hand, a bid) names its check in ``checks``. Built-in games travel in their own field of
``Observation``/``Action``'s ``oneof game``; any other game in ``extension``
(``google.protobuf.Any``), which is how an installed game needs no edit of
``bot.proto``.

Whatever arrives malformed raises :class:`MalformedObservationError` or, for an
action, :class:`MalformedActionError`, with the message in the text.
"""

from __future__ import annotations

import dataclasses
import enum
import keyword
import re
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Literal, TypeVar

from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from arena.v1 import bot_pb2
from referee.gamekit.base import Game, GameError, MalformedActionError
from referee.wire.base import Codec, MalformedObservationError

ObsT = TypeVar("ObsT")
ActionT = TypeVar("ActionT")

Encode = Callable[[Any], Any]
"""Engine value → the value a message constructor takes for its field."""
Decode = Callable[[Any], Any]
"""What a message's field holds → engine value; ``ValueError`` if it is malformed."""


class WireShapeError(TypeError):
    """An engine type and its message do not correspond (a bug in the game, found when
    its codec is built, never while a match runs)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Field:
    """How one engine field travels when it is not the message field of its name and shape.

    ``encode`` turns the engine value into constructor arguments of the message
    (usually one); ``decode`` reads the whole message back into the engine value and
    raises ``ValueError`` if it is malformed. ``wire`` alone renames a field that is
    otherwise translated as usual. A dataclass field declared with ``compare=False``
    is not part of the value and does not travel.
    """

    encode: Callable[[Any], Mapping[str, Any]] | None = None
    decode: Callable[[Any], Any] | None = None
    wire: str | None = None
    values: tuple[str, ...] | None = None
    """For a ``str`` field that takes one of these values: travels as an enum."""
    writes: tuple[Wire, ...] = ()
    """With ``encode``/``decode``: the message fields they write, for the ``.proto``
    (:mod:`referee.wire.schema`); empty: one field of the engine field's name and type."""
    members: tuple[str, ...] = ()
    """For a union: its ``oneof``'s field per member (default: class name, snake case)."""
    wrapper: tuple[str, str] | None = None
    """For a ``tuple`` of tuples: the message holding one inner tuple and the name of
    its one field, ``(message, field)``."""


@dataclasses.dataclass(frozen=True, slots=True)
class Wire:
    """One message field that a :class:`Field`'s own ``encode`` writes (the ``.proto``
    declares it; the codec itself never reads this)."""

    name: str
    hint: Any
    """Its type, translated as an engine field of that type is (``int``: ``uint32``)."""
    comment: str = ""
    """Its comment in the ``.proto``; empty: the engine field's docstring."""
    number: int | None = None
    """Its field number; ``None``: the next one in order (a field added to the wire
    after others keeps its number: the fields after it take the numbers before)."""


Fields = Mapping[tuple[type, str], Field]
"""Per ``(engine type, field name)``, how that field travels if not as usual."""
Checks = Mapping[type, Callable[[Any], object]]
"""Per engine type, a check of a value decoded from outside: raises ``ValueError`` or
:class:`GameError`, or returns what is wrong (a ``str``, or ``False``)."""


def _checked(check: Callable[[Any], object], decode: Decode) -> Decode:
    def checked(wire: Any) -> Any:
        value = decode(wire)
        problem = check(value)
        if problem is False or isinstance(problem, str):
            raise ValueError(problem or f"not a {type(value).__name__.lower()}: {value!r}")
        return value

    return checked


def _upper_snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper()


Expr = Callable[[str], str]
"""Source of an expression, given the source of its input (generated code)."""


def _same_expr(source: str) -> str:
    return source


class _Derivation:
    """Writes the encoder and decoder of each of one game's types as Python source.

    Like :mod:`dataclasses` writing ``__init__``, the translation is generated once
    and compiled, so a derived codec costs what a hand-written one does: one
    function per type, one constructor call per message, no per-field dispatch.
    ``source`` keeps what was generated (``DerivedCodec.source()`` prints it).
    """

    def __init__(self, prefix: str, fields: Fields, checks: Checks) -> None:
        self.prefix = prefix
        self.fields = fields
        self.checks = checks
        self.namespace: dict[str, Any] = {"ValueError": ValueError}
        self.source: list[str] = []
        self._plans: dict[tuple[type, str], tuple[str, str]] = {}
        self._count = 0

    def bind(self, value: Any, stem: str = "_v") -> str:
        """A name for ``value`` in the generated code's namespace."""
        self._count += 1
        name = f"{stem}{self._count}"
        self.namespace[name] = value
        return name

    def plan(self, cls: type, descriptor: Descriptor) -> tuple[str, str]:
        """Names of the generated ``(encode, decode)`` functions of ``cls``."""
        key = (cls, descriptor.full_name)
        if key not in self._plans:
            self._count += 1
            names = (f"encode_{cls.__name__}_{self._count}", f"decode_{cls.__name__}_{self._count}")
            self._plans[key] = names
            self._write(cls, descriptor, *names)
        return self._plans[key]

    def function(self, name: str) -> Any:
        return self.namespace[name]

    # -- one type: its two functions ------------------------------------------------

    def _write(self, cls: type, descriptor: Descriptor, encode: str, decode: str) -> None:
        hints = typing.get_type_hints(cls)
        make = self.bind(message_factory.GetMessageClass(descriptor), "_M")
        build = self.bind(cls, "_C")
        arguments: list[str] = []  # of the message constructor
        statements: list[str] = []  # for arguments that are not always there
        values: list[str] = []  # of the dataclass
        used: set[str] = set()  # message fields (and oneofs) taken
        for attribute in dataclasses.fields(cls):
            if not attribute.compare or not attribute.init:
                continue  # not part of the value
            name = attribute.name
            where = f"{cls.__name__}.{name}"
            rule = self.fields.get((cls, name), Field())
            if rule.encode is not None and rule.decode is not None:
                statements.append(f"k.update({self.bind(rule.encode)}(v.{name}))")
                values.append(f"{name}={self.bind(rule.decode)}(m)")
                continue
            wire = rule.wire or name
            if wire in used:
                raise WireShapeError(f"{where}: {wire!r} already carries another field")
            used.add(wire)
            hint = hints[name]
            if rule.values:  # a str field of known values (or None)
                choices = typing.cast(Any, Literal)[rule.values]
                hint = choices | None if _optional(hint)[1] else choices
            put, get = self._field(hint, descriptor, wire, where, f"v.{name}")
            (arguments if re.match(r"\w+=[^=]", put) else statements).append(put)
            values.append(f"{name}={get}")
        lines = [f"def {encode}(v):"]
        if statements:
            lines.append(f"    k = dict({', '.join(arguments)})")
            lines += [f"    {statement}" for statement in statements]
            lines.append(f"    return {make}(**k)")
        else:
            lines.append(f"    return {make}({', '.join(arguments)})")
        lines.append(f"def {decode}(m):")
        lines.append(f"    return {build}({', '.join(values)})")
        source = "\n".join(lines)
        self.source.append(source)
        exec(compile(source, f"<derived codec of {cls.__name__}>", "exec"), self.namespace)
        if cls in self.checks:
            self.namespace[decode] = _checked(self.checks[cls], self.namespace[decode])

    def _field(
        self, hint: Any, descriptor: Descriptor, wire: str, where: str, value: str
    ) -> tuple[str, str]:
        """``(put, get)``: a constructor argument (or a statement adding to ``k``) from
        ``value``, and the expression that reads it back from message ``m``."""
        members = _union_members(hint)
        if members is not None:
            oneof = descriptor.oneofs_by_name.get(wire)
            if oneof is None:
                raise WireShapeError(f"{where}: a union needs a oneof {wire!r}")
            put_union, get_union, _ = self.union(members, oneof, where)
            return f"{self.bind(put_union)}({value}, k)", f"{self.bind(get_union)}(m)"
        field = descriptor.fields_by_name.get(wire)
        if field is None:
            raise WireShapeError(f"{where}: {descriptor.full_name} has no field {wire!r}")
        inner, optional = _optional(hint)
        read = _read("m", wire)
        if not optional:
            encode, decode = (self.sequence if field.is_repeated else self.value)(
                inner, field, where
            )
            return _argument(wire, encode(value)), decode(read)
        if field.is_repeated:  # None travels as a flag beside the list
            flag = descriptor.fields_by_name.get(f"has_{wire}")
            if flag is None:
                raise WireShapeError(f"{where}: an optional list needs a bool has_{wire}")
            encode, decode = self.sequence(inner, field, where)
            listed = encode(f"({value} or ())")
            put = f"k['{flag.name}'] = {value} is not None; k['{wire}'] = {listed}"
            return put, f"({decode(read)} if {_read('m', flag.name)} else None)"
        if field.has_presence:
            encode, decode = self.value(inner, field, where)
            put = f"if {value} is not None: k['{wire}'] = {encode(value)}"
            return put, f"({decode(read)} if m.HasField('{wire}') else None)"
        if field.enum_type is not None:
            encode, decode = self.enumeration(inner, field, where, none=True)
            return _argument(wire, encode(value)), decode(read)
        if inner is int:  # 0 is never a value, so it says None
            return _argument(wire, f"{value} or 0"), f"({read} or None)"
        raise WireShapeError(f"{where}: {hint!r} needs an optional field, not {field.name}")

    # -- values -----------------------------------------------------------------------

    def value(self, hint: Any, field: FieldDescriptor, where: str) -> tuple[Expr, Expr]:
        """Codec of one non-repeated value of type ``hint`` held by ``field``."""
        if dataclasses.is_dataclass(hint) and isinstance(hint, type):
            if field.message_type is None:
                raise WireShapeError(f"{where}: {hint.__name__} needs a message field")
            encode, decode = self.plan(hint, field.message_type)
            return (lambda e: f"{encode}({e})"), (lambda e: f"{decode}({e})")
        if field.enum_type is not None:
            return self.enumeration(hint, field, where)
        if hint in (int, bool, str, float):
            return _same_expr, _same_expr
        raise WireShapeError(f"{where}: no wire form for {hint!r} in {field.full_name}")

    def enumeration(
        self, hint: Any, field: FieldDescriptor, where: str, *, none: bool = False
    ) -> tuple[Expr, Expr]:
        enum_type: Any = field.enum_type
        prefix = _upper_snake(enum_type.name) + "_"
        by_name = {v.name.removeprefix(prefix): v.number for v in enum_type.values}
        numbers = {v.number for v in enum_type.values}
        members: list[Any]
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            members = list(hint)
        elif typing.get_origin(hint) is Literal:
            members = list(typing.get_args(hint))
        else:
            raise WireShapeError(f"{where}: {hint!r} is not an enum for {enum_type.name}")
        table: dict[Any, int] = {}
        for member in members:
            key = member.name if isinstance(member, enum.Enum) else str(member)
            number = by_name.get(key.upper().replace("-", "_").replace(" ", "_"))
            if number is None and isinstance(member, int) and member in numbers:
                number = int(member)
            if number is None:
                raise WireShapeError(f"{where}: {member!r} has no value in {enum_type.name}")
            table[member] = number
        if none:
            table[None] = 0
        back = {number: member for member, number in table.items()}
        if len(back) != len(table):
            raise WireShapeError(f"{where}: two values share a number in {enum_type.name}")

        def decode(number: int) -> Any:
            try:
                return back[number]
            except KeyError:
                raise ValueError(f"{where}: unknown {enum_type.name} value {number}") from None

        encode_name, decode_name = self.bind(table, "_E"), self.bind(decode, "_D")
        return (lambda e: f"{encode_name}[{e}]"), (lambda e: f"{decode_name}({e})")

    def element(self, hint: Any, field: FieldDescriptor, where: str) -> tuple[Expr, Expr]:
        """Codec of one entry of a repeated ``field``; a tuple entry is a wrapper message."""
        if typing.get_origin(hint) is not tuple:
            return self.value(hint, field, where)
        wrapper = field.message_type
        if wrapper is None or len(wrapper.fields) != 1:
            raise WireShapeError(f"{where}: a nested tuple needs a message with one field")
        inner = wrapper.fields[0]
        encode, decode = self.sequence(hint, inner, where)
        make = self.bind(message_factory.GetMessageClass(wrapper), "_M")
        return (lambda e: f"{make}(**{{{inner.name!r}: {encode(e)}}})"), (
            lambda e: decode(_read(e, inner.name))
        )

    def sequence(self, hint: Any, field: FieldDescriptor, where: str) -> tuple[Expr, Expr]:
        """Codec of a ``tuple`` held by the repeated ``field``."""
        if not field.is_repeated:
            raise WireShapeError(f"{where}: a tuple needs a repeated field, not {field.name}")
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            encode, decode = self.element(args[0], field, where)
            if encode is _same_expr:  # scalars: the message takes the tuple as it is
                return _same_expr, (lambda e: f"tuple({e})")
            self._count += 1
            item = f"x{self._count}"
            return (lambda e: f"[{encode(item)} for {item} in {e}]"), (
                lambda e: f"tuple([{decode(item)} for {item} in {e}])"
            )
        size = len(args)  # a fixed-size tuple, such as one number per seat of two
        if any(arg not in (int, bool, str) for arg in args):
            raise WireShapeError(f"{where}: fixed-size tuples hold scalars, not {hint!r}")

        def fixed(entries: Any) -> tuple[Any, ...]:
            if len(entries) != size:
                raise ValueError(f"{field.name}: expected {size} entries, got {list(entries)}")
            return tuple(entries)

        name = self.bind(fixed, "_F")
        return _same_expr, (lambda e: f"{name}({e})")

    def union(
        self, members: tuple[type, ...], oneof: Any, where: str
    ) -> tuple[Callable[[Any, dict[str, Any]], None], Decode, Encode]:
        """Codec of a union of dataclasses held by a ``oneof``: a put of the chosen
        member into a constructor's arguments, a read of the message holding the
        oneof, and a maker of that message (for an action)."""
        put, get, make = [], [], []
        holder = self.bind(message_factory.GetMessageClass(oneof.containing_type), "_M")
        for member in members:
            field = _oneof_field(member, oneof, self.prefix)
            if field is None or field.message_type is None:
                raise WireShapeError(f"{where}: no field of oneof {oneof.name} for {member}")
            encode, decode = self.plan(member, field.message_type)
            kind = self.bind(member, "_T")
            put.append(f"    if t is {kind}: k['{field.name}'] = {encode}(v); return")
            make.append(f"    if t is {kind}: return {holder}(**{{{field.name!r}: {encode}(v)}})")
            get.append(f"    if w == {field.name!r}: return {decode}({_read('m', field.name)})")
        self._count += 1
        names = [f"{stem}_{oneof.name}_{self._count}" for stem in ("put", "get", "make")]
        failure = self.bind(f"is not a {where}")
        empty = self.bind(f"empty {where}")
        lines = [f"def {names[0]}(v, k):", "    t = type(v)", *put]
        lines += [f"    raise ValueError(f'{{v!r}} {{{failure}}}')"]
        lines += [f"def {names[1]}(m):", f"    w = m.WhichOneof('{oneof.name}')", *get]
        lines += [f"    raise ValueError({empty})"]
        lines += [f"def {names[2]}(v):", "    t = type(v)", *make]
        lines += [f"    raise ValueError(f'{{v!r}} {{{failure}}}')"]
        source = "\n".join(lines)
        self.source.append(source)
        exec(compile(source, f"<derived codec of {where}>", "exec"), self.namespace)
        return tuple(self.function(name) for name in names)


_BUILT = frozenset(
    {"_derivation", "_encode_inner", "_decode_inner", "_get_action", "_make_action", "_builtin"}
)  # what DerivedCodec.build sets


def _observation_type(engine: Game[Any, Any, Any, Any]) -> type:
    """The engine's observation type: the last parameter of its ``Game[...]`` base, else
    what its ``observe`` says it returns."""
    for cls in type(engine).__mro__:
        for base in getattr(cls, "__orig_bases__", ()):
            if typing.get_origin(base) is Game:
                return typing.cast(type, typing.get_args(base)[3])
    returned = typing.get_type_hints(type(engine).observe).get("return")
    if not isinstance(returned, type):
        raise WireShapeError(f"{type(engine).__name__} does not say its observation type")
    return returned


def _read(source: str, name: str) -> str:
    """Source reading field ``name`` of ``source`` (``getattr`` for a keyword: ``pass``)."""
    return f"getattr({source}, {name!r})" if keyword.iskeyword(name) else f"{source}.{name}"


def _argument(name: str, source: str) -> str:
    """A constructor argument, or for a keyword a statement adding it to ``k``."""
    return f"k[{name!r}] = {source}" if keyword.iskeyword(name) else f"{name}={source}"


def _oneof_field(member: type, oneof: Any, prefix: str) -> FieldDescriptor | None:
    for field in oneof.fields:
        message = field.message_type
        if message is not None and message.name == prefix + member.__name__:
            return typing.cast(FieldDescriptor, field)
    snake = _upper_snake(member.__name__).lower()
    for field in oneof.fields:
        if field.name == snake:
            return typing.cast(FieldDescriptor, field)
    return None


def _optional(hint: Any) -> tuple[Any, bool]:
    """``(X, True)`` for ``X | None``, else ``(hint, False)``."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        if len(args) == 1 and len(typing.get_args(hint)) == 2:
            return args[0], True
    return hint, False


def _union_members(hint: Any) -> tuple[type, ...] | None:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = typing.get_args(hint)
        if all(dataclasses.is_dataclass(arg) for arg in args):
            return args
    return None


class DerivedCodec(Codec[ObsT, ActionT]):
    """The codec of one game, read off its engine's types and its messages.

    A game's codec is a subclass that declares them::

        class LiarsDiceCodec(DerivedCodec[Observation, Action]):
            engine = LIARS_DICE
            observation_message = pb.LiarsDiceObservation
            action_message = pb.LiarsDiceAction

    The prefix of the message names (``LiarsDice``) is the game's message prefix.
    ``fields`` and ``checks`` are the exceptions (see the module docstring);
    ``well_formed`` is the engine's check of a decoded action (run before encoding
    one too when ``check_before_encoding``, so that a bot's malformed action fails
    in its own process). ``names``, ``action_oneof`` (and ``Field``'s ``writes``,
    ``members``, ``wrapper``) serve only the generated ``.proto`` (:mod:`.schema`).
    Each instance derives its own functions: instances share nothing.
    """

    engine: ClassVar[Game[Any, Any, Any, Any]]
    observation_message: ClassVar[type[Message]]
    action_message: ClassVar[type[Message]]
    fields: ClassVar[Fields] = {}
    checks: ClassVar[Checks] = {}
    check_before_encoding: ClassVar[bool] = False
    names: ClassVar[Mapping[Any, str]] = {}
    """For the ``.proto``: names of engine types that are not the prefix + class name."""
    action_oneof: ClassVar[str] = "action"
    """For the ``.proto``: the name of the action message's ``oneof``."""

    @staticmethod
    def well_formed(action: Any) -> Any:
        """The decoded ``action``, or :class:`MalformedActionError` (default: any)."""
        return action

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "engine" in cls.__dict__:
            cls.game = cls.engine.name

    def __init__(self) -> None:
        self._built = False

    def __getattr__(self, name: str) -> Any:
        # Built on first use: proto/generate.py imports a codec before its messages
        # exist. The catalogue builds what it hands out, so no match sees a mismatch.
        if name.startswith("_") and name in _BUILT and not self.__dict__.get("_built"):
            self.build()
            return getattr(self, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def build(self) -> DerivedCodec[ObsT, ActionT]:
        """Derive the translation now (idempotent); :class:`WireShapeError` on a mismatch."""
        if self.__dict__.get("_built"):
            return self
        descriptor: Any = self.observation_message.DESCRIPTOR
        prefix = descriptor.name.removesuffix("Observation")
        derivation = _Derivation(prefix, self.fields, self.checks)
        observation_type = _observation_type(self.engine)
        self._derivation = derivation
        encode, decode = derivation.plan(observation_type, descriptor)
        self._encode_inner = derivation.function(encode)
        self._decode_inner = derivation.function(decode)
        oneofs = self.action_message.DESCRIPTOR.oneofs
        if len(oneofs) == 1:  # else the game's codec encodes its actions itself
            _, self._get_action, self._make_action = derivation.union(
                tuple(self.engine.action_types), oneofs[0], f"{self.game} action"
            )
        self._builtin = self.game in bot_pb2.Observation.DESCRIPTOR.fields_by_name
        self._built = True
        return self

    # -- observations -------------------------------------------------------------

    def encode_observation(self, observation: ObsT) -> bot_pb2.Observation:
        inner = self._encode_inner(observation)
        if self._builtin:
            return bot_pb2.Observation(**{self.game: inner})
        message = bot_pb2.Observation()
        message.extension.Pack(inner)
        return message

    def decode_observation(self, message: bot_pb2.Observation) -> ObsT:
        inner = self._unwrap(message, self.observation_message, MalformedObservationError)
        try:
            return typing.cast(ObsT, self._decode_inner(inner))
        except (ValueError, GameError) as error:
            raise MalformedObservationError(f"bad {self.game} observation: {error}") from None

    # -- actions ------------------------------------------------------------------

    def encode_action(self, action: ActionT) -> bot_pb2.Action:
        if self.check_before_encoding:
            action = self.well_formed(action)
        try:
            inner = self._make_action(action)
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise MalformedActionError(
                f"{action!r} is not a {self.game} action ({error})"
            ) from None
        if self._builtin:
            return bot_pb2.Action(**{self.game: typing.cast(Any, inner)})
        return self.wrap_action(inner)

    def decode_action(self, message: bot_pb2.Action) -> ActionT:
        inner = self.unwrap_action(message)
        try:
            action = self.well_formed(self._get_action(inner))
        except (ValueError, GameError) as error:
            raise MalformedActionError(f"{error}: {message}") from None
        return typing.cast(ActionT, action)

    def source(self) -> str:
        """The Python this codec generated for its types (to read, or to debug it)."""
        return "\n\n".join(self._derivation.source)

    # -- the envelope: a built-in game's own field, or the extension -----------------

    def wrap_action(self, inner: Message) -> bot_pb2.Action:
        """``inner`` (the game's action message) in the envelope every bot sends."""
        if self._builtin:
            return bot_pb2.Action(**{self.game: typing.cast(Any, inner)})
        message = bot_pb2.Action()
        message.extension.Pack(inner)
        return message

    def unwrap_action(self, message: bot_pb2.Action) -> Any:
        """The game's action message inside ``message``; :class:`MalformedActionError`
        if it carries another game's (or nothing)."""
        return self._unwrap(message, self.action_message, MalformedActionError)

    def _unwrap(
        self,
        message: bot_pb2.Observation | bot_pb2.Action,
        kind: type[Message],
        error: type[GameError],
    ) -> Any:
        which = message.WhichOneof("game")
        if self._builtin and which == self.game:
            return getattr(message, self.game)
        inner = kind()
        if not self._builtin and which == "extension" and message.extension.Unpack(inner):
            return inner
        what = "observation" if isinstance(message, bot_pb2.Observation) else "action"
        raise error(f"expected a {self.game} {what}, got {which or f'an empty {what}'}")
