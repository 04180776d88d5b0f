"""Cheap construction of the engines' frozen, slotted dataclasses (states, observations).

A frozen dataclass's ``__init__`` sets every field through ``object.__setattr__`` and
:func:`dataclasses.replace` adds a keyword dictionary and a lookup per field on top: on a
15-field state that is most of a transition. :func:`maker` and :func:`evolver` build the
very same instances (same class, same fields, equal and identically printed and
digested), writing each slot through its descriptor in straight-line generated code.
The instances stay frozen: assigning a field afterwards still raises
:class:`dataclasses.FrozenInstanceError`, exactly as before.

Only for classes whose every field is an ``init`` field stored in a slot, with no
``__post_init__`` (checked when the helper is built).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, is_dataclass
from typing import Any, TypeVar

T = TypeVar("T")

_KEEP: Any = object()
"""Default of every keyword of an :func:`evolver`: keep the old value."""


def _slot_names(cls: type[Any]) -> tuple[str, ...]:
    if not is_dataclass(cls) or not isinstance(cls, type):
        raise TypeError(f"{cls!r} is not a dataclass")
    names = tuple(f.name for f in fields(cls))
    if getattr(cls, "__slots__", None) != names:
        raise TypeError(f"{cls.__name__}: every field must be a slot, in field order")
    if any(not f.init for f in fields(cls)) or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: only init fields and no __post_init__")
    return names


def _namespace(cls: type[Any], names: tuple[str, ...]) -> dict[str, Any]:
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls, "_KEEP": _KEEP}
    for name in names:
        namespace[f"_set_{name}"] = cls.__dict__[name].__set__
    return namespace


def maker(cls: type[T]) -> Callable[..., T]:
    """``cls(*values)`` for every field in declaration order (positional only, no
    defaults), without ``__init__``'s per-field ``object.__setattr__``."""
    names = _slot_names(cls)
    body = "".join(f"    _set_{name}(self, {name})\n" for name in names)
    source = f"def make({', '.join(names)}, /):\n    self = _new(_cls)\n{body}    return self\n"
    namespace = _namespace(cls, names)
    exec(source, namespace)  # generated from the dataclass's own field names
    made: Callable[..., T] = namespace["make"]
    made.__qualname__ = made.__name__ = f"make_{cls.__name__}"
    return made


def evolver(cls: type[T]) -> Callable[..., T]:
    """``dataclasses.replace(old, **changes)`` for ``cls``: ``evolve(old, field=value, ...)``
    (keywords only), without the keyword dictionary and ``__init__``."""
    names = _slot_names(cls)
    parameters = ", ".join(f"{name}=_KEEP" for name in names)
    body = "".join(
        f"    _set_{name}(self, old.{name} if {name} is _KEEP else {name})\n" for name in names
    )
    source = f"def evolve(old, /, *, {parameters}):\n    self = _new(_cls)\n{body}    return self\n"
    namespace = _namespace(cls, names)
    exec(source, namespace)  # generated from the dataclass's own field names
    evolved: Callable[..., T] = namespace["evolve"]
    evolved.__qualname__ = evolved.__name__ = f"evolve_{cls.__name__}"
    return evolved
