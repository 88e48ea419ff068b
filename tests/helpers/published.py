"""A tiny published value-function folder (the layout of ../shared/data/jsonbag_vf_published) written to a tmp dir."""

from __future__ import annotations

import json
from pathlib import Path

from engines import load_game
from jbag_pipeline.model.published import FEATURES_FILE, PUBLISHED_FOLDERS
from jbag_pipeline.tokenize import tokenize_state

SHARED_PUBLISHED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "jsonbag_vf_published"
SEATS = {"connect4": 2, "dots_and_boxes": 2}  # the others: 4 seats, as the authors' folders hold
TICK_FEATURE = ".tick.5"  # a Can't Stop token our TAG documents never produce (their tick is unknown)


def _tokens(game: str) -> dict[str, int]:
    """Tokens of the game's initial TAG document, or made-up ones for a game without a TAG dialect."""
    try:
        return tokenize_state(load_game(game).new_state(0).to_json(dialect="tag"), mode="both", num_suffix=True)
    except (TypeError, ValueError):
        return {f".made.up.{i}": i + 1 for i in range(6)}


def write_published(folder: Path) -> Path:
    """Per game: prototypes from the initial TAG document's tokens (seat i doubles the count of token i), its
    first ten tokens as the feature list (Can't Stop: plus TICK_FEATURE); a README with provenance."""
    for game, name in PUBLISHED_FOLDERS.items():
        directory = folder / name
        directory.mkdir(parents=True)
        tokens = _tokens(game)
        for seat in range(SEATS.get(game, 4)):
            bag = {t: c * (2 if i == seat else 1) for i, (t, c) in enumerate(sorted(tokens.items()))}
            (directory / f"prototype{seat}.json").write_text(json.dumps(bag))
        features = sorted(tokens)[:10] + ([TICK_FEATURE] if game == "cant_stop" else [])
        (directory / FEATURES_FILE).write_text(json.dumps(features))
    (folder / "README.md").write_text("- Source: GitHub `someone/TabletopGames`, branch `main`, commit "
                                      "`0123456789abcdef0123456789abcdef01234567` (2026-03-25)\n- License: MIT\n")
    return folder
