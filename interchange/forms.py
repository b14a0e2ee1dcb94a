import zipfile
from typing import Any

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from grading.models import Study
from interchange.models import ImportJob
from interchange.rubric_validation import validating_studies
from taxonomy.models import Framework

ALLOWED = {
    ImportJob.Kind.BENCHMARK: (".zip",),
    ImportJob.Kind.RESPONSES: (".jsonl", ".json"),
    ImportJob.Kind.VERDICTS: (".jsonl", ".json"),
    ImportJob.Kind.EVAL_LOG: (".eval",),
}


def max_upload_bytes() -> int:
    return settings.IMPORT_MAX_UPLOAD_BYTES


class ImportForm(forms.Form):
    kind = forms.ChoiceField(
        choices=[c for c in ImportJob.Kind.choices if c[0] in ALLOWED], label=_("Kind")
    )
    framework = forms.ModelChoiceField(
        Framework.objects.all(), empty_label=None, label=_("Framework")
    )
    file = forms.FileField(label=_("File"))
    dry_run = forms.BooleanField(required=False, label=_("Dry run: check and count, write nothing"))
    create_missing = forms.BooleanField(
        required=False,
        label=_("Create missing sub-competencies (benchmark only)"),
        help_text=_(
            "A sub-competency code the file names and the framework lacks (like 02x) is "
            "created under its competency, as a placeholder to be named."
        ),
    )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        upload, kind = data.get("file"), data.get("kind")
        if data.get("create_missing") and kind != ImportJob.Kind.BENCHMARK:
            self.add_error(
                "create_missing", gettext("Only a benchmark import creates sub-competencies.")
            )
        if upload is None or kind is None:
            return data
        if upload.size > max_upload_bytes():
            self.add_error(
                "file",
                gettext("The file is over %(size)s MB.") % {"size": max_upload_bytes() // 2**20},
            )
            return data
        if (
            kind in (ImportJob.Kind.RESPONSES, ImportJob.Kind.VERDICTS)
            and upload.size > settings.IMPORT_MAX_JSONL_BYTES
        ):
            # The importer checks every line before it writes any, holding them all: a file
            # of 100 MB takes the worker to about 250 MB.
            self.add_error(
                "file",
                gettext(
                    "A JSON Lines file is at most %(size)s MB here: split it, or import it "
                    "with the import_responses or import_verdicts command."
                )
                % {"size": settings.IMPORT_MAX_JSONL_BYTES // 2**20},
            )
            return data
        allowed = ALLOWED[ImportJob.Kind(kind)]
        if not upload.name.lower().endswith(allowed):
            self.add_error(
                "file",
                gettext("This kind of import takes a file ending in %(endings)s.")
                % {"endings": ", ".join(allowed)},
            )
            return data
        head = next(upload.chunks(), b"")[:64]
        upload.seek(0)
        is_zip = zipfile.is_zipfile(upload)
        upload.seek(0)
        if kind in (ImportJob.Kind.BENCHMARK, ImportJob.Kind.EVAL_LOG) and not is_zip:
            self.add_error("file", gettext("The file is not a ZIP archive."))
        elif kind in (ImportJob.Kind.RESPONSES, ImportJob.Kind.VERDICTS) and not (
            head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{")
        ):
            self.add_error(
                "file", gettext("The file does not start with a JSON object: is it JSONL?")
            )
        return data


class OfflineUploadForm(forms.Form):
    """A filled offline grading workbook, recorded as the annotator chosen."""

    annotator: forms.ModelChoiceField[User] = forms.ModelChoiceField(
        queryset=None, to_field_name="username", label=_("Annotator")
    )  # set in __init__
    file = forms.FileField(label=_("Workbook (.xlsx)"))
    submit = forms.BooleanField(
        required=False, label=_("Submit every response the workbook completes")
    )

    def __init__(self, annotators: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["annotator"].queryset = annotators  # type: ignore[attr-defined]

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        if upload.size > max_upload_bytes():
            raise forms.ValidationError(
                gettext("The file is over %(size)s MB.") % {"size": max_upload_bytes() // 2**20}
            )
        if not upload.name.lower().endswith(".xlsx") or not zipfile.is_zipfile(upload):
            raise forms.ValidationError(
                gettext("Upload the .xlsx workbook downloaded from this page.")
            )
        upload.seek(0)
        return upload


class RubricsExportForm(forms.Form):
    """How the rubrics workbook is asked for, on the export page and in the API: the studies
    whose validation of each criterion it carries (none, one study's id, or `all`: every study
    of the framework that graded it) and whether it keeps only the validated criteria."""

    ALL = "all"
    TRUE, FALSE = ("1", "true", "on"), ("", "0", "false")

    validated_by = forms.CharField(
        required=False,
        label=_("Validation from"),
        help_text=_("A study's id, or all (every study of the framework that graded it)."),
    )
    only_validated = forms.CharField(required=False, label=_("Only the validated criteria"))

    def __init__(self, *args: Any, framework: Framework, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.framework = framework

    def clean_only_validated(self) -> bool:
        raw = str(self.cleaned_data.get("only_validated") or "").lower()
        if raw not in (*self.TRUE, *self.FALSE):
            raise ValidationError(gettext("Must be true or false."))
        return raw in self.TRUE

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        raw = (data.get("validated_by") or "").strip()
        studies: list[Study] | None = None
        if raw == self.ALL:
            studies = validating_studies(self.framework, None)
        elif raw:
            study = Study.objects.filter(pk=int(raw)).first() if raw.isdecimal() else None
            if study is None:
                self.add_error(
                    "validated_by",
                    gettext("No study with id %(id)s: give a study's id, or all.") % {"id": raw},
                )
                return data
            try:
                studies = validating_studies(self.framework, [study])
            except ValidationError as error:
                self.add_error("validated_by", error)
                return data
        if data.get("only_validated") and studies is None:
            self.add_error(
                "only_validated",
                gettext("Keeping only the validated criteria needs a study, or all."),
            )
        data["studies"] = studies
        return data
