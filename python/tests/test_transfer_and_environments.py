"""export_document / import_document, and resolve_environment."""

import pytest

from resource_host import ConflictError, InvalidArgumentsError, Registry


def test_an_exported_document_fills_a_new_home(reg, folder, tmp_path):
    reg.register_resource("fs-directory", name="local/folder", location=folder)
    doc = reg.export_document()
    assert doc["resources"]
    other = Registry(home=tmp_path / "other")
    rehearsed = other.import_document(doc, dry_run=True)
    assert other.list_resources() == []
    report = other.import_document(doc)
    assert {**rehearsed, "dry_run": False} == report
    assert other.show_resource("local/folder").location == str(folder)
    again = other.import_document(doc)
    assert again != report  # everything unchanged the second time


def test_a_document_that_is_not_one_is_refused(reg):
    with pytest.raises(InvalidArgumentsError):
        reg.import_document("{not json")


def test_a_resource_with_no_environment_set_runs_on_the_host(reg, folder):
    reg.register_resource("fs-directory", name="local/folder", location=folder)
    route = reg.resolve_environment("local/folder")
    assert route
    assert "host" in str(route)
    with pytest.raises(InvalidArgumentsError):
        reg.resolve_environment("local/folder", tool="sometimes:container")


def test_no_trust_method_exists_a_persons_consent_is_not_an_api():
    assert not any("trust" in name for name in dir(Registry))


_ = ConflictError
