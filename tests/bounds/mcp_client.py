"""Bounded work behind `agents mcp`, driven by the official MCP Python SDK.

Run by tests/bounds.rs: `python mcp_client.py SCENARIO AGENTS HOME FIXTURES`.
Each scenario asserts what the client sees and prints one JSON line of
what it observed, which the Rust test checks too. Refusals are read from
`isError` and the text content, which every revision of the refusal's
shape keeps.
"""

import asyncio
import json
import os
import sys
import warnings

from mcp import Client, StdioServerParameters

warnings.simplefilter("ignore")

CALLS = 300


LAUNCHED_IN = None


def server(agents, home):
    env = {"NO_COLOR": "1", "PATH": os.environ["PATH"]}
    for name in ["AGENTS_REGISTRY", "XDG_CACHE_HOME", "AGENTS_TEST_MCP_BUSY_WAIT_MS"]:
        if os.environ.get(name):
            env[name] = os.environ[name]
    # Launched in the test's fixtures, as a client launches a server in
    # its project: the server's default root.
    return StdioServerParameters(command=agents, args=["--home", home, "mcp"], env=env,
                                 cwd=LAUNCHED_IN)


def text(result):
    return " ".join(getattr(c, "text", "") for c in result.content)


def server_pid(home):
    """The pid of the `agents --home HOME mcp` process."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if home.encode() in argv and b"mcp" in argv:
            return int(entry)
    raise AssertionError("the server's process was not found")


def threads(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    return 0


async def alive(client):
    result = await client.call_tool("list_resources", {"limit": 1})
    return not result.is_error


async def deep_tree(agents, home, fixtures):
    seen = {}
    async with Client(server(agents, home)) as client:
        result = await client.call_tool("resource_tree", {"name_or_id": "local/chain/r0"})
        assert result.is_error, "a 100,000-deep tree was answered"
        seen["refusal"] = text(result)
        result = await client.call_tool("resource_tree", {"name_or_id": "local/chain/r0", "depth": 3})
        assert not result.is_error, text(result)
        nodes, todo = 0, [result.structured_content]
        while todo:
            node = todo.pop()
            nodes += 1
            todo.extend(node["children"])
        seen["shallow_nodes"] = nodes
        seen["alive"] = await alive(client)
    return seen


async def many(agents, home, tool, args):
    """CALLS calls of `tool` at once; what they answered, and the most
    threads the server ran on meanwhile."""
    seen = {"answered": 0, "busy": 0, "max_threads": 0}
    async with Client(server(agents, home)) as client:
        # The SDK lists the tools before a first call (to check answers
        # against their output schemas); listed now, so the burst below
        # is only tool calls — a tools/list caught in it could be refused
        # busy, as a protocol error, when the wait is a millisecond.
        await client.list_tools()
        pid = server_pid(home)
        done = asyncio.Event()

        async def sample():
            while not done.is_set():
                seen["max_threads"] = max(seen["max_threads"], threads(pid))
                await asyncio.sleep(0.01)

        sampler = asyncio.create_task(sample())
        results = await asyncio.gather(*[client.call_tool(tool, args) for _ in range(CALLS)])
        done.set()
        await sampler
        for result in results:
            if not result.is_error:
                seen["answered"] += 1
            elif "the server is busy" in text(result):
                seen["busy"] += 1
                seen["busy_message"] = text(result)
            else:
                raise AssertionError(f"a call failed: {text(result)}")
        seen["alive"] = await alive(client)
        seen["max_threads"] = max(seen["max_threads"], threads(pid))
    return seen


async def concurrent(agents, home, fixtures):
    # `inspect` runs a handler: each running call needs a registry and an
    # engine.
    seen = await many(agents, home, "inspect", {"name_or_id": "local/dir"})
    assert seen["busy"] == 0, seen
    return seen


async def busy(agents, home, fixtures):
    # A burst finds the slots taken only while the server is slower than
    # the client sending it; on a machine loaded by something else the
    # client can be the slower one, and every call gets a slot in time. So
    # up to five bursts (each on a fresh server), until one meets `busy`:
    # every burst must still answer or refuse each of its calls.
    for _ in range(5):
        seen = await many(agents, home, "inspect", {"name_or_id": "local/dir"})
        assert seen["busy"] + seen["answered"] == CALLS, seen
        if seen["busy"] > 0:
            break
    return seen


SCENARIOS = {"deep_tree": deep_tree, "concurrent": concurrent, "busy": busy}


def main():
    global LAUNCHED_IN
    name, agents, home, fixtures = sys.argv[1:5]
    LAUNCHED_IN = fixtures
    seen = asyncio.run(SCENARIOS[name](agents, home, fixtures))
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
