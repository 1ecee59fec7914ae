#!/usr/bin/env python3
"""Tests of scripts/check_figures.py: the repository's pages agree with the committed bench JSON;
a wrong figure planted in a copy of a page, a reworded claim or an unchecked results row fails
with its line (exit code 1); a missing or malformed JSON file or a bad claim is one line and exit
code 2; a student release (no scripts/release-readme.md, another README.md) skips the README's
claims. The repository itself is never written: the planted pages are in temporary copies."""

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "check_figures.py")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import check_figures  # noqa: E402

TILED = "docs/labs/02-conv1d-tiled.md"
TILED_ROW = "| 2^24 | 9 | 1532 GB/s (36%) |"
BFS = "docs/labs/08-bfs.md"
DATA = "docs/labs/data"
# A student release has no scripts/release-readme.md and another README.md, without the figures.
INSTRUCTORS = os.path.exists(os.path.join(ROOT, check_figures.RELEASE_README))


def run(*args):
    """(exit code, stdout, stderr) of the script as CI runs it."""
    p = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                       timeout=60)
    return p.returncode, p.stdout, p.stderr


def main(*args):
    """(exit code, stdout, stderr) of check_figures.main in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = check_figures.main(list(args))
        except SystemExit as e:
            code = e.code
    return code, out.getvalue(), err.getvalue()


class Repository(unittest.TestCase):
    def test_the_pages_agree_with_the_bench_json(self):
        code, out, err = run()
        self.assertEqual((code, err), (0, ""), err)
        pages = 12 if INSTRUCTORS else 11
        self.assertRegex(out, rf"^check_figures: [0-9]+ figures of [0-9]+ claims on {pages} pages "
                              r"agree with the bench JSON \([0-9.]+ s\)\n$")

    def test_every_lab_with_bench_json_and_the_readme_have_claims(self):
        pages = {page for page, _, claims in check_figures.CLAIMS if claims}
        jsons = {name for _, name, claims in check_figures.CLAIMS if claims}
        labs = sorted(n for n in os.listdir(os.path.join(ROOT, "docs", "labs")) if n.endswith(".md"))
        self.assertEqual(len(labs), 10)
        self.assertLessEqual({"docs/labs/" + n for n in labs} | {"README.md"}, pages)
        self.assertEqual(jsons, set(n for n in os.listdir(os.path.join(ROOT, DATA))
                                    if n.endswith(".json")))
        figures = sum(len(c) - 2 for _, _, claims in check_figures.CLAIMS for c in claims)
        self.assertGreater(figures, 400)

    def test_help(self):
        code, out, err = run("--help")
        self.assertEqual((code, err), (0, ""))
        self.assertIn("usage: check_figures.py", out)
        self.assertIn("--root", out)


class Copy(unittest.TestCase):
    """A copy of what the check reads: README.md, docs/ (less the images) and
    scripts/release-readme.md."""

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="check-figures-")
        self.addCleanup(shutil.rmtree, self.root)
        shutil.copy(os.path.join(ROOT, "README.md"), self.root)
        shutil.copytree(os.path.join(ROOT, "docs"), os.path.join(self.root, "docs"),
                        ignore=shutil.ignore_patterns("*.png", "img"))
        os.mkdir(os.path.join(self.root, "scripts"))
        if INSTRUCTORS:
            shutil.copy(os.path.join(ROOT, check_figures.RELEASE_README),
                        os.path.join(self.root, "scripts"))

    def path(self, name):
        return os.path.join(self.root, name)

    def read(self, name):
        with open(self.path(name), encoding="utf-8") as f:
            return f.read()

    def replace(self, name, old, new):
        text = self.read(name)
        self.assertEqual(text.count(old), 1, f"{name}: {old!r}")
        with open(self.path(name), "w", encoding="utf-8") as f:
            f.write(text.replace(old, new))
        return text[:text.index(old)].count("\n") + 1  # the line it is on

    def write(self, name, text):
        with open(self.path(name), "w", encoding="utf-8") as f:
            f.write(text)

    def check(self):
        return main("--root", self.root)


class PlantedFigures(Copy):
    def test_the_copy_agrees(self):
        code, out, err = self.check()
        self.assertEqual((code, err), (0, ""), err)

    def test_a_wrong_percentage_in_a_table(self):
        line = self.replace(TILED, TILED_ROW, "| 2^24 | 9 | 1532 GB/s (37%) |")
        code, out, err = self.check()
        self.assertEqual(code, 1)
        self.assertEqual(out, "")
        lines = err.splitlines()
        self.assertEqual(len(lines), 2, err)
        self.assertTrue(lines[0].startswith(
            f"{TILED}:{line}: quotes 37%, the bench JSON gives 36%: pct_copy[variant=basic] with "
            f"width=2^24, mask_width=9 = 36.36"), lines[0])
        self.assertIn(f"in {DATA}/conv1d-labs-bench-h200.json", lines[0])
        self.assertEqual(lines[1], "check_figures: 1 disagreement with the bench JSON")

    @unittest.skipUnless(INSTRUCTORS, "a student release: its README has no figures")
    def test_wrong_figures_in_sentences_and_the_readme(self):
        l1 = self.replace("docs/labs/09-nbody.md", "(23.86 ms\nat 2^18", "(23.96 ms\nat 2^18")
        l2 = self.replace("README.md", "reference at 86% of FP32 peak", "reference at 88% of FP32 peak")
        l3 = self.replace(BFS, "from 1.8x at 1024 x 1024", "from 1.7x at 1024 x 1024")
        code, _, err = self.check()
        self.assertEqual(code, 1)
        self.assertIn(f"docs/labs/09-nbody.md:{l1}: quotes 23.96, the bench JSON gives 23.86:", err)
        self.assertIn(f"README.md:{l2}: quotes 88%, the bench JSON gives 86%:", err)
        self.assertIn(f"{BFS}:{l3}: quotes 1.7x, the bench JSON gives 1.8x:", err)
        self.assertIn("check_figures: 3 disagreements with the bench JSON", err)

    @unittest.skipUnless(INSTRUCTORS, "a student release: its README has no figures")
    def test_a_changed_json_value_fails_too(self):
        path = self.path(f"{DATA}/08-bfs-bench-h200.json")
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        for row in data["rows"]:
            if row.get("graph") == "grid 8192 x 8192" and row.get("algorithm") == "frontier" \
                    and row.get("variant") == "reference":
                row["ms"] = 300.0
        self.write(f"{DATA}/08-bfs-bench-h200.json", json.dumps(data))
        code, _, err = self.check()
        self.assertEqual(code, 1)
        self.assertIn(f"{BFS}:", err)
        self.assertIn("quotes 284.9, the bench JSON gives 300.0", err)
        self.assertIn("README.md:", err)  # 30x at 8192² is now 28.8x

    def test_precision_follows_the_quoted_figure(self):
        self.assertTrue(check_figures.agrees("86", 86.49))
        self.assertTrue(check_figures.agrees("86", 85.5))
        self.assertFalse(check_figures.agrees("86", 86.51))
        self.assertTrue(check_figures.agrees("0.0370", 0.037008))
        self.assertFalse(check_figures.agrees("0.0370", 0.03706))
        self.assertTrue(check_figures.agrees("16,383", 16383))
        self.assertTrue(check_figures.agrees("7.5e-6", 7.46e-6))
        self.assertFalse(check_figures.agrees("7.5e-6", 7.56e-6))


class DroppedClaims(Copy):
    def test_a_reworded_claim_is_not_silently_dropped(self):
        self.replace(BFS, "| Kronecker scale 20 | 7 |", "| Kronecker, scale 20 | 7 |")
        code, _, err = self.check()
        self.assertEqual(code, 1)
        self.assertIn(f"{BFS}: no longer says \"| Kronecker scale 20 | {{}} | {{}} ms, {{}}", err)
        # and the reworded row is a results row that no claim checks
        self.assertIn("a results table row that no claim checks: | Kronecker, scale 20", err)

    def test_a_new_results_row_needs_a_claim(self):
        line = self.replace(TILED, TILED_ROW, "| 2^22 | 9 | 1341 GB/s (32%) | 2439 GB/s (58%) | "
                            "2576 GB/s (61%) |\n" + TILED_ROW)
        code, _, err = self.check()
        self.assertEqual(code, 1)
        lines = err.splitlines()
        self.assertEqual(len(lines), 2, err)
        self.assertTrue(lines[0].startswith(
            f"{TILED}:{line}: a results table row that no claim checks: | 2^22 | 9 | 1341 GB/s"),
            lines[0])
        self.assertTrue(lines[0].endswith("(add a claim to scripts/check_figures.py)"), lines[0])

    def test_a_sentence_rewrapped_still_matches(self):
        self.replace("docs/labs/09-nbody.md", "(23.86 ms\nat 2^18, 380.6 ms at 2^20)",
                     "(23.86\nms at 2^18,   380.6 ms\nat 2^20)")
        code, _, err = self.check()
        self.assertEqual((code, err), (0, ""), err)


class BadInput(Copy):
    def assertOneLine(self, code, out, err, *words):
        self.assertEqual(code, 2, err)
        self.assertEqual(out, "")
        self.assertEqual(err.count("\n"), 1, err)
        self.assertTrue(err.startswith("check_figures: "), err)
        for word in words:
            self.assertIn(word, err)

    def test_malformed_json(self):
        self.write(f"{DATA}/07-spmv-bench-h200.json", '{"rows": [{"ms": 1.0,')
        code, out, err = run("--root", self.root)
        self.assertOneLine(code, out, err, f"{DATA}/07-spmv-bench-h200.json: not JSON")
        self.assertNotIn("Traceback", err)

    def test_json_that_is_not_a_bench_result(self):
        self.write(f"{DATA}/09-nbody-bench-h200.json", '{"rows": 3}')
        self.assertOneLine(*self.check(), "09-nbody-bench-h200.json: not a bench result")

    def test_missing_json(self):
        os.remove(self.path(f"{DATA}/04-conv2d-bench-h200.json"))
        self.assertOneLine(*self.check(), f"{DATA}/04-conv2d-bench-h200.json: no such file")

    def test_missing_page(self):
        os.remove(self.path("docs/labs/05-conv-texture.md"))
        self.assertOneLine(*self.check(), "docs/labs/05-conv-texture.md: no such file")

    def test_a_row_the_json_no_longer_has(self):
        path = self.path(f"{DATA}/06-dynamic-shared-bench-h200.json")
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        data["rows"] = [r for r in data["rows"] if r.get("n") != 2 ** 22]
        self.write(f"{DATA}/06-dynamic-shared-bench-h200.json", json.dumps(data))
        self.assertOneLine(*self.check(), "no row of 'rows' has part=reverse, variant=reference, "
                           "n=2^22")

    def test_bad_arguments(self):
        self.assertOneLine(*main("--root", os.path.join(self.root, "nothing")), "not a folder")
        self.assertOneLine(*main("--frobnicate"), "unrecognized arguments")


class BadClaims(Copy):
    def with_claims(self, claims):
        saved = check_figures.CLAIMS
        check_figures.CLAIMS = claims
        try:
            return self.check()
        finally:
            check_figures.CLAIMS = saved

    def assertBadClaim(self, claim, *words, page=BFS, name="08-bfs-bench-h200.json"):
        code, out, err = self.with_claims([(page, name, [claim])])
        self.assertEqual(code, 2, err)
        self.assertEqual(out, "")
        self.assertEqual(err.count("\n"), 1, err)
        for word in words:
            self.assertIn(word, err)

    def test_bad_claims(self):
        row = "| grid 256 x 256 | {} | {} ms |"
        self.assertBadClaim((row, ""), "2 {} in the snippet but 0 expressions")
        self.assertBadClaim((row, "", "levels[graph=grid 256*, algorithm=frontier]"),
                            "2 {} in the snippet but 1 expressions")
        self.assertBadClaim((row, "graph=grid 256*, variant=reference",
                             "levels[algorithm=frontier]", "ms[algorithm=edge-parallel"),
                            "cannot read the expression")
        self.assertBadClaim((row, "graph=grid 256*", "levels[algorithm=frontier, variant=reference]",
                             "ms[algorithm=edge-parallel]"),
                            "2 rows of 'rows' have graph=grid 256*, algorithm=edge-parallel, not one")
        self.assertBadClaim((row, "graph=grid 256*, variant=student", "levels[algorithm=frontier]",
                             "ms[algorithm=frontier]"),
                            "has no number 'ms' (status: wrong:")
        self.assertBadClaim((row, "graph=grid 256*", "levels[algorithm=frontier, variant=reference]",
                             "ms[algorithm=telepathy]"), "no row of 'rows' has graph=grid 256*")
        self.assertBadClaim((row, "graph=grid 256*", "device.nothing", "1"), "has no 'device.nothing'")
        self.assertBadClaim((row, "levels 3", "1", "2"), "bad filter 'levels 3'")
        self.assertBadClaim((row, "", "1 / (2 - 2)", "1"), "divides by zero")
        self.assertBadClaim(("a claim", "", "1 +"), "0 {} in the snippet but 1 expressions")
        self.assertBadClaim(("a claim {}", "", "1 +"), "unexpected end of the expression")
        self.assertBadClaim(["not a tuple"], "not (snippet, where, expression, ...)")

    def test_bad_entries(self):
        code, _, err = self.with_claims([("README.md", [])])
        self.assertEqual(code, 2)
        self.assertIn("bad CLAIMS entry", err)
        self.assertBadClaim(("x {}", "", "1"), "no such file", name="nothing.json")

    def findings(self, page, name, claim):
        """The findings of one claim, without the check of the results tables' rows."""
        findings, counts = check_figures.check(self.root, claims=[(page, name, [claim])],
                                               coverage=False)
        return findings

    def test_a_claim_that_is_right_passes_and_a_wrong_one_fails(self):
        claim = ("| grid 256 x 256 | {} | {} ms |", "graph=grid 256*, variant=reference",
                 "levels[algorithm=frontier]", "ms[algorithm=edge-parallel]")
        self.assertEqual(self.findings(BFS, "08-bfs-bench-h200.json", claim), [])
        wrong = claim[:3] + ("ms[algorithm=frontier]",)
        findings = self.findings(BFS, "08-bfs-bench-h200.json", wrong)
        self.assertEqual(len(findings), 1)
        self.assertIn("quotes 3.059, the bench JSON gives 2.410: ms[algorithm=frontier]",
                      findings[0])

    def test_bound(self):
        page, name = "docs/labs/10-cnn-layer.md", "10-cnn-layer-bench-h200.json"
        claim = ("the direct kernel under {}%.", "", "< 4.9")
        self.assertEqual(self.findings(page, name, claim), [])
        findings = self.findings(page, name, claim[:2] + ("< 5.2",))
        self.assertEqual(len(findings), 1)
        self.assertIn("quotes under 5%, the bench JSON gives 5%", findings[0])


class Release(Copy):
    def test_a_student_release_skips_the_readme(self):
        if os.path.exists(self.path(check_figures.RELEASE_README)):
            os.remove(self.path(check_figures.RELEASE_README))
        self.write("README.md", "# CUDA Labs\n\nThe student release's README, without figures.\n")
        code, out, err = self.check()
        self.assertEqual((code, err), (0, ""), err)
        self.assertIn("on 11 pages agree", out)

    def test_the_instructors_repository_checks_the_readme(self):
        self.write(check_figures.RELEASE_README, "the release's README\n")
        self.write("README.md", "# CUDA Labs\n")
        code, _, err = self.check()
        self.assertEqual(code, 1)
        self.assertIn("README.md: no longer says", err)


if __name__ == "__main__":
    unittest.main()
