"""The command line of a benchmark whose options are sizes and counts."""
from __future__ import annotations

import argparse


def whole_numbers(doc: str, **defaults: int | list[int]) -> argparse.Namespace:
    """The options given to a benchmark described by the first line of ``doc``: ``--name N`` for each of
    ``defaults`` (a name's underscores as hyphens), a whole number, or one or more where the default is a list."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    for name, default in defaults.items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=int, default=default,
                            nargs="+" if isinstance(default, list) else None)
    return parser.parse_args()
