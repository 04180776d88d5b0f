"""The shape of the code, checked from its syntax trees (issue 20's acceptance).

* No function in ``referee/`` or ``league/`` is longer than 80 lines unless a
  ``# long: <reason>`` comment sits on its ``def`` line or the line above it.
* No module there is longer than 600 lines unless a ``# long module: <reason>``
  comment says why (issue 29).
* Every import inside a function is listed, with the start-up cost it saves, in
  :data:`tests.test_lazy_imports.LAZY_IMPORTS`; an import that only dodges a cycle
  is not allowed (the import-linter contracts in ``make lint`` keep the graph acyclic).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_lazy_imports import LAZY_IMPORTS

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 80
MAX_MODULE_LINES = 600
LENGTH_CHECKED = ("referee", "league")
IMPORTS_CHECKED = ("referee", "sdk", "league", "example_bots", "bench")


def _sources(package: str, root: Path) -> Iterator[Path]:
    for path in sorted((root / package).rglob("*.py")):
        if not path.name.endswith(("_pb2.py", "_pb2_grpc.py")):
            yield path


def _functions(tree: ast.AST) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def long_functions(package: str, root: Path = ROOT) -> list[str]:
    """``path:line name (N lines)`` for each function over the limit without a reason."""
    found = []
    for path in _sources(package, root):
        lines = path.read_text(encoding="utf-8").splitlines()
        for node in _functions(ast.parse("\n".join(lines))):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            near = lines[max(first - 2, 0) : node.lineno]
            if length > MAX_LINES and not any("# long:" in line for line in near):
                rel = path.relative_to(root).as_posix()
                found.append(f"{rel}:{node.lineno} {node.name} ({length} lines)")
    return found


def function_imports(package: str, root: Path = ROOT) -> set[str]:
    """``path module`` for every import statement inside a function body."""
    found: set[str] = set()
    for path in _sources(package, root):
        rel = path.relative_to(root).as_posix()
        for node in _functions(ast.parse(path.read_text(encoding="utf-8"))):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import):
                    found.update(f"{rel} {alias.name}" for alias in inner.names)
                elif isinstance(inner, ast.ImportFrom):
                    found.add(f"{rel} {'.' * inner.level}{inner.module or ''}")
    return found


@pytest.mark.parametrize("package", LENGTH_CHECKED)
def test_no_function_is_longer_than_80_lines_without_a_reason(package: str) -> None:
    assert long_functions(package) == []


@pytest.mark.parametrize("package", IMPORTS_CHECKED)
def test_every_function_level_import_is_a_listed_start_up_saving(package: str) -> None:
    listed = {key for key in LAZY_IMPORTS if key.startswith(f"{package}/")}
    found = function_imports(package)
    assert sorted(found - listed) == [], "unlisted function-level imports"
    assert sorted(listed - found) == [], "listed imports that no longer exist"


def long_modules(package: str, root: Path = ROOT) -> list[str]:
    """``path (N lines)`` for each module over the limit without a ``# long module:``."""
    found = []
    for path in _sources(package, root):
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        if lines > MAX_MODULE_LINES and "\n# long module: " not in text:
            found.append(f"{path.relative_to(root)} ({lines} lines)")
    return found


@pytest.mark.parametrize("package", LENGTH_CHECKED)
def test_no_module_is_longer_than_600_lines_without_a_reason(package: str) -> None:
    assert long_modules(package) == []


def test_the_module_check_sees_a_planted_long_module(tmp_path: Path) -> None:
    (tmp_path / "referee").mkdir()
    (tmp_path / "referee" / "big.py").write_text('"""Big."""\n' + "x = 1\n" * 600)
    (tmp_path / "referee" / "said.py").write_text(
        '"""Big."""\n\n# long module: why\n' + "x = 1\n" * 600
    )
    assert long_modules("referee", tmp_path) == ["referee/big.py (601 lines)"]


def test_the_checks_see_a_planted_long_function_and_a_planted_import(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES))
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(
        f"def too_long():\n    import json\n{body}\n\n\n"
        f"# long: a planted reason\ndef excused():\n{body}\n"
    )
    assert long_functions("pkg", tmp_path) == ["pkg/mod.py:1 too_long (82 lines)"]
    assert function_imports("pkg", tmp_path) == {"pkg/mod.py json"}
