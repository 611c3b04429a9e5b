#!/usr/bin/env bash
# The documentation's links hold: run from anywhere, exits 1 naming every
# broken one. CI runs it (.ci/run).
#
#   scripts/check-doc-links.sh
#
# For every Markdown file in the repository (README.md, docs/,
# plugins/README.md; the scaffold's templates are text for other
# projects and are skipped):
#
# * a relative link names a file or directory that exists;
# * a `#anchor` (in the same file or another one) names a heading there,
#   spelled as GitHub spells heading anchors;
# * a path written as code (`src/registry/links.rs`, `tests/crash.rs`)
#   that starts with one of the repository's top-level directories exists,
#   so the docs cannot keep naming a file that moved;
# * every page under docs/ is linked from README.md.
#
# Links to the web (http:, https:, mailto:) are not fetched.
set -euo pipefail
cd "$(dirname "$0")/.."

exec python3 - "$@" <<'PY'
import os
import re
import subprocess
import sys

ROOT = os.getcwd()

def markdown_files():
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.md"],
        check=True, capture_output=True, text=True,
    ).stdout.split()
    return sorted(
        f for f in out
        if not f.startswith("src/scaffold/templates/") and os.path.exists(f)
    )

FENCE = re.compile(r"^\s*(```|~~~)")
LINK = re.compile(r"(?<!\!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"(`+)(.+?)\1")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")

def prose_lines(path):
    """(line number, text) of every line outside fenced code blocks."""
    fenced = False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if not fenced:
                yield n, line.rstrip("\n")

def slug(heading):
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text
    text = text.lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")

_anchors = {}

def anchors(path):
    if path not in _anchors:
        seen = {}
        found = set()
        for _, line in prose_lines(path):
            for a in HTML_ANCHOR.findall(line):
                found.add(a)
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
        _anchors[path] = found
    return _anchors[path]

TOP = sorted(
    d for d in os.listdir(ROOT)
    if os.path.isdir(d) and d not in {"target", ".git"} and not d.startswith(".")
) + [".ci"]
CODE_PATH = re.compile(r"^(?:%s)/[A-Za-z0-9_.\-/]*$" % "|".join(re.escape(d) for d in TOP))

def code_paths(line):
    """Paths of this repository written as code on the line."""
    for m in CODE.finditer(line):
        text = m.group(2).strip()
        for word in text.split():
            word = word.rstrip(".,;:)")
            # `src/plugin/git.rs:17`, a line reference
            word = re.sub(r":\d+$", "", word)
            if not CODE_PATH.match(word):
                continue
            if "/target/" in word or word.startswith("target/"):
                continue  # built, not in the tree
            if word.startswith("fuzz/corpus/"):
                continue  # made by running the fuzzers
            yield word

def main():
    errors = []
    files = markdown_files()
    for path in files:
        here = os.path.dirname(path)
        for n, line in prose_lines(path):
            where = f"{path}:{n}"
            # Links inside code spans are examples, not links.
            bare = CODE.sub("", line)
            for target in LINK.findall(bare) + IMAGE.findall(bare):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                    continue  # http:, https:, mailto:
                file_part, _, anchor = target.partition("#")
                if file_part:
                    dest = os.path.normpath(os.path.join(here, file_part))
                    if dest.startswith(".."):
                        errors.append(f"{where}: {target}: leaves the repository")
                        continue
                    if not os.path.exists(dest):
                        errors.append(f"{where}: {target}: no such file {dest}")
                        continue
                else:
                    dest = path
                if anchor:
                    if not dest.endswith(".md") or os.path.isdir(dest):
                        errors.append(f"{where}: {target}: an anchor into a file that is not Markdown")
                    elif anchor not in anchors(dest):
                        errors.append(f"{where}: {target}: {dest} has no heading #{anchor}")
            for p in code_paths(line):
                if not os.path.exists(p):
                    errors.append(f"{where}: `{p}`: no such file or directory")
    if os.path.isdir("docs"):
        linked = set()
        for _, line in prose_lines("README.md"):
            for target in LINK.findall(CODE.sub("", line)):
                linked.add(os.path.normpath(target.partition("#")[0]))
        for path in files:
            if path.startswith("docs/") and path not in linked:
                errors.append(f"README.md: does not link {path}")
    for e in errors:
        print(e)
    if errors:
        print(f"{len(errors)} broken documentation link(s) in {len(files)} files", file=sys.stderr)
        return 1
    print(f"documentation links: {len(files)} files, all links hold")
    return 0

sys.exit(main())
PY
