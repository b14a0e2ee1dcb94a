"""Imports run with Python's cyclic garbage collector paused.

An import builds tens of thousands of model instances that all live until it ends, and the
collector, triggered by every few hundred new objects, walked them again and again: a third
of a benchmark import's CPU time. Paused for the import, it runs as usual afterwards; the
objects with reference cycles among them are freed then, by the next collection.
"""

import gc
from collections.abc import Callable
from functools import wraps


def collector_paused[**P, R](function: Callable[P, R]) -> Callable[P, R]:
    """`function` run with the cyclic garbage collector off (left as it was found after)."""

    @wraps(function)
    def paused(*args: P.args, **kwargs: P.kwargs) -> R:
        enabled = gc.isenabled()
        gc.disable()
        try:
            return function(*args, **kwargs)
        finally:
            if enabled:
                gc.enable()

    return paused
