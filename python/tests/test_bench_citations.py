"""utils/bench_citations.py: every file of bench/results is cited and every
citation in bench/README.md names a file; the citation forms on small texts."""
import os

import pytest

from conftest import REPO_DIR, load_repo_script


@pytest.fixture(scope="module")
def citations():
    return load_repo_script(os.path.join("utils", "bench_citations.py"), "qmat_bench_citations")


def resolve(citations, text, names):
    return [(c.line, c.text, c.matches)
            for c in citations.readme_citations(text, set(names))]


def test_repository_results_match_citations(citations):
    assert citations.check(REPO_DIR) == []


def test_braces(citations):
    assert citations.expand_braces("x-{a,b}{,-summary}.txt") == [
        "x-a.txt", "x-a-summary.txt", "x-b.txt", "x-b-summary.txt"]
    text = "| 1 | `results/r-{check,bf16}.json`, `.log`, `-ncu-m64.txt` |\n"
    names = ["r-check.json", "r-bf16.json", "r-check.log", "r-bf16.log",
             "r-ncu-m64.txt", "r.json"]
    assert resolve(citations, text, names) == [
        (1, "r-check.json", ["r-check.json"]),
        (1, "r-bf16.json", ["r-bf16.json"]),
        # A suffix extends every earlier stem that gives a file...
        (1, ".log", ["r-bf16.log", "r-check.log"]),
        # ...else the part before the brace.
        (1, "-ncu-m64.txt", ["r-ncu-m64.txt"]),
    ]


def test_suffix_ellipsis_and_glob(citations):
    text = ("| a | `results/g-sm90-main.json`, `...-wide.json`, `...-main.log` |"
            " `...-missing.json` |\n"
            "`bench/results/s-200x256.json`, `...-1000x384.json`,"
            " `...-{memcheck,racecheck}.log`, `-ncu-*`\n"
            "`--flag`, `.log` and `2026-12-01-x-*.json` cite nothing\n")
    names = ["g-sm90-main.json", "g-sm90-wide.json", "g-sm90-main.log",
             "g-sm90-wide.log", "s-200x256.json", "s-1000x384.json",
             "s-200x256-memcheck.log", "s-1000x384-memcheck.log",
             "s-1000x384-racecheck.log", "s-1000x384-ncu-a.txt",
             "s-1000x384-ncu-b.txt", "2026-12-01-x-a.json"]
    assert resolve(citations, text, names) == [
        (1, "g-sm90-main.json", ["g-sm90-main.json"]),
        # The ellipsis keeps the longest leading part of the stem that fits.
        (1, "...-wide.json", ["g-sm90-wide.json"]),
        (1, "...-main.log", ["g-sm90-main.log"]),
        # A new cell has no earlier citation: `...-missing.json` is skipped.
        (2, "s-200x256.json", ["s-200x256.json"]),
        (2, "...-1000x384.json", ["s-1000x384.json"]),
        (2, "...-memcheck.log", ["s-1000x384-memcheck.log", "s-200x256-memcheck.log"]),
        (2, "...-racecheck.log", ["s-1000x384-racecheck.log"]),
        (2, "-ncu-*", ["s-1000x384-ncu-a.txt", "s-1000x384-ncu-b.txt"]),
    ]


def test_broken_citation_is_reported(citations):
    text = "| x | `results/a.json`, `...-b.json`, `.csv` |\n"
    assert resolve(citations, text, ["a.json"]) == [
        (1, "a.json", ["a.json"]), (1, "...-b.json", []), (1, ".csv", [])]
