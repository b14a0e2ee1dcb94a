"""Two to four judge runs side by side against the experts of one study.

Pure: numpy arrays and dataclasses in, frozen dataclasses out; no Django. `agreement.data`
builds the RunVerdicts from the database.

The runs are compared on the units they share: the expert-graded (response, criterion) units
every run judged. A judge's answer that could not be read as pass or fail (UNPARSEABLE) is a
unit the run judged but a verdict it did not give: it counts in the run's unparseable rate
and is left out of every other figure, never guessed as pass or fail. Each run's figures
reuse the calibration code (`core.analysis.calibration`); two runs are compared with
McNemar's paired test on the units both answered and the experts' majority decided; the
per-criterion tests of a pair are one family of tests, their p-values Holm-Bonferroni corrected
(`core.stats.holm`) so that "agrees more on 14 criteria" is not the chance winner of many
5% tests.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import TypedDict

import numpy as np
import numpy.typing as npt

from core.analysis.calibration import (
    MISSING,
    UNPARSEABLE,
    FloatArray,
    JudgeData,
    JudgeGroup,
    expert_levels,
    experts_matrix,
    judge_group,
    lower_median,
)
from core.analysis.ratings import CriterionInfo, IntArray, StudyRatings
from core.messages import Text, gettext_noop
from core.stats import (
    Interval,
    LevelAgreement,
    McNemar,
    Ratio,
    holm,
    level_agreement,
    majority_reference,
    mcnemar,
)
from core.stats.grouped import grouped_intervals

LEVEL = 0.05  # family-wise significance level of a pair's per-criterion tests


@dataclass(frozen=True)
class RunVerdicts:
    """One judge run's first-epoch answers on the units of a study's ratings."""

    name: str
    verdicts: IntArray  # per unit: FAIL, PASS, UNPARSEABLE, or MISSING where not judged
    family: str = ""  # the judge's model family, for self-preference ("" when unknown)
    tokens: int | None = None  # total tokens of the run; None when not recorded
    seconds: float | None = None  # wall time of the run; None when not recorded
    # Ordinal criteria: the first-epoch level on each row of compare_runs' `level_pairs`
    # (NaN where none).
    levels: FloatArray = field(default_factory=lambda: np.empty(0))


@dataclass(frozen=True)
class RunGroup:
    """One run on one set of shared units (a criterion, or every shared unit)."""

    label: str
    n_shared: int  # shared units in the group
    unparseable: Ratio  # unparseable answers among them
    calibration: JudgeGroup  # on the answered units: majority, gold, alt-test, leniency
    alpha: Interval  # Krippendorff's alpha with the judge as one more rater
    ac1: Interval  # Gwet's AC1 likewise


@dataclass(frozen=True)
class RunLevels:
    """One run on one ordinal criterion, over the responses every run gave a level on: its
    levels against the gold levels and against the experts' median level."""

    n_shared: int  # responses every run gave a level on and an expert graded
    vs_gold: LevelAgreement
    vs_experts: LevelAgreement


@dataclass(frozen=True)
class RunSummary:
    name: str
    family: str
    overall: RunGroup
    criteria: tuple[RunGroup, ...]  # in the order of RunComparison.criteria
    self_preference_gap: float | None  # leniency on own family minus on the others
    tokens: int | None
    seconds: float | None
    # The gap's n: units of the judge's own family and of the others (leniency's n_items).
    self_preference_n: tuple[int, int] = (0, 0)
    levels: tuple[RunLevels, ...] = ()  # in the order of RunComparison.ordinal


@dataclass(frozen=True)
class PairTest:
    label: str
    test: McNemar
    direction: int  # +1: the second run agrees with the experts more; -1: less; 0: no difference
    p_adjusted: float  # Holm-corrected among the pair's criteria (the raw p for the overall test)


@dataclass(frozen=True)
class PairComparison:
    """The second run against the first: who agrees with the expert majority more often."""

    first: str
    second: str
    overall: PairTest
    criteria: tuple[PairTest, ...]
    level: float

    @property
    def more(self) -> int:
        return sum(1 for c in self.criteria if c.direction > 0)

    @property
    def less(self) -> int:
        return sum(1 for c in self.criteria if c.direction < 0)

    @property
    def untestable(self) -> int:
        """Criteria with no unit both runs answered and the experts' majority decided."""
        return sum(1 for c in self.criteria if c.test.n_pairs == 0)

    @property
    def no_difference(self) -> int:
        return len(self.criteria) - self.more - self.less - self.untestable

    @property
    def sentence(self) -> str:
        """E.g. "v2 agrees with the experts more than v1 on 14 criteria, less on 2, no
        detectable difference on 12 (McNemar's test per criterion, Holm-corrected p-values,
        5% family-wise level)"."""
        text = Text.ngettext(
            "%(second)s agrees with the experts more than %(first)s on %(more)s criterion, "
            "less on %(less)s, no detectable difference on %(same)s",
            "%(second)s agrees with the experts more than %(first)s on %(more)s criteria, "
            "less on %(less)s, no detectable difference on %(same)s",
            "more",
            second=self.second,
            first=self.first,
            more=self.more,
            less=self.less,
            same=self.no_difference,
        )
        if self.untestable:
            text = gettext_noop(
                "%(text)s; %(n)s without a shared unit to compare", text=text, n=self.untestable
            )
        tested = len(self.criteria) - self.untestable
        return gettext_noop(
            "%(text)s (McNemar's test per criterion, %(correction)s)",
            text=text,
            correction=_correction(tested, self.level),
        )


def _correction(tested: int, level: float) -> str:
    level_text = f"{level * 100:g}%"
    if tested <= 1:
        return gettext_noop("%(level)s level", level=level_text)
    return gettext_noop(
        "p-values Holm-corrected for the %(n)s criteria tested, %(level)s family-wise level",
        n=tested,
        level=level_text,
    )


@dataclass(frozen=True)
class RunComparison:
    criteria: tuple[CriterionInfo, ...]  # criteria with at least one shared unit
    n_shared: int
    runs: tuple[RunSummary, ...]
    pairs: tuple[PairComparison, ...]  # every two runs, the later one second
    level: float
    ordinal: tuple[CriterionInfo, ...] = ()  # ordinal criteria with a shared level


def shared_units(ratings: StudyRatings, runs: list[RunVerdicts]) -> npt.NDArray[np.bool_]:
    """Units every run judged (an unparseable answer counts as judged)."""
    shared = np.ones(ratings.n_units, dtype=bool)
    for run in runs:
        shared &= run.verdicts != MISSING
    return shared


class _Options(TypedDict):
    epsilon: float
    n_resamples: int
    seed: int


def _judge_data(
    ratings: StudyRatings,
    run: RunVerdicts,
    shared: npt.NDArray[np.bool_],
    gold: IntArray,
    item_family: tuple[str, ...],
) -> JudgeData:
    answered = np.where(shared & (run.verdicts >= 0), run.verdicts, MISSING).astype(np.int64)
    return JudgeData(
        ratings=ratings,
        judge_name=run.name,
        judge=answered,
        judge_epochs=answered[None, :],
        gold=gold,
        item_family=item_family,
    )


def _with_judge(ratings: StudyRatings, data: JudgeData, units: IntArray) -> IntArray:
    """(units x 2) pass/fail counts of the experts plus the judge on `units`."""
    counts = ratings.counts()[units]
    counts[np.arange(units.size), data.judge[units]] += 1
    return counts


def _run_groups(
    ratings: StudyRatings,
    run: RunVerdicts,
    data: JudgeData,
    groups: Sequence[tuple[str, npt.NDArray[np.bool_]]],
    *,
    epsilon: float,
    n_resamples: int,
    seed: int,
) -> list[RunGroup]:
    """The run on each group of shared units (label, mask), the intervals of every group from
    one set of resampled responses, by the methods of the study's report (BCa for alpha,
    withheld where unreliable; Wilson-type for AC1), so that a run's figures here read like
    its calibration elsewhere."""
    units = np.flatnonzero(data.judge != MISSING)
    counts = _with_judge(ratings, data, units)
    clusters = ratings.unit_item[units]  # the criteria of one response travel together
    found = grouped_intervals(
        counts,
        clusters,
        [mask[units] for _, mask in groups],
        n_resamples=n_resamples,
        seed=seed,
    )
    return [
        RunGroup(
            label=label,
            n_shared=int(mask.sum()),
            unparseable=Ratio(int((mask & (run.verdicts == UNPARSEABLE)).sum()), int(mask.sum())),
            calibration=judge_group(
                data, mask, label, epsilon=epsilon, n_resamples=n_resamples, seed=seed
            ),
            alpha=intervals.alpha,
            ac1=intervals.ac1,
        )
        for (label, mask), intervals in zip(groups, found, strict=True)
    ]


def _self_preference_gap(
    data: JudgeData,
    family: str,
    shared: npt.NDArray[np.bool_],
    *,
    epsilon: float,
    n_resamples: int,
    seed: int,
) -> tuple[float | None, tuple[int, int]]:
    """Leniency on the judge's own family minus on the others, and the units of each."""
    if not family:
        return None, (0, 0)
    ratings = data.ratings
    families = np.array([data.item_family[i] for i in ratings.unit_item.tolist()], dtype=object)
    own = shared & (families == family)
    others = shared & (families != family)
    if not (own.any() and others.any()):
        return None, (0, 0)
    options: _Options = {"epsilon": epsilon, "n_resamples": n_resamples, "seed": seed}
    mine = judge_group(data, own, "own family", **options)
    theirs = judge_group(data, others, gettext_noop("other families"), **options)
    if mine.leniency is None or theirs.leniency is None:
        return None, (0, 0)
    n = (mine.leniency.n_items, theirs.leniency.n_items)
    return mine.leniency.difference - theirs.leniency.difference, n


def correct_against_majority(
    ratings: StudyRatings, data: JudgeData, units: IntArray
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """For `units`: whether the experts' majority decided the unit, and whether the judge's
    verdict equals it (a unit without a strict majority or a judge verdict is undecided)."""
    majority = majority_reference(experts_matrix(ratings, units))
    decided = (majority != MISSING) & (data.judge[units] != MISSING)
    return decided, decided & (data.judge[units] == majority)


def pair_test(
    ratings: StudyRatings,
    first: JudgeData,
    second: JudgeData,
    units: IntArray,
    label: str,
    level: float = LEVEL,
) -> PairTest:
    """McNemar's test of two runs against the expert majority on `units` (both answered),
    uncorrected: `holm_corrected` corrects a family of them."""
    decided_a, right_a = correct_against_majority(ratings, first, units)
    decided_b, right_b = correct_against_majority(ratings, second, units)
    both = decided_a & decided_b
    test = mcnemar(
        int((both & right_a & ~right_b).sum()),
        int((both & right_b & ~right_a).sum()),
        n_pairs=int(both.sum()),
    )
    return PairTest(label, test, test.winner(level), test.p_value)


def holm_corrected(tests: list[PairTest], level: float = LEVEL) -> tuple[PairTest, ...]:
    """The tests with Holm-corrected p-values and the directions they support at `level`,
    family-wise. A test without a paired unit is no test and stays out of the family."""
    tested = [n for n, t in enumerate(tests) if t.test.n_pairs]
    adjusted = dict(zip(tested, holm([tests[n].test.p_value for n in tested]), strict=True))
    return tuple(
        PairTest(t.label, t.test, t.test.winner(level, p), p)
        for n, t in enumerate(tests)
        for p in [adjusted.get(n, t.test.p_value)]
    )


def compare_levels(
    ratings: StudyRatings,
    runs: Sequence[RunVerdicts],
    level_pairs: IntArray,
    gold_levels: FloatArray,
) -> tuple[tuple[CriterionInfo, ...], list[tuple[RunLevels, ...]]]:
    """Each ordinal criterion with a response every run gave a level on and an expert graded,
    and per run its levels there against the gold levels and the experts' median level."""
    if not len(level_pairs) or not runs:
        return (), [() for _ in runs]
    median = lower_median(expert_levels(ratings, level_pairs))
    shared = ~np.isnan(median)
    for run in runs:
        shared &= ~np.isnan(run.levels)
    criteria = []
    found: list[list[RunLevels]] = [[] for _ in runs]
    for criterion in sorted(set(level_pairs[shared, 1].tolist())):
        info = ratings.criteria[criterion]
        if info.scale is None:
            continue
        pairs = shared & (level_pairs[:, 1] == criterion)
        criteria.append(info)
        for n, run in enumerate(runs):
            judge = run.levels[pairs]
            found[n].append(
                RunLevels(
                    n_shared=int(pairs.sum()),
                    vs_gold=level_agreement(judge, gold_levels[pairs], info.scale),
                    vs_experts=level_agreement(judge, median[pairs], info.scale),
                )
            )
    return tuple(criteria), [tuple(levels) for levels in found]


def compare_runs(
    ratings: StudyRatings,
    runs: list[RunVerdicts],
    gold: IntArray,
    item_family: tuple[str, ...],
    *,
    epsilon: float = 0.2,
    n_resamples: int = 1000,
    seed: int = 0,
    level: float = LEVEL,
    level_pairs: IntArray | None = None,
    gold_levels: FloatArray | None = None,
) -> RunComparison:
    """Every run's calibration on the shared units, and every pair of runs tested.

    `gold` is the adjudicated verdict per unit (MISSING where none); `item_family` the family
    of the model that wrote each study item's response. On ordinal criteria, `level_pairs`
    are the (item, criterion) rows with an expert level, each run's `levels` its level on
    each and `gold_levels` the adjudicated level (NaN where none): compare_levels."""
    shared = shared_units(ratings, runs)
    ordinal, levels = compare_levels(
        ratings,
        runs,
        level_pairs if level_pairs is not None else np.empty((0, 2), dtype=np.int64),
        gold_levels if gold_levels is not None else np.empty(0),
    )
    with_units = [
        (index, info)
        for index, info in enumerate(ratings.criteria)
        if (shared & (ratings.unit_criterion == index)).any()
    ]
    options: _Options = {"epsilon": epsilon, "n_resamples": n_resamples, "seed": seed}
    datas = [_judge_data(ratings, run, shared, gold, item_family) for run in runs]
    summaries = []
    groups = [("overall", shared)] + [
        (info.code, shared & (ratings.unit_criterion == index)) for index, info in with_units
    ]
    for run, data, run_levels in zip(runs, datas, levels, strict=True):
        overall, *criteria = _run_groups(ratings, run, data, groups, **options)
        gap, gap_n = _self_preference_gap(data, run.family, shared, **options)
        summaries.append(
            RunSummary(
                name=run.name,
                family=run.family,
                overall=overall,
                criteria=tuple(criteria),
                self_preference_gap=gap,
                tokens=run.tokens,
                seconds=run.seconds,
                self_preference_n=gap_n,
                levels=run_levels,
            )
        )
    pairs = []
    for a, b in combinations(range(len(runs)), 2):
        everything = np.flatnonzero(shared)
        pairs.append(
            PairComparison(
                first=runs[a].name,
                second=runs[b].name,
                overall=pair_test(ratings, datas[a], datas[b], everything, "overall", level),
                criteria=holm_corrected(
                    [
                        pair_test(
                            ratings,
                            datas[a],
                            datas[b],
                            np.flatnonzero(shared & (ratings.unit_criterion == index)),
                            info.code,
                            level,
                        )
                        for index, info in with_units
                    ],
                    level,
                ),
                level=level,
            )
        )
    return RunComparison(
        criteria=tuple(info for _, info in with_units),
        n_shared=int(shared.sum()),
        runs=tuple(summaries),
        pairs=tuple(pairs),
        level=level,
        ordinal=ordinal,
    )


__all__ = [
    "UNPARSEABLE",
    "PairComparison",
    "PairTest",
    "RunComparison",
    "RunGroup",
    "RunLevels",
    "RunSummary",
    "RunVerdicts",
    "compare_levels",
    "compare_runs",
    "holm_corrected",
    "shared_units",
]
