"""Every refusal a person reads goes through the translation catalogue: a service, model or
command that raises a ValidationError, a Conflict, a NotFound or a CommandError with a plain
string fails here
(docs/development.md, "Translations").

The modules are read with `ast`: in a `raise` of an error (programming errors such as ValueError
are left out) and in an exception's `super().__init__(...)`, a string literal, an f-string or a
module constant holding a string must stand inside gettext (`gettext`, `_`, `gettext_lazy`...),
with its values as `%(name)s` placeholders. Django's `makemessages` only sees these names, so an
alias such as `gettext as __` fails too."""

import ast
from pathlib import Path

import pytest
from django.conf import settings

# The modules whose refusals reach people: services, models, and the domain modules beside them.
MODULES = sorted(
    {
        *settings.BASE_DIR.glob("*/services.py"),
        *settings.BASE_DIR.glob("*/services/*.py"),
        *settings.BASE_DIR.glob("*/models.py"),
        *settings.BASE_DIR.glob("*/models/*.py"),
        *settings.BASE_DIR.glob("*/forms.py"),
        # What the command-line tools refuse, in the shell's language (l2annot.commands).
        *settings.BASE_DIR.glob("*/management/commands/*.py"),
        *settings.BASE_DIR.glob("*/commands.py"),
        *(
            settings.BASE_DIR / name
            for name in (
                "accounts/permissions.py",
                "audit/editing.py",
                "grading/adjudication.py",
                "grading/flags.py",
                "grading/gold.py",
                "judging/eee_export.py",
                "rubrics/seedfile.py",
                "taxonomy/seedfile.py",
                "rubrics/publishing.py",
            )
        ),
    }
    - set(settings.BASE_DIR.glob(".venv/**/*.py"))
)
TRANSLATING = {
    "_",
    "gettext_noop",  # core.messages: a Text, shown in the reader's language
    "gettext",
    "gettext_lazy",
    "ngettext",
    "ngettext_lazy",
    "pgettext",
    "pgettext_lazy",
    "npgettext",
    "npgettext_lazy",
}
# Errors that report a programming mistake, not a refusal a person can act on.
PROGRAMMING_ERRORS = {
    "AssertionError",
    "KeyError",
    "LookupError",
    "NotImplementedError",
    "RuntimeError",
    "TypeError",
    "ValueError",
}


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def plain_texts(node: ast.AST | None, constants: dict[str, str]) -> list[str]:
    """The texts in an error's arguments that do not go through gettext."""
    if node is None:
        return []
    if isinstance(node, ast.Call):
        name = _name(node.func)
        if name in TRANSLATING:
            return []
        if name == "str" or name == "join":  # a value shown as it is, or a list of them
            return []
        found = plain_texts(node.func.value, constants) if name == "format" else []
        arguments = [*node.args, *(k.value for k in node.keywords if k.arg not in {"code"})]
        return found + [text for argument in arguments for text in plain_texts(argument, constants)]
    if isinstance(node, ast.Constant):
        words = isinstance(node.value, str) and any(c.isalpha() for c in node.value)
        return [node.value] if words else []
    if isinstance(node, ast.JoinedStr):
        return [ast.unparse(node)]
    if isinstance(node, ast.BinOp):  # "..." % values or "..." + "..."
        return plain_texts(node.left, constants) + (
            plain_texts(node.right, constants) if isinstance(node.op, ast.Add) else []
        )
    if isinstance(node, ast.Dict):
        return [text for value in node.values for text in plain_texts(value, constants)]
    if isinstance(node, ast.DictComp):
        return plain_texts(node.value, constants)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [text for value in node.elts for text in plain_texts(value, constants)]
    if isinstance(node, ast.IfExp):
        return plain_texts(node.body, constants) + plain_texts(node.orelse, constants)
    if isinstance(node, ast.Name) and node.id in constants:
        return [constants[node.id]]
    return []


def _error_call(node: ast.AST) -> ast.Call | None:
    """The call whose arguments make a message: `raise Error(...)`, or `super().__init__(...)`
    in an exception class."""
    if (
        isinstance(node, ast.Raise)
        and isinstance(node.exc, ast.Call)
        and _name(node.exc.func) not in PROGRAMMING_ERRORS
    ):
        return node.exc
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "__init__"
        and isinstance(node.func.value, ast.Call)
        and _name(node.func.value.func) == "super"
    ):
        return node
    return None


def untranslated_errors(source: str) -> list[tuple[int, str]]:
    """(line, text) of every error message of `source` made without gettext."""
    tree = ast.parse(source)
    constants = {
        target.id: statement.value.value
        for statement in tree.body
        if isinstance(statement, ast.Assign)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
        for target in statement.targets
        if isinstance(target, ast.Name)
    }
    exception_classes = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        and any(_name(base).endswith(("Error", "Conflict", "NotFound")) for base in node.bases)
    ]
    inits = {id(call) for cls in exception_classes for call in ast.walk(cls)}
    found = []
    for node in ast.walk(tree):
        call = _error_call(node)
        if call is None or (isinstance(node, ast.Call) and id(node) not in inits):
            continue
        found += [(node.lineno, text) for text in plain_texts(call, constants)]
    return sorted(found)


def test_the_check_sees_the_modules_that_refuse():
    names = {path.relative_to(settings.BASE_DIR).as_posix() for path in MODULES}
    assert {"grading/services/grades.py", "rubrics/models/criteria.py", "grading/flags.py"} <= names


def test_the_check_finds_plain_and_interpolated_messages_and_accepts_gettext():
    source = """
TAKEN = "Already taken."
class Closed(Conflict):
    def __init__(self, name):
        super().__init__(f"{name} is closed.")
def check(x):
    raise ValidationError({"name": TAKEN})
    raise ValidationError("Plain.")
    raise ValidationError(__("Aliased %(x)s.") % {"x": x})
    raise GradingError("Choose %s." % x)
    raise ValidationError(gettext("Fine %(x)s.") % {"x": x}, code="fine")
    raise Closed(_("Fine too."))
    raise ValueError(f"A programming mistake: {x}")
"""
    assert [text for _, text in untranslated_errors(source)] == [
        "f'{name} is closed.'",
        "Already taken.",
        "Plain.",
        "Aliased %(x)s.",
        "Choose %s.",
    ]


@pytest.mark.parametrize(
    "module", MODULES, ids=lambda path: path.relative_to(settings.BASE_DIR).as_posix()
)
def test_refusals_are_translatable(module: Path):
    found = untranslated_errors(module.read_text(encoding="utf-8"))
    assert found == [], f"{module.name}: wrap these messages in gettext (with %(name)s values)"
