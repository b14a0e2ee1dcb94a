"""LabelFields leaves the migration state as the AlterFields makemigrations would write do."""

from django.db.migrations.loader import MigrationLoader
from django.db.migrations.operations import AlterField

from l2annot.migration_operations import LabelFields

LABELS = {"at": "recorded at", "actor": "actor", "kind": "kind"}


def test_label_fields_gives_the_state_alter_fields_would():
    loader = MigrationLoader(None, ignore_no_migrations=True)
    before = loader.project_state(("audit", "0002_model_names"))
    fields = before.models["audit", "auditevent"].fields
    assert fields["at"].verbose_name is None  # no label yet

    labelled = before.clone()
    # Rendered, and its relations known, as during migrate.
    assert labelled.apps is not None and labelled.relations is not None
    LabelFields({"AuditEvent": LABELS}).state_forwards("audit", labelled)
    altered = before.clone()
    assert altered.relations is not None
    for name, label in LABELS.items():
        _name, _path, args, kwargs = fields[name].deconstruct()
        field = fields[name].__class__(*args, **{**kwargs, "verbose_name": label})
        AlterField("auditevent", name, field).state_forwards("audit", altered)

    def described(state):  # type: ignore[no-untyped-def]
        model = state.models["audit", "auditevent"]
        return {name: field.deconstruct()[1:] for name, field in model.fields.items()}

    assert described(labelled) == described(altered)
    assert list(described(labelled)) == list(fields)  # in their order

    def related(state):  # type: ignore[no-untyped-def]
        return {
            (remote, model, name): field.deconstruct()[1:]
            for remote, by_model in state.relations.items()
            for model, by_name in by_model.items()
            for name, field in by_name.items()
        }

    assert related(labelled) == related(altered)
    actor = labelled.relations["accounts", "user"]["audit", "auditevent"]["actor"]
    assert actor is labelled.models["audit", "auditevent"].fields["actor"]
    model = labelled.apps.get_model("audit", "AuditEvent")
    assert model._meta.get_field("at").verbose_name == "recorded at"
    assert model._meta.get_field("actor").remote_field.model is labelled.apps.get_model(
        "accounts", "User"
    )
    # The earlier state is left as it was: states share their field objects.
    assert before.models["audit", "auditevent"].fields["at"].verbose_name is None
