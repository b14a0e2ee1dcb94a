"""Generated test data in the L2-Bench shapes (never real L2-Bench items)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from core.formats.criteria import BAR, Criterion, Layer
from core.formats.l2bench_csv import TaskRecord

# Characters the criteria encoding treats specially, mixed into otherwise arbitrary text ('|'
# included: the filter below keeps it out, as the reference pipeline cuts criteria at it).
_TRICKY = st.sampled_from([".", "==", "=", "|", " ", ". ", "-", "é", "中文", "\n", "ß"])


def _is_encodable(description: str) -> bool:
    return bool(description) and description == description.strip() and BAR not in description


# Any character a database stores: PostgreSQL refuses NUL, so every way in refuses it too.
_STORABLE = st.characters(exclude_categories=("Cs",), exclude_characters="\x00")

descriptions = (
    st.lists(st.one_of(_TRICKY, st.text(_STORABLE, min_size=1, max_size=8)), min_size=1, max_size=8)
    .map("".join)
    .map(str.strip)
    .filter(_is_encodable)
)
criterion_ids = st.text(
    alphabet=st.characters(exclude_categories=("Z", "Cc", "Cs")), min_size=1, max_size=10
).filter(lambda s: BAR not in s and not any(ch.isspace() for ch in s))
weights = st.integers(min_value=-20, max_value=20)


@st.composite
def criteria_lists(draw: st.DrawFn, layer: Layer = Layer.CONSENSUS) -> list[Criterion]:
    ids = draw(st.lists(criterion_ids, unique=True, max_size=6))
    return [Criterion(cid, draw(descriptions), draw(weights), layer) for cid in ids]


def criterion(
    cid: str, weight: int = 1, layer: Layer = Layer.CONSENSUS, text: str = ""
) -> Criterion:
    return Criterion(cid, text or f"Generated criterion {cid}", weight, layer)


def task(key: str = "1", **changes: object) -> TaskRecord:
    """A valid task; keyword arguments replace fields."""
    fields: dict[str, object] = {
        "task_key": key,
        "task": f"Plan a short lesson (generated task {key}).",
        "task_system_prompt": "",
        "reference_answer": f"A generated reference answer for task {key}.",
        "competency": "02a",
        "version_at_time_of_draft": "v0.9",
        "is_published": True,
        "resource_files": (),
        "task_criteria": (criterion(f"{key}-01", 3, Layer.TASK),),
        "consensus_criteria": (criterion("02a-01", 2),),
        "universal_criteria": (criterion("06u1", -1, Layer.UNIVERSAL),),
        "context": (),
    }
    fields.update(changes)
    return TaskRecord(**fields)


free_text = st.text(alphabet=_STORABLE, min_size=1, max_size=40).filter(lambda s: s.strip() != "")
plain_token = st.text(
    alphabet=st.characters(categories=("L", "N"), include_characters="-_."), min_size=1, max_size=8
).filter(lambda s: s.strip() == s and s not in {".", ".."})


@st.composite
def task_records(draw: st.DrawFn) -> list[TaskRecord]:
    """Tasks with unique keys whose shared criteria agree everywhere (so they read cleanly)."""
    keys = draw(st.lists(plain_token, min_size=1, max_size=4, unique=True))
    consensus = draw(criteria_lists(Layer.CONSENSUS))
    universal = [
        Criterion(f"u-{c.id}", c.description, c.weight, Layer.UNIVERSAL)
        for c in draw(criteria_lists(Layer.UNIVERSAL))
    ]
    context_keys = draw(st.lists(plain_token, unique=True, max_size=3))
    records = []
    for key in keys:
        own = [
            Criterion(f"{key}-{c.id}", c.description, c.weight, Layer.TASK)
            for c in draw(criteria_lists(Layer.TASK))
            if not c.id.startswith(f"{key}-")  # task-local ids never carry the task key
        ]
        context = {k: draw(plain_token) for k in context_keys if draw(st.booleans())}
        records.append(
            TaskRecord(
                task_key=key,
                task=draw(free_text),
                task_system_prompt=draw(st.text(_STORABLE, max_size=20)),
                reference_answer=draw(free_text),
                competency=draw(plain_token),
                version_at_time_of_draft=draw(plain_token),
                is_published=draw(st.booleans()),
                resource_files=tuple(draw(st.lists(plain_token, max_size=3))),
                task_criteria=tuple(own),
                consensus_criteria=tuple(draw(st.permutations(consensus))),
                universal_criteria=tuple(universal),
                context=tuple(sorted(context.items())),
            )
        )
    return records


# The first draw from a unicode-category strategy builds hypothesis's character tables (about
# a second), which its "too slow" health check would otherwise blame on the test.
PROPERTY = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def jsonl_file(folder: Path, name: str, lines: list[object]) -> Path:
    """A JSONL file: dicts are dumped as JSON, strings written as they are."""
    path = folder / name
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    return path
