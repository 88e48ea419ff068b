"""A batch task that imports nothing: which of the named modules its worker process has loaded."""

import sys


def loaded_modules(chunk: list[str]) -> list[bool]:
    return [name in sys.modules for name in chunk]
