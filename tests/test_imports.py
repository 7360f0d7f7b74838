"""The engine's import graph: no round module takes part in an import circle.

Each round (rulebook 6) leaves the choice of the next one to the title's sequence
(:mod:`engine.sequence`), so no round imports another or anything that imports the
rounds. The graph is read from the source with ``ast``: imports at module level and
inside functions alike (those run when the function does); imports under
``if TYPE_CHECKING:`` are for the type checker only and never run, so they are left out.
"""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "engine"

ROUNDS = {
    "private auction (5)": ("engine.auction",),
    "stock round (7)": ("engine.stock_round",),
    "operating round (8)": ("engine.operating", "engine.operating_steps"),
    "merger round (9)": ("engine.merger",),
    "1861's starting bundles (15.1)": ("engine.titles.t1861.bundles",),
}
"""Each round and its modules."""
ROUND_MODULES = [module for modules in ROUNDS.values() for module in modules]


def _sources() -> dict[str, tuple[str, bool]]:
    """Engine module -> (its source, whether it is a package's ``__init__``). The face
    (``engine/__init__.py``) is left out: it imports the modules for the front ends, and
    no module imports a name from it (:func:`test_no_engine_module_takes_a_name_from_the_face`)."""
    found = {}
    for path in sorted(ENGINE.rglob("*.py")):
        parts = list(path.relative_to(ENGINE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = (path.read_text(encoding="utf-8"), path.name == "__init__.py")
    del found["engine"]
    return found


def _type_checking_only(tree: ast.Module) -> set[int]:
    """The ids of the nodes under ``if TYPE_CHECKING:``."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {id(n) for n in ast.walk(node)}
    return skipped


def import_graph(sources: dict[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """Module -> the modules among ``sources`` it imports, at module level or in a
    function (a submodule's import runs its package's ``__init__`` too)."""
    graph: dict[str, set[str]] = {name: set() for name in sources}
    for name, (source, is_package) in sources.items():
        tree = ast.parse(source)
        package = name if is_package else name.rpartition(".")[0]
        skipped = _type_checking_only(tree)
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                parts = package.split(".")
                base = parts[: len(parts) - node.level + 1] if node.level else []
                module = ".".join(base + ([node.module] if node.module else []))
                targets = [module, *(f"{module}.{alias.name}" for alias in node.names)]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            for target in targets:
                while target:
                    if target in sources and target != name:
                        graph[name].add(target)
                    target = target.rpartition(".")[0]
    return graph


def _reaches(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = list(graph[start])
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo += graph[module]
    return seen


def test_the_graph_counts_imports_in_functions_not_type_checking_ones() -> None:
    sources = {
        "pkg": ("", True),
        "pkg.a": ("from . import b\n", False),
        "pkg.b": ("def f():\n    from .c import g\n", False),
        "pkg.c": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import x\n", False),
        "pkg.sub": ("", True),
        "pkg.sub.d": ("from ..a import y\nimport pkg.c\n", False),
    }
    graph = import_graph(sources)
    assert graph == {"pkg": set(), "pkg.a": {"pkg", "pkg.b"}, "pkg.b": {"pkg", "pkg.c"}, "pkg.c": set(),
                     "pkg.sub": set(), "pkg.sub.d": {"pkg", "pkg.a", "pkg.c"}}


def test_no_round_imports_another() -> None:
    graph = import_graph(_sources())
    others = {
        name: sorted(m for module in modules for m in graph[module] if m in ROUND_MODULES and m not in modules)
        for name, modules in ROUNDS.items()
    }
    assert others == {name: [] for name in ROUNDS}


def test_no_round_is_part_of_an_import_circle() -> None:
    graph = import_graph(_sources())
    circles = {r: sorted(m for m in _reaches(graph, r) if r in _reaches(graph, m)) for r in ROUND_MODULES}
    assert circles == {r: [] for r in ROUND_MODULES}


def test_the_game_its_sequence_and_its_move_generator_are_in_no_import_circle() -> None:
    """``Game.choices`` reads the notation, which reads the legal moves and the view: none
    of those imports the game back but for its type."""
    graph = import_graph(_sources())
    top = ("engine.game", "engine.sequence", "engine.legal", "engine.view", "engine.notation")
    circles = {m: sorted(o for o in _reaches(graph, m) if m in _reaches(graph, o)) for m in top}
    assert circles == {m: [] for m in top}


def test_no_engine_module_takes_a_name_from_the_face() -> None:
    """Inside the engine, modules import each other (``from .market import price``, or
    ``from engine import market`` for a module), never a name of the face: so the face
    may import them all without making a circle."""
    modules = {path.stem for path in ENGINE.glob("*.py")} | {path.name for path in ENGINE.iterdir() if path.is_dir()}
    taken = []
    for name, (source, _) in _sources().items():
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and (node.module == "engine" or (node.level == 1 and not node.module
                                                                                 and name.count(".") == 1)):
                taken += [f"{name}: {alias.name}" for alias in node.names if alias.name not in modules]
    assert taken == []
