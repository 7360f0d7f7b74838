"""The engine's face: bot, render and storage use the engine only through
``engine/__init__.py``, so the modules behind it can change without reading them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import engine

ROOT = Path(__file__).resolve().parent.parent
FRONT_ENDS = ("bot", "render", "storage")


def _engine_imports() -> list[tuple[str, int, str, list[str]]]:
    """(file, line, module, names) of every import of the engine in the front ends."""
    found = []
    for package in FRONT_ENDS:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                where = str(path.relative_to(ROOT))
                if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("engine"):
                    found.append((where, node.lineno, node.module or "", [a.name for a in node.names]))
                elif isinstance(node, ast.Import):
                    found += [(where, node.lineno, a.name, []) for a in node.names if a.name.startswith("engine")]
    return found


@pytest.mark.slow
def test_front_ends_import_only_the_face() -> None:
    imports = _engine_imports()
    assert imports, "the scan found no import of the engine at all"
    deep = [f"{where}:{line} imports {module}" for where, line, module, _ in imports if module != "engine"]
    assert deep == []


def test_every_name_taken_from_the_face_is_exported() -> None:
    exported = set(engine.__all__)
    unexported = [f"{where}:{line} takes {name}" for where, line, _, names in _engine_imports()
                  for name in names if name not in exported]
    assert unexported == []


def test_the_face_exports_what_it_names() -> None:
    missing = [name for name in engine.__all__ if not hasattr(engine, name)]
    assert missing == []
    assert len(set(engine.__all__)) == len(engine.__all__)
