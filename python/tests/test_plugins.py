"""Plugins: add_plugin with a real component, a plugin-backed type, and a handler's failure."""

import pytest

from resource_host import ExistsError, HandlerError

from conftest import REPO, wasm

SPEC_TYPE = REPO / "plugins/examples/python-package/python-package.yaml"


def test_the_example_plugin_and_its_type_register_a_package(reg, tmp_path):
    plugin = reg.add_plugin(wasm("python_package.wasm"))
    assert plugin["module"] == "myteam.python"
    assert "myteam.python" in [p["module"] for p in reg.list_plugins()]
    with pytest.raises(ExistsError):
        reg.add_plugin(wasm("faulty.wasm"), module="myteam.python")
    reg.register_type(SPEC_TYPE)
    pkg = tmp_path / "pkg"
    (pkg / "src").mkdir(parents=True)
    (pkg / "pyproject.toml").write_text('[project]\nname = "pkg"\nversion = "1.0"\n')
    res = reg.register_resource("myteam/python-package", name="local/pkg", location=pkg)
    assert res.location == str(pkg)
    assert reg.show_resource("local/pkg").resource_type_name == "myteam/python-package"


def faulty_type(reg, tmp_path, cls):
    reg.add_plugin(wasm("faulty.wasm"))
    yaml = tmp_path / f"{cls}.yaml"
    yaml.write_text(
        f"name: test/{cls.lower()}\nresource_kind: physical\nuser_addable: true\n"
        "cli_args:\n  - {name: path, type: path, required: true}\n"
        f"child_types: [fs-directory]\nhandler: test.faulty:{cls}\n"
    )
    reg.register_type(yaml)
    loc = tmp_path / "loc"
    loc.mkdir(exist_ok=True)
    return f"test/{cls.lower()}", loc


def test_a_handler_that_panics_is_a_handler_error_naming_its_call(reg, tmp_path):
    type_name, loc = faulty_type(reg, tmp_path, "Panic")
    with pytest.raises(HandlerError) as failed:
        reg.register_resource(type_name, name="local/p", location=loc)
    err = failed.value
    assert err.module == "test.faulty"
    assert err.class_name == "Panic"
    assert err.operation == "validate"
    assert err.kind == "trap"
    assert err.error_kind == "handler_failed"
    assert "deliberate panic during validate" in str(err)
    assert reg.list_resources() == []
