"""Problems are listed as a person fixes them: by file, line and field, wherever found."""

from core.formats.problems import Problem, in_order
from interchange.importers.report import problem_lines
from interchange.problem_text import stored_problems

FOUND = [  # in the order the checks found them: per kind of check, not per line
    Problem("tasks.csv", 9, "task_criteria", "weight 'high' is not a number", "row"),
    Problem("tasks.csv", 2, "language", "unknown language 'xx'", "row"),
    Problem("resources/a.md", None, None, "is empty"),
    Problem("tasks.csv", 2, "competency", "unknown sub-competency '02x'", "row"),
    Problem("tasks.csv", None, None, "has no header"),
    Problem("tasks.csv", 9, None, "the row is short", "row"),
]


def test_problems_go_by_file_then_line_then_field():
    assert [(p.file, p.line_or_row, p.field) for p in in_order(FOUND)] == [
        ("resources/a.md", None, None),
        ("tasks.csv", None, None),
        ("tasks.csv", 2, "competency"),
        ("tasks.csv", 2, "language"),
        ("tasks.csv", 9, None),
        ("tasks.csv", 9, "task_criteria"),
    ]


def test_a_job_and_the_commands_list_them_in_that_order_and_keep_only_the_first():
    stored = stored_problems(FOUND, shown=3)
    assert [(p["file"], p["at"], p["field"]) for p in stored[:3]] == [
        ("resources/a.md", None, None),
        ("tasks.csv", None, None),
        ("tasks.csv", 2, "competency"),
    ]
    assert stored[3]["more"] == 3
    assert problem_lines(FOUND, shown=2) == [
        "resources/a.md: is empty",
        "tasks.csv: has no header",
        "… and 4 more problems not listed: 1 in field 'competency', 1 in field 'language', "
        "1 with no field, 1 in field 'task_criteria'",
    ]
