// Drives `agents mcp` through the official MCP TypeScript SDK's client
// (`@modelcontextprotocol/sdk` 1.32.2, which `.ci/run` installs into
// target/node-tools), the same scenarios tests/mcp/client.py runs through
// the Python SDK, with the same checks wherever the SDK allows.
//
// Run by tests/mcp.rs: `node client.mjs SCENARIO AGENTS HOME FIXTURES`,
// with MCP_NODE_MODULES naming the node_modules directory that holds the
// SDK. The client validates every result's structuredContent against the
// tool's outputSchema once it has listed the tools (each connection lists
// them first), so an answer or a refusal it cannot read fails here. Each
// scenario prints one JSON line of what it observed.
//
// The SDK speaks the initialize handshake only (up to 2025-11-25); it has
// no `server/discover`, so there is no `auto` mode here.

import assert from "node:assert/strict";
import { appendFileSync, existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const modules = process.env.MCP_NODE_MODULES;
assert.ok(modules, "MCP_NODE_MODULES names the node_modules holding @modelcontextprotocol/sdk");
const sdk = (path) => import(pathToFileURL(join(modules, "@modelcontextprotocol/sdk/dist/esm", path)).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");
const { ListRootsRequestSchema, ResourceUpdatedNotificationSchema } = await sdk("types.js");

const KIND = "agents/kind"; // where a refusal carries its kind, in the result's _meta

// Where a client launches the server: the project it works on (the
// fixtures), which is the server's root unless --root says otherwise.
let LAUNCHED_IN;

// A connected client of a server started with `extra` arguments. `cwd`
// overrides where it is launched, `env` adds to its environment, and
// `capabilities` and `setup` (handlers set before the handshake, so a
// request the server sends at once is answered) shape the client.
async function connect(agents, home, extra = [], { cwd, env: more, capabilities, setup } = {}) {
  const env = { NO_COLOR: "1", PATH: process.env.PATH, ...more };
  for (const name of ["AGENTS_REGISTRY", "XDG_CACHE_HOME"]) {
    if (process.env[name]) env[name] = process.env[name];
  }
  const transport = new StdioClientTransport({
    command: agents,
    args: ["--home", home, "mcp", ...extra],
    env,
    stderr: "inherit",
    cwd: cwd ?? LAUNCHED_IN,
  });
  const client = new Client({ name: "agents-tests", version: "1.0.0" }, { capabilities: capabilities ?? {} });
  setup?.(client);
  await client.connect(transport);
  // Listing caches each tool's output schema: every call below is checked
  // against it by the SDK.
  const listed = await client.listTools();
  return { client, tools: listed.tools };
}

async function call(client, name, args = {}, options = undefined) {
  return client.callTool({ name, arguments: args }, undefined, options);
}

function ok(result) {
  assert.ok(!result.isError, `tool failed: ${JSON.stringify(result.content)}`);
  assert.equal(typeof result.structuredContent, "object");
  return result.structuredContent;
}

function refused(result, kind) {
  assert.equal(result.isError, true, `expected a refusal, got ${JSON.stringify(result)}`);
  assert.equal(result.structuredContent, undefined, JSON.stringify(result));
  const message = result.content[0].text;
  assert.equal(result._meta?.[KIND], kind, `expected kind ${kind}: ${JSON.stringify(result)}`);
  return message;
}

async function register(client, type, name, path) {
  return ok(await call(client, "register_resource", { type, name, args: { path } }));
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// `promise`, or a failure naming `what` once `ms` have passed.
async function within(ms, what, promise) {
  let timer;
  const late = new Promise((_, fail) => {
    timer = setTimeout(() => fail(new Error(`${what}: nothing within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

// Waits (polling) until `ready()` holds, failing after `ms`.
async function until(ms, what, ready) {
  const deadline = Date.now() + ms;
  while (!ready()) {
    assert.ok(Date.now() < deadline, `${what}: not within ${ms} ms`);
    await sleep(50);
  }
}

// A promise and the function that settles it.
function signal() {
  let fire;
  const fired = new Promise((done) => { fire = done; });
  return { fired, fire };
}

const scenarios = {
  // Every resource tool against a real directory, and their refusals.
  async tools(agents, home, fixtures) {
    const seen = {};
    const { client, tools } = await connect(agents, home);
    const names = tools.map((t) => t.name);
    seen.tools = names.sort();
    assert.ok(!names.some((n) => n.includes("trust")));
    assert.ok(!names.includes("type_add"));
    ok(await call(client, "list_types"));
    const treeDir = join(fixtures, "tree");
    let progress = 0;
    const onprogress = () => { progress += 1; };
    const made = ok(await call(client, "register_resource",
      { type: "fs-directory", name: "local/tree", args: { path: treeDir } }, { onprogress }));
    assert.equal(made.location, treeDir);
    const shown = ok(await call(client, "show_resource", { name_or_id: "local/tree" }));
    assert.equal(shown.resource_id, made.resource_id);
    ok(await call(client, "list_resources", { name: "local/tree*", limit: 1 }));
    ok(await call(client, "resource_tree", { name_or_id: "local/tree", depth: 1 }));
    writeFileSync(join(treeDir, "sub", "new.txt"), "new\n");
    const found = ok(await call(client, "discover", { name_or_id: "local/tree", depth: 2 }, { onprogress }));
    seen.discovered_added = found.added.length;
    seen.progress = progress;
    ok(await call(client, "inspect", { name_or_id: "local/tree" }));
    await register(client, "fs-directory", "local/other", join(fixtures, "other"));
    ok(await call(client, "link_child", { parent: "local/tree", child: "local/other" }));
    seen.cycle = refused(await call(client, "link_child", { parent: "local/other", child: "local/tree" }), "cycle");
    ok(await call(client, "unlink_child", { parent: "local/tree", child: "local/other" }));
    seen.not_found = refused(await call(client, "show_resource", { name_or_id: "local/nothing" }), "not_found");
    refused(await call(client, "register_resource", { type: "fs-directory", args: { path: "relative/dir" } }),
      "invalid_arguments");
    refused(await call(client, "type_add", { path: "/x.yaml" }), "not_allowed");
    const bogus = refused(await call(client, "remove_resource", { name_or_id: "local/other", dryRun: true }),
      "invalid_arguments");
    assert.ok(bogus.includes("dry_run"), bogus);
    assert.equal(ok(await call(client, "remove_resource", { name_or_id: "local/other", dry_run: true })).dry_run, true);
    ok(await call(client, "remove_resource", { name_or_id: "local/other" }));
    appendFileSync(join(treeDir, "a.txt"), "more\n");
    seen.refresh_changed = ok(await call(client, "refresh", { names: ["local/tree"] })).changed.length;
    await client.close();
    return seen;
  },

  // A sandbox round trip on a copy of a directory.
  async sandbox(agents, home, fixtures) {
    const work = join(fixtures, "work");
    const { client } = await connect(agents, home);
    await register(client, "fs-directory", "local/work", work);
    const box = ok(await call(client, "sandbox_create", { resource: "local/work", strategy: "copy_on_write" }));
    const id = box.sandbox_id;
    assert.equal(ok(await call(client, "sandbox_list", { resource: "local/work" })).sandboxes[0].sandbox_id, id);
    ok(await call(client, "sandbox_show", { id }));
    writeFileSync(join(box.workdir, "notes.txt"), "first\n");
    ok(await call(client, "sandbox_checkpoint", { id, label: "one" }));
    writeFileSync(join(box.workdir, "notes.txt"), "second\n");
    ok(await call(client, "sandbox_rollback", { id }));
    const diff = ok(await call(client, "sandbox_diff", { id }));
    ok(await call(client, "sandbox_apply", { id }));
    assert.equal(readFileSync(join(work, "notes.txt"), "utf8"), "first\n");
    ok(await call(client, "sandbox_destroy", { id }));
    assert.ok(!existsSync(box.workdir));
    refused(await call(client, "sandbox_show", { id }), "not_found");
    await client.close();
    return { diff_keys: Object.keys(diff).sort() };
  },

  // Registered resources as MCP resources: list, template, read.
  async resources(agents, home, fixtures) {
    const { client } = await connect(agents, home);
    for (const i of [0, 1, 2]) {
      await register(client, "fs-directory", `local/d${i}`, join(fixtures, `d${i}`));
    }
    const uris = (await client.listResources()).resources.map((r) => r.uri);
    assert.ok(uris.includes("agents://resource/local/d0"), uris);
    const templates = await client.listResourceTemplates();
    assert.equal(templates.resourceTemplates[0].uriTemplate, "agents://resource/{+name_or_id}");
    const read = await client.readResource({ uri: "agents://resource/local/d0" });
    assert.equal(JSON.parse(read.contents[0].text).name, "local/d0");
    await assert.rejects(client.readResource({ uri: "agents://resource/local/missing" }));
    await client.close();
    return { uris };
  },

  // A subscribed resource's change, seen by a refresh, reaches the client.
  async subscribe(agents, home, fixtures) {
    const directory = join(fixtures, "watched");
    const updated = [];
    const { client } = await connect(agents, home);
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => {
      updated.push(note.params.uri);
    });
    await register(client, "fs-directory", "local/watched", directory);
    const uri = "agents://resource/local/watched";
    await client.subscribeResource({ uri });
    writeFileSync(join(directory, "new.txt"), "new\n");
    ok(await call(client, "refresh", {}));
    await until(20000, "the update", () => updated.length > 0);
    assert.deepEqual(updated, [uri]);
    await client.close();
    return { updated };
  },

  // Activating an untrusted devcontainer is a tool error saying what a person runs.
  async untrusted(agents, home, fixtures) {
    const { client } = await connect(agents, home);
    await register(client, "git-checkout", "local/repo", join(fixtures, "repo"));
    ok(await call(client, "resolve_environment", { resource: "local/repo" }));
    const message = refused(await call(client, "resolve_environment",
      { resource: "local/repo", activate: true }), "not_trusted");
    assert.ok(message.includes("agents resource trust"), message);
    await client.close();
    return { message };
  },

  // --read-only serves the reads only; writes are refused as tool errors.
  async read_only(agents, home) {
    const { client, tools } = await connect(agents, home, ["--read-only"]);
    const names = tools.map((t) => t.name);
    assert.ok(names.includes("show_resource") && names.includes("sandbox_diff"), names);
    for (const write of ["register_resource", "remove_resource", "sandbox_create", "link_child", "refresh"]) {
      assert.ok(!names.includes(write), write);
    }
    refused(await call(client, "register_resource", { type: "fs-directory" }), "not_allowed");
    refused(await call(client, "resolve_environment", { resource: "x", activate: true }), "not_allowed");
    await client.close();
    const admin = await connect(agents, home, ["--allow-admin"]);
    const adminNames = admin.tools.map((t) => t.name);
    for (const tool of ["type_add", "type_remove", "plugin_add", "plugin_remove", "registry_import"]) {
      assert.ok(adminNames.includes(tool), `${tool}: ${adminNames}`);
    }
    assert.ok(!adminNames.some((n) => n.includes("trust")), adminNames);
    await admin.client.close();
    return { ok: true };
  },

  // With --watch, a change on disk reaches a subscriber with no tool call.
  async watch(agents, home, fixtures) {
    const directory = join(fixtures, "watched");
    const uri = "agents://resource/local/watched";
    const first = await connect(agents, home);
    await register(first.client, "fs-directory", "local/watched", directory);
    await first.client.close();
    const updated = [];
    const { client } = await connect(agents, home, ["--watch"], {
      setup: (c) => c.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => {
        updated.push(note.params.uri);
      }),
    });
    await client.subscribeResource({ uri });
    await sleep(1000); // the watcher reads the registered locations first
    writeFileSync(join(directory, "new.txt"), "new\n");
    await until(60000, "the watcher's update", () => updated.length > 0);
    assert.equal(updated[0], uri, JSON.stringify(updated));
    await client.close();
    return { updated: updated.slice(0, 1) };
  },

  // A discovery cancelled at its first progress point writes nothing; the
  // server goes on. The SDK cancels by an AbortSignal: it sends
  // notifications/cancelled and rejects the call with the signal's reason.
  async cancel(agents, home, fixtures) {
    const directory = join(fixtures, "tree");
    const first = await connect(agents, home);
    await register(first.client, "fs-directory", "local/tree", directory);
    const before = ok(await call(first.client, "list_resources", {}));
    await first.client.close();
    writeFileSync(join(directory, "new.txt"), "new\n");
    // The server holds each progress point until the request is cancelled
    // (a debug-build seam), so the cancel lands mid-discovery, never after.
    const { client } = await connect(agents, home, [], { env: { AGENTS_TEST_MCP_HOLD_PROGRESS: "1" } });
    const stray = []; // anything the SDK could not place, such as an answer to the cancelled call
    client.onerror = (error) => stray.push(String(error));
    const progressed = signal();
    const abort = new AbortController();
    const answer = call(client, "discover", { name_or_id: "local/tree" },
      { signal: abort.signal, onprogress: progressed.fire });
    await within(30000, "discovery's first progress", progressed.fired);
    abort.abort(new Error("cancelled by the test"));
    await assert.rejects(answer, /cancelled by the test/);
    // The server still serves, and the cancelled discovery wrote nothing.
    const after = ok(await call(client, "list_resources", {}));
    assert.deepEqual(after, before);
    assert.deepEqual(stray, []);
    await client.close();
    const last = await connect(agents, home);
    const found = ok(await call(last.client, "discover", { name_or_id: "local/tree" }));
    await last.client.close();
    return { added: found.added.map((r) => r.name) };
  },

  // Launched in `proj`, the server acts only there; read tools still see a
  // person's resources.
  async roots(agents, home, fixtures) {
    const seen = {};
    const proj = realpathSync(join(fixtures, "proj"));
    const outside = realpathSync(join(fixtures, "outside"));
    let { client } = await connect(agents, home, [], { cwd: proj });
    const refusedOutside = async (tool, args) => {
      const message = refused(await call(client, tool, args), "outside_roots");
      assert.ok(message.includes(proj), message); // the refusal names the roots
      return message;
    };
    seen.etc = await refusedOutside("register_resource",
      { type: "fs-directory", name: "local/etc", args: { path: "/etc" } });
    await refusedOutside("register_resource", { type: "fs-directory", name: "local/out", args: { path: outside } });
    // A symlink inside the root that leads out is judged where it leads.
    await refusedOutside("register_resource",
      { type: "fs-directory", name: "local/link", args: { path: join(proj, "link") } });
    await register(client, "fs-directory", "local/proj", proj);
    ok(await call(client, "inspect", { name_or_id: "local/proj", file: "a.txt" }));
    seen.leak = await refusedOutside("inspect", { name_or_id: "local/proj", file: "files/leak" });
    // What a person registered outside stays visible, and untouchable.
    const shown = ok(await call(client, "show_resource", { name_or_id: "local/person" }));
    assert.equal(shown.location, outside, JSON.stringify(shown));
    ok(await call(client, "list_resources", { name: "local/person" }));
    ok(await call(client, "resource_tree", { name_or_id: "local/person" }));
    await refusedOutside("inspect", { name_or_id: "local/person" });
    await refusedOutside("inspect", { name_or_id: "local/person", file: "secret.txt" });
    await refusedOutside("sandbox_create", { resource: "local/person" });
    await refusedOutside("discover", { name_or_id: "local/person" });
    await refusedOutside("refresh", { names: ["local/person"] });
    await refusedOutside("link_child", { parent: "local/proj", child: "local/person" });
    await refusedOutside("remove_resource", { name_or_id: "local/person" });
    // The person's sandbox of it: seen, never applied through the agent.
    const box = ok(await call(client, "sandbox_list", { resource: "local/person" })).sandboxes[0];
    seen.apply = await refusedOutside("sandbox_apply", { id: box.sandbox_id });
    await refusedOutside("sandbox_diff", { id: box.sandbox_id });
    // "Refresh everything" is everything inside.
    ok(await call(client, "refresh", {}));
    await client.close();
    // --root replaces the launch directory.
    ({ client } = await connect(agents, home, ["--root", outside], { cwd: proj }));
    ok(await call(client, "inspect", { name_or_id: "local/person" }));
    refused(await call(client, "inspect", { name_or_id: "local/proj" }), "outside_roots");
    await client.close();
    // Files the admin tools read are judged where they really are.
    ({ client } = await connect(agents, home, ["--allow-admin"], { cwd: proj }));
    const leak = join(proj, "files", "leak");
    for (const tool of ["registry_import", "type_add", "plugin_add"]) {
      refused(await call(client, tool, { path: leak }), "outside_roots");
    }
    await client.close();
    return seen;
  },

  // The client's roots narrow --root, and are read again when they change:
  // the SDK's `roots` capability, a roots/list handler, and
  // sendRootsListChanged.
  async client_roots(agents, home, fixtures) {
    const proj = realpathSync(join(fixtures, "proj"));
    const inner = join(proj, "inner");
    let declared = [inner, join(fixtures, "outside")];
    const asked = [];
    const again = signal();
    const { client } = await connect(agents, home, ["--root", proj], {
      capabilities: { roots: { listChanged: true } },
      setup: (c) => c.setRequestHandler(ListRootsRequestSchema, async () => {
        asked.push([...declared]);
        if (asked.length > 1) again.fire();
        return { roots: declared.map((d) => ({ uri: pathToFileURL(d).href })) };
      }),
    });
    // The client's `inner` narrows the --root; its `outside` adds nothing.
    const message = refused(await call(client, "register_resource",
      { type: "fs-directory", name: "local/proj", args: { path: proj } }), "outside_roots");
    assert.equal(message.split("may act in (")[1].split(");")[0], realpathSync(inner), message);
    refused(await call(client, "register_resource",
      { type: "fs-directory", name: "local/out", args: { path: join(fixtures, "outside") } }), "outside_roots");
    await register(client, "fs-directory", "local/inner", inner);
    declared = [proj];
    await client.sendRootsListChanged();
    await within(20000, "roots/list asked again", again.fired);
    await register(client, "fs-directory", "local/proj", proj);
    await client.close();
    return { asked };
  },

  // Every tool checks its arguments against the schema it lists. The SDK's
  // client checks nothing it sends, so every refusal here is the server's.
  async strict(agents, home, fixtures) {
    const seen = { unknown: {}, wrong_type: {} };
    const { client, tools } = await connect(agents, home, ["--allow-admin"]);
    assert.ok(tools.length >= 25, tools.map((t) => t.name));
    const kept = join(fixtures, "kept");
    for (const tool of tools) {
      const properties = tool.inputSchema.properties;
      const args = minimalArgs(tool, kept);
      let message = refused(await call(client, tool.name, { ...args, bogus_argument: 1 }), "invalid_arguments");
      assert.ok(message.includes('"bogus_argument"'), `${tool.name}: ${message}`);
      for (const known of Object.keys(properties)) {
        assert.ok(message.includes(known), `${tool.name} ${known}: ${message}`);
      }
      seen.unknown[tool.name] = message;
      const first = Object.keys(properties).sort()[0];
      message = refused(await call(client, tool.name, { ...args, [first]: wrongValue(properties[first]) }),
        "invalid_arguments");
      assert.ok(message.includes(`"${first}"`) && message.includes("must be"), `${tool.name}: ${message}`);
      seen.wrong_type[tool.name] = message;
      for (const required of tool.inputSchema.required ?? []) {
        const rest = { ...args };
        delete rest[required];
        message = refused(await call(client, tool.name, rest), "invalid_arguments");
        assert.ok(message.includes(`"${required}"`), `${tool.name}: ${message}`);
      }
    }
    // A type's own arguments (its cli_args) are checked too.
    let message = refused(await call(client, "register_resource",
      { type: "fs-directory", args: { path: kept, branch: "main" } }), "invalid_arguments");
    assert.ok(message.includes('"args.branch"') && message.includes("path"), message);
    message = refused(await call(client, "register_resource",
      { type: "fs-directory", args: { path: 7 } }), "invalid_arguments");
    assert.ok(message.includes('"args.path"') && message.includes("string"), message);
    // A misspelt dry_run is refused; it does not remove.
    await register(client, "fs-directory", "local/kept", kept);
    message = refused(await call(client, "remove_resource", { name_or_id: "local/kept", dryRun: true }),
      "invalid_arguments");
    assert.ok(message.includes("dry_run"), message);
    ok(await call(client, "show_resource", { name_or_id: "local/kept" }));
    await client.close();
    // Each tool, refused: no structured content to misread (refused checks).
    seen.refused_tools = Object.keys(seen.unknown).sort();
    return seen;
  },

  // resources/list pages through every registered resource by its cursor.
  async pages(agents, home) {
    const seen = { pages: 0 };
    const { client } = await connect(agents, home);
    for (let i = 0; i < 205; i++) {
      const n = String(i).padStart(3, "0");
      ok(await call(client, "register_resource",
        { type: "container-instance", name: `local/c${n}`, args: { image: `example/app:${i}` } }));
    }
    const uris = [];
    let cursor;
    do {
      const listed = await client.listResources(cursor ? { cursor } : undefined);
      seen.pages += 1;
      uris.push(...listed.resources.map((r) => r.uri));
      cursor = listed.nextCursor;
    } while (cursor);
    assert.equal(uris.length, 205);
    assert.equal(new Set(uris).size, 205);
    await assert.rejects(client.listResources({ cursor: "not-a-cursor" }), (e) => {
      seen.bad_cursor = String(e);
      return true;
    });
    seen.count = uris.length;
    await client.close();
    return seen;
  },

  // Every tool tools/list names, called once; the SDK checks each answer
  // against the tool's output schema (it throws for one that does not
  // fit), and a listed tool this does not call fails it.
  async outputs(agents, home, fixtures) {
    const { client, tools } = await connect(agents, home, ["--allow-admin"]);
    const answered = new Set();
    const answer = async (name, args = {}) => {
      const value = ok(await call(client, name, args));
      answered.add(name);
      return value;
    };
    await answer("list_types");
    await answer("show_type", { name: "fs-directory" });
    await answer("register_resource", { type: "fs-directory", name: "local/tree", args: { path: join(fixtures, "tree") } });
    await answer("register_resource", { type: "fs-directory", name: "local/other", args: { path: join(fixtures, "other") } });
    await answer("list_resources");
    await answer("show_resource", { name_or_id: "local/tree" });
    await answer("resource_tree", { name_or_id: "local/tree" });
    await answer("link_child", { parent: "local/tree", child: "local/other" });
    await answer("unlink_child", { parent: "local/tree", child: "local/other" });
    await answer("discover", { name_or_id: "local/tree" });
    await answer("refresh");
    await answer("inspect", { name_or_id: "local/tree" });
    await answer("resolve_environment", { resource: "local/tree" });
    await answer("remove_resource", { name_or_id: "local/other" });
    const box = await answer("sandbox_create", { resource: "local/tree", strategy: "copy_on_write" });
    const sid = { id: box.sandbox_id };
    await answer("sandbox_list");
    await answer("sandbox_show", sid);
    writeFileSync(join(box.workdir, "a.txt"), "changed\n");
    await answer("sandbox_checkpoint", { ...sid, label: "one" });
    await answer("sandbox_rollback", sid);
    await answer("sandbox_diff", sid);
    await answer("sandbox_apply", sid);
    await answer("sandbox_destroy", sid);
    await answer("type_add", { path: join(fixtures, "acme-dir.yaml") });
    await answer("type_remove", { name: "acme/dir" });
    const added = await answer("plugin_add", { path: join(fixtures, "faulty.wasm") });
    await answer("plugin_remove", { module: added.module });
    const installed = await answer("plugin_install", { reference: process.env.AGENTS_TEST_PLUGIN });
    await answer("registry_import", { path: join(fixtures, "export.json") });
    await answer("list_events", { resource: "local/tree", below: true });
    const missing = tools.map((t) => t.name).filter((name) => !answered.has(name));
    assert.deepEqual(missing, [], `tools whose answers this scenario does not check: ${missing}`);
    await client.close();
    return { installed: installed.plugin.module, checked: [...answered].sort() };
  },
};

// A value of another JSON type than `schema` names.
function wrongValue(schema) {
  return schema.type === "string" ? 12345 : "not-this-type";
}

// Arguments that fit `tool`'s input schema: its required ones only.
function minimalArgs(tool, kept) {
  if (tool.name === "register_resource") {
    return { type: "fs-directory", args: { path: kept } };
  }
  const byType = { string: "local/nothing", integer: 1, boolean: false, array: [], object: {} };
  const args = {};
  for (const name of tool.inputSchema.required ?? []) {
    const kind = tool.inputSchema.properties[name].type;
    assert.ok(kind in byType, `${tool.name}.${name}: no stand-in for ${kind}`);
    args[name] = byType[kind];
  }
  return args;
}

const [scenario, agents, home, fixtures] = process.argv.slice(2);
LAUNCHED_IN = fixtures;
const seen = await scenarios[scenario](agents, home, fixtures);
console.log(JSON.stringify(seen));
