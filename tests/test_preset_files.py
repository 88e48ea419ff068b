"""Preset files (jbag_pipeline.preset_files) without Dagster: a good file, each kind of mistake in one line naming
the file, the dotted key and the reason, and keys and types that follow the dataclasses' own fields."""

import dataclasses
import os
import re

import pytest

from jbag_pipeline.preset_files import (PresetFileError, is_preset_file, load_preset, preset_from_mapping,
                                        preset_reference, read_preset_file)
from jbag_pipeline.presets import PRESETS, GameRun, TransferSettings, game_run

GOOD = """\
base = "smoke"
top_k = 30
test_share = 1            # an integer where a float is asked: 1.0
evaluation_pairs = ["full-full", "full-none"]
turn_order_fields = { cant_stop = ["turnOwner"] }

[games.connect4]
selfplay_games = 400
params = { rows = 6, cols = 7 }

[games.tictactoe]
selfplay_agent = "mcts"

[transfer]
source_games = 3
finetune_games = [0, 2]
"""


def write(tmp_path, text: str, name: str = "mine.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_good_file_overrides_its_base(tmp_path):
    path = write(tmp_path, GOOD)
    preset, smoke = read_preset_file(path), PRESETS["smoke"]
    assert preset.name == "mine" and preset.seed == smoke.seed
    assert preset.top_k == 30 and preset.rf_trees == smoke.rf_trees
    assert preset.test_share == 1.0 and isinstance(preset.test_share, float)
    assert preset.evaluation_pairs == ("full-full", "full-none")  # arrays become tuples, as the presets write them
    # a table merges into the base's key by key: the other games keep their turn-order fields
    assert preset.turn_order_fields == {**smoke.turn_order_fields, "cant_stop": ("turnOwner",)}
    assert preset.games["connect4"] == dataclasses.replace(smoke.games["connect4"], selfplay_games=400,
                                                           params={"rows": 6, "cols": 7})
    assert {g: r for g, r in preset.games.items() if g != "connect4"} == \
        {g: r for g, r in smoke.games.items() if g != "connect4"}
    assert preset.transfer == {**smoke.transfer, "source_games": 3, "finetune_games": (0, 2)}
    assert preset.transfer_settings("connect4").finetune_games == (0, 2)


def test_base_alone_is_the_built_in_preset_under_the_files_name(tmp_path):
    for base in ("smoke", "demo", "paper"):
        assert read_preset_file(write(tmp_path, f'base = "{base}"\n', f"{base}_copy.toml")) == \
            dataclasses.replace(PRESETS[base], name=f"{base}_copy")
    assert read_preset_file(write(tmp_path, "top_k = 7\n", "nobase.toml")).games == PRESETS["demo"].games  # default
    assert read_preset_file(write(tmp_path, 'name = "c4-400"\nbase = "smoke"\n')).name == "c4-400"


def test_every_field_accepts_its_own_base_value_and_a_changed_one():
    """The accepted keys and types come from the dataclasses: each field of Preset, GameRun and TransferSettings
    (those added later too) takes its base value written as TOML would give it, and the result is unchanged."""
    smoke = PRESETS["smoke"]

    def as_toml(value):
        if isinstance(value, tuple):
            return [as_toml(v) for v in value]
        if isinstance(value, dict):
            return {k: as_toml(v) for k, v in value.items()}
        return value

    special = {"name", "games", "transfer"}
    for field in dataclasses.fields(smoke):
        value = getattr(smoke, field.name)
        if field.name not in special and value is not None:
            assert preset_from_mapping({"base": "smoke", field.name: as_toml(value)}, "x") == \
                dataclasses.replace(smoke, name="x"), field.name
    run = game_run(smoke, "dominion")
    for field in dataclasses.fields(GameRun):
        table = {"games": {"dominion": {field.name: as_toml(getattr(run, field.name))}}}
        assert preset_from_mapping({"base": "smoke", **table}, "x").games["dominion"] == run, field.name
    settings = TransferSettings()
    for field in dataclasses.fields(TransferSettings):
        value = getattr(settings, field.name)
        if value is not None:
            loaded = preset_from_mapping({"base": "smoke", "transfer": {field.name: as_toml(value)}}, "x")
            assert loaded.transfer[field.name] == value, field.name


def test_a_new_field_of_a_dataclass_is_accepted_with_its_type(monkeypatch):
    """A field another change adds (here to GameRun: a tuple of floats, an optional tuple of strings, an int) is
    read by its type hint, with no list to update."""
    @dataclasses.dataclass(frozen=True)
    class Extended(GameRun):
        learning_curve_shares: tuple[float, ...] = (0.5, 1.0)
        learning_curve_pairs: tuple[str, ...] | None = None
        ablation_top_k: int = 100

    import jbag_pipeline.preset_files as preset_files

    def extended_run(preset, game):
        return Extended(**dataclasses.asdict(game_run(preset, game)))

    monkeypatch.setattr(preset_files, "GameRun", Extended)
    monkeypatch.setattr(preset_files, "game_run", extended_run)
    table = {"learning_curve_shares": [0.25, 1], "learning_curve_pairs": ["full-full"], "ablation_top_k": 500}
    run = preset_from_mapping({"base": "smoke", "games": {"connect4": table}}, "x").games["connect4"]
    assert (run.learning_curve_shares, run.learning_curve_pairs, run.ablation_top_k) == \
        ((0.25, 1.0), ("full-full",), 500)
    for value, expected in [({"ablation_top_k": 1.5},
                             "games.connect4.ablation_top_k: expected an integer, got a number (1.5)"),
                            ({"learning_curve_shares": [0.5, "all"]},
                             "games.connect4.learning_curve_shares[1]: expected a number, got a string ('all')"),
                            ({"learning_curve_pairs": "full-full"},
                             "games.connect4.learning_curve_pairs: expected an array of strings, got a string")]:
        with pytest.raises(PresetFileError, match=re.escape(f"preset file f.toml: {expected}")):
            preset_from_mapping({"base": "smoke", "games": {"connect4": value}}, "x", "f.toml")


# (file text, the error after "preset file <path>: ")
MISTAKES = [
    ("top_kk = 3\n", "top_kk: unknown key (did you mean 'top_k'?); a preset file takes base, name, seed, games, "),
    ("[games.connect4]\nselfplay_gams = 3\n",
     "games.connect4.selfplay_gams: unknown key (did you mean 'selfplay_games'?)"),
    ("[transfer]\nsourc_games = 3\n", "transfer.sourc_games: unknown key (did you mean 'source_games'?)"),
    ('[games.connect4]\nselfplay_games = "400"\n',
     "games.connect4.selfplay_games: expected an integer, got a string ('400')"),
    ("[games.connect4]\nselfplay_games = true\n",
     "games.connect4.selfplay_games: expected an integer, got a boolean (true)"),
    ("[games.connect4]\nselfplay_games = 4.0\n",
     "games.connect4.selfplay_games: expected an integer, got a number (4.0)"),
    ('test_share = "0.3"\n', "test_share: expected a number, got a string ('0.3')"),
    ('evaluation_pairs = ["full-full", 1]\n', "evaluation_pairs[1]: expected a string, got an integer (1)"),
    ('outcome_fields = { connect4 = "gameStatus" }\n',
     "outcome_fields.connect4: expected an array of strings, got a string ('gameStatus')"),
    ("games = 3\n", "games: expected tables [games.<game>], got an integer (3)"),
    ("[games.chess]\nselfplay_games = 3\n", "games.chess: unknown game; known games: cant_stop, connect4, "),
    ("[games.conect4]\nselfplay_games = 3\n", "games.conect4: unknown game (did you mean 'connect4'?)"),
    ('base = "huge"\n', "base: expected a built-in preset, one of ['smoke', 'demo', 'reproduce', 'paper'], got a string ('huge')"),
    ('base = 1\n', "base: expected a built-in preset, one of ['smoke', 'demo', 'reproduce', 'paper'], got an integer (1)"),
    ('name = "smoke"\n', "name: 'smoke' is a built-in preset's name; give the file another name or a `name` key"),
    ("seed = 4294967296\n", "seed: 4294967296 is outside 0..2^32-1"),
    # the dataclasses' own __post_init__ checks, blamed on the key they name
    ('[games.connect4]\nselfplay_agent = "alpha"\n',
     "games.connect4.selfplay_agent: GameRun: selfplay_agent must be one of ['mcts', 'openspiel_mcts'], got 'alpha'"),
    ("[transfer]\nfinetune_games = [0, -1]\n",
     "transfer.finetune_games: TransferSettings: finetune_games must be ints >= 0, got (0, -1)"),
    ("[games.connect4]\nparams = { columns = 7 }\n",
     "games.connect4.params: connect4: unknown parameter(s) ['columns']; allowed: ['cols', 'rows', 'win_length']"),
    ('base = "smoke\n', "not valid TOML (Illegal character '\\n' (at line 1, column 14))"),
    ("top_k = 3\ntop_k = 4\n", "not valid TOML (Cannot overwrite a value (at line 2, column 10))"),
]


@pytest.mark.parametrize("text, expected", MISTAKES, ids=[m[1].split(":")[0] for m in MISTAKES])
def test_a_mistake_is_one_line_naming_file_key_and_reason(tmp_path, text, expected):
    path = write(tmp_path, text)
    with pytest.raises(PresetFileError) as refused:
        load_preset(str(path))
    message = str(refused.value)
    assert message.startswith(f"preset file {path}: {expected}"), message
    assert "\n" not in message


def test_a_missing_unreadable_or_binary_file(tmp_path):
    with pytest.raises(PresetFileError,
                       match="^preset file .*missing.toml: cannot read it \\(No such file or directory\\)$"):
        load_preset(str(tmp_path / "missing.toml"))
    with pytest.raises(PresetFileError, match="cannot read it \\(Is a directory\\)$"):
        read_preset_file(tmp_path)
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"top_k = \xff\n")
    with pytest.raises(PresetFileError, match="not valid TOML"):
        load_preset(str(binary))
    if os.geteuid() != 0:  # root reads a mode-000 file all the same
        locked = write(tmp_path, "top_k = 3\n", "locked.toml")
        locked.chmod(0)
        with pytest.raises(PresetFileError, match="cannot read it \\(Permission denied\\)$"):
            load_preset(str(locked))


def test_references_seed_and_environment(tmp_path, monkeypatch):
    path = write(tmp_path, 'base = "smoke"\n')
    monkeypatch.chdir(tmp_path)
    assert not is_preset_file("smoke") and not is_preset_file("nope")
    assert is_preset_file("mine.toml") and is_preset_file("folder/presetfile") and is_preset_file("missing.toml")
    assert preset_reference("mine.toml") == str(path) and preset_reference("smoke") == "smoke"
    assert load_preset("mine.toml", seed=5) == dataclasses.replace(PRESETS["smoke"], name="mine", seed=5)
    monkeypatch.setenv("JBAG_PRESET", "mine.toml")
    assert preset_reference() == str(path) and load_preset().name == "mine"
    monkeypatch.delenv("JBAG_PRESET")
    assert preset_reference() == "demo" and load_preset() is PRESETS["demo"]
    with pytest.raises(ValueError, match=r"^unknown preset 'nope'; choose one of \['smoke', 'demo', 'reproduce', 'paper'\] or a "):
        load_preset("nope")


def test_an_edited_file_is_read_again(tmp_path):
    path = write(tmp_path, "top_k = 3\n")
    assert read_preset_file(path).top_k == 3
    path.write_text("top_k = 41\n")
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000))  # even within one clock tick
    assert read_preset_file(path).top_k == 41

