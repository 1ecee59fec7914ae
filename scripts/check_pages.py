#!/usr/bin/env python3
"""check_pages: the lab pages, as the student release strips them, give no answer away.

    scripts/check_pages.py [--root DIR] [--lengths]

    --root DIR   check the repository (or a copy of it) in DIR; default: this script's repository
    --lengths    print each page's length, whole and stripped, and its core, then check as usual

Each docs/labs/NN-name.md is stripped with scripts/make-release's own functions (strip_answers,
strip_mistake_code: what lies between <!-- answer --> and <!-- /answer -->, the variants' code
and the Fix column of "Common mistakes"), then checked:

  done-when      the page opens with "## Goal", and the Goal has a "**Done when**" line
  solution-line  no distinctive line of the lab's reference (solutions/NN-name/) or plain answer
                 (grader/labs/NN-name/variants/answer.cu) is left, whitespace-normalized: the
                 lines make-release's --verify looks for (where solutions/ is absent, as in a
                 student release, this check is skipped)
  fix-column     the "Common mistakes" table has no Fix column left
  first-attempt  no "What a typical first attempt shows", and no figure of the plain answer's
                 profile (the "plain answer" column of a "| metric | ..." table of the unstripped
                 page) in the stripped "Profile it yourself" section
  exercise       the exercise of "Profile it yourself" asks for a prediction ("predict") before
                 the measurement
  reference-file no path of solutions/ is left: where a page names the reference's file, it
                 describes the reference's design, which answers a question (it goes in an answer
                 block; the reference's figures may stay)

The core is what a student reads to do the lab: the stripped page less its hints, "Common
mistakes", "Going further" and "Results on real GPUs" (opened or read when needed).

Exit codes: 0 every page passes; 1 a page fails (one line per problem: page, check, what);
2 bad arguments, or a page or scripts/make-release missing or unreadable.
"""

import argparse
import importlib.machinery
import importlib.util
import re
import sys
from pathlib import Path

PROG = "check_pages"
PAGES = "docs/labs"
NOT_CORE = ("Hints", "Common mistakes", "Going further", "Results on real GPUs")


class BadInput(Exception):
    pass


def load_release(root):
    """scripts/make-release as a module (it has no .py suffix)."""
    path = Path(root) / "scripts" / "make-release"
    if not path.is_file():
        raise BadInput(f"{path}: not found")
    loader = importlib.machinery.SourceFileLoader("make_release", str(path))
    spec = importlib.util.spec_from_loader("make_release", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def strip(release, text, path):
    """The page as the release ships it (links aside)."""
    try:
        text, _ = release.strip_answers(text, path)
    except release.Failure as e:
        raise BadInput(str(e))
    text, _ = release.strip_mistake_code(text)
    return text


def sections(text):
    """[(heading or "", lines)] for the "## " sections of a page (code fences respected)."""
    out, fenced = [("", [])], False
    for line in text.splitlines():
        if re.match(r"^\s*(```|~~~)", line):
            fenced = not fenced
        if not fenced and line.startswith("## "):
            out.append((line[3:].strip(), []))
        out[-1][1].append(line)
    return out


def section(text, name):
    return "\n".join("\n".join(lines) for head, lines in sections(text) if head.startswith(name))


def core_lines(text):
    return sum(len(lines) for head, lines in sections(text)
               if not any(head.startswith(n) for n in NOT_CORE))


def plain_answer_figures(text):
    """The cells of the "plain answer" column of the page's "| metric | ..." tables."""
    figures, column = set(), None
    for line in text.splitlines():
        if not line.lstrip().startswith("|"):
            column = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if column is None:
            names = [c.lower() for c in cells]
            column = names.index("plain answer") if names and names[0] == "metric" and \
                "plain answer" in names else -1
            continue
        if 0 <= column < len(cells) and re.search(r"[0-9]", cells[column]) and \
                not re.fullmatch(r"-+", cells[column]) and \
                cells[column] not in cells[1:column]:  # the reference's figure too: no answer
            figures.add(cells[column])
    return figures


def solution_lines(release, root, page):
    """{line: file} of the lab's hidden files (its reference and its plain answer), the lines
    make-release's --verify searches a release for; None where solutions/ is absent."""
    lab = page.stem
    hidden = sorted(p for p in (root / "solutions" / lab).rglob("*") if p.is_file()) \
        if (root / "solutions" / lab).is_dir() else []
    answer = root / "grader" / "labs" / lab / "variants" / "answer.cu"
    if answer.is_file():
        hidden.append(answer)
    if not hidden:
        return None
    origin = release.distinctive_lines(hidden, root)
    return {line: sorted(files)[0] for line, files in origin.items()
            if line not in release.ALLOWED_LINES}


def check_page(release, root, page, text):
    """[(check, what)] of one page; the stripped text."""
    problems = []
    stripped = strip(release, text, page)
    heads = [h for h, _ in sections(stripped) if h]
    goal = section(stripped, "Goal")
    if not heads or heads[0] != "Goal":
        problems.append(("done-when", "the page does not open with '## Goal'"))
    elif not re.search(r"^\*\*Done when\*\*", goal, re.M):
        problems.append(("done-when", "the Goal has no '**Done when**' line (what 100/100 takes)"))

    lines = solution_lines(release, root, page)
    if lines:
        flat = release.normalized(stripped)
        for line, origin in sorted(lines.items()):
            if release.normalized(line) in flat:
                problems.append(("solution-line", f"'{line}' of {origin}"))

    mistakes = release.MISTAKES_RE.search(stripped)
    if mistakes:
        for row in mistakes.group(2).splitlines():
            if row.lstrip().startswith("|") and "Fix" in [c.strip() for c in
                                                          release.table_cells(row)]:
                problems.append(("fix-column", "the Common mistakes table keeps its Fix column"))
                break

    profile = section(stripped, "Profile it yourself")
    if re.search(r"typical first attempt shows", stripped, re.I):
        problems.append(("first-attempt", "'What a typical first attempt shows' outside the "
                         "answer blocks"))
    for figure in sorted(plain_answer_figures(text)):
        if re.search(r"(?<![0-9.,])" + re.escape(figure) + r"(?![0-9]|[.,][0-9])", profile):
            problems.append(("first-attempt", f"the plain answer's profile figure '{figure}' "
                             "outside the answer blocks"))
    exercise = re.search(r"\*\*Exercise\.?\*\*(.*?)(?:\n\n|$)", profile, re.S)
    if profile and not exercise:
        problems.append(("exercise", "'Profile it yourself' has no **Exercise.**"))
    elif exercise and not re.search(r"\bpredict", exercise.group(1), re.I):
        problems.append(("exercise", "the exercise does not ask for a prediction before the "
                         "measurement"))
    for line in stripped.splitlines():
        found = re.search(r"solutions/[0-9][0-9]-[^\s`)]*", line)
        if found:
            problems.append(("reference-file", f"names {found.group(0)} outside the answer "
                             "blocks (the reference's design belongs in an answer)"))
    return problems, stripped


def main(argv):
    p = argparse.ArgumentParser(prog="check_pages.py", description=__doc__.split("\n")[0])
    p.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    p.add_argument("--lengths", action="store_true")
    args = p.parse_args(argv)
    root = Path(args.root).resolve()
    try:
        release = load_release(root)
        pages = sorted((root / PAGES).glob("[0-9][0-9]-*.md"))
        if not pages:
            raise BadInput(f"{root / PAGES}: no lab page")
        failures = 0
        if args.lengths:
            print(f"{'page':24} {'lines':>6} {'stripped':>9} {'core':>6}")
        for page in pages:
            try:
                text = page.read_text()
            except (OSError, UnicodeDecodeError) as e:
                raise BadInput(f"{page}: {e}")
            problems, stripped = check_page(release, root, page, text)
            if args.lengths:
                print(f"{page.name:24} {len(text.splitlines()):6} "
                      f"{len(stripped.splitlines()):9} {core_lines(stripped):6}")
            for check, what in problems:
                print(f"{PROG}: {page.relative_to(root)}: {check}: {what}")
            failures += len(problems)
    except BadInput as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    if failures:
        return 1
    print(f"{PROG}: {len(pages)} stripped lab pages: each has its Done when, no solution line, "
          "no Fix column, no first-attempt profile, a prediction before each exercise, no file of "
          "solutions/ named")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
