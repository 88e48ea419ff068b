"""schemas.py is the one home of the lake table schemas: it imports only polars, no other module defines a
table schema, and every schema survives a lake write and read unchanged."""

import ast
import json
from pathlib import Path

import polars as pl
import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline import schemas

PACKAGE = Path(__file__).resolve().parents[1] / "jbag_pipeline"
# frames that never reach the lake as they are, so their schemas stay beside the code that builds them
# every table's columns and dtypes, in order, as recorded on 2026-12-02
RECORDED_SCHEMAS = Path(__file__).resolve().parent / "data" / "table_schemas.json"
INTERNAL_FRAMES = {("play/evaluation.py", "CONTROL_GAMES_SCHEMA"), ("ingest/trajectories.py", "POSITIONS_SCHEMA"),
                   ("tictactoe/jsonbag.py", "NO_FEATURES_SCHEMA"), ("play/focal_games.py", "FOCAL_GAMES")}


def _is_dtype(node: ast.expr) -> bool:
    """pl.String, pl.List(pl.Int8), pl.Datetime("us", "UTC"), ...: an expression rooted at the name pl."""
    while isinstance(node, (ast.Call, ast.Attribute)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return isinstance(node, ast.Name) and node.id == "pl"


def schema_dicts(path: Path) -> list[str]:
    """Names of the module-level dict literals of `path` whose values (** splats aside) are all Polars dtypes."""
    names = []
    for node in ast.parse(path.read_text(), filename=str(path)).body:
        if not (isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Dict)):
            continue
        values = [v for k, v in zip(node.value.keys, node.value.values) if k is not None]  # k None: a ** splat
        if values and all(_is_dtype(v) for v in values):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names += [t.id for t in targets if isinstance(t, ast.Name)]
    return names


def test_schemas_module_imports_only_polars():
    tree = ast.parse((PACKAGE / "schemas.py").read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported == {"__future__", "polars"}


def test_no_other_module_defines_a_table_schema():
    found = {(str(path.relative_to(PACKAGE)), name) for path in sorted(PACKAGE.rglob("*.py"))
             if path.name != "schemas.py" for name in schema_dicts(path)}
    assert found == INTERNAL_FRAMES


def test_schema_dicts_recognises_a_schema_and_ignores_other_dicts(tmp_path):
    module = tmp_path / "m.py"
    module.write_text('import polars as pl\nA = {"x": pl.List(pl.Int8), "t": pl.Datetime("us", "UTC")}\n'
                      'B = {"x": 1}\nC: dict = {"y": pl.String, **A}\nD = {**A}\n')
    assert schema_dicts(module) == ["A", "C"]


@pytest.mark.parametrize("table", sorted(schemas.TABLE_SCHEMAS))
def test_every_table_schema_round_trips_through_the_lake(tmp_path, table):
    schema = schemas.TABLE_SCHEMAS[table]
    assert schema and all(isinstance(dtype, pl.DataType) or issubclass(dtype, pl.DataType) for dtype in schema.values())
    lake.write_table(pl.DataFrame(schema=schema), tmp_path, table)
    assert lake.read_table(tmp_path, table).schema == pl.Schema(schema)


def test_conform_orders_and_casts_to_the_schema_and_names_a_missing_column():
    frame = pl.DataFrame({"p": [0.5], "extra": ["x"], "seat": [1], "game": ["nim"]})
    schema = {"game": pl.String, "seat": pl.Int8, "p": pl.Float64}
    assert schemas.conform(frame, schema, "t").schema == pl.Schema(schema)
    with pytest.raises(ValueError, match=r"winner_prototypes lacks columns \['count'\]"):
        schemas.conform(frame, {**schema, "count": pl.Int64}, "winner_prototypes")
    with pytest.raises(pl.exceptions.InvalidOperationError):  # strict: 300 does not fit an Int8
        schemas.conform(frame.with_columns(seat=pl.lit(300)), schema, "t")


def test_every_asset_but_the_catalog_and_the_report_writes_a_table_with_a_schema():
    from jbag_pipeline.definitions import defs

    assets = {key.to_user_string() for key in defs.resolve_asset_graph().get_all_asset_keys()}
    assert assets - set(schemas.TABLE_SCHEMAS) == {"catalog", "report"}
    assert set(schemas.TABLE_SCHEMAS) <= assets


def test_every_recorded_table_keeps_its_schema():
    """A schema change changes the lake's files: it is made on purpose, with this record (a new table is free)."""
    recorded = json.loads(RECORDED_SCHEMAS.read_text())
    current = {table: [[column, str(dtype)] for column, dtype in schema.items()]
               for table, schema in schemas.TABLE_SCHEMAS.items() if table in recorded}
    assert current == recorded
