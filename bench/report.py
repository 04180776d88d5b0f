"""Rows of the benchmark table: a measured ratio, its target, PASS/MISS, absolute numbers."""

from __future__ import annotations

import json
import operator
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

_OPS: dict[str, Callable[[float, float], bool]] = {">=": operator.ge, "<=": operator.le}


@dataclass(frozen=True, slots=True)
class Row:
    section: str
    name: str
    value: float | None
    """The measured ratio (or rate for an informational row); None: not measured."""
    unit: str = "x"
    target_op: str = ""
    """">=" or "<=" (empty: no target in the issue, informational)."""
    target: float | None = None
    detail: str = ""
    """Absolute numbers behind the ratio, or why it is not measured."""

    @property
    def status(self) -> str:
        if self.value is None:
            return "NOT MEASURED"
        if not self.target_op or self.target is None:
            return "info"
        return "PASS" if _OPS[self.target_op](self.value, self.target) else "MISS"

    @property
    def target_text(self) -> str:
        if not self.target_op or self.target is None:
            return ""
        return f"{'≥' if self.target_op == '>=' else '≤'} {self.target:g}"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = self.status
        return data


def _value_text(row: Row) -> str:
    if row.value is None:
        return "—"
    value = row.value
    text = f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    return f"{text} {row.unit}".strip()


def format_table(rows: Sequence[Row]) -> str:
    headers = ("section", "measure", "value", "target", "status", "absolute / notes")
    cells = [(r.section, r.name, _value_text(r), r.target_text, r.status, r.detail) for r in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(headers[:-1])]
    lines = []
    lines.append(
        "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=False)) + "  " + headers[-1]
    )
    lines.append("  ".join("-" * w for w in widths) + "  " + "-" * 16)
    for cell in cells:
        lines.append(
            "  ".join(c.ljust(w) for c, w in zip(cell, widths, strict=False)) + "  " + cell[-1]
        )
    return "\n".join(lines)


def write_json(path: Path, rows: Sequence[Row], meta: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps({"meta": meta, "rows": [r.to_json() for r in rows]}, indent=2) + "\n"
    )
