"""Tiny trajectory files of a two-heap Nim-like game in the JSON-array format `ingested_games` reads."""

from __future__ import annotations

from pathlib import Path

import orjson


def nim_file(path: Path, n_states: int = 3, winner: int = 1) -> Path:
    """A game whose last state names `winner` (seat 0 or 1) in playerResults."""
    results = ["LOSE_GAME", "LOSE_GAME"]
    results[winner] = "WIN_GAME"
    docs = [{"gameType": "Nim", "nPlayers": 2, "heap": [n_states - t, t], "turn": t} for t in range(n_states)]
    docs[-1]["playerResults"] = results
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(docs))
    return path


def nim_inbox(root: Path, n_games: int = 12) -> Path:
    """<root>/inbox with nim-1.json .. nim-<n_games>.json (winners alternate, 3 to 6 states) and one broken file."""
    inbox = root / "inbox"
    for game_id in range(1, n_games + 1):
        nim_file(inbox / f"nim-{game_id}.json", n_states=3 + game_id % 4, winner=game_id % 2)
    (inbox / "nim-99.json").write_text("[{not json")
    return inbox
