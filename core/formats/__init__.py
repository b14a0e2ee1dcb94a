"""Import and export formats, pure Python: no Django here (a test imports each module alone).

Readers turn files into frozen records and collect every :class:`~.problems.Problem` with its
file, line or row, and field; the database layer decides what to do with the records.
"""
