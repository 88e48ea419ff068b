"""The `jbag` command line; `main` is the console script `jbag = "jbag_pipeline.cli:main"`."""

import sys

from jbag_pipeline.cli import interrupt


def main(argv: list[str] | None = None) -> int:
    """The `jbag` command. As the program (argv None) a Ctrl-C ends it in one line, even during the imports below
    (cli/interrupt.py); called with an argv (in-process, as tests do) signals are left as they are."""
    if argv is None:
        interrupt.exit_at_once(interrupt.command_in(sys.argv[1:]))
    from jbag_pipeline.cli.commands import main as run_command

    return run_command(argv)


__all__ = ["main"]
