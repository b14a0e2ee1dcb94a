"""What a comparison of judge runs says, read out: which run may replace the experts overall
and on which criteria, which run agrees with the experts more where two differ, and where
there is too little data to say.

Pure: a `RunComparison` (core.analysis.comparison) in, a frozen `ComparisonSummary` out, no
Django. It decides and counts; the sentences are phrased in the compare page's template
(`judging/compare.html#summary`), so they are translated where they are read.

"May replace the experts" is the alternative annotator test (Calderon, Reichart & Dror 2025;
`core.stats.alternative_annotator_test`): the judge wins against at least half the experts
tested, each held out in turn. Its winning rate is a share of experts, so its interval is
Wilson's on (experts won, experts tested): with the few experts of a study it is wide, and the
page says so by giving it. A criterion whose test could not be run (too few experts with
enough units on it) is "too little data", never "cannot replace".
"""

from dataclasses import dataclass

from core.analysis.comparison import PairComparison, RunComparison, RunSummary
from core.stats import AltTestResult, Ratio, wilson_interval
from core.stats.judge import ALT_TEST_MIN_EXPERTS, ALT_TEST_MIN_ITEMS

__all__ = [
    "AltTestFinding",
    "ComparisonSummary",
    "PairFinding",
    "RunFinding",
    "comparison_summary",
]


@dataclass(frozen=True)
class AltTestFinding:
    """One alternative annotator test, as the words need it."""

    can_replace: bool | None  # None: too little data to run the test
    won: int  # experts the judge won against
    tested: int  # experts tested: the n of the winning rate
    experts: int  # experts held out in turn (tested or not)
    min_units: int  # fewest and most units of a tested expert
    max_units: int
    winning_rate: float | None
    low: float | None  # Wilson 95% interval of the winning rate
    high: float | None
    reason: str | None  # why the test could not be run (a core.messages Text)

    @classmethod
    def of(cls, alt: AltTestResult) -> "AltTestFinding":
        won = sum(1 for expert in alt.experts if expert.rejected)
        low, high = wilson_interval(Ratio(won, alt.n_tested))
        return cls(
            can_replace=alt.judge_can_replace,
            won=won,
            tested=alt.n_tested,
            experts=alt.n_experts,
            min_units=alt.min_items,
            max_units=alt.max_items,
            winning_rate=alt.winning_rate,
            low=low if alt.winning_rate is not None else None,
            high=high if alt.winning_rate is not None else None,
            reason=alt.undefined_reason,
        )


@dataclass(frozen=True)
class RunFinding:
    """Whether one run may replace the experts, overall and criterion by criterion."""

    run: str
    overall: AltTestFinding
    replaces_on: tuple[str, ...]  # criteria (codes) where it may replace them
    not_on: tuple[str, ...]  # criteria where it was tested and may not
    unknown_on: tuple[str, ...]  # criteria with too little data for the test

    @property
    def replaces_overall(self) -> bool:
        return self.overall.can_replace is True


@dataclass(frozen=True)
class PairFinding:
    """Two runs against the experts' majority (McNemar's test): the one that agrees with it
    more overall first, when one does."""

    better: str  # the run that agrees more overall (the first given when neither does)
    worse: str
    differs: bool  # the overall test found a difference at the comparison's level
    compared: int  # units both answered and the experts' majority decided
    p_value: float
    better_on: tuple[str, ...]  # criteria where `better` agrees more (Holm-corrected)
    worse_on: tuple[str, ...]  # criteria where `worse` agrees more
    same_on: int  # criteria tested without a detectable difference
    untested_on: tuple[str, ...]  # criteria with no unit to compare: too little data


@dataclass(frozen=True)
class ComparisonSummary:
    runs: tuple[RunFinding, ...]  # in the comparison's order
    pairs: tuple[PairFinding, ...]
    level: float  # significance level of the pair tests (family-wise per pair)
    n_criteria: int  # criteria compared (with a unit every run judged)
    unknown_criteria: tuple[str, ...]  # criteria where no run's alt-test could be run
    # What the test needs to be run (core.stats.alternative_annotator_test's defaults, which
    # the comparison uses): experts tested, each with this many units.
    min_experts: int = ALT_TEST_MIN_EXPERTS
    min_units: int = ALT_TEST_MIN_ITEMS

    @property
    def unknown_everywhere(self) -> bool:
        """No criterion has the data for any run's test."""
        return self.n_criteria > 0 and len(self.unknown_criteria) == self.n_criteria

    @property
    def replacing(self) -> tuple[RunFinding, ...]:
        """Runs that may replace the experts overall."""
        return tuple(run for run in self.runs if run.replaces_overall)

    @property
    def partly_replacing(self) -> tuple[RunFinding, ...]:
        """Runs that may not replace the experts overall (or could not be tested overall) but
        may on some criteria."""
        return tuple(run for run in self.runs if not run.replaces_overall and run.replaces_on)

    @property
    def not_replacing(self) -> tuple[RunFinding, ...]:
        """Runs tested overall that may replace the experts nowhere."""
        return tuple(
            run for run in self.runs if run.overall.can_replace is False and not run.replaces_on
        )

    @property
    def untested(self) -> tuple[RunFinding, ...]:
        """Runs with too little data for the test overall."""
        return tuple(run for run in self.runs if run.overall.can_replace is None)


def _run_finding(run: RunSummary, codes: list[str]) -> RunFinding:
    verdicts = [group.calibration.alt_test.judge_can_replace for group in run.criteria]
    return RunFinding(
        run=run.name,
        overall=AltTestFinding.of(run.overall.calibration.alt_test),
        replaces_on=tuple(c for c, v in zip(codes, verdicts, strict=True) if v is True),
        not_on=tuple(c for c, v in zip(codes, verdicts, strict=True) if v is False),
        unknown_on=tuple(c for c, v in zip(codes, verdicts, strict=True) if v is None),
    )


def _pair_finding(pair: PairComparison) -> PairFinding:
    direction = pair.overall.direction
    second_first = direction > 0
    more = tuple(c.label for c in pair.criteria if c.direction > 0)  # the second agrees more
    less = tuple(c.label for c in pair.criteria if c.direction < 0)
    return PairFinding(
        better=pair.second if second_first else pair.first,
        worse=pair.first if second_first else pair.second,
        differs=direction != 0,
        compared=pair.overall.test.n_pairs,
        p_value=pair.overall.test.p_value,
        better_on=more if second_first else less,
        worse_on=less if second_first else more,
        same_on=pair.no_difference,
        untested_on=tuple(c.label for c in pair.criteria if c.test.n_pairs == 0),
    )


def comparison_summary(comparison: RunComparison) -> ComparisonSummary:
    """What `comparison` says in words: see the module's docstring."""
    codes = [info.code for info in comparison.criteria]
    runs = tuple(_run_finding(run, codes) for run in comparison.runs)
    unknown = tuple(
        code
        for n, code in enumerate(codes)
        if all(
            run.criteria[n].calibration.alt_test.judge_can_replace is None
            for run in comparison.runs
        )
    )
    return ComparisonSummary(
        runs=runs,
        pairs=tuple(_pair_finding(pair) for pair in comparison.pairs),
        level=comparison.level,
        n_criteria=len(codes),
        unknown_criteria=unknown,
    )
