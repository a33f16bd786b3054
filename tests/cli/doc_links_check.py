#!/usr/bin/env python3
"""Every relative link of README.md and docs/*.md points at a file that exists and, with #anchor, at a heading of
that file (GitHub's anchors: the heading lower-cased, punctuation but '-' and '_' dropped, spaces as '-', a repeated
heading suffixed -1, -2, ...). Links inside fenced code and `code spans` are not links. README.md stays under 300
lines, and every docs/ page is linked from it.
    doc_links_check.py SOURCE_DIR
Prints one line per broken link and exits 1 on any."""
import os
import re
import sys

LINK = re.compile(r"\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"`[^`]*`")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
README_MAX_LINES = 300


def prose_lines(path):
    """(line number, text) of the lines outside fenced code, code spans removed."""
    in_fence = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            if not in_fence:
                yield number, CODE_SPAN.sub("", line.rstrip("\n"))


def slug(heading):
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading: its text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    seen, found = {}, set()
    in_fence = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            m = HEADING.match(line) if not in_fence else None
            if m:
                s = slug(m.group(2))
                n = seen.get(s, 0)
                found.add(s if n == 0 else "%s-%d" % (s, n))
                seen[s] = n + 1
    return found


def main(root):
    docs = os.path.join(root, "docs")
    files = [os.path.join(root, "README.md")] + sorted(
        os.path.join(docs, n) for n in os.listdir(docs) if n.endswith(".md"))
    failures = []
    cache = {}
    readme_targets = set()
    for path in files:
        for number, text in prose_lines(path):
            for target in LINK.findall(text):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                    continue
                file_part, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                where = "%s:%d: %s" % (os.path.relpath(path, root), number, target)
                if not os.path.exists(dest):
                    failures.append("%s: no file %s" % (where, os.path.relpath(dest, root)))
                    continue
                if path.endswith("README.md") and os.path.dirname(path) == root:
                    readme_targets.add(os.path.normpath(dest))
                if anchor and dest.endswith(".md"):
                    if dest not in cache:
                        cache[dest] = anchors(dest)
                    if anchor not in cache[dest]:
                        failures.append("%s: no heading #%s in %s" % (where, anchor, os.path.relpath(dest, root)))
    with open(files[0], encoding="utf-8") as f:
        count = sum(1 for _ in f)
    if count >= README_MAX_LINES:
        failures.append("README.md: %d lines, expected under %d (move a section to docs/)" % (count, README_MAX_LINES))
    for page in files[1:]:
        if os.path.normpath(page) not in readme_targets:
            failures.append("%s: not linked from README.md" % os.path.relpath(page, root))
    for f in failures:
        print(f)
    print("%d files, %d broken links or problems" % (len(files), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
