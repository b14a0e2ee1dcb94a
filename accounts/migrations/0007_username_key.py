"""Every user name's key (what it reads as, accounts.usernames), unique: no new account may
take a name that reads like another's. Accounts that already read alike keep their names: the
later ones get a key of their own (the key and the account's id), so none is refused or lost."""

import django.contrib.auth.validators
from django.db import migrations, models

import accounts.usernames

HELP = "The user name as a reader sees it: no two accounts share it."


def fill_keys(apps, schema_editor):  # type: ignore[no-untyped-def]
    User = apps.get_model("accounts", "User")
    seen = set()
    for user in User.objects.order_by("pk").only("pk", "username"):
        key = accounts.usernames.username_key(user.username)
        if key in seen:
            key = f"{key}#{user.pk}"  # a '#' is in no user name, so in no other key
        seen.add(key)
        User.objects.filter(pk=user.pk).update(username_key=key)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0006_field_labels"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="username_key",
            field=models.CharField(
                blank=True,
                default="",
                editable=False,
                help_text=HELP,
                max_length=300,
                verbose_name="user name as read",
            ),
        ),
        migrations.RunPython(fill_keys, migrations.RunPython.noop, elidable=True),
        migrations.AlterField(
            model_name="user",
            name="username",
            field=models.CharField(
                error_messages={"unique": "A user with that username already exists."},
                help_text="Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.",
                max_length=150,
                unique=True,
                validators=[
                    django.contrib.auth.validators.UnicodeUsernameValidator(),
                    accounts.usernames.not_like_another,
                ],
                verbose_name="username",
            ),
        ),
        migrations.AddConstraint(
            model_name="user",
            constraint=models.UniqueConstraint(
                condition=models.Q(("username_key", ""), _negated=True),
                fields=("username_key",),
                name="user_name_reads_unlike_any_other",
                violation_error_message="This user name reads like another account's.",
            ),
        ),
    ]
