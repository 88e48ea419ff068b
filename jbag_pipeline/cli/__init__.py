"""The `jbag` command line; `main` is the console script `jbag = "jbag_pipeline.cli:main"`."""

from jbag_pipeline.cli.commands import main

__all__ = ["main"]
