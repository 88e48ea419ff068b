"""How `jbag run` treats an asset, declared on the asset as a tag (cli/runner.plan reads them off the definitions).

Each tag's value is "true", except GAME's, which names the game.
"""

OPT_IN = "jbag/opt_in"  # outside the default selection: runs only when --select names it
AFTER_INGESTED = "jbag/after_ingested"  # reads the ingested model's lake tables: a step of its own after that model
SUMMARY = "jbag/summary"  # reads every lake table: the last step, after all others
GAME = "jbag/game"  # unpartitioned, but reads this game's partitions: skipped when --games leaves the game out

YES = "true"
