"""A plain text progress bar for the import commands (no dependency)."""

from typing import Protocol


class TextStream(Protocol):
    def write(self, text: str, /) -> object: ...
    def flush(self) -> object: ...


class TextProgressBar:
    """Call with (done, total, stage); redraws one line on `stream` (stderr), only when the
    shown percentage or stage changes, and ends the line on close()."""

    def __init__(self, stream: TextStream, width: int = 30) -> None:
        self.stream = stream
        self.width = width
        self.last: tuple[int, str] | None = None

    def __call__(self, done: int, total: int, stage: str) -> None:
        fraction = min(max(done / total, 0.0), 1.0) if total else 1.0
        shown = (int(fraction * 100), stage)
        if shown == self.last:
            return
        self.last = shown
        filled = int(fraction * self.width)
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r[{bar}] {shown[0]:3d}% {stage:<30}")
        self.stream.flush()

    def close(self) -> None:
        if self.last is not None:
            self.stream.write("\n")
            self.stream.flush()
