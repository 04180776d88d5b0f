"""The protocol's names (referee.core.protocol) agree with the referee's and the proto's.

The play core keys the protocol's fault values by name, so the SDK reads them
without importing the referee's fault exceptions; these tests keep those names
and :class:`referee.core.faults.FaultKind` the same set.
"""

from __future__ import annotations

from typing import get_args, get_type_hints

from arena.v1 import bot_pb2
from referee.core.faults import FaultKind
from referee.core.protocol import PROTO_FAULTS, PROTO_REASONS
from referee.records.record import MatchRecord


def test_every_fault_kind_has_its_own_protocol_value() -> None:
    assert set(PROTO_FAULTS) == {None, *FaultKind}
    assert len(set(PROTO_FAULTS.values())) == len(PROTO_FAULTS)
    for kind in FaultKind:  # a FaultKind indexes the table as its name does
        assert PROTO_FAULTS[kind] == bot_pb2.FaultKind.Value(f"FAULT_KIND_{kind.name}")


def test_every_end_reason_of_a_record_has_its_protocol_value() -> None:
    assert set(PROTO_REASONS) == set(get_args(get_type_hints(MatchRecord)["reason"]))
    for reason, value in PROTO_REASONS.items():
        assert value == bot_pb2.EndReason.Value(f"END_REASON_{reason.upper()}")
