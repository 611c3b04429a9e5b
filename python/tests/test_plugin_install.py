"""install_plugin: a plugin a teammate pushed, signed, to a real OCI
registry (CNCF Distribution on loopback, AGENTS_TEST_REGISTRY) installs
with the types it carries; an unsigned one is refused unless
allow_unsigned, which is recorded."""

import json
import os
import subprocess

import pytest

import resource_host
from resource_host import RegistryError

from conftest import wasm


@pytest.fixture
def oci_registry():
    address = os.environ.get("AGENTS_TEST_REGISTRY")
    if not address:
        if os.environ.get("CI"):
            pytest.fail("AGENTS_TEST_REGISTRY is not set: .ci/run starts a registry")
        pytest.skip('no test registry: eval "$(scripts/test-registry.sh start)"')
    return address


def agents(agents_bin, home, *args):
    done = subprocess.run(
        [agents_bin, "--home", str(home), *args],
        capture_output=True,
        text=True,
        env=dict(os.environ, NO_COLOR="1", DOCKER_CONFIG=str(home) + "-no-docker"),
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_signed_plugin_installs_with_its_types_and_an_unsigned_one_needs_allow_unsigned(
    agents_bin, oci_registry, home, tmp_path
):
    publisher = tmp_path / "publisher"
    key = json.loads(agents(agents_bin, publisher, "plugin", "key", "new", "team", "-o", "json"))
    prefix = f"{oci_registry}/py{os.getpid()}"
    signed = f"{prefix}/signed"
    unsigned = f"{prefix}/unsigned"
    example = str(wasm("python_package.wasm"))
    agents(agents_bin, publisher, "plugin", "push", example, signed, "--sign", "team")
    agents(agents_bin, publisher, "plugin", "push", example, unsigned)
    agents(agents_bin, home, "plugin", "key", "trust", key["public_key"], "--for", prefix)

    reg = resource_host.Registry(home=home)
    installed = reg.install_plugin(f"{signed}:0.1.0")
    assert installed["plugin"]["module"] == "myteam.python"
    assert installed["types_added"] == ["myteam/python-package"]
    assert reg.show_type("myteam/python-package").name == "myteam/python-package"

    other = resource_host.Registry(home=tmp_path / "other")
    with pytest.raises(RegistryError) as refused:
        other.install_plugin(f"{unsigned}:0.1.0")
    assert "not signed" in str(refused.value)
    assert "myteam.python" not in [p["module"] for p in other.list_plugins()]
    loud = other.install_plugin(f"{unsigned}:0.1.0", allow_unsigned=True)
    assert loud["plugin"]["module"] == "myteam.python"
