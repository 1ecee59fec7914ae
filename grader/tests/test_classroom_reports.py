#!/usr/bin/env python3
"""Tests of the batch's reports (grader/classroom/reports.py) on synthetic batch output folders
(unittest, no pytest).

    python3 grader/tests/test_classroom_reports.py [-v]

CTest runs it as scripts/batch-report. Without matplotlib or Jinja2 it prints "SKIPPED: ..." and
exits with 77, which CTest reports as skipped.
"""
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

import batch_fixtures as fx  # noqa: E402
from grader.classroom import base  # noqa: E402
from grader.classroom import reports as br  # noqa: E402

SEED = fx.SEED
STUDENT_OUTPUTS = ("student-report.json", "results.json", "junit.xml")
ODD_ID = "zoe <o'neil> & co"  # an id that must be escaped in the page and the CSV


def run(*args):
    p = subprocess.run(base.module_command("reports") + list(args), env=base.module_env(),
                       capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def three_labs():
    return ["01", "02", "03"]


def build_class(out):
    """The synthetic class of the tests: one student of every kind, three labs."""
    labs = three_labs()
    fx.write_batch(out, total=11, labs=labs)
    own = {sid: fx.own_files(sid, labs) for sid in ("alice", "carol", "grace", "heidi", ODD_ID)}

    # full marks
    fx.write_student(out, "alice", fx.make_report(labs), fx.meta_of("alice", own["alice"], labs))
    # the skeleton: its files equal the skeleton's hashes
    fx.write_student(out, "bob", fx.make_report(labs, outcome=fx.skeleton_outcome),
                     fx.meta_of("bob", {fx.student_path(x): fx.skeleton_hashes()[fx.student_path(x)]
                                        for x in labs}, labs))

    # lab 02 does not compile
    def carol(lab, check, tags, points):
        return fx.not_compiled(lab, check, tags, points) if lab == "02" else None
    fx.write_student(out, "carol", fx.make_report(labs, outcome=carol),
                     fx.meta_of("carol", own["carol"], labs, compiled={"01": True, "02": False,
                                                                       "03": True}))
    # no report: the archive could not be read
    fx.write_student(out, "dave", None, fx.meta_of("dave", {}, labs, compiled={},
                                                   error="unreadable archive: dave.zip"))
    # lab 01's file is alice's, lab 03's is not in the submission, extra files were ignored
    files = fx.own_files("erin", labs)
    files[fx.student_path("01")] = own["alice"][fx.student_path("01")]
    del files[fx.student_path("03")]
    fx.write_student(out, "erin", fx.make_report(labs),
                     fx.meta_of("erin", files, labs, ignored=["notes.txt", "a.out"]))
    # a malformed report (cut short), which still holds the seed
    fx.write_student(out, "frank", None, fx.meta_of("frank", fx.own_files("frank", labs), labs),
                     raw_report='{"schema": "cudalab-grade-report/1", "seed": %d, "labs": [' % SEED)

    # a ratio far below the reference's
    def grace(lab, check, tags, points):
        return fx.perf_check(lab, check, points, 0.12) if lab == "01" and "[perf]" in tags else None
    fx.write_student(out, "grace", fx.make_report(labs, outcome=grace),
                     fx.meta_of("grace", own["grace"], labs))

    # failed checks whose messages carry the seeds, XML-special and control characters; a
    # partial perf check
    def heidi(lab, check, tags, points):
        if lab == "01" and check == "random sizes":
            return {"points": 0, "status": "failed",
                    "message": fx.wrong_output(lab, check) + "\n<b>&\"quoted\"</b>\x1b[31m\x00"}
        if lab == "02" and "[perf]" in tags:
            return fx.perf_check(lab, check, points, 6.25)
        if lab == "03" and "sanitize" in tags:
            return {"points": 0, "status": "skipped", "message": "no compute-sanitizer found"}
        return None
    fx.write_student(out, "heidi", fx.make_report(labs, outcome=heidi),
                     fx.meta_of("heidi", own["heidi"], labs))

    # a valid JSON report of the wrong shape
    bad = fx.make_report(labs)
    bad["labs"][1]["checks"][2]["status"] = "great"
    fx.write_student(out, "ivan", bad, fx.meta_of("ivan", fx.own_files("ivan", labs), labs))
    # no meta.json at all, a report of two labs only
    fx.write_student(out, "judy", fx.make_report(["01", "03"]), None)
    # an id with characters HTML must escape
    fx.write_student(out, ODD_ID, fx.make_report(labs), fx.meta_of(ODD_ID, own[ODD_ID], labs))

    # report.md files handed in (the batch keeps them in analysis/): untrusted text
    write_analysis(out, "alice", "01-conv1d-basic", ANALYSIS)
    write_analysis(out, "alice", "03-conv1d-constant", "# Lab 03\n\n1. Half the requests.\n")
    write_analysis(out, "dave", "02-conv1d-tiled", "dave's words, never graded")


ANALYSIS = ("# Lab 01 report\n\n<script>alert('x')</script> & my r = 2.49\n"
            "| exercise | predicted | measured |\n| requests | 37.7 M | 37.7 M |\n")


def write_analysis(out, sid, lab, text):
    folder = os.path.join(out, "students", sid, "analysis")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, lab + ".md"), "w", encoding="utf-8") as f:
        f.write(text)


class ClassReport(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="batch-report-test-")
        cls.out = os.path.join(cls.tmp, "out")
        build_class(cls.out)
        cls.code, cls.stdout, cls.stderr = run(cls.out)
        with open(os.path.join(cls.out, "class", "grades.csv"), newline="") as f:
            cls.rows = list(csv.DictReader(f))
        cls.by_id = {r["student"]: r for r in cls.rows}
        with open(os.path.join(cls.out, "class", "index.html"), encoding="utf-8") as f:
            cls.html = f.read()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def student_file(self, sid, name):
        return os.path.join(self.out, "students", sid, name)

    def test_runs_and_summarises(self):
        self.assertEqual(self.code, 0, self.stderr)
        self.assertEqual(self.stderr, "")
        lines = self.stdout.strip().splitlines()
        self.assertEqual(len(lines), 1)
        self.assertIn("11 students, 8 graded, 3 not graded", lines[0])
        self.assertRegex(lines[0], r"mean score [0-9.]+% of each one's maximum")

    def test_csv_rows_and_columns(self):
        self.assertEqual(len(self.rows), 11)
        head = list(self.rows[0].keys())
        self.assertEqual(head[:4], ["student", "points", "max_points", "percent"])
        self.assertEqual(head[4:7], ["lab 01", "lab 02", "lab 03"])
        self.assertIn("01: edge cases", head)
        self.assertIn("02: compute-sanitizer racecheck", head)
        self.assertIn("03: a mask wider than the constant buffer is refused", head)
        self.assertEqual(head[-4:], ["graded", "error", "not_compiled", "flags"])
        # lab 01's columns come before lab 02's, in the report's order
        self.assertLess(head.index("01: performance vs reference"), head.index("02: edge cases"))
        self.assertEqual(len(head), len(set(head)))

    def assert_row(self, student, cells):
        row = self.by_id[student]
        self.assertEqual({k: row[k] for k in cells}, cells)

    def test_csv_full_marks(self):
        self.assert_row("alice", {"points": "300", "max_points": "300", "percent": "100.0",
                                  "lab 01": "100", "01: random sizes": "20", "graded": "yes",
                                  "error": ""})

    def test_csv_skeleton(self):
        bob = self.by_id["bob"]
        self.assertEqual(bob["points"], "0")
        self.assertIn("unchanged from the skeleton: labs 01, 02, 03", bob["flags"])
        self.assertNotIn("duplicate", bob["flags"])  # equal to the skeleton is not copying

    def test_csv_not_compiled(self):
        self.assert_row("carol", {"not_compiled": "02", "lab 02": "0", "lab 01": "100"})

    def test_csv_not_graded(self):
        dave = self.by_id["dave"]
        self.assertEqual(dave["graded"], "no")
        self.assertEqual(dave["error"], "unreadable archive: dave.zip")
        self.assertEqual(dave["points"], "")
        self.assertEqual(dave["lab 01"], "")
        frank = self.by_id["frank"]
        self.assertEqual(frank["graded"], "no")
        self.assertTrue(frank["error"].startswith("report.json is malformed: "), frank["error"])
        ivan = self.by_id["ivan"]
        self.assertEqual(ivan["graded"], "no")
        self.assertIn("labs[1].checks[2]: 'status'", ivan["error"])

    def test_csv_duplicates(self):
        self.assertIn("duplicate: lab 01 file identical to erin's", self.by_id["alice"]["flags"])
        self.assertIn("duplicate: lab 01 file identical to alice's", self.by_id["erin"]["flags"])
        self.assertIn("ignored: 2 file(s) not taken: notes.txt, a.out", self.by_id["erin"]["flags"])
        self.assertIn("missing: not in the submission: lab 03", self.by_id["erin"]["flags"])
        self.assertNotIn("missing", self.by_id["alice"]["flags"])  # only the batch's labs count
        self.assertNotIn("duplicate", self.by_id["grace"]["flags"])

    def test_csv_fast_ratio(self):
        self.assertIn("fast: lab 01 performance vs reference: r = 0.12", self.by_id["grace"]["flags"])
        self.assertNotIn("fast", self.by_id["alice"]["flags"])

    def test_csv_partial_and_fewer_labs(self):
        heidi = self.by_id["heidi"]
        # r = 6.25 in lab 02 (r_full 3.5, r_zero 9): (9 - 6.25) / 5.5 of 20 points = 10
        self.assertEqual(heidi["02: performance vs reference"], "10")
        self.assertEqual(heidi["01: random sizes"], "0")
        judy = self.by_id["judy"]
        self.assertEqual(judy["lab 02"], "")
        self.assertEqual(judy["max_points"], "200")
        self.assertIn("meta: meta.json is missing", judy["flags"])
        self.assertEqual(self.by_id[ODD_ID]["points"], "300")

    def test_no_student_file_holds_the_seed(self):
        derived = str(fx.derive_seed(SEED, 3))
        for sid in os.listdir(os.path.join(self.out, "students")):
            for name in STUDENT_OUTPUTS:
                path = self.student_file(sid, name)
                if not os.path.exists(path):
                    continue
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                self.assertNotIn(str(SEED), text, path)
                self.assertNotIn(derived, text, path)
                self.assertNotRegex(text, r"CUDALAB_SEED=\d", path)
                self.assertNotIn(format(SEED, "x"), text.lower(), path)
        with open(self.student_file("heidi", "student-report.json")) as f:
            report = json.load(f)
        self.assertIsNone(report["seed"])
        self.assertIs(report["seed_withheld"], True)
        message = report["labs"][0]["checks"][3]["message"]
        self.assertIn("(seed [withheld] from CUDALAB_SEED=[withheld], width 1234", message)

    def test_student_report_keeps_the_rest(self):
        with open(self.student_file("alice", "report.json")) as f:
            raw = json.load(f)
        with open(self.student_file("alice", "student-report.json")) as f:
            mine = json.load(f)
        self.assertEqual(list(mine)[:5], ["schema", "generated_at", "target", "seed",
                                          "seed_withheld"])
        raw["seed"] = None
        mine.pop("seed_withheld")
        self.assertEqual(raw, mine)

    def test_not_graded_students_get_no_student_report(self):
        for sid in ("dave", "frank", "ivan"):
            self.assertFalse(os.path.exists(self.student_file(sid, "student-report.json")), sid)

    def test_gradescope(self):
        with open(self.student_file("heidi", "results.json")) as f:
            g = json.load(f)
        self.assertEqual(g["visibility"], "visible")
        self.assertEqual(g["output"], "Graded on " + fx.DEVICE)
        tests = {t["name"]: t for t in g["tests"]}
        self.assertEqual(len(tests), len(g["tests"]))
        for t in g["tests"]:
            self.assertEqual(set(t), {"name", "score", "max_score", "status", "output"})
            self.assertIn(t["status"], ("passed", "failed"))
        self.assertAlmostEqual(g["score"], sum(t["score"] for t in g["tests"]))
        self.assertEqual(g["max_score"], sum(t["max_score"] for t in g["tests"]))
        failed = tests["Lab 01 conv1d-basic: random sizes"]
        self.assertEqual((failed["score"], failed["max_score"], failed["status"]), (0, 20, "failed"))
        self.assertIn("output y is wrong", failed["output"])
        partial = tests["Lab 02 conv1d-tiled: performance vs reference"]
        self.assertEqual(partial["status"], "passed")
        self.assertAlmostEqual(partial["score"], 10)
        skipped = tests["Lab 03 conv1d-constant: compute-sanitizer memcheck"]
        self.assertEqual((skipped["status"], skipped["output"]),
                         ("failed", "SKIPPED: no compute-sanitizer found"))

    def test_gradescope_ignored_files_and_not_graded(self):
        with open(self.student_file("erin", "results.json")) as f:
            self.assertIn("not taken (only the lab files are): notes.txt, a.out",
                          json.load(f)["output"])
        with open(self.student_file("dave", "results.json")) as f:
            g = json.load(f)
        self.assertEqual((g["score"], g["max_score"], g["tests"]), (0, 300, []))
        self.assertIn("could not be graded: unreadable archive: dave.zip", g["output"])

    def test_junit(self):
        root = ET.parse(self.student_file("heidi", "junit.xml")).getroot()
        self.assertEqual(root.tag, "testsuites")
        suites = root.findall("testsuite")
        self.assertEqual([s.get("name") for s in suites],
                         ["lab01 conv1d-basic", "lab02 conv1d-tiled", "lab03 conv1d-constant"])
        lab01 = suites[0]
        cases = lab01.findall("testcase")
        self.assertEqual(int(lab01.get("tests")), len(cases))
        self.assertEqual(len(cases), 8)
        self.assertTrue(all(c.get("classname") == "lab01" for c in cases))
        self.assertEqual(cases[1].get("name"), "course worked example")
        self.assertEqual(cases[1].get("time"), "1.500")
        random_sizes = [c for c in cases if c.get("name") == "random sizes"][0]
        failure = random_sizes.find("failure")
        self.assertIsNotNone(failure)
        self.assertIn("output y is wrong", failure.get("message"))
        self.assertIn('<b>&"quoted"</b>\\x1b[31m\\x00', failure.text)
        self.assertEqual(lab01.get("failures"), "1")
        lab03 = suites[2]
        skipped = [c for c in lab03.findall("testcase") if c.find("skipped") is not None]
        self.assertEqual([c.get("name") for c in skipped], ["compute-sanitizer memcheck"])
        self.assertEqual(lab03.get("skipped"), "1")
        self.assertEqual(root.get("tests"), str(sum(int(s.get("tests")) for s in suites)))

    def test_junit_of_every_student_parses(self):
        for sid in os.listdir(os.path.join(self.out, "students")):
            ET.parse(self.student_file(sid, "junit.xml"))
        root = ET.parse(self.student_file("dave", "junit.xml")).getroot()
        self.assertEqual(root.find("testsuite/testcase/error").get("message"),
                         "unreadable archive: dave.zip")

    def test_page(self):
        page = self.html
        self.assertNotRegex(page, r"(?i)https?://")
        self.assertNotIn("<script", page)
        self.assertNotIn(str(SEED), page)
        self.assertIn("zoe &lt;o&#39;neil&gt; &amp; co", page)
        self.assertNotIn(ODD_ID, page)
        for src in re.findall(r'<img src="([^"]+)"', page):
            self.assertTrue(os.path.isfile(os.path.join(self.out, "class", src)), src)
        self.assertEqual(sorted(re.findall(r'<img src="([^"]+)"', page)),
                         ["pass-rates.png", "ratios.png", "scores.png"])
        for sid in ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan",
                    "judy"):
            self.assertIn(f'id="s-{sid}"', page)
        self.assertIn("unreadable archive: dave.zip", page)
        self.assertIn("NVIDIA H100 80GB HBM3", page)
        outliers = page[page.index('id="outliers"'):page.index('id="plots"')]
        self.assertRegex(outliers, r"grace</a></td><td>01</td><td>performance vs reference</td>"
                                   r"<td class=\"n\">0.12</td>")
        self.assertIn("<code>labs/01-conv1d-basic/conv1d_basic.cu</code></td><td>"
                      '<a href="#s-alice">alice</a>, <a href="#s-erin">erin</a>', outliers)
        self.assertIn("labs 01, 02, 03 (every file: the skeleton itself)", outliers)

    def test_reports_on_the_class_page_escaped_beside_the_points(self):
        reports = self.html[self.html.index('id="reports"'):self.html.index("<footer")]
        self.assertIn("2 of 11 students handed in a report.md", reports)
        self.assertIn("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; my r = 2.49",
                      reports)
        self.assertNotIn("<script", reports)
        self.assertRegex(reports, r'<a href="#s-alice">alice</a>: labs 01, 03</summary>\n'
                                  r'<h4>Lab 01 <span class="grade">[0-9.]+ / [0-9.]+</span></h4>')
        self.assertIn('<h4>Lab 02 <span class="grade">not graded</span></h4>', reports)
        self.assertIn('<a href="../students/alice/analysis.html">reports</a>', self.html)
        self.assertNotIn('<a href="../students/bob/analysis.html">', self.html)

    def test_student_page_shows_each_report_beside_its_checks(self):
        with open(self.student_file("alice", "analysis.html"), encoding="utf-8") as f:
            page = f.read()
        self.assertIn("<h1>alice: reports and grades</h1>", page)
        self.assertEqual(page.count('<pre class="report-md">'), 2)
        self.assertIn("&lt;script&gt;", page)
        self.assertNotIn("<script", page)
        self.assertIn("<td>performance vs reference</td><td>passed (r = ", page)
        self.assertFalse(os.path.exists(self.student_file("bob", "analysis.html")))
        with open(self.student_file("dave", "analysis.html"), encoding="utf-8") as f:
            self.assertIn("dave&#39;s words, never graded", f.read())

    def test_a_report_md_is_never_in_a_student_file(self):
        for name in STUDENT_OUTPUTS:
            with open(self.student_file("alice", name), encoding="utf-8") as f:
                self.assertNotIn("my r = 2.49", f.read(), name)

    def test_thresholds_read_from_messages(self):
        b = br.load_batch(self.out)
        self.assertEqual(b.thresholds, {"01": (3.0, 8.0), "02": (3.5, 9.0), "03": (3.0, 8.0)})


class OnlyOneStudent(unittest.TestCase):
    def test_student_option(self):
        with tempfile.TemporaryDirectory() as tmp:
            build_class(tmp)
            code, out, err = run(tmp, "--student", "alice", "--student", "dave")
            self.assertEqual((code, err), (0, ""))
            self.assertEqual(out.strip(), "batch-report: wrote the files of alice, dave")
            self.assertTrue(os.path.exists(os.path.join(tmp, "students", "alice", "junit.xml")))
            self.assertTrue(os.path.exists(os.path.join(tmp, "students", "dave", "results.json")))
            self.assertFalse(os.path.exists(os.path.join(tmp, "students", "bob", "junit.xml")))
            self.assertFalse(os.path.exists(os.path.join(tmp, "class")))
            with open(os.path.join(tmp, "students", "dave", "results.json")) as f:
                self.assertEqual(json.load(f)["max_score"], 300)  # from the others' reports
            code, out, err = run(tmp, "--student", "nobody")
            self.assertEqual(code, 2)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
            self.assertIn("no student 'nobody'", err)


class MalformedOut(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="batch-report-bad-")
        fx.write_batch(self.tmp, total=1)
        fx.write_student(self.tmp, "alice", fx.make_report(["01"]), fx.meta_of("alice", {}))

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def expect_usage_error(self, *args, says):
        code, out, err = run(*args)
        self.assertEqual(code, 2, (args, out, err))
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertTrue(err.startswith("cudalab batch-report: error: "), err)
        self.assertIn(says, err)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "class")))

    def write(self, name, text):
        with open(os.path.join(self.tmp, name), "w") as f:
            f.write(text)

    def test_not_a_folder(self):
        self.expect_usage_error(os.path.join(self.tmp, "nothing"), says="is not a folder")

    def test_no_batch_json(self):
        os.unlink(os.path.join(self.tmp, "batch.json"))
        self.expect_usage_error(self.tmp, says="batch.json is missing")

    def test_malformed_batch_json(self):
        original = open(os.path.join(self.tmp, "batch.json")).read()
        for text, says in (
                ("{not json", "batch.json cannot be read"),
                (json.dumps({"schema": "something/2"}), "is not a cudalab-batch/1 file"),
                (json.dumps({"schema": "cudalab-batch/1", "total": "many"}),
                 "'total' has the wrong type")):
            with self.subTest(text=text):
                self.write("batch.json", text)
                self.expect_usage_error(self.tmp, says=says)
        self.write("batch.json", original)

    def test_no_students_folder(self):
        shutil.rmtree(os.path.join(self.tmp, "students"))
        self.expect_usage_error(self.tmp, says="students is missing")

    def test_skeleton_json_malformed(self):
        self.write("skeleton.json", "[1, 2]")
        self.expect_usage_error(self.tmp, says="skeleton.json is not an object")

    def test_no_argument(self):
        self.expect_usage_error(says="the following arguments are required: OUT")

    def test_unknown_option(self):
        self.expect_usage_error(self.tmp, "--colour", says="unrecognized arguments: --colour")

    def test_still_fine_without_skeleton_and_seed(self):
        os.unlink(os.path.join(self.tmp, "skeleton.json"))
        os.unlink(os.path.join(self.tmp, "seed"))
        code, out, err = run(self.tmp)
        self.assertEqual((code, err), (0, ""))
        with open(os.path.join(self.tmp, "class", "index.html")) as f:
            self.assertIn("skeleton.json is missing", f.read())
        with open(os.path.join(self.tmp, "students", "alice", "student-report.json")) as f:
            self.assertNotIn(str(SEED), f.read())


class EdgeCases(unittest.TestCase):
    def test_empty_class_and_no_gpu(self):
        with tempfile.TemporaryDirectory() as tmp:
            fx.write_batch(tmp, total=0, device=None)
            code, out, err = run(tmp)
            self.assertEqual((code, err), (0, ""))
            self.assertIn("0 students, 0 graded, 0 not graded", out)
            with open(os.path.join(tmp, "class", "grades.csv")) as f:
                self.assertEqual(len(list(csv.reader(f))), 1)
            # A batch graded without a GPU: every GPU check skipped, no ratio to plot.
            def skipped(lab, check, tags, points):
                if "technique" in tags:
                    return {"points": 0, "status": "skipped", "message": "passes in the PTX"}
                return {"points": 0, "status": "skipped", "measurements": {},
                        "message": "no CUDA device (CUDA driver version is insufficient)"}
            fx.write_student(tmp, "alice", fx.make_report(["01", "02"], device=None,
                                                          outcome=skipped),
                             fx.meta_of("alice", {}, ["01", "02"]))
            code, out, err = run(tmp)
            self.assertEqual((code, err), (0, ""))
            with open(os.path.join(tmp, "class", "index.html")) as f:
                page = f.read()
            self.assertIn("No performance ratio", page)
            self.assertIn("graded without a GPU", page)
            self.assertFalse(os.path.exists(os.path.join(tmp, "class", "ratios.png")))
            with open(os.path.join(tmp, "students", "alice", "results.json")) as f:
                self.assertTrue(json.load(f)["output"].startswith("No GPU found (no CUDA device"))

    def test_a_missing_report_md_is_not_a_missing_lab(self):
        # skeleton.json lists each lab's report.md template too; a student who hands in the code
        # but no report.md misses no lab (the pages say "no report" instead).
        with tempfile.TemporaryDirectory() as tmp:
            labs = ["01", "02"]
            fx.write_batch(tmp, total=2, labs=labs)
            skeleton = fx.skeleton_hashes()
            for lab in labs:
                folder = os.path.dirname(fx.student_path(lab))
                skeleton[folder + "/report.md"] = fx.sha(f"report template of lab {lab}")
            with open(os.path.join(tmp, "skeleton.json"), "w") as f:
                json.dump(skeleton, f)
            fx.write_student(tmp, "alice", fx.make_report(labs),
                             fx.meta_of("alice", fx.own_files("alice", labs), labs))
            code_of_01 = {fx.student_path("01"): fx.sha("bob's lab 01")}
            fx.write_student(tmp, "bob", fx.make_report(labs), fx.meta_of("bob", code_of_01, labs))
            code, _, err = run(tmp)
            self.assertEqual((code, err), (0, ""))
            with open(os.path.join(tmp, "class", "grades.csv")) as f:
                rows = {r["student"]: r for r in csv.DictReader(f)}
            self.assertNotIn("not in the submission", rows["alice"]["flags"])
            self.assertIn("not in the submission: lab 02", rows["bob"]["flags"])  # code is still
            self.assertNotIn("lab 01", rows["bob"]["flags"])

    def test_a_report_md_left_as_its_template_is_not_an_unchanged_lab(self):
        # alice and bob hand in their own code and each lab 01 report.md as the template: no
        # "unchanged from the skeleton" flag (that is for code), and no duplicate between them.
        with tempfile.TemporaryDirectory() as tmp:
            labs = ["01"]
            fx.write_batch(tmp, total=2, labs=labs)
            skeleton = fx.skeleton_hashes()
            report = os.path.dirname(fx.student_path("01")) + "/report.md"
            skeleton[report] = fx.sha("report template of lab 01")
            with open(os.path.join(tmp, "skeleton.json"), "w") as f:
                json.dump(skeleton, f)
            for sid in ("alice", "bob"):
                files = dict(fx.own_files(sid, labs), **{report: skeleton[report]})
                fx.write_student(tmp, sid, fx.make_report(labs), fx.meta_of(sid, files, labs))
            code, _, err = run(tmp)
            self.assertEqual((code, err), (0, ""))
            with open(os.path.join(tmp, "class", "grades.csv")) as f:
                rows = {r["student"]: r for r in csv.DictReader(f)}
            for sid in ("alice", "bob"):
                self.assertNotIn("unchanged", rows[sid]["flags"])
                self.assertNotIn("identical", rows[sid]["flags"])

    def test_a_quoted_grade_is_not_judged_without_a_gpu(self):
        # Graded without a GPU, every GPU check skipped: the run's 0 points are not the grade, so
        # a quoted 100 / 100 is "not judged here", not a flag (as a quoted r is "not timed").
        with tempfile.TemporaryDirectory() as tmp:
            fx.write_batch(tmp, total=1, labs=["01"], device=None)
            def skipped(lab, check, tags, points):
                return {"points": 0, "status": "skipped", "measurements": {},
                        "message": "no CUDA device (CUDA driver version is insufficient)"}
            fx.write_student(tmp, "alice", fx.make_report(["01"], device=None, outcome=skipped),
                             fx.meta_of("alice", fx.own_files("alice", ["01"]), ["01"]))
            full = fx.make_report(["01"])["labs"][0]["max_points"]
            write_analysis(tmp, "alice", "01-conv1d-basic",
                           "- Grade (`./cudalab grade --lab 01`): %d / %d\n"
                           "- Performance (each performance check's `r = ...`): r = 1.9\n"
                           % (full, full))
            code, _, err = run(tmp)
            self.assertEqual((code, err), (0, ""))
            with open(os.path.join(tmp, "class", "grades.csv")) as f:
                flags = list(csv.DictReader(f))[0]["flags"]
            self.assertIn("graded without a GPU", flags)
            self.assertNotIn("report.md quotes", flags)
            with open(os.path.join(tmp, "students", "alice", "analysis.html")) as f:
                page = f.read()
            self.assertIn("<td>not judged here: no GPU</td>", page)
            self.assertIn("<td>not timed</td>", page)
            self.assertNotIn('class="differs"', page)

    def test_stale_report_of_another_seed(self):
        with tempfile.TemporaryDirectory() as tmp:
            fx.write_batch(tmp, total=1)
            fx.write_student(tmp, "alice", fx.make_report(["01"], seed=123456789),
                             fx.meta_of("alice", {}, ["01"]))
            self.assertEqual(run(tmp)[0], 0)
            with open(os.path.join(tmp, "class", "grades.csv")) as f:
                flags = list(csv.DictReader(f))[0]["flags"]
            self.assertIn("seed: graded with another seed than the batch's", flags)
            for name in STUDENT_OUTPUTS:  # both seeds withheld
                with open(os.path.join(tmp, "students", "alice", name)) as f:
                    text = f.read()
                self.assertNotIn("123456789", text)
                self.assertNotIn(str(SEED), text)


class Redaction(unittest.TestCase):
    def test_forms_of_the_seed(self):
        secrets = [str(SEED)]
        self.assertEqual(br.redact(f"CUDALAB_SEED={SEED}, x", secrets), "CUDALAB_SEED=[withheld], x")
        self.assertEqual(br.redact("case 'a' (seed 42 from CUDALAB_SEED=7, n=3)", []),
                         "case 'a' (seed [withheld] from CUDALAB_SEED=[withheld], n=3)")
        self.assertEqual(br.redact(f"value {SEED}.", secrets), "value [withheld].")
        self.assertEqual(br.redact("Seed: 991, SEED=0x1f", []), "Seed: [withheld], SEED=[withheld]")
        self.assertEqual(br.redact(f"0x{SEED:x}", secrets), "[withheld]")
        self.assertEqual(br.redact(f"width {SEED}7", secrets), f"width {SEED}7")  # another number
        self.assertEqual(br.redact("expected 22, got 0", ["22"]), "expected 22, got 0")

    def test_xml_text(self):
        self.assertEqual(br.xml_text("a\x00b\x1bc\td\n"), "a\\x00b\\x1bc\td\n")

    def test_csv_cell_is_never_a_formula(self):
        self.assertEqual([br.cell(x) for x in ("=HYPERLINK(1)", "+1", "@a", "-x", "alice", "")],
                         ["'=HYPERLINK(1)", "'+1", "'@a", "'-x", "alice", ""])

    def test_plot_labels_are_plain_text(self):
        self.assertEqual(br.shorten("cost $x$", 40), r"cost \$x\$")
        self.assertEqual(br.shorten("abcdef", 4), "abc…")

    def test_number_text(self):
        self.assertEqual([br.number_text(x) for x in (25, 25.0, 12.5, 1 / 3, 0)],
                         ["25", "25", "12.5", "0.3333", "0"])


class ReportFiguresAndRubric(unittest.TestCase):
    """The figures a report.md quotes from its grade, held against the graded run, and the
    instructor's rubric (OUT/rubric.csv, OUT/report-scores.csv)."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="batch-report-rubric-")
        self.out = os.path.join(self.tmp, "out")
        labs = ["01", "02"]
        fx.write_batch(self.out, total=3, labs=labs)
        for sid in ("amy", "ben", "cat"):
            fx.write_student(self.out, sid, fx.make_report(labs),
                             fx.meta_of(sid, fx.own_files(sid, labs), labs))
        full = sum(x["max_points"] for x in fx.make_report(["01"])["labs"])
        # amy quotes her grade and r as graded (every perf check passes at r = 2.0 there)
        write_analysis(self.out, "amy", "01-conv1d-basic",
                       "- Grade (`./cudalab grade --lab 01`): %d / %d\n"
                       "- Performance (each performance check's `r = ...`): r = 1.9\n" % (full, full))
        # ben quotes full marks he was not given, and an r five times better than measured
        fx.write_student(self.out, "ben", fx.make_report(
            labs, outcome=lambda lab, check, tags, points:
                fx.perf_check(lab, check, points, 6.25) if "[perf]" in tags else None),
            fx.meta_of("ben", fx.own_files("ben", labs), labs))
        write_analysis(self.out, "ben", "01-conv1d-basic",
                       "- Grade (`./cudalab grade --lab 01`): %d / %d\n"
                       "- Performance (each performance check's `r = ...`): r = 1.2\n" % (full, full))
        # cat leaves the template's blanks
        write_analysis(self.out, "cat", "02-conv1d-tiled",
                       "- Grade (`./cudalab grade --lab 02`): ____ / 100\n"
                       "- Performance (each performance check's `r = ...`): r = ____\n")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, name, text):
        with open(os.path.join(self.out, name), "w", encoding="utf-8") as f:
            f.write(text)

    def page(self, sid):
        with open(os.path.join(self.out, "students", sid, "analysis.html"), encoding="utf-8") as f:
            return f.read()

    def rows(self):
        with open(os.path.join(self.out, "class", "grades.csv"), newline="") as f:
            return {r["student"]: r for r in csv.DictReader(f)}

    def test_quoted_figures_held_against_the_graded_run(self):
        code, _, err = run(self.out)
        self.assertEqual(code, 0, err)
        rows = self.rows()
        self.assertNotIn("report.md quotes", rows["amy"]["flags"])
        self.assertIn("lab 01 report.md quotes a grade of", rows["ben"]["flags"])
        self.assertRegex(rows["ben"]["flags"], r"quotes r = 1\.2 for performance vs reference; "
                                               r"the graded run measured r = 6\.25")
        self.assertNotIn("report.md quotes", rows["cat"]["flags"])  # blanks: nothing quoted
        self.assertIn('<td class="agrees">agrees</td>', self.page("amy"))
        self.assertIn('<td class="differs">differs</td>', self.page("ben"))
        self.assertNotIn('class="figures"', self.page("cat"))
        self.assertNotIn("report_points", rows["amy"])  # no rubric, no column

    def test_rubric_points_in_the_csv_the_pages_and_the_template(self):
        self.write("rubric.csv", "lab,item,points\n01,prediction,4\n01,measurement,6\n"
                                 "02,questions,10\n")
        self.write("report-scores.csv", "student,lab,item,points\namy,01,prediction,3\n"
                                        "amy,01,measurement,6\nben,01,prediction,\n")
        code, _, err = run(self.out)
        self.assertEqual(code, 0, err)
        rows = self.rows()
        self.assertEqual((rows["amy"]["report 01"], rows["amy"]["report_points"]), ("9", "9"))
        self.assertEqual(rows["ben"]["report_points"], "")  # blank points: not scored yet
        self.assertIn('<td>measurement</td><td class="n">6 / 6</td>', self.page("amy"))
        self.assertIn('<td>report points</td><td class="n">9 / 10</td>', self.page("amy"))
        with open(os.path.join(self.out, "class", "report-scores-template.csv"), newline="") as f:
            template = list(csv.reader(f))
        self.assertEqual(template[0], ["student", "lab", "item", "points"])
        self.assertIn(["amy", "01", "prediction", "3"], template)
        self.assertIn(["ben", "01", "measurement", ""], template)
        self.assertIn(["cat", "02", "questions", ""], template)

    def test_a_malformed_rubric_or_scores_file_is_one_line_and_exit_2(self):
        cases = [
            ("rubric.csv", "lab;item;points\n", "the first row must be lab,item,points"),
            ("rubric.csv", "lab,item,points\n1,x,4\n", "is not two digits"),
            ("rubric.csv", "lab,item,points\n01,x,-4\n", "is not a positive number"),
            ("rubric.csv", "lab,item,points\n01,x,4\n01,x,2\n", "item 'x' twice"),
            ("report-scores.csv", "student,lab,item,points\namy,01,x,1\n",
             "needs rubric.csv beside it"),
        ]
        for name, text, expected in cases:
            with self.subTest(text=text):
                for n in ("rubric.csv", "report-scores.csv"):
                    if os.path.exists(os.path.join(self.out, n)):
                        os.remove(os.path.join(self.out, n))
                self.write(name, text)
                code, _, err = run(self.out)
                self.assertEqual(code, 2)
                self.assertIn(expected, err)
                self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.write("rubric.csv", "lab,item,points\n01,prediction,4\n")
        for text, expected in (("student,lab,item,points\nzed,01,prediction,1\n", "no student 'zed'"),
                               ("student,lab,item,points\namy,01,other,1\n", "no item 'other'"),
                               ("student,lab,item,points\namy,01,prediction,5\n",
                                "from 0 to 4"),
                               ("student,lab,item,points\namy,01,prediction,1\n"
                                "amy,01,prediction,2\n", "scored twice")):
            with self.subTest(text=text):
                self.write("report-scores.csv", text)
                code, _, err = run(self.out)
                self.assertEqual(code, 2)
                self.assertIn(expected, err)
                self.assertEqual(len(err.strip().splitlines()), 1, err)


def missing_modules():
    """What the reports need that this python3 lacks: matplotlib (the plots), Jinja2 (the pages)."""
    missing = []
    for module, package in (("matplotlib", "python3-matplotlib"), ("jinja2", "python3-jinja2")):
        try:
            __import__(module)
        except ImportError:
            missing.append((module, package))
    return missing


if __name__ == "__main__":
    missing = missing_modules()
    if missing:
        print(f"SKIPPED: {' and '.join(m for m, _ in missing)} cannot be imported by "
              f"{sys.executable} (Debian: apt-get install {' '.join(p for _, p in missing)})")
        sys.exit(77)
    unittest.main()
