"""Agreement reports, scales, judge calibration, the leaderboard, charts and exports, composed
from the statistics core (`core.stats`).

Pure, like the core: no Django import anywhere in this package (an import-linter contract and
`tests/test_pure_modules.py` check it). `agreement.data` reads their inputs from the database;
`agreement.services` caches their results.
"""
