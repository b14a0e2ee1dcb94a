"""Which tests each database runs (tests/conftest.py): `make test-sqlite` leaves out those that
reach the database through HTTP, `make test-postgres` those that never reach it."""

from dataclasses import dataclass, field

import pytest

from tests.conftest import runs_on_postgresql_only, uses_database


@dataclass
class Item:
    """What the selection reads of a collected test: its fixtures and its marks."""

    fixturenames: tuple[str, ...] = ()
    marks: dict[str, dict] = field(default_factory=dict)

    def get_closest_marker(self, name: str):
        if name not in self.marks:
            return None
        return getattr(pytest.mark, name)(**self.marks[name]).mark


def test_a_page_test_runs_on_postgresql_only():
    assert runs_on_postgresql_only(Item(("db", "client_as")))
    assert runs_on_postgresql_only(Item(("live_server",)))
    assert runs_on_postgresql_only(Item(marks={"django_db": {}, "http": {}}))


def test_a_service_test_runs_on_both():
    assert uses_database(Item(("db", "make_user")))
    assert not runs_on_postgresql_only(Item(("db", "make_user")))
    assert not runs_on_postgresql_only(Item(marks={"django_db": {"transaction": True}}))


def test_a_client_without_the_database_runs_where_the_pure_tests_do():
    assert not runs_on_postgresql_only(Item(("client",)))


def test_a_page_test_marked_also_on_sqlite_runs_on_both():
    assert not runs_on_postgresql_only(Item(("db", "client_as"), {"also_on_sqlite": {}}))
    assert not runs_on_postgresql_only(
        Item(marks={"django_db": {}, "http": {}, "also_on_sqlite": {}})
    )
