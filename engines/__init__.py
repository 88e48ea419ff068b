"""Game engines and generic agents. Knows nothing of JSON-Bag, Dagster or DuckDB."""

from engines.registry import GAMES, game_info, load_game

__all__ = ["GAMES", "game_info", "load_game"]
