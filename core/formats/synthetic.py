"""Generated benchmarks in the L2-Bench layout, for tests, benchmarks and demos.

Never real L2-Bench items (the dataset's terms forbid republishing them): every text here is
made up from a seed. Pure Python, no Django.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path

from core.formats.criteria import Criterion, Layer
from core.formats.l2bench_csv import RESOURCES_DIR, TaskRecord, write_tasks_csv
from core.formats.responses import ResponseRecord, write_responses_jsonl
from core.formats.verdicts import VerdictRecord, write_verdicts_jsonl

__all__ = ["synthetic_responses", "synthetic_tasks", "synthetic_verdicts", "write_benchmark"]

_WORDS = [
    "learner",
    "lesson",
    "activity",
    "feedback",
    "vocabulary",
    "grammar",
    "speaking",
    "listening",
    "reading",
    "writing",
    "task",
    "pair",
    "group",
    "model",
    "example",
    "check",
    "level",
    "goal",
    "context",
    "culture",
    "scaffold",
    "recast",
    "prompt",
]


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words)).capitalize()


def synthetic_tasks(
    n_tasks: int,
    sub_codes: Sequence[str],
    *,
    task_criteria: int = 3,
    consensus_per_sub: int = 2,
    universal: int = 2,
    context: Mapping[str, Sequence[str]] | None = None,
    resources_every: int = 0,
    seed: int = 0,
) -> list[TaskRecord]:
    """`n_tasks` tasks spread over `sub_codes`, each with its own criteria, every consensus
    criterion of its sub-competency and all `universal` universal criteria. `context` maps a
    variable key to values to pick from; every `resources_every`-th task has a resource."""
    rng = random.Random(seed)
    consensus = {
        sub: tuple(
            Criterion(
                f"{sub}-{n:02d}", _sentence(rng, 8), rng.choice([1, 2, 3, 5, -2]), Layer.CONSENSUS
            )
            for n in range(1, consensus_per_sub + 1)
        )
        for sub in sub_codes
    }
    universals = tuple(
        Criterion(
            f"{6 + n // 3:02d}u{n % 3 + 1}",
            _sentence(rng, 6),
            rng.choice([1, 2, -1]),
            Layer.UNIVERSAL,
        )
        for n in range(universal)
    )
    tasks = []
    for i in range(1, n_tasks + 1):
        key = str(100 + i)
        sub = sub_codes[i % len(sub_codes)]
        own = tuple(
            Criterion(
                f"{key}-{n:02d}", _sentence(rng, 10), rng.choice([1, 2, 3, 4, 5, -1]), Layer.TASK
            )
            for n in range(1, task_criteria + 1)
        )
        if own and all(c.weight < 0 for c in own):
            own = (Criterion(own[0].id, own[0].description, 3, Layer.TASK), *own[1:])
        tasks.append(
            TaskRecord(
                task_key=key,
                task=f"{_sentence(rng, 20)}. (Generated task {key}.)",
                task_system_prompt="You are a helpful teacher trainer." if i % 2 else "",
                reference_answer=_sentence(rng, 60) + ".",
                competency=sub,
                version_at_time_of_draft=f"v0.{i % 3 + 7}",
                is_published=i % 4 != 0,
                resource_files=(f"task_{key}.md",)
                if resources_every and i % resources_every == 0
                else (),
                task_criteria=own,
                consensus_criteria=consensus[sub],
                universal_criteria=universals,
                context=tuple(sorted((k, rng.choice(list(v))) for k, v in (context or {}).items())),
            )
        )
    return tasks


def write_benchmark(folder: Path, tasks: Sequence[TaskRecord], seed: int = 0) -> Path:
    """Write `tasks` and a generated text for every resource file they name into `folder`."""
    rng = random.Random(seed)
    resources = folder / RESOURCES_DIR
    resources.mkdir(parents=True, exist_ok=True)
    for task in tasks:
        for name in task.resource_files:
            (resources / name).write_text(f"# {name}\n\n{_sentence(rng, 40)}.\n", encoding="utf-8")
    write_tasks_csv(folder / "l2-bench_tasks.csv", tasks)
    return folder


def synthetic_responses(
    tasks: Sequence[TaskRecord], models: Sequence[str], epochs: int = 1, seed: int = 0
) -> list[ResponseRecord]:
    """One response per task, model and epoch, identified by (task, model, epoch) (no `id`)."""
    rng = random.Random(seed)
    return [
        ResponseRecord(task.task_key, model, response=_sentence(rng, 80) + ".", epoch=epoch)
        for task in tasks
        for model in models
        for epoch in range(1, epochs + 1)
    ]


def synthetic_verdicts(
    tasks: Sequence[TaskRecord], responses: Sequence[ResponseRecord], judge: str, seed: int = 0
) -> list[VerdictRecord]:
    """A judge verdict on every criterion of every response's task."""
    rng = random.Random(seed)
    by_key = {task.task_key: task for task in tasks}
    return [
        VerdictRecord(
            criterion_id=criterion.id,
            verdict=rng.random() < 0.6,
            judge_model=judge,
            task_key=response.task_key,
            model=response.model,
            epoch=response.epoch,
            rationale=_sentence(rng, 12),
        )
        for response in responses
        for criterion in by_key[response.task_key].criteria
    ]


def write_jsonl(path: Path, records: Sequence[ResponseRecord] | Sequence[VerdictRecord]) -> Path:
    if records and isinstance(records[0], ResponseRecord):
        write_responses_jsonl(path, records)  # type: ignore[arg-type]
    else:
        write_verdicts_jsonl(path, records)  # type: ignore[arg-type]
    return path
