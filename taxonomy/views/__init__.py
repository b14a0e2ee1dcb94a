"""The taxonomy pages: the two outline editors of a framework (competencies, context variables),
served by the plain views of taxonomy.views.outline."""
