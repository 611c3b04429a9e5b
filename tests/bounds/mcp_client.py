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

def server(agents, home):
    env = {"NO_COLOR": "1", "PATH": os.environ["PATH"]}
    for name in ["AGENTS_REGISTRY", "XDG_CACHE_HOME"]:
        if os.environ.get(name):
            env[name] = os.environ[name]
    return StdioServerParameters(command=agents, args=["--home", home, "mcp"], env=env)


def text(result):
    return " ".join(getattr(c, "text", "") for c in result.content)


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


SCENARIOS = {"deep_tree": deep_tree}


def main():
    name, agents, home, fixtures = sys.argv[1:5]
    seen = asyncio.run(SCENARIOS[name](agents, home, fixtures))
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
