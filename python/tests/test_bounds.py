"""Bounded work on data anyone can write: a 100,000-deep chain of links
is refused by get_resource_tree and graph with the bound named, never a
crash (it segfaulted the interpreter before the tree view was bounded)."""

import pytest

from resource_host import InvalidArgumentsError

LIMIT = 60
N = 100_000


def chain_document(reg, n):
    """The registry's own export, plus a chain local/chain/r0 → … → rn of
    fs-directory resources (locations need not exist to be imported)."""
    doc = reg.export_document()
    at = "2026-01-01T00:00:00Z"
    # ULIDs in Crockford base32: a fixed timestamp, then the index.
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

    def rid(i):
        digits = []
        for _ in range(16):
            digits.append(alphabet[i % 32])
            i //= 32
        return "01HF0000000000" + "".join(reversed(digits))[4:]

    doc["resources"] = [
        {
            "resource_id": rid(i),
            "name": f"local/chain/r{i}",
            "resource_type_name": "fs-directory",
            "classification": "physical",
            "location": f"/nonexistent/chain/r{i}",
            "description": None,
            "read_only": False,
            "auto_discovered": False,
            "sandbox_strategy": None,
            "content_hash": None,
            "properties": {},
            "created_at": at,
            "updated_at": at,
            "discovered_at": None,
            "stale": None,
        }
        for i in range(n + 1)
    ]
    doc["links"] = [
        {
            "parent_id": rid(i),
            "child_id": rid(i + 1),
            "auto_discovered": False,
            "derived": False,
            "created_at": at,
        }
        for i in range(n)
    ]
    return doc


def test_a_hundred_thousand_deep_chain_is_refused_by_the_tree_and_the_graph(reg):
    report = reg.import_document(chain_document(reg, N))
    assert report["links"]["added"] == N
    with pytest.raises(InvalidArgumentsError, match=f"deeper than {LIMIT} links"):
        reg.get_resource_tree("local/chain/r0")
    with pytest.raises(InvalidArgumentsError, match=f"deeper than {LIMIT} links"):
        reg.graph("local/chain/r0")
    top = reg.get_resource_tree("local/chain/r0", depth=3)
    assert top["children"][0]["children"][0]["children"][0]["children"] == []
    low = reg.get_resource_tree(f"local/chain/r{N - LIMIT}")
    assert low["name"] == f"local/chain/r{N - LIMIT}"
