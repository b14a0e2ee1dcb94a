"""The pure planner's guarantees, as properties over random studies (no database)."""

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.assignment import AnnotatorSpec, ItemSpec, Plan, plan_assignment

TAGS = ["sub:a", "sub:b", "lang:en", "lang:fr"]

tag_sets = st.frozensets(st.sampled_from(TAGS), max_size=2)
items = st.lists(
    st.builds(ItemSpec, key=st.integers(0, 10_000), k=st.integers(1, 4), tags=tag_sets),
    max_size=25,
    unique_by=lambda i: i.key,
)
annotators = st.lists(
    st.builds(
        AnnotatorSpec,
        key=st.integers(0, 1000),
        capacity=st.none() | st.integers(0, 8),
        tags=st.none() | st.frozensets(st.sampled_from(TAGS), max_size=4),
    ),
    max_size=8,
    unique_by=lambda a: a.key,
)
uncapped = annotators.map(lambda xs: [AnnotatorSpec(a.key, None, a.tags) for a in xs])


def eligible(item: ItemSpec, pool: list[AnnotatorSpec]) -> set[int]:
    return {a.key for a in pool if a.may_grade(item)}


def full(plan: Plan, annotator: AnnotatorSpec) -> bool:
    return annotator.capacity is not None and plan.load(annotator.key) >= annotator.capacity


@given(items, annotators, st.integers())
def test_every_grader_is_distinct_eligible_and_within_capacity(items, pool, seed):
    plan = plan_assignment(items, pool, seed)
    by_key = {a.key: a for a in pool}
    for item in items:
        graders = plan.graders[item.key]
        assert len(set(graders)) == len(graders)
        assert set(graders) <= eligible(item, pool)
    for a in pool:
        assert a.capacity is None or plan.load(a.key) <= a.capacity
        assert sorted(plan.order[a.key]) == sorted(
            i.key for i in items if a.key in plan.graders[i.key]
        )
    assert set(by_key) == set(plan.order)


@given(items, uncapped, st.integers())
def test_without_capacities_each_item_gets_min_of_k_and_eligible_graders(items, pool, seed):
    plan = plan_assignment(items, pool, seed)
    for item in items:
        assert len(plan.graders[item.key]) == min(item.k, len(eligible(item, pool)))
    assert plan.shortfall == {}


@given(items, annotators, st.integers())
def test_an_item_is_short_only_when_every_eligible_annotator_left_out_is_full(items, pool, seed):
    plan = plan_assignment(items, pool, seed)
    for item in items:
        wanted = min(item.k, len(eligible(item, pool)))
        assert len(plan.graders[item.key]) + plan.shortfall.get(item.key, 0) == wanted
        if plan.shortfall.get(item.key):
            left_out = [
                a for a in pool if a.may_grade(item) and a.key not in plan.graders[item.key]
            ]
            assert all(full(plan, a) for a in left_out)


@given(items, annotators, st.integers())
def test_annotators_eligible_for_the_same_items_differ_by_at_most_one_unless_full(
    items, pool, seed
):
    plan = plan_assignment(items, pool, seed)
    reach = {a.key: frozenset(i.key for i in items if a.may_grade(i)) for a in pool}
    for a in pool:
        for b in pool:
            if reach[a.key] == reach[b.key] and plan.load(a.key) >= plan.load(b.key) + 2:
                assert full(plan, b)


@given(items, st.integers(1, 8), st.integers())
def test_a_pool_eligible_for_everything_is_balanced_within_one(items, size, seed):
    pool = [AnnotatorSpec(n) for n in range(size)]
    loads = [plan_assignment(items, pool, seed).load(a.key) for a in pool]
    assert max(loads) - min(loads) <= 1


@given(items, annotators, st.integers(), st.randoms())
def test_the_same_seed_gives_the_same_plan_whatever_the_input_order(items, pool, seed, rnd):
    first = plan_assignment(items, pool, seed)
    rnd.shuffle(items)
    rnd.shuffle(pool)
    assert plan_assignment(items, pool, seed) == first


@settings(max_examples=30)
@given(st.integers(), st.integers())
def test_different_seeds_shuffle_the_order_differently_somewhere(seed, other):
    pool = [AnnotatorSpec("a")]
    work = [ItemSpec(n, 1) for n in range(30)]
    orders = {plan_assignment(work, pool, s).order["a"] for s in (seed, seed + 1, seed + 2)}
    assert len(orders) > 1  # 30! orders: three identical shuffles would mean no shuffling


def test_a_rerun_keeps_existing_graders_and_fills_only_the_missing_seats():
    pool = [AnnotatorSpec("a", load=1), AnnotatorSpec("b"), AnnotatorSpec("c")]
    plan = plan_assignment([ItemSpec(1, 2, taken=frozenset({"a"}))], pool, seed=1)
    assert len(plan.graders[1]) == 1
    assert plan.graders[1][0] in {"b", "c"}


def test_duplicate_keys_and_zero_k_are_refused():
    with pytest.raises(ValueError, match="Duplicate item"):
        plan_assignment([ItemSpec(1, 1), ItemSpec(1, 2)], [], seed=0)
    with pytest.raises(ValueError, match="k >= 1"):
        plan_assignment([ItemSpec(1, 0)], [], seed=0)


def test_the_planner_imports_without_django():
    code = "import sys, core.assignment; assert 'django' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, env={"PYTHONPATH": "."})
