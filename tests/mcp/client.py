"""Drives `agents mcp` through the official MCP Python SDK's client.

Run by tests/mcp.rs: `python client.py SCENARIO AGENTS HOME FIXTURES [MODE]`
(MODE: `legacy` for the initialize handshake, `auto` to let the client
probe `server/discover`). Each scenario asserts what a client sees and
prints one JSON line of what it observed, which the Rust test checks too.
A failed assertion exits non-zero with the traceback on stderr.
"""

import asyncio
import json
import os
import sys
import warnings

import anyio
import jsonschema
import mcp_types
from mcp import Client, StdioServerParameters
from mcp.shared.subscriptions import ResourceUpdated

warnings.simplefilter("ignore")  # subscribe_resource is deprecated in 2026-07-28


# Where a client launches the server: the project it works on (the
# fixtures), which is the server's root unless --root says otherwise.
LAUNCHED_IN = None


def server(agents, home, *extra, cwd=None):
    # What a client configuration gives: the command, its arguments, and
    # (for the tests on the team registry) the registry to use.
    env = {"NO_COLOR": "1", "PATH": os.environ["PATH"]}
    for name in ["AGENTS_REGISTRY", "XDG_CACHE_HOME"]:
        if os.environ.get(name):
            env[name] = os.environ[name]
    return StdioServerParameters(command=agents, args=["--home", home, "mcp", *extra], env=env,
                                 cwd=cwd or LAUNCHED_IN)


async def call(client, name, args=None, **kw):
    """Call a tool; every answer's structured content is checked against the
    output schema the tool lists, and a refusal carries none."""
    result = await client.call_tool(name, args or {}, **kw)
    schemas = getattr(client, "_agents_output_schemas", None)
    if schemas is None:
        schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}
        client._agents_output_schemas = schemas
    if result.is_error:
        assert result.structured_content is None, (name, result.structured_content)
    elif schemas.get(name) is not None:
        jsonschema.validate(result.structured_content, schemas[name])
        CHECKED.add(name)
    return result


CHECKED = set()  # the tools whose answers were checked against their output schema


def ok(result):
    assert not result.is_error, f"tool failed: {result.content}"
    assert isinstance(result.structured_content, dict), result.structured_content
    return result.structured_content


async def register(client, type_name, name, path):
    """Register `path` as `name`, a resource of `type_name`; its view."""
    return ok(await call(client, "register_resource", {
        "type": type_name, "name": name, "args": {"path": path}}))


KIND = "agents/kind"  # where a refusal carries its kind, in the result's _meta


def refused(result, kind):
    """A refusal's message; its kind is `kind`, in `_meta`, and it carries no
    structured content (which a client would check against the output schema)."""
    assert result.is_error, f"expected a refusal, got {result.structured_content}"
    assert result.structured_content is None, result.structured_content
    got = (result.meta or {}).get(KIND)
    message = result.content[0].text
    assert got == kind, f"expected kind {kind}, got {got}: {message}"
    return message


async def tools(agents, home, fixtures, mode):
    """Every resource tool against a real directory, and their refusals."""
    seen = {}
    async with Client(server(agents, home), mode=mode) as client:
        listed = await client.list_tools()
        names = {t.name for t in listed.tools}
        seen["tools"] = sorted(names)
        assert "trust" not in " ".join(names)
        assert "type_add" not in names and "plugin_add" not in names
        by_name = {t.name: t for t in listed.tools}
        assert by_name["show_resource"].annotations.read_only_hint is True
        assert by_name["remove_resource"].annotations.destructive_hint is True
        assert by_name["sandbox_destroy"].annotations.destructive_hint is True
        assert by_name["show_resource"].output_schema["type"] == "object"
        # register_resource's arguments come from each type's cli_args.
        branches = by_name["register_resource"].input_schema["anyOf"]
        checkout = [b for b in branches if b["properties"]["type"]["const"] == "git-checkout"][0]
        assert "path" in checkout["properties"]["args"]["properties"], checkout

        types = ok(await call(client, "list_types"))["types"]
        assert any(t["name"] == "fs-directory" for t in types)
        assert ok(await call(client, "show_type", {"name": "git-checkout"}))["name"] == "git-checkout"

        tree_dir = os.path.join(fixtures, "tree")
        progress = []

        async def on_progress(done, total, message):
            progress.append((done, message))

        made = ok(await call(client, "register_resource", {
            "type": "fs-directory", "name": "local/tree", "args": {"path": tree_dir},
            "description": "a small tree"}, progress_callback=on_progress))
        assert made["name"] == "local/tree" and made["location"] == tree_dir, made
        shown = ok(await call(client, "show_resource", {"name_or_id": "local/tree"}))
        assert shown["resource_id"] == made["resource_id"]
        assert len(shown["children"]) == 2, shown  # a.txt and sub/
        # Provenance: registered by an agent, through the MCP face.
        assert shown["registered_by"]["face"] == "mcp", shown
        listed = ok(await call(client, "list_resources", {"name": "local/tree*"}))
        assert listed["total"] >= 3, listed
        limited = ok(await call(client, "list_resources", {"name": "local/tree*", "limit": 1}))
        assert len(limited["resources"]) == 1 and limited["total"] == listed["total"]
        under = ok(await call(client, "list_resources", {"under": "local/tree"}))
        assert all(r["resource_id"] != made["resource_id"] for r in under["resources"])
        below = ok(await call(client, "list_resources", {"name": "local/tree/*"}))
        assert under["total"] == below["total"] == 3, (under, below)  # a.txt, sub, sub/b.txt
        tree = ok(await call(client, "resource_tree", {"name_or_id": "local/tree", "depth": 1}))
        seen["tree_keys"] = sorted(tree)
        with open(os.path.join(tree_dir, "sub", "new.txt"), "w") as f:
            f.write("new\n")
        found = ok(await call(client, "discover", {"name_or_id": "local/tree", "depth": 2},
                              progress_callback=on_progress))
        seen["discovered_added"] = len(found["added"])
        seen["progress"] = len(progress)
        assert progress, "discovery sent no progress"
        inspected = ok(await call(client, "inspect", {"name_or_id": "local/tree"}))
        assert "text" in inspected

        other = await register(client, "fs-directory", "local/other",
                               os.path.join(fixtures, "other"))
        ok(await call(client, "link_child", {"parent": "local/tree", "child": "local/other"}))
        message = refused(await call(client, "link_child",
                                     {"parent": "local/other", "child": "local/tree"}), "cycle")
        seen["cycle"] = message
        ok(await call(client, "unlink_child", {"parent": "local/tree", "child": "local/other"}))

        # Refusals are tool results with a kind, never protocol errors.
        seen["not_found"] = refused(
            await call(client, "show_resource", {"name_or_id": "local/nothing"}), "not_found")
        refused(await call(client, "register_resource", {
            "type": "fs-directory", "args": {"path": "relative/dir"}}), "invalid_arguments")
        refused(await call(client, "register_resource", {
            "type": "fs-directory", "args": {"nope": "x"}}), "invalid_arguments")
        refused(await call(client, "type_add", {"path": "/x.yaml"}), "not_allowed")

        dry = ok(await call(client, "remove_resource", {"name_or_id": "local/other", "dry_run": True}))
        assert dry["dry_run"] is True
        gone = ok(await call(client, "remove_resource", {"name_or_id": "local/other"}))
        assert gone["removed"][0]["name"] == "local/other"
        with open(os.path.join(tree_dir, "a.txt"), "a") as f:
            f.write("more\n")
        refreshed = ok(await call(client, "refresh", {"names": ["local/tree"]}))
        seen["refresh_changed"] = len(refreshed["changed"])
    print(json.dumps(seen))


async def sandbox(agents, home, fixtures, mode):
    """A sandbox round trip on a copy of a directory."""
    seen = {}
    work = os.path.join(fixtures, "work")
    async with Client(server(agents, home), mode=mode) as client:
        await register(client, "fs-directory", "local/work", work)
        box = ok(await call(client, "sandbox_create",
                            {"resource": "local/work", "strategy": "copy_on_write"}))
        sid, workdir = box["sandbox_id"], box["workdir"]
        assert ok(await call(client, "sandbox_list", {"resource": "local/work"}))["sandboxes"][0]["sandbox_id"] == sid
        assert ok(await call(client, "sandbox_show", {"id": sid}))["sandbox_id"] == sid
        with open(os.path.join(workdir, "notes.txt"), "w") as f:
            f.write("first\n")
        ok(await call(client, "sandbox_checkpoint", {"id": sid, "label": "one"}))
        with open(os.path.join(workdir, "notes.txt"), "w") as f:
            f.write("second\n")
        ok(await call(client, "sandbox_rollback", {"id": sid}))
        with open(os.path.join(workdir, "notes.txt")) as f:
            assert f.read() == "first\n"
        diff = ok(await call(client, "sandbox_diff", {"id": sid}))
        seen["diff_keys"] = sorted(diff)
        ok(await call(client, "sandbox_apply", {"id": sid}))
        with open(os.path.join(work, "notes.txt")) as f:
            assert f.read() == "first\n"
        ok(await call(client, "sandbox_destroy", {"id": sid}))
        assert not os.path.exists(workdir)
        refused(await call(client, "sandbox_show", {"id": sid}), "not_found")
    print(json.dumps(seen))


async def resources(agents, home, fixtures, mode):
    """Registered resources as MCP resources: list (paged), template, read."""
    seen = {}
    async with Client(server(agents, home), mode=mode) as client:
        for i in range(3):
            await register(client, "fs-directory", f"local/d{i}", os.path.join(fixtures, f"d{i}"))
        listed = await client.list_resources()
        uris = [r.uri for r in listed.resources]
        seen["uris"] = uris
        assert "agents://resource/local/d0" in uris, uris
        # Children are reached through the template, not listed.
        assert all(not u.endswith(".txt") for u in uris), uris
        templates = await client.list_resource_templates()
        assert templates.resource_templates[0].uri_template == "agents://resource/{+name_or_id}"
        read = await client.read_resource("agents://resource/local/d0")
        view = json.loads(read.contents[0].text)
        assert view["name"] == "local/d0"
        child = view["children"][0]
        by_id = json.loads((await client.read_resource(f"agents://resource/{child}")).contents[0].text)
        assert by_id["resource_id"] == child
        try:
            await client.read_resource("agents://resource/local/missing")
            raise AssertionError("reading a missing resource answered")
        except Exception as e:  # the SDK raises MCPError for a protocol error
            seen["missing"] = str(e)
    print(json.dumps(seen))


async def subscribe(agents, home, fixtures, mode):
    """A subscribed resource's change, seen by a refresh, reaches the client."""
    seen = {}
    updated = []
    directory = os.path.join(fixtures, "watched")

    async def on_message(message):
        # The handshake-era protocol's notifications; a listen's are read
        # from its stream below (the handler may see them too, in any order).
        if getattr(message, "method", None) == "notifications/resources/updated":
            legacy.append(message.params.uri)

    legacy = []
    params = server(agents, home)
    # The server waits after acknowledging a listen before it adds the
    # listener (a debug-build seam): a change made in that window is told.
    params.env["AGENTS_TEST_MCP_LATE_LISTENER"] = "1"
    async with Client(params, mode=mode, message_handler=on_message) as client:
        await register(client, "fs-directory", "local/watched", directory)
        uri = "agents://resource/local/watched"
        seen["protocol"] = client.protocol_version
        if client.protocol_version >= "2026-07-28":
            async with client.listen(resource_subscriptions=[uri]) as sub:
                with open(os.path.join(directory, "new.txt"), "w") as f:
                    f.write("new\n")
                ok(await call(client, "refresh", {}))
                with anyio.fail_after(20):
                    event = await sub.__anext__()
                assert isinstance(event, ResourceUpdated) and event.uri == uri, event
                updated.append(event.uri)
                # Told once: nothing more arrives for that one change.
                with anyio.move_on_after(1):
                    event = await sub.__anext__()
                    updated.append(event.uri)
        else:
            await client.subscribe_resource(uri)
            with open(os.path.join(directory, "new.txt"), "w") as f:
                f.write("new\n")
            ok(await call(client, "refresh", {}))
            with anyio.fail_after(20):
                while not legacy:
                    await anyio.sleep(0.05)
            updated[:] = legacy
        assert updated == [uri], updated
        seen["updated"] = updated
    print(json.dumps(seen))


async def watch(agents, home, fixtures, mode):
    """With --watch, a change on disk reaches a subscriber with no tool call."""
    updated = []
    directory = os.path.join(fixtures, "watched")

    async def on_message(message):
        if getattr(message, "method", None) == "notifications/resources/updated":
            updated.append(message.params.uri)

    async with Client(server(agents, home), mode="legacy") as client:
        await register(client, "fs-directory", "local/watched", directory)
    async with Client(server(agents, home, "--watch"), mode="legacy", message_handler=on_message) as client:
        uri = "agents://resource/local/watched"
        await client.subscribe_resource(uri)
        await anyio.sleep(1)  # the watcher reads the registered locations first
        with open(os.path.join(directory, "new.txt"), "w") as f:
            f.write("new\n")
        with anyio.fail_after(60):
            while not updated:
                await anyio.sleep(0.1)
        assert updated[0] == uri, updated
    print(json.dumps({"updated": updated[:1]}))


async def read_only(agents, home, fixtures, mode):
    """--read-only serves the reads only; writes are refused as tool errors."""
    async with Client(server(agents, home, "--read-only"), mode=mode) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert "show_resource" in names and "sandbox_diff" in names
        for write in ["register_resource", "remove_resource", "sandbox_create", "link_child", "refresh"]:
            assert write not in names, write
        refused(await call(client, "register_resource", {"type": "fs-directory"}), "not_allowed")
        refused(await call(client, "resolve_environment",
                           {"resource": "x", "activate": True}), "not_allowed")
    async with Client(server(agents, home, "--allow-admin"), mode=mode) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"type_add", "type_remove", "plugin_add", "plugin_remove", "registry_import"} <= names
        assert not any("trust" in n for n in names), names
    print(json.dumps({"ok": True}))


async def untrusted(agents, home, fixtures, mode):
    """Activating an untrusted devcontainer is a tool error saying what a person runs."""
    seen = {}
    repo = os.path.join(fixtures, "repo")
    async with Client(server(agents, home), mode=mode) as client:
        await register(client, "git-checkout", "local/repo", repo)
        route = ok(await call(client, "resolve_environment", {"resource": "local/repo"}))
        seen["route"] = route
        message = refused(await call(client, "resolve_environment",
                                     {"resource": "local/repo", "activate": True}), "not_trusted")
        assert "agents resource trust" in message, message
        seen["message"] = message
    print(json.dumps(seen))


async def cancel(agents, home, fixtures, mode):
    """A discovery cancelled at its first progress point writes nothing; the server goes on."""
    seen = {}
    directory = os.path.join(fixtures, "tree")
    async with Client(server(agents, home), mode=mode) as client:
        await register(client, "fs-directory", "local/tree", directory)
        before = ok(await call(client, "list_resources", {}))
    with open(os.path.join(directory, "new.txt"), "w") as f:
        f.write("new\n")
    # The server holds each progress point until the request is cancelled
    # (a debug-build seam), so the cancel lands mid-discovery, never after.
    held = server(agents, home)
    held.env["AGENTS_TEST_MCP_HOLD_PROGRESS"] = "1"
    async with Client(held, mode=mode) as client:
        progressed = anyio.Event()
        answered = []

        async def on_progress(progress, total, message):
            progressed.set()

        async def discover(scope):
            with scope:
                answered.append(await call(client, "discover", {"name_or_id": "local/tree"},
                                           progress_callback=on_progress))

        scope = anyio.CancelScope()
        async with anyio.create_task_group() as group:
            group.start_soon(discover, scope)
            with anyio.fail_after(30):
                await progressed.wait()
            scope.cancel()
        assert answered == [], answered
        # The server still serves, and the cancelled discovery wrote nothing.
        after = ok(await call(client, "list_resources", {}))
        assert after == before, (before, after)
    async with Client(server(agents, home), mode=mode) as client:
        found = ok(await call(client, "discover", {"name_or_id": "local/tree"}))
        seen["added"] = [r["name"] for r in found["added"]]
    print(json.dumps(seen))


async def roots(agents, home, fixtures, mode):
    """Launched in `proj`, the server acts only there; read tools still see a person's resources."""
    seen = {}
    proj = os.path.realpath(os.path.join(fixtures, "proj"))
    outside = os.path.realpath(os.path.join(fixtures, "outside"))
    async with Client(server(agents, home, cwd=proj), mode=mode) as client:
        async def refused_outside(tool, args):
            message = refused(await call(client, tool, args), "outside_roots")
            assert proj in message, message  # the refusal names the roots
            return message

        seen["etc"] = await refused_outside("register_resource", {
            "type": "fs-directory", "name": "local/etc", "args": {"path": "/etc"}})
        await refused_outside("register_resource", {
            "type": "fs-directory", "name": "local/out", "args": {"path": outside}})
        # A symlink inside the root that leads out is judged where it leads.
        await refused_outside("register_resource", {
            "type": "fs-directory", "name": "local/link", "args": {"path": os.path.join(proj, "link")}})
        await register(client, "fs-directory", "local/proj", proj)
        ok(await call(client, "inspect", {"name_or_id": "local/proj", "file": "a.txt"}))
        seen["leak"] = await refused_outside("inspect", {"name_or_id": "local/proj", "file": "files/leak"})
        # What a person registered outside stays visible, and untouchable.
        shown = ok(await call(client, "show_resource", {"name_or_id": "local/person"}))
        assert shown["location"] == outside, shown
        ok(await call(client, "list_resources", {"name": "local/person"}))
        ok(await call(client, "resource_tree", {"name_or_id": "local/person"}))
        await refused_outside("inspect", {"name_or_id": "local/person"})
        await refused_outside("inspect", {"name_or_id": "local/person", "file": "secret.txt"})
        await refused_outside("sandbox_create", {"resource": "local/person"})
        await refused_outside("discover", {"name_or_id": "local/person"})
        await refused_outside("refresh", {"names": ["local/person"]})
        await refused_outside("link_child", {"parent": "local/proj", "child": "local/person"})
        await refused_outside("remove_resource", {"name_or_id": "local/person"})
        # The person's sandbox of it: seen, never applied through the agent.
        box = ok(await call(client, "sandbox_list", {"resource": "local/person"}))["sandboxes"][0]
        seen["apply"] = await refused_outside("sandbox_apply", {"id": box["sandbox_id"]})
        await refused_outside("sandbox_diff", {"id": box["sandbox_id"]})
        # "Refresh everything" is everything inside.
        ok(await call(client, "refresh", {}))
    # --root replaces the launch directory.
    async with Client(server(agents, home, "--root", outside, cwd=proj), mode=mode) as client:
        ok(await call(client, "inspect", {"name_or_id": "local/person"}))
        refused(await call(client, "inspect", {"name_or_id": "local/proj"}), "outside_roots")
    # Files the admin tools read are judged where they really are.
    async with Client(server(agents, home, "--allow-admin", cwd=proj), mode=mode) as client:
        leak = os.path.join(proj, "files", "leak")
        for tool in ["registry_import", "type_add", "plugin_add"]:
            refused(await call(client, tool, {"path": leak}), "outside_roots")
    print(json.dumps(seen))


async def client_roots(agents, home, fixtures, mode):
    """The client's roots narrow --root, and are read again when they change."""
    seen = {}
    proj = os.path.realpath(os.path.join(fixtures, "proj"))
    inner = os.path.join(proj, "inner")
    declared = [inner, os.path.join(fixtures, "outside")]
    asked = []
    answered_again = anyio.Event()

    async def list_roots(context):
        asked.append(list(declared))
        if len(asked) > 1:
            answered_again.set()
        return mcp_types.ListRootsResult(roots=[mcp_types.Root(uri=f"file://{d}") for d in declared])

    async with Client(server(agents, home, "--root", proj), mode=mode,
                      list_roots_callback=list_roots) as client:
        # The client's `inner` narrows the --root; its `outside` adds nothing.
        message = refused(await call(client, "register_resource", {
            "type": "fs-directory", "name": "local/proj", "args": {"path": proj}}), "outside_roots")
        assert message.split("may act in (")[1].split(");")[0] == os.path.realpath(inner), message
        refused(await call(client, "register_resource", {
            "type": "fs-directory", "name": "local/out",
            "args": {"path": os.path.join(fixtures, "outside")}}), "outside_roots")
        await register(client, "fs-directory", "local/inner", inner)
        declared[:] = [proj]
        await client.send_roots_list_changed()
        with anyio.fail_after(20):
            await answered_again.wait()
        await register(client, "fs-directory", "local/proj", proj)
        seen["asked"] = asked
    print(json.dumps(seen))


def wrong_value(schema):
    """A value of another JSON type than `schema` names."""
    return 12345 if schema.get("type") == "string" else "not-this-type"


def minimal_args(tool, fixtures):
    """Arguments that fit `tool`'s input schema: its required ones only."""
    schema = tool.input_schema
    if tool.name == "register_resource":
        return {"type": "fs-directory", "args": {"path": os.path.join(fixtures, "kept")}}
    args = {}
    for name in schema.get("required", []):
        kind = schema["properties"][name].get("type")
        args[name] = {"string": "local/nothing", "integer": 1, "boolean": False,
                      "array": [], "object": {}}[kind]
    return args


async def strict(agents, home, fixtures, mode):
    """Every tool checks its arguments against the schema it lists."""
    seen = {"unknown": {}, "wrong_type": {}}
    async with Client(server(agents, home, "--allow-admin"), mode=mode) as client:
        listed = (await client.list_tools()).tools
        assert len(listed) >= 25, [t.name for t in listed]
        for tool in listed:
            properties = tool.input_schema["properties"]
            args = minimal_args(tool, fixtures)
            message = refused(await call(client, tool.name, {**args, "bogus_argument": 1}),
                              "invalid_arguments")
            assert '"bogus_argument"' in message, (tool.name, message)
            for known in properties:
                assert known in message, (tool.name, known, message)
            seen["unknown"][tool.name] = message
            first = sorted(properties)[0]
            message = refused(await call(client, tool.name, {**args, first: wrong_value(properties[first])}),
                              "invalid_arguments")
            assert f'"{first}"' in message and "must be" in message, (tool.name, message)
            seen["wrong_type"][tool.name] = message
            for required in tool.input_schema.get("required", []):
                rest = {k: v for k, v in args.items() if k != required}
                message = refused(await call(client, tool.name, rest), "invalid_arguments")
                assert f'"{required}"' in message, (tool.name, message)
        # A type's own arguments (its cli_args) are checked too.
        kept = os.path.join(fixtures, "kept")
        message = refused(await call(client, "register_resource", {
            "type": "fs-directory", "args": {"path": kept, "branch": "main"}}), "invalid_arguments")
        assert '"args.branch"' in message and "path" in message, message
        message = refused(await call(client, "register_resource", {
            "type": "fs-directory", "args": {"path": 7}}), "invalid_arguments")
        assert '"args.path"' in message and "string" in message, message
        # A misspelt dry_run is refused; it does not remove.
        await register(client, "fs-directory", "local/kept", kept)
        message = refused(await call(client, "remove_resource",
                                     {"name_or_id": "local/kept", "dryRun": True}), "invalid_arguments")
        assert "dry_run" in message, message
        ok(await call(client, "show_resource", {"name_or_id": "local/kept"}))
        # Each tool, refused: no structured content to misread (call checks).
        seen["refused_tools"] = sorted(seen["unknown"])
    print(json.dumps(seen))


async def pages(agents, home, fixtures, mode):
    """resources/list pages through every registered resource by its cursor."""
    seen = {"pages": 0}
    async with Client(server(agents, home), mode=mode) as client:
        for i in range(205):
            ok(await call(client, "register_resource", {
                "type": "container-instance", "name": f"local/c{i:03}",
                "args": {"image": f"example/app:{i}"}}))
        uris, cursor = [], None
        while True:
            listed = await client.list_resources(cursor=cursor) if cursor else await client.list_resources()
            seen["pages"] += 1
            uris.extend(r.uri for r in listed.resources)
            cursor = listed.next_cursor
            if not cursor:
                break
        assert len(uris) == len(set(uris)) == 205, len(uris)
        try:
            await client.list_resources(cursor="not-a-cursor")
            raise AssertionError("a cursor the server never gave was taken")
        except Exception as e:
            seen["bad_cursor"] = str(e)
        seen["count"] = len(uris)
    print(json.dumps(seen))


async def outputs(agents, home, fixtures, mode):
    """Every tool tools/list names is called once and answers; `call` checks
    each answer against the output schema the tool lists, and a listed tool
    this does not call fails it (a new tool needs its call here)."""
    seen = {}
    async with Client(server(agents, home, "--allow-admin"), mode=mode) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        ok(await call(client, "list_types"))
        ok(await call(client, "show_type", {"name": "fs-directory"}))
        await register(client, "fs-directory", "local/tree", os.path.join(fixtures, "tree"))
        await register(client, "fs-directory", "local/other", os.path.join(fixtures, "other"))
        ok(await call(client, "list_resources"))
        ok(await call(client, "show_resource", {"name_or_id": "local/tree"}))
        ok(await call(client, "resource_tree", {"name_or_id": "local/tree"}))
        ok(await call(client, "link_child", {"parent": "local/tree", "child": "local/other"}))
        ok(await call(client, "unlink_child", {"parent": "local/tree", "child": "local/other"}))
        ok(await call(client, "discover", {"name_or_id": "local/tree"}))
        ok(await call(client, "refresh"))
        ok(await call(client, "inspect", {"name_or_id": "local/tree"}))
        ok(await call(client, "resolve_environment", {"resource": "local/tree"}))
        ok(await call(client, "remove_resource", {"name_or_id": "local/other"}))
        box = ok(await call(client, "sandbox_create",
                            {"resource": "local/tree", "strategy": "copy_on_write"}))
        sid = {"id": box["sandbox_id"]}
        ok(await call(client, "sandbox_list"))
        ok(await call(client, "sandbox_show", sid))
        with open(os.path.join(box["workdir"], "a.txt"), "w") as f:
            f.write("changed\n")
        ok(await call(client, "sandbox_checkpoint", {**sid, "label": "one"}))
        ok(await call(client, "sandbox_rollback", sid))
        ok(await call(client, "sandbox_diff", sid))
        ok(await call(client, "sandbox_apply", sid))
        ok(await call(client, "sandbox_destroy", sid))
        ok(await call(client, "type_add", {"path": os.path.join(fixtures, "acme-dir.yaml")}))
        ok(await call(client, "type_remove", {"name": "acme/dir"}))
        added = ok(await call(client, "plugin_add", {"path": os.path.join(fixtures, "faulty.wasm")}))
        ok(await call(client, "plugin_remove", {"module": added["module"]}))
        installed = ok(await call(client, "plugin_install", {"reference": os.environ["AGENTS_TEST_PLUGIN"]}))
        seen["installed"] = installed["plugin"]["module"]
        ok(await call(client, "registry_import", {"path": os.path.join(fixtures, "export.json")}))
        # Every change above, as events whose schema is the tool's.
        ok(await call(client, "list_events", {"resource": "local/tree", "below": True}))
        missing = names - CHECKED
        assert not missing, f"tools whose answers this scenario does not check: {sorted(missing)}"
        seen["checked"] = sorted(CHECKED)
    print(json.dumps(seen))


async def others(agents, home, fixtures, mode):
    """A change another process makes (the CLI) reaches a subscriber: the
    server follows the event log; list_events answers it too. On the
    handshake session a resources/subscribe, else a listen stream."""
    import contextlib
    import subprocess
    seen = {}
    legacy = []
    directory = os.path.join(fixtures, "watched")

    async def on_message(message):
        if getattr(message, "method", None) == "notifications/resources/updated":
            legacy.append(message.params.uri)

    async with contextlib.AsyncExitStack() as stack:
        client = await stack.enter_async_context(
            Client(server(agents, home), mode=mode, message_handler=on_message))
        seen["protocol"] = client.protocol_version
        await register(client, "fs-directory", "local/watched", directory)
        os.makedirs(os.path.join(fixtures, "quiet"), exist_ok=True)
        await register(client, "fs-directory", "local/quiet", os.path.join(fixtures, "quiet"))
        cursor = ok(await call(client, "list_events", {}))["events"][-1]["seq"]
        uri = "agents://resource/local/watched"
        sub = None
        if client.protocol_version >= "2026-07-28":
            # The listen stream's notifications are teed to on_message too.
            sub = await stack.enter_async_context(client.listen(resource_subscriptions=[uri]))
        else:
            await client.subscribe_resource(uri)
        # The server's own write is told once, as its tool made it (none came
        # here: nothing was subscribed then), never again from the log.
        with anyio.move_on_after(1):
            while not legacy:
                await anyio.sleep(0.05)
        assert legacy == [], legacy
        with open(os.path.join(directory, "new.txt"), "w") as f:
            f.write("new\n")
        done = subprocess.run([agents, "--home", home, "resource", "refresh", "local/watched"],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        with anyio.fail_after(5):
            while not legacy:
                await anyio.sleep(0.02)
        if sub is not None:
            with anyio.fail_after(5):
                event = await sub.__anext__()
            assert isinstance(event, ResourceUpdated) and event.uri == uri, event
        # Told once.
        await anyio.sleep(1)
        seen["updated"] = list(legacy)
        events = ok(await call(client, "list_events", {"resource": "local/watched"}))["events"]
        seen["ops"] = [(e["op"], e["via"]) for e in events]
        after = ok(await call(client, "list_events", {"since": events[-1]["seq"]}))["events"]
        seen["after_last"] = len(after)
        # Only what changed after the cursor: the refreshed one, not local/quiet.
        since = ok(await call(client, "list_resources", {"since": cursor}))
        seen["changed_since"] = sorted(r["name"] for r in since["resources"])
        seen["changed_total"] = since["total"]
    print(json.dumps(seen))


async def listed(agents, home, fixtures, mode):
    """resources/list_changed and tools/list_changed, fed from the event log:
    for the server's own registration (once, not twice), a CLI registration,
    a CLI removal (a CLI refresh changes no list), and a CLI type; on the
    handshake session, or on a listen stream that asked for them."""
    import contextlib
    import subprocess
    from mcp.shared.subscriptions import ResourcesListChanged, ToolsListChanged
    seen = {}
    told = {"resources": 0, "tools": 0}
    methods = {"notifications/resources/list_changed": "resources",
               "notifications/tools/list_changed": "tools"}

    async def on_message(message):
        # Both protocols' notifications: a listen stream's are teed here too.
        which = methods.get(getattr(message, "method", None))
        if which:
            told[which] += 1

    async def told_at_least(which, count):
        with anyio.fail_after(20):
            while told[which] < count:
                await anyio.sleep(0.02)

    def cli(*args):
        done = subprocess.run([agents, "--home", home, *args], capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr

    params = server(agents, home)
    # The server waits after acknowledging a listen before it adds the
    # listener (a debug-build seam): the registration below lands in that
    # window, and is told when the listener is added.
    params.env["AGENTS_TEST_MCP_LATE_LISTENER"] = "1"
    async with contextlib.AsyncExitStack() as stack:
        client = await stack.enter_async_context(
            Client(params, mode=mode, message_handler=on_message))
        seen["protocol"] = client.protocol_version
        sub = None
        if client.protocol_version >= "2026-07-28":
            sub = await stack.enter_async_context(
                client.listen(resources_list_changed=True, tools_list_changed=True))
            assert sub.honored.resources_list_changed and sub.honored.tools_list_changed, sub.honored
        # The server's own registration: told from the log, once.
        await register(client, "fs-directory", "local/own", os.path.join(fixtures, "own"))
        await told_at_least("resources", 1)
        if sub is not None:
            with anyio.fail_after(20):
                event = await sub.__anext__()
            assert isinstance(event, ResourcesListChanged), event
        # Another process's registration.
        cli("resource", "add", "fs-directory", "local/cli", "--path", os.path.join(fixtures, "cli"))
        await told_at_least("resources", 2)
        uris = [r.uri for r in (await client.list_resources()).resources]
        assert "agents://resource/local/cli" in uris, uris
        # A refresh changes no list; a removal does.
        with open(os.path.join(fixtures, "cli", "new.txt"), "w") as f:
            f.write("new\n")
        cli("resource", "refresh", "local/cli")
        cli("resource", "remove", "local/cli")
        await told_at_least("resources", 3)
        uris = [r.uri for r in (await client.list_resources()).resources]
        assert "agents://resource/local/cli" not in uris, uris
        # A new type changes register_resource's schema: tools/list.
        cli("resource", "type", "add", os.path.join(fixtures, "acme-bare.yaml"))
        await told_at_least("tools", 1)
        if sub is not None:
            kinds = set()
            with anyio.fail_after(20):
                while ToolsListChanged() not in kinds:
                    kinds.add(await sub.__anext__())
            assert kinds <= {ResourcesListChanged(), ToolsListChanged()}, kinds
        listed = {t.name: t for t in (await client.list_tools()).tools}
        branches = listed["register_resource"].input_schema["anyOf"]
        assert any(b["properties"]["type"]["const"] == "acme/bare" for b in branches), branches
        # The log is read in order: by the time the type's change was told,
        # every change before it was, each once — one for each of the three
        # registrations and removals, none for the refresh.
        seen["told"] = dict(told)
    print(json.dumps(seen))


SCENARIOS = {f.__name__: f for f in [others, listed, pages, tools, sandbox, resources, subscribe, watch, read_only, untrusted,
                                     cancel, strict, roots, client_roots, outputs]}

if __name__ == "__main__":
    scenario, agents, home, fixtures = sys.argv[1:5]
    LAUNCHED_IN = fixtures
    mode = sys.argv[5] if len(sys.argv) > 5 else "legacy"
    anyio.run(SCENARIOS[scenario], agents, home, fixtures, mode)
