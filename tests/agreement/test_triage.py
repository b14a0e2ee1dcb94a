"""The triage queue (pure): which units disagree, and in what order."""

import numpy as np

from core.analysis.calibration import MISSING
from core.analysis.comparison import UNPARSEABLE
from core.analysis.ratings import CriterionInfo, ItemInfo, ratings_from_rows
from core.analysis.triage import level_triage, triage_queue

N_ITEMS = 10


def ratings(weights=(1, 5)):
    """Three experts agree on every unit: item i passes every criterion when i is even."""
    criteria = [
        CriterionInfo(n, f"c{n}", "", "task", "01a", "01", w) for n, w in enumerate(weights)
    ]
    items = [ItemInfo(i, f"t{i}", "01a", "01") for i in range(N_ITEMS)]
    rows = [
        (item, crit, expert, int(item % 2 == 0))
        for item in range(N_ITEMS)
        for crit in range(len(weights))
        for expert in range(3)
    ]
    return ratings_from_rows(rows, criteria, items, ["A", "B", "C"])


def truth(r):
    return (r.unit_item % 2 == 0).astype(np.int64)


def test_agreeing_and_unparseable_units_are_not_in_the_queue():
    r = ratings()
    judge = truth(r)
    judge[0] = UNPARSEABLE
    assert triage_queue(r, judge, np.full(r.n_units, MISSING), threshold=0.667) == ()


def test_the_heavier_criterion_comes_first():
    r = ratings()
    judge = truth(r)
    wrong = [np.flatnonzero(r.unit_criterion == c)[0] for c in (0, 1)]
    judge[wrong] = 1 - judge[wrong]
    queue = triage_queue(r, judge, np.full(r.n_units, MISSING), threshold=0.667)
    assert [u.criterion for u in queue] == [1, 0]
    assert queue[0].weight == 5 and queue[0].majority == 1 - queue[0].verdict
    assert all(u.alpha_gain > 0 for u in queue)


def test_a_penalty_weighs_as_much_as_a_reward():
    r = ratings(weights=(2, -5))
    judge = truth(r)
    wrong = [np.flatnonzero(r.unit_criterion == c)[0] for c in (0, 1)]
    judge[wrong] = 1 - judge[wrong]
    queue = triage_queue(r, judge, np.full(r.n_units, MISSING), threshold=0.667)
    assert [u.weight for u in queue] == [-5, 2]


def test_units_of_equal_weight_and_gain_are_ordered_by_item():
    r = ratings(weights=(3,))
    judge = truth(r)
    judge[:2] = 1 - judge[:2]  # two wrong answers
    queue = triage_queue(r, judge, np.full(r.n_units, MISSING), threshold=0.667)
    assert len(queue) == 2
    low = min(u.alpha_now for u in queue)
    assert all(u.alpha_now == low for u in queue)
    # Correcting one of two errors is the same gain either way; order is then by item.
    assert queue[0].alpha_gain == queue[1].alpha_gain
    assert queue[0].item < queue[1].item


def test_gold_overrides_the_majority_as_the_reference():
    r = ratings(weights=(1,))
    judge = truth(r)
    gold = np.full(r.n_units, MISSING)
    gold[3] = judge[3] ^ 1  # the experts were unanimous, the adjudicator disagreed
    queue = triage_queue(r, judge, gold, threshold=0.667)
    assert [u.unit for u in queue] == [3]
    assert queue[0].reference == gold[3] and queue[0].majority == judge[3]


def test_no_correction_reaches_the_threshold_on_too_few_units_to_validate():
    r = ratings(weights=(1,))  # 10 units graded by three experts
    judge = truth(r)
    judge[:4] = 1 - judge[:4]  # alpha 0.61; one correction lifts it past 0.667
    missing = np.full(r.n_units, MISSING)
    enough = triage_queue(r, judge, missing, threshold=0.667, minimum_units=10)
    assert all(u.crosses_threshold and not u.too_few_units for u in enough)
    too_few = triage_queue(r, judge, missing, threshold=0.667, minimum_units=30)
    assert not any(u.crosses_threshold for u in too_few)
    assert all(u.too_few_units and (u.n_units, u.minimum_units) == (10, 30) for u in too_few)


def test_each_unit_counts_the_experts_who_graded_it():
    r = ratings(weights=(1,))
    judge = truth(r)
    judge[0] = 1 - judge[0]
    queue = triage_queue(r, judge, np.full(r.n_units, MISSING), threshold=0.667)
    assert [u.n_experts for u in queue] == [3]


def test_a_level_is_queued_against_a_strict_majority_or_gold_and_ordered_by_the_miss():
    criteria = [
        CriterionInfo(0, "light", "", "task", "01a", "01", 1, scale=(1, 4)),
        CriterionInfo(1, "heavy", "", "task", "01a", "01", 3, scale=(1, 4)),
    ]
    items = [ItemInfo(i, f"t{i}", "01a", "01") for i in range(4)]
    # Levels of three experts per (item, criterion): (0, 0) a majority of 2; (1, 0) no
    # majority; (2, 0) a majority of 4; (3, 1) unanimous 1.
    given = {(0, 0): (2, 2, 3), (1, 0): (1, 2, 3), (2, 0): (4, 4, 1), (3, 1): (1, 1, 1)}
    levels = [(i, c, e, v) for (i, c), values in given.items() for e, v in enumerate(values)]
    r = ratings_from_rows([], criteria, items, [], levels=levels, level_raters=["A", "B", "C"])
    pairs = np.array(sorted(given), dtype=np.int64)
    judge = np.array([2.0, 4.0, 1.0, 3.0])  # agrees; no majority; misses by -3; by +2
    gold = np.array([np.nan, 2.0, np.nan, np.nan])  # but gold says 2 where there is none
    found = level_triage(r, pairs, judge, gold)
    assert [(d.item, d.criterion, d.reference, d.distance) for d in found] == [
        (3, 1, 1, 2),  # the heavier criterion first
        (2, 0, 4, -3),  # then the widest miss
        (1, 0, 2, 2),  # against gold, where the experts have no majority
    ]
    assert found[2].majority is None and found[2].experts == (1, 2, 3)
    assert level_triage(r, pairs, np.full(4, np.nan), gold) == ()  # no level, no line
