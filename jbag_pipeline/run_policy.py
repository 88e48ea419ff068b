"""How `jbag run` treats an asset: tags the asset declares and cli/runner.plan reads off the definitions (a leaf
module, so that neither imports the other for them). Each tag's value is YES, except GAME's, which names the game."""

OPT_IN = "jbag/opt_in"  # outside the default selection: runs only when --select names it
AFTER_INGESTED = "jbag/after_ingested"  # reads the ingested model's lake tables: a step of its own after that model
SUMMARY = "jbag/summary"  # reads every lake table: the last step, after all others
GAME = "jbag/game"  # unpartitioned, but reads this game's partitions: skipped when --games leaves the game out

YES = "true"
