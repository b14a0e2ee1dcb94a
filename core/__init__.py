"""The domain's pure core: statistics, analysis, scoring, planning and file formats.

Everything here is plain Python (numpy, openpyxl and dataclasses in, frozen dataclasses out)
and imports no Django and no app, so every app may use it and none of the layer rules needs an
exception: grading scores gold checks and escalates on a criterion's alpha with the statistics
the agreement report uses, the importers and exporters share one reader and writer per file
format, and a notebook can reuse any of it. Its packages and modules:

- ``stats``: the coefficients (Krippendorff's alpha, Gwet's AC1, kappas, ...), their intervals
  and the judge's calibration maths (docs/statistics.md);
- ``analysis``: the reports, 1-5 scales, judge calibration, leaderboard, charts and exports
  composed from ``stats``;
- ``formats``: the files read and written (L2-Bench CSV, JSONL, Inspect logs, XLSX workbooks,
  the offline grading workbook), with the problems a reader finds and spreadsheet-safe cells;
- ``scoring``: a task's score from its criteria's verdicts;
- ``assignment``: the plan of who grades what in a study;
- ``timing``: the time graders take per criterion, in medians and outliers;
- ``prompting``: a judge's prompt filled from a task;
- ``languages``: target languages as ISO 639-1 codes;
- ``messages``: texts marked for translation without Django, translated where they are shown;
- ``refusals``: the kinds of refusal (conflict, not found, unavailable) every app's errors
  pick from, mapped to HTTP by the pages and the API.

`lint-imports` holds it to that (the ``pure`` and ``base`` contracts in pyproject.toml), and
``tests/test_pure_modules.py`` imports every module of it in a process without Django.
"""
