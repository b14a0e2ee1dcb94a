"""Makers: records read by core.formats, checked against the database, written in one
transaction. Every importer returns an ImportReport and writes nothing if it lists a problem."""

from interchange.importers.benchmark import import_l2bench
from interchange.importers.report import Counts, ImportReport, Progress
from interchange.importers.responses import import_responses

__all__ = [
    "Counts",
    "ImportReport",
    "Progress",
    "import_l2bench",
    "import_responses",
]
