"""The grading page's shortcut keys, and how a rationale typed with them is told apart.

The keys are those of `static/grading/grading.js` (`AT_ONCE` and `ACTING`): j, k, p, f, a, n,
r, s, x, ? and the digits, always lower case (with Shift a letter is no shortcut)."""

SHORTCUT_KEYS = frozenset("jkpfanrsx?0123456789")


def is_shortcut_run(text: str) -> bool:
    """Whether `text` is nothing but shortcut keys ("kkkkps", "jjp", "f"): keys a grader meant
    as shortcuts and typed into a rationale box. No space, no capital, no other letter: any
    sentence, or a word with one other letter, is a rationale. An empty text is not a run."""
    stripped = text.strip()
    return bool(stripped) and all(character in SHORTCUT_KEYS for character in stripped)
