"""Unit tests of the class service's export (grader/classroom/export.py: the counting
submissions as a batch's folder, then the batch's reports on it) and of what the service's API
and pages say of deadlines and the leaderboard (grader/classroom/service.py, through Starlette's
TestClient: skipped where FastAPI or httpx is missing, as under a pyenv python3). No network, no
build: the submissions, their uploads and their results are made here.

    /usr/bin/python3 -m unittest grader/tests/test_classroom_export.py   (from the repository root)
"""

import contextlib
import csv
import gzip
import hashlib
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from grader.classroom import deadlines, export, store  # noqa: E402

LAB01 = "labs/01-conv1d-basic/conv1d_basic.cu"
LAB02 = "labs/02-conv1d-tiled/conv1d_tiled.cu"
REPORT01 = "labs/01-conv1d-basic/report.md"
T0 = 1_796_000_000.0  # the tests' clock (2026-11-29)
SEED = 123456789


def check(name, points, max_points, status="passed", tags="[correctness]", ratio=None):
    return {"check": name, "tags": tags, "points": points, "max": max_points, "status": status,
            "message": "", "seconds": 0.1, "measurements": {} if ratio is None else
            {"ratio": ratio}}


def lab(lab_id, checks):
    names = {"01": "conv1d-basic", "02": "conv1d-tiled"}
    return {"lab": lab_id, "name": names[lab_id], "points": sum(c["points"] for c in checks),
            "max_points": sum(c["max"] for c in checks), "seconds": 1.0, "checks": checks}


def full(lab_id, ratio):
    """A lab with every check passed (40 of 40 points) and a measured r."""
    return lab(lab_id, [check("edge cases", 15, 15, tags="[correctness][lab%s]" % lab_id),
                        check("performance vs reference", 25, 25, tags="[perf][lab%s]" % lab_id,
                              ratio=ratio)])


def partial(lab_id, points):
    """A lab of 40 points with POINTS of them (a failed check)."""
    return lab(lab_id, [check("edge cases", points, 15, "passed" if points == 15 else "failed"),
                        check("performance vs reference", 0, 25, "skipped", "[perf]")])


def report(labs, generated="2026-11-29T10:00:00Z", device=None):
    return {"schema": "cudalab-grade-report/1", "generated_at": generated, "target": "student",
            "seed": SEED, "device": device, "sandbox": "none: test", "seconds": 2.0,
            "untimed_jobs": 2, "points": sum(l["points"] for l in labs),
            "max_points": sum(l["max_points"] for l in labs),
            "failed": any(c["status"] == "failed" and c["max"] > 0 for l in labs
                          for c in l["checks"]), "labs": labs}


def tar_gz(files):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as t:
        for name, text in sorted(files.items()):
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue(), mtime=0)


def sha(text):
    return hashlib.sha256(text.encode()).hexdigest()


class ServiceData:
    """A service's folder made by hand: students, submissions with their uploads and results."""

    def __init__(self, folder):
        self.data = os.path.join(folder, "data")
        for name in ("uploads", "submissions"):
            os.makedirs(os.path.join(self.data, name))
        with open(os.path.join(self.data, "seed"), "w") as f:
            f.write("%d\n" % SEED)
        self.conn = store.connect(os.path.join(self.data, "service.sqlite"))

    def student(self, sid, name):
        store.upsert_student(self.conn, sid, name, now=T0)

    def submit(self, sid, labs, created, files, result=None, state="done", error=None):
        """A submission of FILES ({path: text}) made at CREATED; RESULT: its report.json (None:
        no report, the grading's ERROR)."""
        def place(sub_id):
            with open(os.path.join(self.data, "uploads", "%d.tar.gz" % sub_id), "wb") as f:
                f.write(tar_gz(files))
            return "uploads/%d.tar.gz" % sub_id

        sub_id = store.add_submission(self.conn, sid, list(labs), "key-%s-%s" % (sid, created),
                                      place, now=created)
        if state != "done":
            return sub_id
        folder = os.path.join(self.data, "submissions", str(sub_id))
        os.makedirs(folder)
        if result is not None:
            with open(os.path.join(folder, "report.json"), "w") as f:
                json.dump(result, f)
        with open(os.path.join(folder, "meta.json"), "w") as f:
            json.dump({"student": sid, "compiled": {l: True for l in labs}, "worker": "vm-0",
                       "files": {p: sha(t) for p, t in files.items()}}, f)
        lab_points = None if result is None else {
            l["lab"]: [l["points"], l["max_points"]] for l in result["labs"]}
        self.conn.execute(
            "UPDATE submissions SET state = 'done', finished_at = ?, points = ?, max_points = ?, "
            "lab_points = ?, error = ?, exit_code = ?, build_seconds = 1.5, grade_seconds = 2.5 "
            "WHERE id = ?",
            (created + 10, None if result is None else result["points"],
             None if result is None else result["max_points"],
             None if lab_points is None else json.dumps(lab_points), error,
             0 if result and not result["failed"] else 1, sub_id))
        return sub_id

    def close(self):
        self.conn.close()


class Merge(unittest.TestCase):
    def test_each_lab_from_its_report_totals_recomputed(self):
        early = report([partial("01", 15), partial("02", 0)], generated="2026-11-29T09:00:00Z")
        late = report([full("02", 0.8)], generated="2026-11-30T09:00:00Z",
                      device={"name": "NVIDIA H100"})
        merged = export.merge_reports({"01": early, "02": late}, late)
        self.assertEqual([l["lab"] for l in merged["labs"]], ["01", "02"])
        self.assertIs(merged["labs"][0], early["labs"][0])
        self.assertIs(merged["labs"][1], late["labs"][0])
        self.assertEqual((merged["points"], merged["max_points"], merged["failed"]),
                         (55, 80, False))
        # The rest is the latest's; the order of the fields the grade command's, labs last.
        self.assertEqual(merged["generated_at"], "2026-11-30T09:00:00Z")
        self.assertEqual(merged["device"], {"name": "NVIDIA H100"})
        self.assertEqual(list(merged)[-1], "labs")
        # A failed check worth points fails the merged report.
        merged = export.merge_reports({"01": report([partial("01", 0)]), "02": late}, late)
        self.assertEqual((merged["points"], merged["max_points"], merged["failed"]),
                         (40, 80, True))
        # A lab its report lacks is left out.
        self.assertEqual(len(export.merge_reports({"01": late}, late)["labs"]), 0)


def reports_run():
    """Whether the batch's reports can make their pages: Jinja2 in this python3, or in the system's
    (reports.py runs itself again with that one)."""
    if importlib.util.find_spec("jinja2") is not None:
        return True
    return os.access("/usr/bin/python3", os.X_OK) and subprocess.run(
        ["/usr/bin/python3", "-c", "import jinja2"], capture_output=True).returncode == 0


@unittest.skipUnless(reports_run(), "Jinja2 is missing, which the batch's reports need "
                     "(Debian: python3-jinja2)")
class Export(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.svc = ServiceData(self.tmp)
        d = self.svc
        for sid, name in (("alice", "Alice A"), ("bob", "Bob B"), ("carol", "Carol C"),
                          ("dave", "Dave D")):
            d.student(sid, name)
        self.deadline = T0 + 100
        self.deadlines = os.path.join(self.tmp, "deadlines.csv")
        with open(self.deadlines, "w") as f:
            f.write("lab,deadline\n01,%s\n" % deadlines.iso(self.deadline))
        store.set_setting(d.conn, "deadlines_file", self.deadlines)  # as the service records it
        self.files = {
            1: {LAB01: "// alice 1\n"},
            2: {LAB01: "// alice 2\n", REPORT01: "# alice's report\n- Grade: 15 / 40\n",
                LAB02: "// alice 2, lab 2\n"},
            4: {LAB02: "// alice 4, lab 2\n"}}
        # alice: lab 01 three times (the third after the deadline), lab 02 (no deadline) twice.
        self.a1 = d.submit("alice", ("01",), T0, self.files[1], report([partial("01", 0)]))
        self.a2 = d.submit("alice", ("01", "02"), T0 + 50, self.files[2],
                           report([partial("01", 15), partial("02", 0)]))
        self.a3 = d.submit("alice", ("01",), T0 + 150, {LAB01: "// alice 3, late\n"},
                           report([full("01", 0.5)]))
        self.a4 = d.submit("alice", ("02",), T0 + 300, self.files[4],
                           report([full("02", 0.9)], generated="2026-12-01T00:00:00Z"))
        # bob: only after the deadline; carol: before it, not graded yet; dave: a grading error.
        d.submit("bob", ("01",), T0 + 101, {LAB01: "// bob\n"}, report([full("01", 0.7)]))
        d.submit("carol", ("01",), T0 + 10, {LAB01: "// carol\n"}, state="queued")
        self.d1 = d.submit("dave", ("01",), T0 + 20, {LAB01: "// dave\n"}, None,
                           error="grading error: the disk is full")
        self.out = os.path.join(self.tmp, "grades")

    def tearDown(self):
        self.svc.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_export(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = export.main(list(argv))
        return code, out.getvalue(), err.getvalue()

    def read(self, *rel):
        with open(os.path.join(self.out, *rel)) as f:
            return json.load(f) if rel[-1].endswith(".json") else f.read()

    def test_the_batch_folder_of_the_counting_submissions(self):
        code, out, err = self.run_export("--data", self.svc.data, "--out", self.out)
        self.assertEqual(code, 0, out + err)
        self.assertIn("export: 4 student(s), 1 with a counting submission of lab(s) 01,02 "
                      "(deadlines: 01 %s)" % deadlines.iso(self.deadline), out)
        info = self.read("batch.json")
        self.assertEqual((info["schema"], info["seed_file"], info["labs"], info["total"]),
                         ("cudalab-batch/1", "seed", ["01", "02"], 4))
        self.assertEqual(info["submissions"]["alice"], {"01": self.a2, "02": self.a4})
        self.assertEqual(os.stat(self.out).st_mode & 0o777, 0o700)
        self.assertEqual(os.stat(os.path.join(self.out, "seed")).st_mode & 0o777, 0o600)
        self.assertEqual(self.read("seed").strip(), str(SEED))
        with open(os.path.join(ROOT, LAB01), "rb") as f:
            self.assertEqual(self.read("skeleton.json")[LAB01],
                             hashlib.sha256(f.read()).hexdigest())

        # alice: lab 01 from submission 2 (the last before the deadline), lab 02 from 4.
        merged = self.read("students", "alice", "report.json")
        self.assertEqual([(l["lab"], l["points"]) for l in merged["labs"]],
                         [("01", 15), ("02", 40)])
        self.assertEqual((merged["points"], merged["max_points"], merged["failed"]),
                         (55, 80, False))
        self.assertEqual(merged["generated_at"], "2026-12-01T00:00:00Z")  # the latest's
        meta = self.read("students", "alice", "meta.json")
        self.assertEqual(meta["submissions"], {"01": self.a2, "02": self.a4})
        self.assertEqual(meta["files"], {LAB01: sha(self.files[2][LAB01]),
                                         REPORT01: sha(self.files[2][REPORT01]),
                                         LAB02: sha(self.files[4][LAB02])})
        self.assertEqual((meta["error"], meta["compiled"], meta["reports"]),
                         (None, {"01": True, "02": True}, ["analysis/01-conv1d-basic.md"]))
        self.assertEqual(meta["deadlines"], {"01": deadlines.iso(self.deadline), "02": None})
        self.assertEqual(self.read("students", "alice", "analysis", "01-conv1d-basic.md"),
                         self.files[2][REPORT01])
        # The batch's own files, made by reports.py: the seed withheld from the student's.
        for name in ("student-report.json", "results.json", "junit.xml", "analysis.html"):
            self.assertTrue(os.path.isfile(os.path.join(self.out, "students", "alice", name)), name)
        mine = self.read("students", "alice", "student-report.json")
        self.assertEqual((mine["seed"], mine["points"]), (None, 55))
        self.assertNotIn(str(SEED), self.read("students", "alice", "results.json"))
        self.assertEqual(self.read("students", "alice", "results.json")["score"], 55)

        # The others: not graded, each with why.
        self.assertEqual(self.read("students", "bob", "meta.json")["error"], export.NO_SUBMISSION)
        self.assertEqual(self.read("students", "carol", "meta.json")["error"],
                         export.NO_SUBMISSION)
        self.assertEqual(self.read("students", "dave", "meta.json")["error"],
                         "not graded: lab 01, submission %d: grading error: the disk is full"
                         % self.d1)
        for sid in ("bob", "carol", "dave"):
            self.assertFalse(os.path.exists(os.path.join(self.out, "students", sid,
                                                         "report.json")))
        with open(os.path.join(self.out, "class", "grades.csv")) as f:
            rows = {r["student"]: r for r in csv.DictReader(f)}
        self.assertEqual(sorted(rows), ["alice", "bob", "carol", "dave"])
        self.assertEqual((rows["alice"]["points"], rows["alice"]["lab 01"], rows["alice"]["lab 02"],
                          rows["alice"]["graded"]), ("55", "15", "40", "yes"))
        self.assertEqual((rows["bob"]["graded"], rows["bob"]["error"]),
                         ("no", export.NO_SUBMISSION))
        self.assertTrue(os.path.isfile(os.path.join(self.out, "class", "index.html")))

        # Again, the deadline moved past alice's third: lab 01 from it; one lab only; a rubric
        # the instructor put there stays.
        with open(os.path.join(self.out, "rubric.csv"), "w") as f:
            f.write("lab,item,points\n01,prediction,4\n")
        with open(self.deadlines, "w") as f:
            f.write("01,%s\n" % deadlines.iso(T0 + 200))
        code, out, err = self.run_export("--data", self.svc.data, "--out", self.out, "--lab", "01")
        self.assertEqual(code, 0, out + err)
        merged = self.read("students", "alice", "report.json")
        self.assertEqual([(l["lab"], l["points"]) for l in merged["labs"]], [("01", 40)])
        self.assertEqual((merged["points"], merged["max_points"]), (40, 40))
        self.assertFalse(os.path.exists(os.path.join(self.out, "students", "alice", "analysis")))
        self.assertEqual(self.read("students", "bob", "report.json")["points"], 40)
        self.assertTrue(os.path.exists(os.path.join(self.out, "rubric.csv")))
        self.assertTrue(os.path.exists(os.path.join(self.out, "class",
                                                    "report-scores-template.csv")))

    def test_without_deadlines_the_latest_counts(self):
        store.set_setting(self.svc.conn, "deadlines_file", None)  # a service without --deadlines
        code, out, err = self.run_export("--data", self.svc.data, "--out", self.out, "--lab", "01")
        self.assertEqual(code, 0, out + err)
        self.assertEqual(self.read("batch.json")["submissions"]["alice"], {"01": self.a3})
        self.assertEqual(self.read("students", "carol", "meta.json")["error"], "no submission")

    def test_bad_arguments_are_one_line_and_exit_2(self):
        os.makedirs(os.path.join(self.tmp, "batch-out"))
        with open(os.path.join(self.tmp, "batch-out", "batch.json"), "w") as f:
            f.write('{"schema": "cudalab-batch/1"}\n')
        bad_deadlines = os.path.join(self.tmp, "bad.csv")
        with open(bad_deadlines, "w") as f:
            f.write("01,2026-12-05 23:59\n")
        data = self.svc.data
        for argv, text in (
                (["--data", data], "the following arguments are required: --out"),
                (["--data", data, "--out", os.path.join(data, "grades")],
                 "must not be inside the service's folder"),
                (["--data", data, "--out", data], "must not be inside"),
                (["--data", data, "--out", self.tmp], "must not hold the service's folder"),
                (["--data", os.path.join(self.tmp, "nope"), "--out", self.out],
                 "holds no service database"),
                (["--data", data, "--out", os.path.join(self.tmp, "batch-out")],
                 "is not empty and is not an export of"),
                (["--data", data, "--out", self.out, "--lab", "99"], "--lab: unknown lab '99'"),
                (["--data", data, "--out", self.out, "--deadlines", bad_deadlines],
                 "line 1: deadline '2026-12-05 23:59' has no timezone"),
                (["--data", data, "--out", self.out, "--bogus"], "unrecognized arguments")):
            with self.subTest(argv=argv):
                code, out, err = self.run_export(*argv)
                self.assertEqual((code, out), (2, ""), err)
                self.assertEqual(err.count("\n"), 1, err)
                self.assertIn(text, err)
                self.assertTrue(err.startswith("export: error: "), err)
        self.assertFalse(os.path.exists(self.out))  # nothing written
        # The file the service records, malformed since: one line, naming it.
        with open(self.deadlines, "w") as f:
            f.write("01,soon\n")
        code, out, err = self.run_export("--data", data, "--out", self.out)
        self.assertEqual(code, 2)
        self.assertIn(self.deadlines, err)
        self.assertIn("--deadlines FILE gives another", err)


# ---- The service's API and pages -----------------------------------------------------------------

HAVE_SERVICE = all(importlib.util.find_spec(m) is not None
                   for m in ("fastapi", "jinja2", "httpx"))


@unittest.skipUnless(HAVE_SERVICE, "FastAPI, Jinja2 or httpx is missing (run it with "
                     "/usr/bin/python3, which has Debian's python3-fastapi)")
class Service(unittest.TestCase):
    def setUp(self):
        from starlette.testclient import TestClient
        from grader.classroom import service

        self.tmp = tempfile.mkdtemp()
        self.svc = d = ServiceData(self.tmp)
        self.tokens = {}
        for sid, name in (("alice", "Alice A"), ("bob", "Bob B"), ("carol", "Carol C")):
            d.student(sid, name)
            self.tokens[sid] = store.new_token()
            store.set_student_token(d.conn, sid, self.tokens[sid])
        self.deadlines = os.path.join(self.tmp, "deadlines.csv")
        now = time.time()
        self.deadline = now - 1000  # lab 01's deadline has passed; lab 02 has none
        with open(self.deadlines, "w") as f:
            f.write("01,%s\n" % deadlines.iso(self.deadline))
        self.a1 = d.submit("alice", ("01",), now - 3000, {LAB01: "// a1\n"},
                           report([full("01", 0.8)]))
        self.a2 = d.submit("alice", ("01",), now - 10, {LAB01: "// a2\n"},
                           report([full("01", 0.2)]))
        self.b1 = d.submit("bob", ("01",), now - 2000, {LAB01: "// b1\n"},
                           report([full("01", 0.5)]))
        self.c1 = d.submit("carol", ("01",), now - 2500, {LAB01: "// c1\n"},
                           report([partial("01", 15)]))
        self.app = service.make_app(d.data, {"deadlines": self.deadlines})
        self.client = TestClient(self.app)
        with open(os.path.join(d.data, "instructor-token")) as f:
            self.tokens["instructor"] = f.read().strip()

    def tearDown(self):
        self.client.close()
        self.svc.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def api(self, method, path, who, **kw):
        r = self.client.request(method, path, headers={"Authorization": "Bearer " +
                                                       self.tokens[who]}, **kw)
        return r.status_code, r.json()

    def page(self, path, who):
        self.client.cookies.set("cudalab_token", self.tokens[who])
        try:
            r = self.client.get(path)
        finally:
            self.client.cookies.clear()
        return r.status_code, r.text

    def test_a_submission_says_whether_it_counts(self):
        status, late = self.api("GET", "/api/submissions/%d" % self.a2, "alice")
        self.assertEqual(status, 200)
        self.assertEqual((late["counts"], late["after_deadline"], late["deadline"]),
                         ({"01": False}, {"01": True}, {"01": deadlines.iso(self.deadline)}))
        status, first = self.api("GET", "/api/submissions/%d" % self.a1, "alice")
        self.assertEqual((first["counts"], first["after_deadline"]), ({"01": True}, {"01": False}))
        status, listed = self.api("GET", "/api/submissions", "alice")
        self.assertEqual([(s["id"], s["counts"]) for s in listed["submissions"]],
                         [(self.a2, {"01": False}), (self.a1, {"01": True})])
        status, text = self.page("/submissions/%d" % self.a2, "alice")
        self.assertIn("after the deadline: does not count", text)
        status, text = self.page("/submissions/%d" % self.a1, "alice")
        self.assertIn('<span class="ok">counts</span>', text)
        # The class: the counting one per student and lab, and the later one.
        status, view = self.api("GET", "/api/class", "instructor")
        alice = next(s for s in view["students"] if s["id"] == "alice")
        self.assertEqual((alice["counting"]["01"]["id"], alice["latest"]["01"]["id"]),
                         (self.a1, self.a2))
        self.assertEqual(view["deadlines"]["01"], deadlines.iso(self.deadline))
        status, text = self.page("/class", "instructor")
        self.assertEqual(status, 200)
        self.assertIn('<a href="/submissions/%d">40/40</a>' % self.a1, text)
        # The file changed: read again (no deadline for lab 01 now: the latest counts).
        with open(self.deadlines, "w") as f:
            f.write("lab,deadline\n")
        os.utime(self.deadlines, ns=(time.time_ns(), time.time_ns() + 10**9))
        status, late = self.api("GET", "/api/submissions/%d" % self.a2, "alice")
        self.assertEqual((late["counts"], late["deadline"]), ({"01": True}, {"01": None}))

    def test_the_leaderboard(self):
        # Fully correct and counting: alice's first (r 0.8; her 0.2 is after the deadline) and
        # bob's (0.5); carol's is not fully correct.
        status, board = self.api("GET", "/api/leaderboard/01", "alice")
        self.assertEqual(status, 200)
        self.assertEqual([(r["rank"], r["r"], r["name"]) for r in board["rows"]],
                         [(1, 0.5, "anonymous"), (2, 0.8, "you")])
        self.assertFalse(board["opted_in"])
        self.assertEqual(self.api("POST", "/api/me/leaderboard", "bob", json={"opt_in": True}),
                         (200, {"student": "bob", "opt_in": True}))
        status, me = self.api("GET", "/api/me", "bob")
        self.assertTrue(me["leaderboard"])
        status, board = self.api("GET", "/api/leaderboard/01", "carol")
        self.assertEqual([r["name"] for r in board["rows"]], ["Bob B", "anonymous"])
        status, board = self.api("GET", "/api/leaderboard/01", "instructor")
        self.assertEqual([r["name"] for r in board["rows"]], ["Bob B", "anonymous"])
        self.assertNotIn("alice", json.dumps(board))
        status, text = self.page("/leaderboard/01", "carol")
        self.assertEqual(status, 200)
        self.assertIn("Bob B", text)
        self.assertIn("anonymous", text)
        self.assertNotIn("Alice A", text)
        status, board = self.api("GET", "/api/leaderboard/02", "carol")
        self.assertEqual(board["rows"], [])
        # Bad requests: one line of JSON, a 4xx.
        for method, path, who, kw, want in (
                ("GET", "/api/leaderboard/99", "alice", {}, 404),
                ("POST", "/api/me/leaderboard", "alice", {"json": {"opt_in": "yes"}}, 400),
                ("POST", "/api/me/leaderboard", "alice", {"content": b"not json"}, 400),
                ("POST", "/api/me/leaderboard", "instructor", {"json": {"opt_in": True}}, 403)):
            with self.subTest(path=path, kw=kw):
                r = self.client.request(method, path, headers={
                    "Authorization": "Bearer " + self.tokens[who]}, **kw)
                self.assertEqual(r.status_code, want)
                self.assertEqual(list(r.json()), ["error"])
                self.assertNotIn("\n", r.text.strip())
        r = self.client.get("/api/leaderboard/01")
        self.assertEqual(r.status_code, 401)


class UncountedGrade(unittest.TestCase):
    """A grade whose technique checks could not read the GPU's performance counters is no verdict
    on the service, unless the instructor allowed it (serve --allow-uncounted)."""

    def result(self, allow):
        from grader.classroom import worker
        g = object.__new__(worker.Grader)
        g.args = type("Args", (), {"gpu": "0", "allow_uncounted": allow})()
        g.seed_hash, g.name, g.logged = "h", "w", []
        g.worker = type("Worker", (), {"tree": "/nonexistent/tree", "dir": "/nonexistent/dir"})()
        g.work = g.data = "/nonexistent/data"
        g.seed = 12345
        g.log = g.logged.append
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        message = ("conv1d_tiled_kernel passes in the PTX of your file, but what it executed could "
                   "not be counted, so the technique is not verified: the driver reserves the "
                   "GPU's performance counters to administrators")
        with open(os.path.join(tmp, "report.json"), "w") as f:
            json.dump({"points": 90, "max_points": 100, "failed": False, "labs": [
                {"lab": "02", "points": 90, "max_points": 100,
                 "checks": [{"check": "kernel reads its input tile from shared memory",
                             "status": "skipped", "message": message}]}]}, f)
        with open(os.path.join(tmp, "grade.log"), "w") as f:
            f.write("the table\n")
        return g, g.result(tmp, {"compiled": {}})

    def test_no_verdict_by_default(self):
        g, r = self.result(False)
        self.assertIsNone(r["points"])
        self.assertEqual(r["exit_code"], 1)
        self.assertTrue(r["error"].startswith("not graded: this service's GPU cannot read its "
                                              "performance counters"))
        self.assertIn("administrators", r["error"])
        self.assertEqual(len(g.logged), 1)

    def test_allowed(self):
        _, r = self.result(True)
        self.assertEqual(r["points"], 90)
        self.assertIsNone(r["error"])


if __name__ == "__main__":
    unittest.main()
