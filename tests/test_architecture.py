"""The package's shape, checked from its source: one import package, layers you can see in the folders, no import
cycles (imports inside functions included), function-local imports that say why, no private names imported across
modules, and source that speaks of the code rather than of its history.

The layer contract itself (which folder may import which) is import-linter's (pyproject.toml), run by
tests/test_core_headless.py; this file checks what import-linter does not.
"""
from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_FOLDERS = ("core", "gui")
#: the modules the root of core/ may hold: the package's faces and its foundations (docs/architecture.md)
CORE_ROOT_LIMIT = 8


def _sources() -> list[Path]:
    return sorted(p for folder in PACKAGE_FOLDERS for p in (ROOT / folder).rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(("mechstudio",) + parts)


def _graph() -> dict[str, set[str]]:
    """module -> the project modules it imports, from every import statement (module level and inside functions)."""
    modules = {_module_name(p): p for p in _sources()}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + [base]).strip(".")
                targets = [base] + [f"{base}.{a.name}" for a in node.names]
            for t in targets:
                while t and t not in modules:  # "pkg.mod.name" -> the module "pkg.mod"
                    t = t.rpartition(".")[0]
                if t and t != name and t != "mechstudio" and not name.startswith(t + "."):
                    graph[name].add(t)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_counting_imports_inside_functions():
    cycles = _cycles(_graph())
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_the_installed_package_is_mechstudio_with_core_and_gui_linked_in():
    for sub in PACKAGE_FOLDERS:
        link = ROOT / "mechstudio" / sub
        assert link.is_symlink() and link.resolve() == (ROOT / sub).resolve()
    import mechstudio
    assert re.fullmatch(r"\d+\.\d+\.\d+", mechstudio.__version__)
    assert (ROOT / "mechstudio" / "py.typed").is_file()


def test_the_root_of_core_holds_at_most_eight_modules():
    root_modules = sorted(p.name for p in (ROOT / "core").glob("*.py"))
    assert len(root_modules) <= CORE_ROOT_LIMIT, root_modules


def test_function_local_imports_of_core_give_a_reason():
    """An import inside a function hides a dependency (and can hide a cycle): each says why on its line or the line
    above (start-up time, an optional package, a platform ...)."""
    silent = []
    for path in sorted((ROOT / "core").rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for inner in ast.walk(node):
                if isinstance(inner, (ast.Import, ast.ImportFrom)):
                    here = lines[inner.lineno - 1]
                    above = lines[inner.lineno - 2].strip() if inner.lineno > 1 else ""
                    if "#" not in here and not above.startswith("#"):
                        silent.append(f"{path.relative_to(ROOT)}:{inner.lineno}: {here.strip()}")
    assert not silent, "function-local imports without a reason:\n" + "\n".join(sorted(set(silent)))


def test_no_private_names_imported_across_modules():
    found = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mechstudio"):
                found += [f"{path.relative_to(ROOT)}:{node.lineno}: {a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    assert not found, found


@pytest.mark.parametrize("folder", PACKAGE_FOLDERS)
def test_source_speaks_of_the_code_not_of_issue_numbers(folder):
    found = [f"{p.relative_to(ROOT)}:{i}" for p in (ROOT / folder).rglob("*.py")
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"\b[Ii]ssues? #?\d+", line) and "pyqtgraph issue" not in line]
    assert not found, found


def test_core_never_imports_qt_even_inside_functions():
    qt = ("PySide6", "shiboken6", "pyqtgraph", "OpenGL")
    bad = []
    for path in (ROOT / "core").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            bad += [f"{path.relative_to(ROOT)}:{node.lineno}" for n in names
                    if n.split(".")[0] in qt or n.startswith("mechstudio.gui")]
    assert not bad, bad


if __name__ == "__main__":  # pragma: no cover - a quick look from the command line
    for c in _cycles(_graph()):
        print(" <-> ".join(c))
    sys.exit(0)
