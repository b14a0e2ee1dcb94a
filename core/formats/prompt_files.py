"""Judge prompts as files a team keeps in its own repository: one Markdown file per prompt
version, what describes it in a YAML front matter and its text below it, exactly as sent.

    ---
    name: reference-guided
    version: 3
    style: binary
    description: One call per criterion, answered true or false.
    note: Says what a partial answer is.
    ---
    You are an expert assessor of AI responses ...

The front matter's keys:

- ``name`` (required): the prompt, letters, digits, hyphens and underscores, at most 60;
- ``style``: ``binary`` (the answer is true or false; the default) or ``critique`` (a critique,
  then the verdict alone on its last line);
- ``version``: the stored version the file was written from (a whole number from 1). A file
  whose text and style equal that version is that version; any other is a new version;
- ``description`` (the prompt's, used when the prompt is new) and ``note`` (what changed and
  why), text.

Any other key is refused, so a misspelt one never vanishes. The text is everything after the
closing ``---`` line, byte for byte, but for the one line break that ends the file (the writer
adds it, so an editor's final newline changes nothing).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

from core.prompting import AnswerStyle, template_problems

from .problems import Problem, describe, gettext_noop, shown

__all__ = [
    "KEYS",
    "SUFFIX",
    "PromptFile",
    "file_name",
    "read_prompt_file",
    "write_prompt_file",
]

SUFFIX = ".md"
KEYS = ("name", "version", "style", "description", "note")
NAME_MAX = 60
_NAME = re.compile(r"[-a-zA-Z0-9_]+")
_DELIMITER = "---"


@dataclass(frozen=True, slots=True)
class PromptFile:
    """One prompt version as a file holds it; `text_line` is the line its text starts on."""

    name: str
    text: str
    style: str = AnswerStyle.BINARY.value
    version: int | None = None
    description: str = ""
    note: str = ""
    file: str = ""
    text_line: int = 1

    def key(self) -> tuple[str, int | None]:
        return (self.name, self.version)


def file_name(name: str, version: int | None = None) -> str:
    """`<name>.md` for one version (a repository keeps the prompt under one name, so a new
    version is a diff), `<name>/v<version>.md` for a version among all of them."""
    return f"{name}{SUFFIX}" if version is None else f"{name}/v{version}{SUFFIX}"


class _Dumper(yaml.SafeDumper):
    """Writes a text of several lines as a literal block, as a person would."""


# Line breaks to YAML besides "\n": in a block or plain scalar a reader folds them, so a text
# holding one is written double-quoted, where they are escaped.
_OTHER_BREAKS = frozenset("\r\x85\u2028\u2029")


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if _OTHER_BREAKS.intersection(value):
        style: str | None = '"'
    else:
        style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def write_prompt_file(prompt: PromptFile) -> str:
    """The file's text: the front matter (empty description and note left out), then the
    prompt's text and one line break."""
    front: dict[str, Any] = {"name": prompt.name}
    if prompt.version is not None:
        front["version"] = prompt.version
    front["style"] = prompt.style
    for key in ("description", "note"):
        if value := getattr(prompt, key):
            front[key] = value
    matter = yaml.dump(front, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=2**31 - 1)
    return f"{_DELIMITER}\n{matter}{_DELIMITER}\n{prompt.text}\n"


def read_prompt_file(
    file: str, data: bytes, *, max_chars: int | None = None
) -> tuple[PromptFile | None, list[Problem]]:
    """The prompt version `data` holds, or None with every problem found (each naming `file`,
    the line and the field). A text longer than `max_chars` is refused; so is a text a judge
    could not be run with (`core.prompting.template_problems`)."""
    try:
        content = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        at = data.count(b"\n", 0, error.start) + 1
        return None, [Problem(file, at, None, gettext_noop("not UTF-8 text"))]
    # Lines end at "\n" only: the text is kept byte for byte, whatever else it holds.
    lines = content.split("\n")
    if lines[0].rstrip("\r") != _DELIMITER:
        message = gettext_noop("a prompt file starts with a line '---' opening its front matter")
        return None, [Problem(file, 1, None, message)]
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip("\r") == _DELIMITER), None)
    if end is None:
        message = gettext_noop("the front matter is never closed by a line '---'")
        return None, [Problem(file, 1, None, message)]
    text = "\n".join(lines[end + 1 :])
    if text.endswith("\n"):  # the line break that ends the file, CRLF in a CRLF file
        crlf = lines[end].endswith("\r")
        text = text.removesuffix("\r\n" if crlf and text.endswith("\r\n") else "\n")
    values, problems = _front_matter(file, "".join(f"{line}\n" for line in lines[1:end]))
    if values is None:
        return None, problems
    text_line = end + 2
    problems += _text_problems(file, text, text_line, max_chars)
    if "name" not in values and not any(p.field == "name" for p in problems):
        problems.append(Problem(file, 1, "name", gettext_noop("missing: every prompt has a name")))
    if problems:
        return None, problems
    return (
        PromptFile(
            name=values["name"],
            text=text,
            style=values.get("style", AnswerStyle.BINARY.value),
            version=values.get("version"),
            description=values.get("description", ""),
            note=values.get("note", ""),
            file=file,
            text_line=text_line,
        ),
        [],
    )


def _front_matter(file: str, matter: str) -> tuple[dict[str, Any] | None, list[Problem]]:
    """The front matter's checked values (None when it cannot be read), and the problems."""
    try:
        node = yaml.compose(matter, Loader=yaml.SafeLoader)
        loaded = yaml.safe_load(matter)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        at = mark.line + 2 if mark is not None else 2
        reason = getattr(error, "problem", None) or str(error)
        message = gettext_noop("the front matter is not YAML: %(reason)s", reason=reason)
        return None, [Problem(file, at, None, message)]
    if node is None:
        return {}, []
    if not isinstance(node, yaml.MappingNode) or not isinstance(loaded, dict):
        message = gettext_noop("the front matter is a list of 'key: value' lines")
        return None, [Problem(file, node.start_mark.line + 2, None, message)]
    lines_of: dict[str, int] = {}
    problems: list[Problem] = []
    for key_node, _value in node.value:
        key, at = str(key_node.value), key_node.start_mark.line + 2
        if key in lines_of:
            message = gettext_noop("given twice (first on line %(line)s)", line=lines_of[key])
            problems.append(Problem(file, at, key, message))
        elif key not in KEYS:
            message = gettext_noop(
                "unknown field; a prompt file's fields are %(keys)s", keys=", ".join(KEYS)
            )
            problems.append(Problem(file, at, key, message))
        lines_of.setdefault(key, at)
    values: dict[str, Any] = {}
    for key in KEYS:
        if key not in loaded:
            continue
        value, at = loaded[key], lines_of.get(key, 2)
        wrong = _value_problem(key, value)
        if wrong is not None:
            problems.append(Problem(file, at, key, wrong))
        elif value is not None:
            values[key] = value
    return values, problems


def _value_problem(key: str, value: Any) -> str | None:
    if key == "version":
        whole = isinstance(value, int) and not isinstance(value, bool)
        if value is not None and not (whole and value >= 1):
            return gettext_noop("a whole number from 1, not %(value)s", value=shown(value))
        return None
    if value is None and key in ("description", "note"):
        return None
    if not isinstance(value, str):
        # YAML reads `no` as false and `1.10` as a number: quoted, it is text.
        return gettext_noop(
            "text, not %(kind)s %(value)s (put it in quotes)",
            kind=describe(value),
            value=shown(value),
        )
    if key == "name" and not (_NAME.fullmatch(value) and len(value) <= NAME_MAX):
        return gettext_noop(
            "%(value)s: a name is letters, digits, hyphens and underscores, at most %(most)s",
            value=shown(value),
            most=NAME_MAX,
        )
    styles = [style.value for style in AnswerStyle]
    if key == "style" and value not in styles:
        return gettext_noop(
            "%(value)s is not a style; the styles are %(styles)s",
            value=shown(value),
            styles=", ".join(styles),
        )
    return None


def _text_problems(file: str, text: str, at: int, max_chars: int | None) -> list[Problem]:
    if max_chars is not None and len(text) > max_chars:
        message = gettext_noop(
            "a prompt is at most %(most)s characters long; this one has %(length)s",
            most=f"{max_chars:,}",
            length=f"{len(text):,}",
        )
        return [Problem(file, at, "text", message)]
    problems = []
    for problem in template_problems(text):
        # An unknown slot is shown where it is written; a missing one where the text starts.
        line = next(
            (
                at + offset
                for offset, written in enumerate(text.split("\n"))
                if problem.startswith("unknown slot")
                and any(p.startswith("unknown slot") for p in template_problems(written))
            ),
            at,
        )
        problems.append(Problem(file, line, "text", problem))
    return problems
