"""Game engines and generic agents. Knows nothing of JSON-Bag, Dagster or DuckDB."""

from engines.registry import GAMES, load_game

__all__ = ["GAMES", "load_game"]
