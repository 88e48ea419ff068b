"""No import circles among the modules of engines/ and jbag_pipeline/ ([Layout]): a module imports only modules
below it. Edges are the modules an import statement names (`from a.b import c` names a.b, and a.b.c when that
is a module); the packages Python runs on the way (a/__init__) are not edges."""

import ast
import graphlib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("engines", "jbag_pipeline")


def module_files(root: Path = REPO) -> dict[str, Path]:
    """Dotted module name -> file, for every module of PACKAGES."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def _module_level(body: list[ast.stmt]):
    """The import statements that run when the module is imported (not those inside functions or classes)."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            yield from _module_level(node.orelse)
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            for block in (node.body, getattr(node, "orelse", []), getattr(node, "finalbody", []),
                          *(handler.body for handler in getattr(node, "handlers", []))):
                yield from _module_level(block)


def _imported(name: str, path: Path, node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    base = ".".join([*package[:len(package) - node.level + 1], *([node.module] if node.module else [])]) \
        if node.level else node.module
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def import_graph(modules: dict[str, Path], module_level_only: bool) -> dict[str, set[str]]:
    """Module -> the modules of `modules` it imports."""
    graph = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        nodes = (_module_level(tree.body) if module_level_only
                 else (n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))))
        graph[name] = {target for node in nodes for target in _imported(name, path, node)
                       if target in modules and target != name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of `graph` (first module repeated at the end), or None."""
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as error:
        return error.args[1][::-1]  # graphlib lists a node's predecessors first; an import points the other way
    return None


def test_the_graph_sees_the_imports_of_the_package():
    graph = import_graph(module_files(), module_level_only=True)
    assert "engines.registry" in graph["engines"]
    assert {"jbag_pipeline.presets", "jbag_pipeline.agents.selfplay"} <= graph["jbag_pipeline.transfer.experiment"]
    assert "jbag_pipeline.storage.lake" in graph["jbag_pipeline.cli.commands"]  # `import ...lake as lake`


def test_a_circle_is_found(tmp_path):
    (tmp_path / "engines").mkdir()
    for module, text in {"a": "from engines import b\n", "b": "def f():\n    import engines.a\n", "c": ""}.items():
        (tmp_path / "engines" / f"{module}.py").write_text(text)
    modules = module_files(tmp_path)
    assert find_cycle(import_graph(modules, module_level_only=True)) is None
    assert find_cycle(import_graph(modules, module_level_only=False)) in (["engines.a", "engines.b", "engines.a"],
                                                                          ["engines.b", "engines.a", "engines.b"])


@pytest.mark.parametrize("module_level_only", [True, False], ids=["module-level imports", "every import"])
def test_no_import_cycle_among_engines_and_jbag_pipeline(module_level_only):
    # every import as well: an import moved into a function only to dodge a circle still counts
    cycle = find_cycle(import_graph(module_files(), module_level_only))
    assert cycle is None, "import circle: " + " -> ".join(cycle)
