"""The interchange pages, one module per screen: imports (upload and job), exports (downloads)
and offline (grading workbooks)."""
