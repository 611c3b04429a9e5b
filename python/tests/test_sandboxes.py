"""Sandboxes: the whole round trip on a directory and a git checkout, the
refusals, and a transaction_rollback sandbox held as a context manager."""

import sqlite3

import pytest

from resource_host import (
    InvalidArgumentsError,
    NotFoundError,
    SandboxFailedError,
    SandboxRefusedError,
    SandboxStateError,
    Transaction,
)

from conftest import REPO, git


def test_a_directory_sandbox_checkpoints_rolls_back_diffs_and_applies(reg, folder):
    reg.register_resource("fs-directory", name="local/folder", location=folder)
    box = reg.create_sandbox("local/folder")
    sid = box["sandbox_id"]
    assert box["strategy"] == "copy_on_write" and box["state"] == "active"
    assert [s["sandbox_id"] for s in reg.list_sandboxes()] == [sid]
    assert [s["sandbox_id"] for s in reg.list_sandboxes("local/folder")] == [sid]
    work = box["workdir"]
    with open(f"{work}/new.txt", "w") as f:
        f.write("one\n")
    first = reg.checkpoint_sandbox(sid, label="one")
    assert first["number"] == 1 and first["label"] == "one"
    with open(f"{work}/new.txt", "w") as f:
        f.write("two\n")
    reg.rollback_sandbox(sid, to="one")
    with open(f"{work}/new.txt") as f:
        assert f.read() == "one\n"
    assert reg.diff_sandbox(sid)["added"] == ["new.txt"]
    assert not (folder / "new.txt").exists()
    applied = reg.apply_sandbox(sid)
    assert applied == {"copied_back": {"added": ["new.txt"], "modified": [], "deleted": [], "commits": []}}
    assert (folder / "new.txt").read_text() == "one\n"
    assert reg.show_sandbox(sid)["sandbox_id"] == sid
    gone = reg.destroy_sandbox(sid)
    assert gone["sandbox_id"] == sid
    assert reg.list_sandboxes() == []
    with pytest.raises(NotFoundError):
        reg.show_sandbox(sid)


def test_a_git_sandbox_applies_as_a_branch(reg, repo):
    reg.register_resource("git-checkout", name="local/repo", location=repo)
    box = reg.create_sandbox("local/repo")
    assert box["strategy"] == "git_worktree"
    with open(f"{box['workdir']}/README.md", "a") as f:
        f.write("more\n")
    assert reg.diff_sandbox(box["sandbox_id"])["modified"] == ["README.md"]
    branch = reg.apply_sandbox(box["sandbox_id"])["branch"]
    assert branch in git(repo, "branch", "--format=%(refname:short)").split()
    reg.destroy_sandbox(box["sandbox_id"])


def test_an_unknown_strategy_and_a_missing_checkpoint_are_refused(reg, folder):
    reg.register_resource("fs-directory", name="local/folder", location=folder)
    with pytest.raises(InvalidArgumentsError) as refused:
        reg.create_sandbox("local/folder", strategy="bubble")
    assert "bubble" in str(refused.value)
    sid = reg.create_sandbox("local/folder")["sandbox_id"]
    with pytest.raises(NotFoundError):
        reg.rollback_sandbox(sid, to="never")
    reg.destroy_sandbox(sid)


def test_an_inherit_sandbox_with_nothing_above_is_refused(reg, folder):
    reg.register_resource("fs-directory", name="local/folder", location=folder)
    with pytest.raises(SandboxRefusedError) as refused:
        reg.create_sandbox("local/folder", strategy="inherit")
    assert isinstance(refused.value, SandboxFailedError)
    assert refused.value.error_kind == "sandbox_failed"
    assert str(refused.value).startswith("cannot create an inherit sandbox of local/folder:")


def test_a_transaction_sandbox_of_a_directory_fails_in_its_strategy(reg, folder):
    reg.register_resource("fs-directory", name="local/folder", location=folder)
    with pytest.raises(SandboxFailedError) as failed:
        reg.create_sandbox("local/folder", strategy="transaction_rollback")
    assert not isinstance(failed.value, SandboxRefusedError)
    assert "not a SQLite database file" in str(failed.value)


@pytest.fixture
def database(reg, tmp_path):
    reg.register_type(REPO / "types/sqlite-database.yaml")
    path = tmp_path / "app.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (x INTEGER)")
        db.execute("INSERT INTO t VALUES (1)")
    db.close()
    reg.register_resource("local/sqlite-database", name="local/app-db", location=path)
    return path


def rows(path):
    db = sqlite3.connect(path)
    try:
        return [r[0] for r in db.execute("SELECT x FROM t ORDER BY x")]
    finally:
        db.close()


def test_leaving_a_transaction_block_without_apply_rolls_everything_back(reg, database):
    sid = reg.create_sandbox("local/app-db")["sandbox_id"]
    with reg.open_transaction(sid) as txn:
        assert isinstance(txn, Transaction) and txn.is_open
        assert txn.execute("INSERT INTO t VALUES (2)") == [{"Changed": 1}]
        name = txn.checkpoint("two")
        txn.execute("INSERT INTO t VALUES (3)")
        assert txn.checkpoints()[0] == {"name": name, "label": "two"}
        txn.rollback("two")
        answer = txn.execute("SELECT x FROM t ORDER BY x")
        assert answer[0]["Rows"]["rows"] == [["1"], ["2"]]
        assert txn.changes()["rows"]
    assert not txn.is_open
    assert rows(database) == [1]
    with pytest.raises(InvalidArgumentsError):
        txn.execute("SELECT 1")
    reg.destroy_sandbox(sid)


def test_apply_commits_a_transaction_and_ends_it(reg, database):
    sid = reg.create_sandbox("local/app-db")["sandbox_id"]
    with reg.open_transaction(sid) as txn:
        txn.execute("INSERT INTO t VALUES (5)")
        txn.apply()
    assert rows(database) == [1, 5]
    reg.destroy_sandbox(sid)


def test_a_held_transaction_refuses_a_second_session_and_destroy(reg, database):
    sid = reg.create_sandbox("local/app-db")["sandbox_id"]
    with reg.open_transaction(sid) as txn:
        with pytest.raises(SandboxStateError) as refused:
            reg.destroy_sandbox(sid)
        assert "holds its session" in str(refused.value)
        with pytest.raises(SandboxFailedError):
            txn.execute("COMMIT")
    reg.destroy_sandbox(sid)
