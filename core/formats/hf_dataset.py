"""A Hugging Face dataset folder: Parquet files under `data/` and a `README.md` dataset card
whose YAML header names each file as a configuration (`configs`/`data_files`), so that
`datasets.load_dataset(folder)` (or `load_dataset("parquet", data_files=...)`) reads it and the
Hub shows it, card and all, once the folder is uploaded.

Pure: pyarrow writes the files; the card is text written here (JSON strings are YAML scalars,
so no YAML library is needed)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq


@dataclass(frozen=True)
class DataTable:
    """One configuration of the dataset: its name (a file name, `data/<name>.parquet`), a line
    saying what a row is, and its rows; `schema` fixes the column types (otherwise inferred)."""

    name: str
    description: str
    rows: Sequence[dict[str, Any]]
    schema: pa.Schema | None = None

    @property
    def path(self) -> str:
        return f"data/{self.name}.parquet"


@dataclass(frozen=True)
class DatasetCard:
    title: str
    licence: str  # a Hub licence identifier: cc-by-4.0, other, unknown...
    body: str  # Markdown after the title: the study's design, n, coefficients
    tags: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)


def column_name(text: str) -> str:
    """A column name as dataset users type it: `expert-graded responses (labelled)` becomes
    `expert_graded_responses_labelled`."""
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def snake_rows(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{column_name(key): value for key, value in row.items()} for row in rows]


def size_category(n: int) -> str:
    """The Hub's `size_categories` value for `n` rows."""
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if n < limit:
            return name
    return "100K<n<1M" if n < 1_000_000 else "n>1M"


def card_text(card: DatasetCard, tables: Sequence[DataTable]) -> str:
    """The README.md: YAML header (licence, configs with their data files, size, tags), then
    the title, what each configuration holds and `card.body`."""
    biggest = max((len(table.rows) for table in tables), default=0)
    lines = ["---", f"license: {json.dumps(card.licence)}"]
    lines.append(f"pretty_name: {json.dumps(card.title)}")
    lines += ["size_categories:", f"- {json.dumps(size_category(biggest))}"]
    if card.tags:
        lines += ["tags:", *(f"- {json.dumps(tag)}" for tag in card.tags)]
    for key, value in card.extra.items():
        lines.append(f"{key}: {json.dumps(value)}")
    lines.append("configs:")
    for position, table in enumerate(tables):
        lines += [f"- config_name: {json.dumps(table.name)}", f"  data_files: {table.path}"]
        if position == 0:
            lines.append("  default: true")
    lines += ["---", "", f"# {card.title}", "", "## Configurations", ""]
    lines += [f"- `{t.name}` ({len(t.rows)} rows, `{t.path}`): {t.description}" for t in tables]
    lines += ["", card.body.strip(), ""]
    return "\n".join(lines)


def write_dataset(folder: Path, tables: Sequence[DataTable], card: DatasetCard) -> list[Path]:
    """Write each table as `folder/data/<name>.parquet` and the card as `folder/README.md`;
    returns the files written."""
    (folder / "data").mkdir(parents=True, exist_ok=True)
    written = []
    for table in tables:
        path = folder / table.path
        if table.schema is not None:
            arrow = pa.Table.from_pylist(list(table.rows), schema=table.schema)
        else:
            arrow = pa.Table.from_pylist(list(table.rows))
        pq.write_table(arrow, path)
        written.append(path)
    readme = folder / "README.md"
    readme.write_text(card_text(card, tables), encoding="utf-8")
    return [*written, readme]
