"""Result types shared by every coefficient in :mod:`core.stats`.

All results are frozen dataclasses. A coefficient that cannot be computed is never
reported as ``NaN`` or ``0``: its ``value`` is ``None`` and ``undefined_reason`` says why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from core.messages import gettext_noop

__all__ = [
    "FEWER_THAN_TWO_PAIRABLE",
    "NO_VARIATION",
    "Coefficient",
    "Ratio",
    "defined",
    "undefined",
]

#: Reason used when no unit carries at least two ratings (nothing can be paired).
FEWER_THAN_TWO_PAIRABLE = gettext_noop("fewer than two pairable ratings")
#: Reason used when expected disagreement is zero (chance-corrected coefficients are 0/0).
NO_VARIATION = gettext_noop("no variation: every rating is the same value")


@dataclass(frozen=True, slots=True)
class Coefficient:
    """A chance-corrected (or plain) agreement coefficient, or the reason it is undefined.

    Attributes:
        name: Short identifier, e.g. ``"krippendorff_alpha_nominal"``.
        value: The coefficient (dimensionless, usually in [-1, 1]); ``None`` when undefined.
        undefined_reason: Human-readable reason when ``value`` is ``None``, else ``None``.
        n_units: Units (items x criterion) that contributed, i.e. carried >= 2 ratings
            for pairwise coefficients, or the rows used otherwise.
        n_ratings: Ratings that contributed (pairable ratings for pairwise coefficients).
        observed: The observed component: observed agreement (kappa family, AC1) or
            observed disagreement D_o (alpha). ``None`` when it could not be computed.
        expected: The chance component: chance agreement p_e (kappa family, AC1) or
            expected disagreement D_e (alpha). ``None`` when it could not be computed.
    """

    name: str
    value: float | None
    undefined_reason: str | None
    n_units: int
    n_ratings: int
    observed: float | None = None
    expected: float | None = None

    def __post_init__(self) -> None:
        if (self.value is None) == (self.undefined_reason is None):
            raise ValueError("exactly one of value and undefined_reason must be set")
        if self.value is not None and not math.isfinite(self.value):
            raise ValueError(f"{self.name}: value must be finite, got {self.value!r}")

    @property
    def is_defined(self) -> bool:
        """True when ``value`` holds a number."""
        return self.value is not None


def defined(
    name: str,
    value: float,
    *,
    n_units: int,
    n_ratings: int,
    observed: float | None = None,
    expected: float | None = None,
) -> Coefficient:
    """Build a defined :class:`Coefficient` (plain Python floats/ints)."""
    return Coefficient(
        name=name,
        value=float(value),
        undefined_reason=None,
        n_units=int(n_units),
        n_ratings=int(n_ratings),
        observed=None if observed is None else float(observed),
        expected=None if expected is None else float(expected),
    )


def undefined(
    name: str,
    reason: str,
    *,
    n_units: int,
    n_ratings: int,
    observed: float | None = None,
    expected: float | None = None,
) -> Coefficient:
    """Build an undefined :class:`Coefficient` carrying ``reason``."""
    return Coefficient(
        name=name,
        value=None,
        undefined_reason=reason,
        n_units=int(n_units),
        n_ratings=int(n_ratings),
        observed=None if observed is None else float(observed),
        expected=None if expected is None else float(expected),
    )


@dataclass(frozen=True, slots=True)
class Ratio:
    """A proportion kept as its integer parts so an empty denominator stays explicit.

    ``value`` is ``numerator / denominator`` (a fraction in [0, 1] for counts), or ``None``
    when the denominator is zero (e.g. sensitivity when the reference has no positives).
    """

    numerator: int
    denominator: int

    def __post_init__(self) -> None:
        if self.denominator < 0 or self.numerator < 0:
            raise ValueError("numerator and denominator must be non-negative")

    @property
    def value(self) -> float | None:
        """The proportion, or ``None`` when the denominator is zero."""
        if self.denominator == 0:
            return None
        return self.numerator / self.denominator
