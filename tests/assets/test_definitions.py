"""Definitions load, and the whole asset graph materialises on the smoke preset."""

import dagster as dg
import polars as pl
import pytest

import jbag_pipeline.storage.lake as lake
from jbag_pipeline.definitions import ALL_ASSETS, defs
from jbag_pipeline.model.tokenize import TokenFilter
from jbag_pipeline.presets import PRESETS
from jbag_pipeline.resources import JbagSettings, LakeResource
from jbag_pipeline.cli.runner import materialize_all, plan


def test_definitions_load():
    repo = defs.get_repository_def()
    keys = {k.to_user_string() for k in repo.asset_graph.get_all_asset_keys()}
    assert {"selfplay_games", "selfplay_states", "state_tokens", "trajectory_bags", "winner_prototypes",
            "winner_classification", "catalog", "report"} <= keys


def test_plan_rejects_unknown_names():
    with pytest.raises(ValueError, match="unknown asset"):
        plan(ALL_ASSETS, ["no_such_asset"], None)
    with pytest.raises(ValueError, match="unknown game"):
        plan(ALL_ASSETS, None, ["chess"])


@pytest.fixture(scope="module")
def smoke_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("smoke")
    settings, location = JbagSettings(preset="smoke"), LakeResource(data_dir=str(root))
    materialize_all(ALL_ASSETS, settings, location, instance=dg.DagsterInstance.ephemeral(),
                    progress=lambda _: None)
    return root


@pytest.mark.slow
def test_smoke_graph_materialises_every_table(smoke_root):
    from engines import GAMES

    games = lake.read_table(smoke_root, "selfplay_games")
    assert sorted(games["game"].unique()) == sorted(GAMES)
    tokens = lake.read_table(smoke_root, "state_tokens")
    assert tokens["count"].min() >= 1
    bags = lake.read_table(smoke_root, "trajectory_bags")
    assert sorted(bags["frequency"].unique()) == ["full", "interval", "random"]
    assert not bags["token"].str.contains("playerResults").any()
    sums = bags.group_by("game", "frequency", "game_id").agg(pl.col("p").sum())
    assert (sums["p"] - 1).abs().max() < 1e-9
    protos = lake.read_table(smoke_root, "winner_prototypes")
    assert set(protos["seat"].unique()) <= set(range(4))
    classification = lake.read_table(smoke_root, "winner_classification")
    assert set(classification["prefix"]) == {0.25, 0.5, 0.75, 1.0}
    evaluation = lake.read_table(smoke_root, "evaluation_games")
    assert sorted(evaluation["game"].unique()) == sorted(GAMES)
    assert set(evaluation["score"].unique()) <= {-1, 0, 1}
    summary = lake.read_table(smoke_root, "evaluation_summary")
    assert (summary.filter(pl.col("scope") == "overall")["n"] > 0).all()
    assert summary["win_rate"].is_between(0, 1).all() and summary["ci_low"].min() >= -1 and summary["ci_high"].max() <= 1
    control = lake.read_table(smoke_root, "evaluation_control")
    seats = games.group_by("game").agg(pl.col("n_players").first())
    assert control.group_by("game").len().join(seats, on="game").select(pl.col("len") == pl.col("n_players")).to_series().all()
    assert sorted(control["game"].unique()) == sorted(GAMES)
    verdicts = lake.read_table(smoke_root, "verdicts")
    assert sorted(verdicts["game"]) == sorted(GAMES)
    assert set(verdicts["verdict"]) <= {"better", "worse", "no clear difference"}
    curve = lake.read_table(smoke_root, "learning_curve")
    assert sorted(curve["game"].unique()) == sorted(GAMES) and set(curve["share"]) <= {0.5, 1.0}
    assert set(verdicts["decided"].drop_nulls()) <= {True, False} and verdicts["curve_note"].is_not_null().all()
    pairs = set(zip(evaluation["prototype_frequency"], evaluation["feature_variant"]))
    assert ("full", "full_counters_kept") in pairs and ("full", "full") in pairs
    features = lake.read_table(smoke_root, "selected_features")
    for game in GAMES:  # no selected token of a field the game's default blacklist drops
        dropped = TokenFilter(PRESETS["smoke"].blacklist_for(game))
        assert all(dropped.keeps(t) for t in features.filter(pl.col("game") == game)["token"])
    ablation = lake.read_table(smoke_root, "value_function_ablation")
    assert sorted(ablation["game"].unique()) == sorted(GAMES) and ablation["is_default"].any()
    effects = lake.read_table(smoke_root, "effect_sizes")
    assert set(effects["factor"]) == {"prototype_frequency", "feature_variant"}
    assert (smoke_root / "jbag.duckdb").exists()
    page = (smoke_root / "report" / "index.html").read_text()
    assert page.index("Verdicts") < page.index("Self-play") and "Table III" in page


@pytest.mark.slow
def test_same_preset_and_seed_give_byte_identical_parquet(tmp_path):
    roots = []
    for name in ("first", "second"):
        root = tmp_path / name
        settings, location = JbagSettings(preset="smoke"), LakeResource(data_dir=str(root))
        materialize_all(ALL_ASSETS, settings, location, games=["connect4"],
                        instance=dg.DagsterInstance.ephemeral(), progress=lambda _: None)
        roots.append(root)
    files = sorted(p.relative_to(roots[0]) for p in (roots[0] / "lake").rglob("*.parquet"))
    assert len(files) > 10
    assert files == sorted(p.relative_to(roots[1]) for p in (roots[1] / "lake").rglob("*.parquet"))
    different = [str(f) for f in files if (roots[0] / f).read_bytes() != (roots[1] / f).read_bytes()]
    assert different == []
