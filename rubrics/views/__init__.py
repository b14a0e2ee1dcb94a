"""The rubric pages, one module per screen: tasks (list, page, review, diff, editor), criteria
(the three criteria editors) and resources (files of a task)."""
