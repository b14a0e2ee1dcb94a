"""The triage queue (pure): which units disagree, and in what order."""

import numpy as np

from core.analysis.calibration import MISSING
from core.analysis.comparison import UNPARSEABLE
from core.analysis.ratings import CriterionInfo, ItemInfo, ratings_from_rows
from core.analysis.triage import triage_queue

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
