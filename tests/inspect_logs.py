"""Inspect AI `.eval` logs written by the real `inspect_ai` package, for tests of what reads them.

`write_judge_log` runs a small task shaped like L2-Bench's judged runs against the loopback
server (`tests/llm_server.py`, which must be running): the evaluated model (`eval.model`) answers
each task, then a scorer asks the judge (Inspect's `grader` model role) about each criterion, one
call per criterion at temperature 0, and stores `metadata.scoring_results` =
`[{criterion_id, weight, judgement, explanation}]`. A judge answer that is not `true` or `false`
is stored as the raw text, so a reader's complaint about it can be tested.

The first run in a process pays for importing Inspect (several seconds): write one log per test
module (a module-scoped fixture) and reuse it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageUser, GenerateConfig, get_model
from inspect_ai.scorer import Score, Target, mean, scorer
from inspect_ai.solver import Generate, TaskState, generate, solver

from tests.llm_server import Request, model_name

TUTOR = "tutor-1"
JUDGE = "judge-1"
_JUDGING = re.compile(r"^Task key: (?P<task>.+)\nCriterion id: (?P<criterion>.+)$", re.MULTILINE)


@dataclass(frozen=True)
class LogTask:
    """One task of the log: its key (the sample id), what the tutor is asked, its criteria
    as (criterion id, weight, text)."""

    key: str
    prompt: str
    criteria: tuple[tuple[str, int, str], ...]


def judging(request: Request) -> tuple[str, str] | None:
    """(task key, criterion id) when `request` is the judge's, else None (the tutor's)."""
    found = _JUDGING.search(request.prompt)
    return (found["task"], found["criterion"]) if found else None


def _judge_prompt(state: TaskState, criterion: dict[str, Any]) -> str:
    return (
        "You judge one criterion of an AI tutor's answer in second-language education.\n"
        f"Task key: {state.sample_id}\nCriterion id: {criterion['id']}\n"
        f"Task:\n{state.input_text}\n\nAnswer:\n{state.output.completion}\n\n"
        f"Criterion:\n{criterion['text']}\n\nAnswer only true or false."
    )


def _judgement(text: str) -> bool | str:
    word = text.strip().lower()
    return {"true": True, "false": False}.get(word, text)


@scorer(metrics=[mean()])
def l2_scorer() -> Any:
    async def score(state: TaskState, target: Target) -> Score:
        judge = get_model(role="grader")
        results = []
        for criterion in state.metadata["criteria"]:
            output = await judge.generate(
                _judge_prompt(state, criterion), config=GenerateConfig(temperature=0)
            )
            results.append(
                {
                    "criterion_id": criterion["id"],
                    "weight": criterion["weight"],
                    "judgement": _judgement(output.completion),
                    "explanation": output.completion,
                }
            )
        met = sum(r["weight"] for r in results if r["judgement"] is True)
        possible = sum(r["weight"] for r in results if r["weight"] > 0) or 1
        return Score(value=met / possible, metadata={"scoring_results": results})

    return score


@solver
def learner_replies(replies: list[str]) -> Any:
    """A simulated learner: after the tutor's first answer, each reply is a user message the
    tutor answers in turn, so the sample holds a dialogue."""

    async def solve(state: TaskState, generate_: Generate) -> TaskState:
        for reply in replies:
            state.messages.append(ChatMessageUser(content=reply))
            state = await generate_(state)
        return state

    return solve


@task
def l2_bench(
    tasks: list[dict[str, Any]], prompt_version: str = "v1", learner: list[str] | None = None
) -> Task:
    dataset = [
        Sample(id=t["key"], input=t["prompt"], metadata={"criteria": t["criteria"]}) for t in tasks
    ]
    solvers = [generate(), learner_replies(learner)] if learner else [generate()]
    return Task(dataset=dataset, solver=solvers, scorer=l2_scorer())


def write_judge_log(
    log_dir: Path,
    tasks: Sequence[LogTask],
    *,
    tutor: str = TUTOR,
    judge: str = JUDGE,
    epochs: int = 1,
    prompt_version: str = "v1",
    learner: Sequence[str] = (),
    **eval_options: Any,
) -> Path:
    """Run the judged task on `tasks` against the loopback server; the `.eval` log's path.
    With `learner` replies, each sample is a dialogue: the tutor answers the task, then each
    reply in turn (a multi-turn sample)."""
    arguments = [
        {
            "key": t.key,
            "prompt": t.prompt,
            "criteria": [{"id": c, "weight": w, "text": text} for c, w, text in t.criteria],
        }
        for t in tasks
    ]
    options: dict[str, Any] = {
        "model": model_name(tutor),
        "model_roles": {"grader": model_name(judge)},
        "epochs": epochs,
        "log_dir": str(log_dir),
        "display": "none",
        "max_retries": 0,
    }
    (log,) = inspect_eval(
        l2_bench(tasks=arguments, prompt_version=prompt_version, learner=list(learner) or None),
        **(options | eval_options),
    )
    return Path(log.location)
