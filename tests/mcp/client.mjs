// Drives `agents mcp` through the official MCP TypeScript SDK's client
// (`@modelcontextprotocol/sdk` 1.32.2, which `.ci/run` installs into
// target/node-tools), the same scenarios tests/mcp/client.py runs through
// the Python SDK.
//
// Run by tests/mcp.rs: `node client.mjs SCENARIO AGENTS HOME FIXTURES`,
// with MCP_NODE_MODULES naming the node_modules directory that holds the
// SDK. The client validates every result's structuredContent against the
// tool's outputSchema once it has listed the tools (each scenario lists
// them first), so an answer or a refusal it cannot read fails here. Each
// scenario prints one JSON line of what it observed.

import assert from "node:assert/strict";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const modules = process.env.MCP_NODE_MODULES;
assert.ok(modules, "MCP_NODE_MODULES names the node_modules holding @modelcontextprotocol/sdk");
const sdk = (path) => import(pathToFileURL(join(modules, "@modelcontextprotocol/sdk/dist/esm", path)).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");
const { ResourceUpdatedNotificationSchema } = await sdk("types.js");

const KIND = "agents/kind"; // where a refusal carries its kind, in the result's _meta

let LAUNCHED_IN;

async function connect(agents, home, ...extra) {
  const env = { NO_COLOR: "1", PATH: process.env.PATH };
  for (const name of ["AGENTS_REGISTRY", "XDG_CACHE_HOME"]) {
    if (process.env[name]) env[name] = process.env[name];
  }
  const transport = new StdioClientTransport({
    command: agents,
    args: ["--home", home, "mcp", ...extra],
    env,
    stderr: "inherit",
    // Launched in the fixtures, as a client launches a server in its
    // project: the server's default root.
    cwd: LAUNCHED_IN,
  });
  const client = new Client({ name: "agents-tests", version: "1.0.0" });
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
    const deadline = Date.now() + 20000;
    while (updated.length === 0 && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 50));
    }
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
    const { client, tools } = await connect(agents, home, "--read-only");
    const names = tools.map((t) => t.name);
    assert.ok(names.includes("show_resource") && !names.includes("register_resource"), names);
    refused(await call(client, "register_resource", { type: "fs-directory" }), "not_allowed");
    refused(await call(client, "resolve_environment", { resource: "x", activate: true }), "not_allowed");
    await client.close();
    return { ok: true };
  },
};

const [scenario, agents, home, fixtures] = process.argv.slice(2);
LAUNCHED_IN = fixtures;
const seen = await scenarios[scenario](agents, home, fixtures);
console.log(JSON.stringify(seen));
