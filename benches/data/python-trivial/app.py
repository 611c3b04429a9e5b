"""A trivial Python handler for the load benchmarks (benches/plugin_load.rs):
it does as little as a handler can, so the figures are the host's cost of
a big (~18 MB) componentize-py component, not Python's work."""

from typing import List, Optional

from wit_world import exports
from wit_world.imports import types


class Handler(exports.Handler):
    def describe(self) -> types.PluginInfo:
        return types.PluginInfo(
            module="bench.python",
            version="0.1.0",
            classes=[types.ClassInfo(name="TrivialHandler", description="does nothing")],
        )

    def validate(self, class_: str, args: List[types.Property]) -> List[types.Property]:
        return []

    def discover(self, class_: str, r: types.ResourceView) -> List[types.Discovered]:
        return []

    def content_hash(self, class_: str, r: types.ResourceView) -> str:
        return "trivial"

    def inspect(
        self, class_: str, r: types.ResourceView, file: Optional[str]
    ) -> types.Inspection:
        return types.Inspection(text="trivial\n", fields=[])
