"""No import circles among the modules of engines/ and jbag_pipeline/ ([Layout]), and a layer order they keep
([Layers]): a module imports only from its own package and the layers below. Edges are the modules an import
statement names (`from a.b import c` names a.b, and a.b.c when that is a module); the packages Python runs on the way
(a/__init__) are not edges."""

import ast
import graphlib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("engines", "jbag_pipeline")

# The layer order, lowest first: package or module -> rank. A module may import its own entry and entries of lower
# rank; entries of one rank are siblings that do not import each other. jbag_pipeline itself is its __init__ only.
LAYERS = {
    "engines": 0, "jbag_pipeline": 0,                         # the games' rules; the package's docstring
    "jbag_pipeline.schemas": 1,                               # every lake table's schema (imports only polars)
    "jbag_pipeline.compute": 1, "jbag_pipeline.seeds": 1,     # process pools and dask; seed derivation
    "jbag_pipeline.partitions": 1, "jbag_pipeline.run_policy": 1,  # the game partitions; the run policy's tag names
    "jbag_pipeline.model": 2,                                 # the JSON-Bag model, pure
    "jbag_pipeline.storage": 3,                               # the lake, catalog, staging, SQL runner, sandbox
    "jbag_pipeline.tokenize": 3, "jbag_pipeline.bags": 3,     # the model's stable public names
    "jbag_pipeline.transforms": 4,                            # table transforms over the model's tables
    "jbag_pipeline.training": 4,                              # a value function trained from bags and games
    "jbag_pipeline.analysis": 5, "jbag_pipeline.ingest": 5, "jbag_pipeline.tictactoe": 5,
    "jbag_pipeline.presets": 6, "jbag_pipeline.report_headline": 6, "jbag_pipeline.report_mcts": 6,
    "jbag_pipeline.play": 7, "jbag_pipeline.preset_files": 7, "jbag_pipeline.report": 7,
    "jbag_pipeline.transfer": 8, "jbag_pipeline.resources": 8,
    "jbag_pipeline.assets": 9,
    "jbag_pipeline.automation": 10,
    "jbag_pipeline.defs": 11,
    "jbag_pipeline.definitions": 12,
    "jbag_pipeline.cli": 13,
}


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
    assert {"jbag_pipeline.presets", "jbag_pipeline.play.selfplay"} <= graph["jbag_pipeline.transfer.experiment"]
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


def layer_of(module: str) -> str | None:
    """The entry of LAYERS `module` belongs to: itself or its nearest listed package (the root only for itself)."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        entry = ".".join(parts[:end])
        if entry in LAYERS and (end > 1 or entry != "jbag_pipeline" or module == entry):
            return entry
    return None


def upward_imports(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    """(importer, imported) of every import from one entry to another that is not of lower rank."""
    return {(module, target) for module, targets in graph.items() for target in targets
            if layer_of(module) != layer_of(target) and LAYERS[layer_of(module)] <= LAYERS[layer_of(target)]}


def test_every_module_sits_in_a_layer():
    assert [module for module in module_files() if layer_of(module) is None] == []


def test_an_upward_or_sideways_import_is_found(tmp_path):
    for path, text in {"jbag_pipeline/__init__.py": "", "jbag_pipeline/model/__init__.py": "",
                       "jbag_pipeline/model/m.py": "def f():\n    import jbag_pipeline.storage.lake\n",
                       "jbag_pipeline/storage/__init__.py": "", "jbag_pipeline/storage/lake.py": "import engines\n",
                       "jbag_pipeline/tokenize.py": "import jbag_pipeline.storage.lake\n",
                       "engines/__init__.py": "import jbag_pipeline.model.m\n"}.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    graph = import_graph(module_files(tmp_path), module_level_only=False)
    assert upward_imports(graph) == {("jbag_pipeline.model.m", "jbag_pipeline.storage.lake"),
                                     ("jbag_pipeline.tokenize", "jbag_pipeline.storage.lake"),
                                     ("engines", "jbag_pipeline.model.m")}


def test_imports_run_down_the_layers():
    # every import, as in the circle test: one moved into a function still counts
    upward = upward_imports(import_graph(module_files(), module_level_only=False))
    unexpected = sorted(upward)
    assert not unexpected, "imports running up the layers:\n" + "\n".join(
        f"  {module} ({layer_of(module)}, rank {LAYERS[layer_of(module)]}) imports {target} "
        f"({layer_of(target)}, rank {LAYERS[layer_of(target)]})" for module, target in unexpected)
