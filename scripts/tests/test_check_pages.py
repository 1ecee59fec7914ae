#!/usr/bin/env python3
"""Tests of scripts/check_pages.py: the repository's lab pages, stripped as the release strips
them, pass; a bad page (no "Done when", a solution line, the first attempt's profile or a Fix
column left outside the answer blocks, an exercise without a prediction) fails with one line per
problem (exit code 1); an unclosed answer marker is one line and exit code 2. The bad pages live
in a temporary root with a copy of scripts/make-release; the repository is never written."""

import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "check_pages.py")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import check_pages  # noqa: E402

LAB = "01-demo"
SOLUTION_LINE = "const int first_output_of_block = blockIdx.x * OUTPUTS_PER_BLOCK;"

GOOD = """# Lab 01 — demo

## Goal

Write a kernel.

**Done when** `./cudalab grade --lab 01` gives 100/100.

## Background

A convolution slides a mask along an array.

## Common mistakes

<!-- common-mistakes:begin -->
| What the grader says | Cause | Fix |
| --- | --- | --- |
| "edge cases" fails | no bounds check | add `if (i < width \\|\\| x)` before the store |
<!-- common-mistakes:end -->

## Profile it yourself

| metric | reference |
| --- | --- |
| Duration | 173.4 µs |

**Exercise.** Predict first your kernel's load requests, then profile it.

<!-- answer -->
<details><summary>Answer</summary>

| metric | reference | plain answer |
| --- | --- | --- |
| Duration | 173.4 µs | 391.5 µs |
| DRAM read | 268.5 MB | 268.5 MB |

**What a typical first attempt shows.** It issues 6x the loads.

</details>
<!-- /answer -->

## Questions

1. Why?
"""


def main(*args):
    """(exit code, stdout, stderr) of check_pages.main in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = check_pages.main(list(args))
        except SystemExit as e:
            code = e.code
    return code, out.getvalue(), err.getvalue()


class Repository(unittest.TestCase):
    def test_the_stripped_pages_pass(self):
        p = subprocess.run([sys.executable, SCRIPT, "--lengths"], capture_output=True, text=True,
                           timeout=120)
        self.assertEqual((p.returncode, p.stderr), (0, ""), p.stdout + p.stderr)
        self.assertIn("check_pages: 10 stripped lab pages", p.stdout)
        self.assertRegex(p.stdout, r"01-conv1d-basic\.md +[0-9]+ +[0-9]+ +[0-9]+\n")

    def test_the_release_strip_drops_the_fix_column(self):
        release = check_pages.load_release(ROOT)
        text, _ = release.strip_mistake_code(GOOD)
        self.assertIn('| "edge cases" fails | no bounds check |\n', text)
        self.assertNotIn("Fix", text)
        self.assertNotIn("add `if", text)


class BadPages(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="check-pages-")
        self.addCleanup(shutil.rmtree, self.root)
        os.makedirs(os.path.join(self.root, "scripts"))
        shutil.copy(os.path.join(ROOT, "scripts", "make-release"),
                    os.path.join(self.root, "scripts", "make-release"))
        os.makedirs(os.path.join(self.root, "labs", LAB))
        solution = os.path.join(self.root, "solutions", LAB)
        os.makedirs(solution)
        with open(os.path.join(solution, "demo.cu"), "w") as f:
            f.write("__global__ void k() {\n  " + SOLUTION_LINE + "\n}\n")

    def check(self, page):
        path = os.path.join(self.root, "docs", "labs", LAB + ".md")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(page)
        return main("--root", self.root)

    def assertFails(self, page, *expected):
        code, out, err = self.check(page)
        self.assertEqual((code, err), (1, ""), out + err)
        for what in expected:
            self.assertIn(f"check_pages: docs/labs/{LAB}.md: {what}", out)
        return out

    def test_a_good_page_passes(self):
        code, out, err = self.check(GOOD)
        self.assertEqual((code, err), (0, ""), out + err)

    def test_no_done_when_fails(self):
        self.assertFails(GOOD.replace("**Done when**", "When"), "done-when: the Goal has no")

    def test_goal_not_first_fails(self):
        page = GOOD.replace("## Goal\n", "## Background\n\nFirst.\n\n## Goal\n", 1)
        self.assertFails(page, "done-when: the page does not open with '## Goal'")

    def test_done_when_inside_an_answer_block_fails(self):
        page = GOOD.replace("**Done when** `./cudalab grade --lab 01` gives 100/100.",
                            "<!-- answer -->\n**Done when** 100/100.\n<!-- /answer -->")
        self.assertFails(page, "done-when:")

    def test_a_solution_line_in_the_background_fails(self):
        page = GOOD.replace("A convolution slides a mask along an array.",
                            "```\n" + SOLUTION_LINE + "\n```")
        self.assertFails(page, f"solution-line: '{SOLUTION_LINE}' of ")

    def test_a_solution_line_inside_an_answer_block_passes(self):
        page = GOOD.replace("It issues 6x the loads.", "`" + SOLUTION_LINE + "`")
        code, out, err = self.check(page)
        self.assertEqual(code, 0, out + err)

    def test_the_first_attempt_outside_the_answer_fails(self):
        page = GOOD.replace("**Exercise.**", "**What a typical first attempt shows.** Slow.\n\n"
                            "**Exercise.**")
        self.assertFails(page, "first-attempt: 'What a typical first attempt shows'")

    def test_a_plain_answer_figure_outside_the_answer_fails(self):
        page = GOOD.replace("| Duration | 173.4 µs |\n\n",
                            "| Duration | 173.4 µs |\n\nYours may take 391.5 µs.\n\n", 1)
        out = self.assertFails(page, "first-attempt: the plain answer's profile figure '391.5 µs'")
        # A figure the reference shares (the same DRAM bytes) gives nothing away.
        self.assertNotIn("268.5 MB", out)

    def test_the_plain_answer_column_outside_the_answer_fails(self):
        page = GOOD.replace("| metric | reference |\n| --- | --- |\n| Duration | 173.4 µs |",
                            "| metric | reference | plain answer |\n| --- | --- | --- |\n"
                            "| Duration | 173.4 µs | 391.5 µs |", 1)
        self.assertFails(page, "first-attempt: the plain answer's profile figure '391.5 µs'")

    def test_an_exercise_without_a_prediction_fails(self):
        page = GOOD.replace("Predict first your kernel's load requests, then profile it.",
                            "Profile your kernel and explain its load requests.")
        self.assertFails(page, "exercise: the exercise does not ask for a prediction")

    def test_a_fix_column_the_strip_keeps_fails(self):
        release = check_pages.load_release(self.root)
        release.strip_mistake_code = lambda text: (text, 0)  # a strip that forgot the column
        problems, _ = check_pages.check_page(release, __import__("pathlib").Path(self.root),
                                             __import__("pathlib").Path(LAB + ".md"), GOOD)
        self.assertIn(("fix-column", "the Common mistakes table keeps its Fix column"), problems)

    def test_the_reference_file_outside_the_answer_fails(self):
        page = GOOD.replace("A convolution slides a mask along an array.",
                            "The reference (`solutions/%s/demo.cu`) has 4 outputs a thread." % LAB)
        self.assertFails(page, f"reference-file: names solutions/{LAB}/demo.cu outside the answer")

    def test_the_reference_file_inside_an_answer_block_passes(self):
        page = GOOD.replace("It issues 6x the loads.", "`solutions/%s/demo.cu` does less." % LAB)
        code, out, err = self.check(page)
        self.assertEqual(code, 0, out + err)

    def test_several_problems_are_each_one_line(self):
        page = GOOD.replace("**Done when**", "When").replace("Predict first", "Count")
        out = self.assertFails(page, "done-when:", "exercise:")
        self.assertEqual(len(out.strip().splitlines()), 2, out)

    def test_an_unclosed_answer_marker_is_exit_code_2(self):
        code, out, err = self.check(GOOD.replace("<!-- /answer -->", ""))
        self.assertEqual(code, 2, out + err)
        self.assertRegex(err, r"^check_pages: error: .*answer.*\n$")

    def test_without_solutions_the_solution_check_is_skipped(self):
        shutil.rmtree(os.path.join(self.root, "solutions"))
        page = GOOD.replace("A convolution slides a mask along an array.", SOLUTION_LINE)
        code, out, err = self.check(page)
        self.assertEqual(code, 0, out + err)


if __name__ == "__main__":
    unittest.main()
