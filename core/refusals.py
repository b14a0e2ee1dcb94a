"""The kinds of refusal a domain operation answers, whoever asked.

Each app's errors subclass one of these (grading.services.StudyClosed is a Conflict,
NotYourAssignment a NotFound, people.services.InvitationNotSent an Unavailable); pages
(l2annot/errors.py) and the API (api/exceptions.py) each turn a kind into an HTTP status in one
place, from what the kind carries, without knowing the app that raised it. Input that does not
fit stays Django's ValidationError: 422 on pages, 400 in the API.

Pure Python, so every app (and the pure core) may raise them.
"""


class Conflict(Exception):
    """The current state of the data refuses the operation (409): someone saved first, the
    study is closed, the task is in review, other data depends on what was to be deleted.

    A refusal for several reasons a person can act on lists them in `problems`, and says in
    `summary` what they are reasons for (the API answers the summary and lists the problems
    apart); `current` is the object as it now is, when the refusal is a stale edit.
    """

    summary: str | None = None
    problems: list[str] | None = None
    current: object = None


class NotFound(Exception):
    """The object is not the caller's to use (404): answered as if it did not exist, so nobody
    learns what others hold."""


class Unavailable(Exception):
    """A service outside the application that the operation needs (the mail server) refused or
    did not answer (503): nothing is wrong with the request or the data; try again once it
    works."""
