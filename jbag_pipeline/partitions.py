"""The asset graph's partitions by game, declared below the assets so that automation/ and cli/ read them without
importing an asset module."""

import dagster as dg

from engines import GAMES

game_partitions = dg.StaticPartitionsDefinition(sorted(GAMES))
