"""The TypedDicts of resource_host.views are the answers' real shapes:
every answer of every dict-answering method has exactly its view's keys
(the required ones, and optional ones only where declared), all the way
down through nested views and lists of them."""

import sqlite3
import typing

from resource_host import views

from conftest import REPO, git


def conforms(value, hint, path="answer"):
    """Why `value` is not a `hint` (a TypedDict, a List of one, …); [] if it is."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if typing.is_typeddict(hint):
        assert isinstance(value, dict), f"{path}: {value!r} is not a dict"
        keys, required = set(value), hint.__required_keys__
        wrong = [f"{path}: missing {sorted(required - keys)}"] if required - keys else []
        extra = keys - required - hint.__optional_keys__
        wrong += [f"{path}: undeclared {sorted(extra)}"] if extra else []
        hints = typing.get_type_hints(hint)
        for key in keys & set(hints):
            wrong += conforms(value[key], hints[key], f"{path}[{key!r}]")
        return wrong
    if origin is list:
        return [w for i, v in enumerate(value) for w in conforms(v, args[0], f"{path}[{i}]")]
    if origin is typing.Union and value is not None:
        return [w for a in args if a is not type(None) for w in conforms(value, a, path)]
    return []


def test_every_dict_answer_has_its_views_keys(reg, repo, folder, tmp_path):
    answers = []

    def check(view, value):
        answers.append((view, value))
        return value

    res = reg.register_resource("git-checkout", name="local/repo", location=repo)
    reg.register_resource("fs-directory", name="local/folder", location=folder)
    (folder / "new").mkdir()
    check(views.DiscoveryReport, reg.discover("local/folder"))
    check(views.DiscoveryReport, reg.auto_discover_children(res.resource_id))
    git(repo, "commit", "-q", "--allow-empty", "-m", "second")
    check(views.RefreshReport, reg.refresh())
    check(views.InspectView, reg.inspect("local/repo", file="README.md"))
    other = tmp_path / "other"
    other.mkdir()
    reg.register_resource("fs-directory", name="local/other", location=other)
    check(views.LinkView, reg.link_child("local/folder", "local/other"))
    check(views.TreeView, reg.get_resource_tree("local/repo"))
    check(views.GraphView, reg.graph("local/folder"))
    for plugin in reg.list_plugins():
        check(views.PluginView, plugin)
    for name in ("local/folder", "local/repo"):
        box = check(views.SandboxView, reg.create_sandbox(name))
        sid = box["sandbox_id"]
        (tmp_path / "x").write_text("x")
        check(views.CheckpointView, reg.checkpoint_sandbox(sid, label="one"))
        check(views.CheckpointView, reg.rollback_sandbox(sid))
        check(views.SandboxView, reg.show_sandbox(sid))
        check(views.SandboxDiff, reg.diff_sandbox(sid))
        check(views.Applied, reg.apply_sandbox(sid))
        check(views.SandboxView, reg.destroy_sandbox(sid))
    check(views.RouteView, reg.resolve_environment("local/folder"))
    check(views.ImportReport, reg.import_document(reg.export_document(), dry_run=True))
    check(views.InfoView, reg.info())
    check(views.RemovalReport, reg.remove_resource("local/other", dry_run=True))
    reg.register_type(REPO / "types/sqlite-database.yaml")
    db = tmp_path / "app.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE t (x INTEGER)")
    conn.close()
    reg.register_resource("local/sqlite-database", name="local/db", location=db)
    with reg.open_transaction(reg.create_sandbox("local/db")["sandbox_id"]) as txn:
        txn.execute("INSERT INTO t VALUES (1)")
        txn.checkpoint("a")
        for cp in txn.checkpoints():
            check(views.TxnCheckpoint, cp)
        check(views.TxnCheckpoint, txn.rollback())
        check(views.TxnChanges, txn.changes())
        check(views.TxnChanges, txn.apply())
    wrong = [w for view, value in answers for w in conforms(value, view, view.__name__)]
    assert wrong == [], "\n".join(wrong)
