"""The grading pages, one module per screen: the annotator's grading page (assignment), the
maintainers' study pages (study) and adjudication, and task resources for a grader (resources)."""
