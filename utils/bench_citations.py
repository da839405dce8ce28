#!/usr/bin/env python3
"""Checks that bench/results holds exactly the runs that are cited.

bench/results keeps the runs that bench/README.md's tables cite (git keeps
the others). A file there counts as cited when a citation in bench/README.md
names it, or when its name appears literally in any other tracked text file
(bench/report.py, docs, source comments).

Usage: bench_citations.py --uncited | --check

  --uncited  prints the files of bench/results that nothing cites, one path
             per line.
  --check    prints one line per problem and exits with 1 if a citation in
             bench/README.md names no existing file or a file of
             bench/results is cited by nothing.

Citations are backticked and read cell by cell (a table cell, or a line
outside tables), left to right. The forms:

  `results/X-bf16.json`           a full name; also `bench/results/...`, and a
                                  bare dated name `2026-12-01-....json`
  `results/X-{check,bf16}.json`   brace alternations, nested or repeated
                                  (`{a,b}{,-summary}`), anywhere in a citation
  `results/X-*`                   a glob, keeping every file it matches
  `.log`, `-ncu-*`                a suffix: appended to the stem (the name
                                  without its extension) of each earlier
                                  citation in the cell
  `...-wide.json`                 an ellipsis: some leading part of an earlier
                                  citation's stem (ending at a `-`), then this
                                  tail

The relative forms are ambiguous; each resolves against the files that
exist. A suffix keeps every earlier stem it extends to an existing file; an
ellipsis keeps, per earlier stem, the longest leading part that gives an
existing file. Where no earlier stem fits, the part of a brace or glob
citation before its first `{` or `*` is tried (`X-{check,bf16}.json`,
`-ncu-*` names `X-ncu-*`). A bare dated glob is not a citation: the README
uses one to quote what an old source comment said.
"""
import argparse
import fnmatch
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS_DIR = "bench/results"
README = "bench/README.md"

# A result file's extension, or a trailing glob.
_END = r"(?:\.(?:json|log|txt|csv)|\*)"
_FULL = re.compile(r"(?:bench/)?results/(?P<name>[^\s/`]+)")
_BARE = re.compile(r"\d{4}-\d\d-\d\d-[\w.,{}-]+\.(?:json|log|txt|csv)")
_SUFFIX = re.compile(r"(?=[-.])(?!--)[\w.,{}*-]*" + _END)
_ELLIPSIS = re.compile(r"(?:\.\.\.|\u2026)(?P<tail>-[\w.,{}*-]*" + _END + ")")
# A backticked span, or a cell separator outside one.
_TOKEN = re.compile(r"`([^`]*)`|\|")
# A date at the start of a name: only texts holding one can name a result.
_DATED = re.compile(r"\d{4}-\d\d-\d\d-")


@dataclass
class Citation:
    """One citation of bench/README.md, brace alternatives taken apart."""
    line: int
    text: str  # the name, or the relative form, as written
    matches: list[str] = field(default_factory=list)


def expand_braces(pattern: str) -> list[str]:
    """Expands `a{b,c}d{,e}` into every alternative, left to right."""
    m = re.search(r"\{([^{}]*)\}", pattern)
    if not m:
        return [pattern]
    head, tail = pattern[: m.start()], pattern[m.end():]
    return [x for alt in m.group(1).split(",") for x in expand_braces(head + alt + tail)]


def stem(name: str) -> str:
    """The name without its extension (a glob keeps its `*`)."""
    return re.sub(r"\.[A-Za-z0-9]+$", "", name)


def match(pattern: str, names: set[str]) -> list[str]:
    """The existing names a literal name or a glob matches."""
    if any(c in pattern for c in "*?["):
        return sorted(fnmatch.filter(names, pattern))
    return [pattern] if pattern in names else []


def _cells(text: str):
    """Yields (line number, [backticked strings]) per table cell or line,
    outside fenced code blocks."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        cell = []
        for m in _TOKEN.finditer(line):
            if m.group(1) is None:  # `|`: a new table cell
                yield number, cell
                cell = []
            else:
                cell.append(m.group(1).strip())
        yield number, cell


def _extend(stems: list[str], tail: str, names: set[str], ellipsis: bool) -> list[str]:
    """Resolves a suffix (appended to each stem) or an ellipsis (replacing
    each stem's end from some `-` on, the longest kept part that matches)."""
    found = []
    for s in stems:
        cuts = [len(s)]
        if ellipsis:
            cuts += [i for i in range(len(s) - 1, 0, -1) if s[i] == "-"]
        for cut in cuts:
            hits = match(s[:cut] + tail, names)
            if hits:
                found += hits
                break
    return sorted(set(found))


def readme_citations(text: str, names: set[str]) -> list[Citation]:
    """Every citation of a results file in `text` (bench/README.md), each
    with the existing files of `names` it names."""
    citations = []
    for number, cell in _cells(text):
        stems = []  # the stems of the cell's citations so far
        prefixes = []  # their parts before a brace or a `*`
        for token in cell:
            full = _FULL.fullmatch(token)
            if full or _BARE.fullmatch(token):
                name = full.group("name") if full else token
                if "{" in name or "*" in name:
                    prefixes.append(re.split(r"[{*]", name)[0].rstrip("-"))
                for expanded in expand_braces(name):
                    citations.append(Citation(number, expanded, match(expanded, names)))
                    stems.append(stem(expanded))
                continue
            # A suffix or an ellipsis, relative to the cell's citations so far.
            ellipsis = _ELLIPSIS.fullmatch(token)
            if not stems or not (ellipsis or _SUFFIX.fullmatch(token)):
                continue
            tail = ellipsis.group("tail") if ellipsis else token
            for part in expand_braces(tail):
                hits = (_extend(stems, part, names, bool(ellipsis))
                        or _extend(prefixes, part, names, bool(ellipsis)))
                citations.append(Citation(number, ("..." if ellipsis else "") + part, hits))
                if ellipsis:  # names another run: later forms may extend it
                    stems += [stem(h) for h in hits]
    return citations


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:  # tracked but removed from the working tree
        return ""


def result_names(root: str = ROOT) -> set[str]:
    """The names of the files in bench/results."""
    d = os.path.join(root, RESULTS_DIR)
    return {n for n in os.listdir(d) if os.path.isfile(os.path.join(d, n))}


def literal_mentions(names: set[str], root: str = ROOT) -> set[str]:
    """The names that appear literally in a tracked file other than
    bench/README.md and those of bench/results."""
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=root, check=True,
                             capture_output=True, text=True).stdout.split("\0")
    found = set()
    for path in tracked:
        if not path or path == README or path.startswith(RESULTS_DIR + "/"):
            continue
        text = _read(os.path.join(root, path))
        if _DATED.search(text):
            found |= {n for n in names if n in text}
    return found


def analyse(root: str = ROOT) -> tuple[list[Citation], list[str]]:
    """The README's citations and the sorted names of the uncited files."""
    names = result_names(root)
    citations = readme_citations(_read(os.path.join(root, README)), names)
    cited = {n for c in citations for n in c.matches} | literal_mentions(names, root)
    # The README's convention: the .log beside a cited JSON is that run's
    # console output and goes with it.
    cited |= {stem(n) + ".log" for n in cited if n.endswith(".json")} & names
    return citations, sorted(names - cited)


def check(root: str = ROOT) -> list[str]:
    """One message per broken citation and per uncited file."""
    citations, uncited = analyse(root)
    problems = [f"{README}:{c.line}: `{c.text}` names no file in {RESULTS_DIR}"
                for c in citations if not c.matches]
    problems += [f"{RESULTS_DIR}/{n}: cited by nothing" for n in uncited]
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--uncited", action="store_true",
                      help="print the files of bench/results that nothing cites")
    mode.add_argument("--check", action="store_true",
                      help="fail on broken citations and uncited files")
    args = parser.parse_args()
    if args.uncited:
        for name in analyse()[1]:
            print(f"{RESULTS_DIR}/{name}")
        return 0
    problems = check()
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
