"""The judge's output as it is stored. A judge answers with as much text as it likes (a model
looping on one phrase wrote 5 MB), and every page and API answer that shows the output would
carry all of it: what is stored is capped at settings.JUDGE_RATIONALE_MAX_CHARS, the rest
replaced by a visible marker. The whole answer stays in the run's Inspect `.eval` log."""

from django.conf import settings

MARKER = "\n[… %(left)s more characters of the judge's output not stored]"


def stored_output(text: str) -> str:
    """`text` as stored: unchanged when within the cap, else its beginning and the marker."""
    most = settings.JUDGE_RATIONALE_MAX_CHARS
    if len(text) <= most:
        return text
    return text[:most] + MARKER % {"left": f"{len(text) - most:,}"}
