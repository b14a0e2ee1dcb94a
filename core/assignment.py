"""Who grades what: a pure, seeded assignment planner (no Django).

Guarantees of `plan_assignment` (checked by property tests in tests/grading):

1. Each item gets distinct annotators, all eligible for it (tags respected, capacity respected).
2. With no capacity limits, each item gets exactly min(k, number of eligible annotators).
   With limits, an item gets fewer only when every eligible annotator left out is full;
   `Plan.shortfall` says how many seats stayed empty.
3. Balance: for two annotators eligible for exactly the same items, if one has at least two more
   items than the other, the other is full (at its capacity). So without capacity limits their
   loads differ by at most 1; with everyone eligible for everything the whole pool is within 1.
4. The same inputs and seed give the same plan, whatever the order of the inputs.

Guarantees 1, 2 and 4 also hold for a re-run that tops up a study (`ItemSpec.taken`,
`AnnotatorSpec.load`); 3 is stated for a fresh plan, a re-run follows the same greedy rule.

The rule: items are taken most constrained first (fewest eligible annotators), each filled with
the least-loaded eligible annotators that have room, ties broken at random. Choosing a
least-loaded prefix each time is what keeps guarantee 3 (see docs/grading.md).
"""

import random
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ItemSpec:
    """A response to grade. `k`: graders it needs; `tags`: what a grader must be tagged for."""

    key: Hashable
    k: int
    tags: frozenset[str] = frozenset()
    taken: frozenset[Hashable] = frozenset()  # annotators already grading it (a re-run)


@dataclass(frozen=True)
class AnnotatorSpec:
    """A grader. `tags=None` may grade anything; `capacity=None` has no limit."""

    key: Hashable
    capacity: int | None = None
    tags: frozenset[str] | None = None
    load: int = 0  # items already held (a re-run)

    def may_grade(self, item: ItemSpec) -> bool:
        return self.tags is None or item.tags <= self.tags


@dataclass(frozen=True)
class Plan:
    graders: Mapping[Hashable, tuple[Hashable, ...]]  # item key -> annotator keys
    order: Mapping[Hashable, tuple[Hashable, ...]]  # annotator key -> item keys, shuffled
    shortfall: Mapping[Hashable, int] = field(default_factory=dict)  # item key -> empty seats

    def load(self, annotator: Hashable) -> int:
        return len(self.order.get(annotator, ()))


def _sort_key(key: Hashable) -> tuple[str, str]:
    # Keys of mixed types still sort deterministically.
    return (type(key).__name__, repr(key)) if not isinstance(key, int) else ("", f"{key:020d}")


def plan_assignment(
    items: Iterable[ItemSpec], annotators: Iterable[AnnotatorSpec], seed: int
) -> Plan:
    """Assign graders to items; see the module docstring for what is guaranteed.

    Raises ValueError for duplicate keys, k < 1 or a negative capacity."""
    items = sorted(items, key=lambda i: _sort_key(i.key))
    annotators = sorted(annotators, key=lambda a: _sort_key(a.key))
    for kind, keys in (
        ("item", [i.key for i in items]),
        ("annotator", [a.key for a in annotators]),
    ):
        if len(set(keys)) != len(keys):
            raise ValueError(f"Duplicate {kind} keys.")
    if any(item.k < 1 for item in items):
        raise ValueError("Every item needs k >= 1.")
    if any(a.capacity is not None and a.capacity < 0 for a in annotators):
        raise ValueError("A capacity cannot be negative.")

    rng = random.Random(seed)
    eligible = {item.key: [a for a in annotators if a.may_grade(item)] for item in items}
    tiebreak = {item.key: rng.random() for item in items}
    items.sort(key=lambda i: (len(eligible[i.key]), tiebreak[i.key]))

    load = {a.key: a.load for a in annotators}
    graders: dict[Hashable, tuple[Hashable, ...]] = {}
    shortfall: dict[Hashable, int] = {}
    for item in items:
        open_ = [
            a
            for a in eligible[item.key]
            if a.key not in item.taken and (a.capacity is None or load[a.key] < a.capacity)
        ]
        ranked = sorted(open_, key=lambda a: (load[a.key], rng.random()))
        others = [a for a in eligible[item.key] if a.key not in item.taken]
        wanted = max(0, min(item.k - len(item.taken), len(others)))
        chosen = tuple(a.key for a in ranked[:wanted])
        for key in chosen:
            load[key] += 1
        graders[item.key] = chosen
        if len(chosen) < wanted:
            shortfall[item.key] = wanted - len(chosen)

    order: dict[Hashable, list[Hashable]] = {a.key: [] for a in annotators}
    for item_key in sorted(graders, key=_sort_key):
        for annotator_key in graders[item_key]:
            order[annotator_key].append(item_key)
    for keys in order.values():
        rng.shuffle(keys)
    return Plan(graders=graders, order={k: tuple(v) for k, v in order.items()}, shortfall=shortfall)


def overlapping(keys: Iterable[Hashable], percent: int, seed: int) -> frozenset[Hashable]:
    """The keys of the responses graded by k graders when only `percent` % of them are (the
    rest get one grader): round(n * percent / 100) of them, at random but the same for the
    same keys and seed, whatever their order. Raises ValueError outside 1..100."""
    if not 1 <= percent <= 100:
        raise ValueError("The overlap share is a percentage from 1 to 100.")
    ordered = sorted(set(keys), key=_sort_key)
    random.Random(seed).shuffle(ordered)
    return frozenset(ordered[: (len(ordered) * percent + 50) // 100])


def gold_wanted(real: int, rate: int) -> int:
    """Gold checks to mix among `real` responses so that they are `rate` % of the queue."""
    if not 0 <= rate < 100:
        raise ValueError("The gold rate is a percentage from 0 to 99.")
    return (real * rate + (100 - rate) // 2) // (100 - rate)


def mix_gold(
    real: Sequence[Hashable],
    gold: Sequence[Hashable],
    *,
    rate: int,
    qualification: int = 0,
    held_real: int = 0,
    held_gold: int = 0,
    seed: int,
) -> list[tuple[Hashable, bool]]:
    """One annotator's new queue: their `real` items (in their order) with gold checks mixed
    in, as (key, is gold) pairs.

    `gold`: the gold checks they have not been given yet; `held_real`/`held_gold`: what they
    already hold (a re-run). A new annotator (holding nothing) with `qualification` > 0 first
    gets that many gold checks (the qualification round); then gold checks are added until
    they make `rate` % of the whole queue, each at a random place among the new real items.
    Fewer when the gold checks run out. The same inputs and seed give the same queue."""
    rng = random.Random(seed)
    pool = sorted(gold, key=_sort_key)
    rng.shuffle(pool)
    first: list[Hashable] = []
    if qualification and not held_real and not held_gold:
        first, pool = pool[:qualification], pool[qualification:]
    target = gold_wanted(held_real + len(real), rate)
    mixed = pool[: max(0, target - held_gold)]
    queue: list[tuple[Hashable, bool]] = [(key, False) for key in real]
    for key in mixed:
        queue.insert(rng.randint(0, len(queue)), (key, True))
    return [(key, True) for key in first] + queue
