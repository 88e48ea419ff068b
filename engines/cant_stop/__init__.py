"""Can't Stop: the game (game.py) and its TAG-dialect documents (tag_json.py)."""

from engines.cant_stop.game import MARKERS, SLOTS, TRACK_LENGTHS, TRACKS, CantStop, roll_value, seeded_random

__all__ = ["MARKERS", "SLOTS", "TRACK_LENGTHS", "TRACKS", "CantStop", "roll_value", "seeded_random"]
