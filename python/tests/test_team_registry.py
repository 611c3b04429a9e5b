"""A team registry on PostgreSQL, opened by its URL: what one teammate
registers, another's Registry (another home) sees. Runs when
``AGENTS_TEST_POSTGRES`` names a server (``.ci/run`` starts one), in a
schema of its own made and dropped with ``psql``."""

import os
import shutil
import subprocess
import uuid

import pytest

from resource_host import NotFoundError, Registry

SERVER = os.environ.get("AGENTS_TEST_POSTGRES")


@pytest.fixture
def team_url():
    if not SERVER or not shutil.which("psql"):
        pytest.skip("no PostgreSQL server (set AGENTS_TEST_POSTGRES; .ci/run starts one)")
    schema = f"py_{uuid.uuid4().hex}"
    subprocess.run(["psql", SERVER, "-qc", f"CREATE SCHEMA {schema}"], check=True)
    separator = "&" if "?" in SERVER else "?"
    yield f"{SERVER}{separator}options=-csearch_path%3D{schema}"
    subprocess.run(["psql", SERVER, "-qc", f"DROP SCHEMA {schema} CASCADE"], check=True)


def test_what_one_teammate_registers_another_sees(team_url, tmp_path, folder):
    alice = Registry(home=tmp_path / "alice", registry=team_url)
    bob = Registry(home=tmp_path / "bob", registry=team_url)
    res = alice.register_resource("fs-directory", name="local/shared", location=folder)
    assert bob.show_resource("local/shared").resource_id == res.resource_id
    assert alice.info()["backend"] == "postgres"
    bob.remove_resource("local/shared")
    with pytest.raises(NotFoundError):
        alice.show_resource("local/shared")
