"""The agreement pages (reports): a study's agreement report, leaderboard, analysis settings and
judge calibration."""
