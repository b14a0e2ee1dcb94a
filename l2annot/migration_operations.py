"""Migration operations of our own."""

from typing import Any

from django.db.migrations.operations.base import Operation
from django.db.migrations.state import ProjectState


class LabelFields(Operation):
    """Give fields their labels (verbose names) in the migration state: `labels` maps each
    model of the migration's app to its fields' labels.

    The same as one AlterField per field, which is what makemigrations writes, but the models
    are rendered again once rather than once per field: hundreds of AlterFields added seconds
    to every migrate, and every migration test migrates twice. Labels never reach the
    database, so there is nothing to do there either way."""

    reduces_to_sql = False
    reversible = True

    def __init__(self, labels: dict[str, dict[str, str]]) -> None:
        self.labels = labels

    def deconstruct(self) -> tuple[str, list[Any], dict[str, Any]]:
        return self.__class__.__qualname__, [self.labels], {}

    def state_forwards(self, app_label: str, state: ProjectState) -> None:
        relations_known = getattr(state, "_relations", None) is not None  # not in the stubs
        for model_name, labels in self.labels.items():
            model_key = (app_label, model_name.lower())
            fields = state.models[model_key].fields
            order = list(fields)
            for name, label in labels.items():
                # Replaced, never changed in place: states share their field objects.
                old = fields[name]
                _name, _path, args, kwargs = old.deconstruct()
                new = old.__class__(*args, **{**kwargs, "verbose_name": label})
                if relations_known and old.is_relation:
                    # The relations known point at the field objects: the old one out, the
                    # new one in, as ProjectState.alter_field does.
                    del fields[name]
                    state.resolve_model_field_relations(model_key, name, old)
                    fields[name] = new
                    state.resolve_model_field_relations(model_key, name, new)
                else:
                    fields[name] = new
            in_order = {name: fields[name] for name in order}
            fields.clear()
            fields.update(in_order)
        state.reload_models([(app_label, name.lower()) for name in self.labels], delay=True)

    def database_forwards(self, *args: Any) -> None:
        pass

    def database_backwards(self, *args: Any) -> None:
        pass

    def describe(self) -> str:
        return f"Label the fields of {', '.join(self.labels)}"

    @property
    def migration_name_fragment(self) -> str:
        return "field_labels"
