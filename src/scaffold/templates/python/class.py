

class @@CLASS@@:
    """@@DESCRIPTION@@"""

    def validate(self, args: dict[str, str]) -> list[Property]:
        """Check the registration arguments (the type's cli_args; `path` is
        canonical and readable in the sandbox); answer the properties to store."""
        path = args.get("path")
        if path is None:
            raise Err(HandlerError_InvalidArgs("missing argument `path`"))
        if not os.path.isdir(path):
            raise Err(HandlerError_InvalidArgs(f"{path} is not a directory"))
        entries = len(os.listdir(path))
        host.log(host.LogLevel.INFO, f"@@CLASS@@: {path} holds {entries} entries")
        return [Property("entries", str(entries))]

    def discover(self, r: ResourceView) -> list[Discovered]:
        """The children to register below r (one level). A child is of an
        existing type, at a location inside r's (relative to it, or
        absolute), named below it: Discovered("fs-directory", "src", "src", [], None)."""
        return []

    def inspect(self, r: ResourceView, file: str | None) -> Inspection:
        """Text for people and the same facts as fields."""
        location = r.location or ""
        return Inspection(f"@@CLASS@@ at {location}\n", [Property("location", location)])
