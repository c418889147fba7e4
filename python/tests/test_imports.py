"""The package's layering: no import circle among its modules, counting the imports inside
functions too (a circle there only waits for the first call to bite), and no module that
reads another's private names. Built from the source's syntax trees, so nothing is imported."""

from __future__ import annotations

import ast
from pathlib import Path

import rampup

PACKAGE = Path(rampup.__file__).parent


def modules(root: Path) -> dict[str, Path]:
    """Each module of the package at ``root``, by its dotted name (a package by its own); a
    compiled one (the engine) by its stub."""
    out = {}
    for path in sorted([*root.rglob("*.py"), *root.rglob("*.pyi")]):
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _base(name: str, path: Path, node: ast.ImportFrom) -> str:
    """The module a ``from ... import`` reads from, made absolute."""
    if not node.level:
        return node.module or ""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    package = package[: len(package) - (node.level - 1)]
    return ".".join([*package, *([node.module] if node.module else [])])


def imports(root: Path) -> dict[str, list[tuple[str, str | None, int]]]:
    """For each module: (the module of the package it imports, the name it takes from it or
    None, the line), for every import statement wherever it stands."""
    known = modules(root)
    out: dict[str, list[tuple[str, str | None, int]]] = {}
    for name, path in known.items():
        found = out[name] = []
        if path.suffix == ".pyi":  # the engine: it imports nothing of the package
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found += [(a.name, None, node.lineno) for a in node.names if a.name in known]
            elif isinstance(node, ast.ImportFrom):
                base = _base(name, path, node)
                for a in node.names:
                    if f"{base}.{a.name}" in known:  # a module: `from . import runs`
                        found.append((f"{base}.{a.name}", None, node.lineno))
                    elif base in known:  # a name of the module
                        found.append((base, a.name, node.lineno))
    return out


def circles(graph: dict[str, list[tuple[str, str | None, int]]]) -> list[list[str]]:
    """Every import circle, one per strongly connected set of modules (Tarjan's algorithm),
    as the modules in the set; a module importing itself is one too."""
    edges = {m: sorted({t for t, _, _ in targets}) for m, targets in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(m: str) -> None:
        index[m] = low[m] = len(index)
        stack.append(m)
        on_stack.add(m)
        for t in edges.get(m, []):
            if t not in index:
                visit(t)
                low[m] = min(low[m], low[t])
            elif t in on_stack:
                low[m] = min(low[m], index[t])
        if low[m] == index[m]:
            group = []
            while True:
                t = stack.pop()
                on_stack.discard(t)
                group.append(t)
                if t == m:
                    break
            if len(group) > 1 or m in edges.get(m, []):
                found.append(sorted(group))

    for m in sorted(edges):
        if m not in index:
            visit(m)
    return found


def private_reads(root: Path) -> list[str]:
    """Each place a module imports another's private name (``from .x import _y``, not a
    module) or reads one off a module it imported (``x._y``), but dunders."""
    graph = imports(root)
    known = modules(root)
    out = []
    for name, targets in graph.items():
        out += [f"{name}:{line}: imports {target}.{what}" for target, what, line in targets
                if what and what.startswith("_") and not what.startswith("__") and target != name]
        if known[name].suffix == ".pyi":
            continue
        tree = ast.parse(known[name].read_text(encoding="utf-8"))
        aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = _base(name, known[name], node)
                aliases |= {a.asname or a.name: f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in known}
            elif isinstance(node, ast.Import):
                aliases |= {a.asname: a.name for a in node.names if a.asname and a.name in known}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                    and node.attr.startswith("_") and not node.attr.startswith("__")):
                out.append(f"{name}:{node.lineno}: reads {aliases[node.value.id]}.{node.attr}")
    return out


def test_the_package_has_no_import_circle() -> None:
    assert circles(imports(PACKAGE)) == []


def test_no_module_reads_another_modules_private_names() -> None:
    assert private_reads(PACKAGE) == []


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_a_circle_through_an_import_inside_a_function_is_found(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "from .sub import b\n",
        "sub/__init__.py": "",
        "sub/b.py": "def f():\n    from ..c import g\n",
        "c.py": "import pkg.a\ndef g(): pass\n",
        "d.py": "from . import a\n",  # into the circle, not on it
    })
    assert circles(imports(root)) == [["pkg.a", "pkg.c", "pkg.sub.b"]]
    (root / "c.py").write_text("def g(): pass\n")
    assert circles(imports(root)) == []


def test_a_private_name_imported_or_read_across_modules_is_found(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "__init__.py": "",
        "_engine.pyi": "def run() -> None: ...\n",
        "a.py": "def _helper(): pass\nx = _helper()\n",
        "b.py": "from .a import _helper\n",
        "c.py": "from . import a, _engine\n_engine.run()\na._helper()\nprint(a.__name__)\n",
    })
    assert private_reads(root) == ["pkg.b:1: imports pkg.a._helper", "pkg.c:3: reads pkg.a._helper"]
