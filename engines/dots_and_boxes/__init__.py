"""Dots and Boxes: the game (game.py) and its TAG-dialect documents (tag_json.py)."""

from engines.dots_and_boxes.game import DotsAndBoxes, line_ids_of_box, owners_of_bits

__all__ = ["DotsAndBoxes", "line_ids_of_box", "owners_of_bits"]
