"""The reports of a class graded by `./cudalab batch`: per student and per class.

    ./cudalab batch-report OUT                  # every student, then the class
    ./cudalab batch-report OUT --student alice  # only alice's files (repeatable)

(python3 -m grader.classroom.reports, the repository on PYTHONPATH; the batch runs it after each
submission and at its end.) OUT is the batch's output folder, written by the batch (batch.py):

    OUT/batch.json                        {"schema": "cudalab-batch/1", started_at, finished_at,
                                           gpus, device, total, seed_file}
    OUT/skeleton.json                     {student file path: sha256 of the skeleton's file}
    OUT/<seed_file>                       the batch's secret seed (read, never shown or copied)
    OUT/students/<s>/report.json          the grade report (cudalab-grade-report/1); may be missing
    OUT/students/<s>/meta.json            {student, files, ignored, error, gpu, worker,
                                           build_seconds, grade_seconds, compiled, reports}
    OUT/students/<s>/analysis/NN-name.md  the student's labs/NN-name/report.md, as handed in
    OUT/rubric.csv                        optional, the instructor's: lab,item,points (the
                                          report.md's items and what each is worth)
    OUT/report-scores.csv                 optional, the instructor's: student,lab,item,points

It writes, for each student, in OUT/students/<s>/ (meant for the student: the seed is withheld,
and the per-case seeds and CUDALAB_SEED=... in the checks' messages are replaced by [withheld]):

    student-report.json   the report, "seed": null and "seed_withheld": true
    results.json          Gradescope's autograder format
    junit.xml             one <testsuite> per lab, one <testcase> per check
    analysis.html         for the instructor, where the student handed in report.md files: each
                          report beside the lab's grade, check by check (the text escaped: it is
                          the student's, untrusted), with the figures it quotes from its grade
                          (the points, the performance checks' r) held against the graded run,
                          and the rubric's points where the instructor gave some

and for the class (meant for the instructor), in OUT/class/:

    grades.csv            one row per student: points, per lab, per check, status columns (and,
                          with a rubric, the report points per lab and in all)
    report-scores-template.csv  with a rubric: a row per student, handed-in report and item,
                          points blank, for the instructor to fill in as OUT/report-scores.csv
    index.html            a static page: the batch, the outliers, plots, a row per student,
                          the students' report.md files beside their points per lab
    *.png                 the page's plots (matplotlib, Agg)

Then one summary line on stdout. A student whose report is missing or malformed is listed as not
graded, with the reason; a malformed OUT (or a bad command line) gives one line on stderr and exit
code 2; a file that cannot be written, exit code 1. Needs Python 3.8+, Jinja2 for the pages
(Debian: python3-jinja2; the templates are templates/reports/, autoescaped) and matplotlib for the
plots (Debian: python3-matplotlib; without it the page says so and has no plots). Run by a python3
without them (pyenv, a venv), it runs itself again with /usr/bin/python3 when that one has them.
"""
import argparse
import csv
import datetime
import functools
import io
import json
import math
import os
import random
import re
import statistics
import sys
import tempfile
import urllib.parse
import xml.etree.ElementTree as ET

from grader.classroom import base

REPORT_SCHEMA = "cudalab-grade-report/1"
BATCH_SCHEMA = "cudalab-batch/1"
STATUSES = ("passed", "partial", "failed", "skipped")
FAST_RATIO = 0.5  # a ratio below this is far faster than the reference: worth a look
WITHHELD = "[withheld]"
STUDENT_FILES = ("student-report.json", "results.json", "junit.xml")
ANALYSIS_DIR = "analysis"  # OUT/students/<s>/analysis/NN-name.md: the report.md files handed in
ANALYSIS_PAGE = "analysis.html"
MAX_ANALYSIS_CHARS = 100_000  # shown of one report.md; the rest is cut, and the page says so
PLOTS = ("scores", "ratios", "pass-rates")
SYSTEM_PYTHON = "/usr/bin/python3"  # where Debian's python3-matplotlib and python3-jinja2 are
TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates", "reports")

# Okabe-Ito colours: told apart with every common colour-vision deficiency.
COLOURS = {"passed": "#009E73", "partial": "#E69F00", "failed": "#D55E00", "skipped": "#BBBBBB"}


class BadInput(Exception):
    """A malformed OUT folder or command line: one line on stderr, exit code 2."""


class ReportError(Exception):
    """A malformed report.json: the student is listed as not graded."""


# ---------------------------------------------------------------------------------------------
# Reading OUT


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def validate_report(r):
    """Checks the fields this module reads; fills the optional ones. Raises ReportError."""
    if not isinstance(r, dict):
        raise ReportError("not a JSON object")
    if r.get("schema") != REPORT_SCHEMA:
        raise ReportError(f"schema is not {REPORT_SCHEMA!r}")
    labs = r.get("labs")
    if not isinstance(labs, list):
        raise ReportError("'labs' is not an array")
    for i, lab in enumerate(labs):
        where = f"labs[{i}]"
        if not isinstance(lab, dict):
            raise ReportError(f"{where} is not an object")
        if not isinstance(lab.get("lab"), str) or not lab["lab"]:
            raise ReportError(f"{where}: 'lab' is not a string")
        if not isinstance(lab.get("checks"), list):
            raise ReportError(f"{where}: 'checks' is not an array")
        lab.setdefault("name", "")
        if not isinstance(lab["name"], str):
            raise ReportError(f"{where}: 'name' is not a string")
        names = set()
        for j, c in enumerate(lab["checks"]):
            cw = f"{where}.checks[{j}]"
            if not isinstance(c, dict):
                raise ReportError(f"{cw} is not an object")
            if not isinstance(c.get("check"), str):
                raise ReportError(f"{cw}: 'check' is not a string")
            if c["check"] in names:
                raise ReportError(f"{cw}: check {c['check']!r} appears twice in lab {lab['lab']}")
            names.add(c["check"])
            for key in ("points", "max"):
                if not is_number(c.get(key)) or not math.isfinite(c[key]):
                    raise ReportError(f"{cw}: '{key}' is not a number")
            if c.get("status") not in STATUSES:
                raise ReportError(f"{cw}: 'status' is not one of {', '.join(STATUSES)}")
            for key, kind, default in (("tags", str, ""), ("message", str, ""),
                                       ("measurements", dict, {})):
                c.setdefault(key, default)
                if not isinstance(c[key], kind):
                    raise ReportError(f"{cw}: '{key}' is not a {kind.__name__}")
            c.setdefault("seconds", 0)
            if not is_number(c["seconds"]):
                raise ReportError(f"{cw}: 'seconds' is not a number")
        if not is_number(lab.get("points")):
            lab["points"] = sum(c["points"] for c in lab["checks"])
        if not is_number(lab.get("max_points")):
            lab["max_points"] = sum(c["max"] for c in lab["checks"])
        if not is_number(lab.get("seconds")):
            lab["seconds"] = sum(c["seconds"] for c in lab["checks"])
    if not is_number(r.get("points")):
        r["points"] = sum(lab["points"] for lab in labs)
    if not is_number(r.get("max_points")):
        r["max_points"] = sum(lab["max_points"] for lab in labs)
    device = r.get("device")
    if device is not None and not (isinstance(device, dict) and isinstance(device.get("name"), str)):
        raise ReportError("'device' is neither null nor an object with a name")
    return r


def read_meta(path):
    """(meta, problem): meta is {} when it cannot be read; problem says why (or None)."""
    if not os.path.exists(path):
        return {}, "meta.json is missing"
    try:
        meta = read_json(path)
    except (OSError, ValueError) as e:
        return {}, f"meta.json cannot be read: {e}"
    if not isinstance(meta, dict):
        return {}, "meta.json is not a JSON object"
    problems = []
    files = meta.get("files")
    if files is None:
        meta["files"] = {}
    elif not (isinstance(files, dict) and all(isinstance(k, str) and isinstance(v, str)
                                              for k, v in files.items())):
        meta["files"] = {}
        problems.append("its 'files' is not an object of sha256 strings")
    ignored = meta.get("ignored")
    if ignored is None:
        meta["ignored"] = []
    elif not (isinstance(ignored, list) and all(isinstance(p, str) for p in ignored)):
        meta["ignored"] = []
        problems.append("its 'ignored' is not an array of strings")
    compiled = meta.get("compiled")
    if compiled is None:
        meta["compiled"] = {}
    elif not isinstance(compiled, dict):
        meta["compiled"] = {}
        problems.append("its 'compiled' is not an object")
    if meta.get("error") is not None and not isinstance(meta["error"], str):
        meta["error"] = str(meta["error"])
    return meta, ("meta.json: " + "; ".join(problems)) if problems else None


class Student:
    def __init__(self, sid, folder):
        self.id = sid
        self.folder = folder
        self.meta = {}
        self.meta_problem = None
        self.report = None  # the validated report, or None when not graded
        self.not_graded_reason = None
        self.flags = []  # (kind, text), for the instructor
        self.fast = []  # (lab, check, ratio, status)
        self.not_compiled = []
        self.unchanged = []  # student file paths equal to the skeleton's
        self.analysis = []  # (lab id, file name, text) of the report.md files handed in
        self.figures = {}  # lab -> [(what the report quotes, what the graded run gave, agrees)]
        self.report_points = {}  # lab -> {item: points}, from OUT/report-scores.csv
        self.rubric = {}  # the batch's rubric (lab -> [(item, points)]), for the pages

    @property
    def graded(self):
        return self.report is not None

    @property
    def error(self):
        """The driver's error, or why the report could not be used."""
        if self.not_graded_reason:
            return self.not_graded_reason
        return self.meta.get("error") or ""

    def labs(self):
        return {lab["lab"]: lab for lab in self.report["labs"]} if self.report else {}


def read_analysis(folder):
    """[(lab id, file name, text)] of the report.md files in the student's analysis/ folder (the
    student's words: decoded leniently, cut at MAX_ANALYSIS_CHARS)."""
    where = os.path.join(folder, ANALYSIS_DIR)
    try:
        names = sorted(n for n in os.listdir(where) if re.match(r"^[0-9]+-[A-Za-z0-9_-]+\.md$", n))
    except OSError:
        return []
    found = []
    for name in names:
        try:
            with open(os.path.join(where, name), "rb") as f:
                data = f.read(4 * MAX_ANALYSIS_CHARS + 1)
        except OSError:
            continue
        text = data.decode("utf-8", errors="replace")
        if len(text) > MAX_ANALYSIS_CHARS or len(data) > 4 * MAX_ANALYSIS_CHARS:
            text = text[:MAX_ANALYSIS_CHARS] + "\n[... cut: longer than %d characters]" % (
                MAX_ANALYSIS_CHARS)
        found.append((name.split("-", 1)[0], name, text))
    return found


def load_student(sid, folder):
    s = Student(sid, folder)
    s.analysis = read_analysis(folder)
    s.meta, s.meta_problem = read_meta(os.path.join(folder, "meta.json"))
    if s.meta_problem:
        s.flags.append(("meta", s.meta_problem))
    elif s.meta.get("student") not in (None, sid):
        s.flags.append(("meta", f"meta.json names student {s.meta.get('student')!r}"))
    path = os.path.join(folder, "report.json")
    if not os.path.exists(path):
        why = s.meta.get("error")
        s.not_graded_reason = why or "no report.json (and no error recorded in meta.json)"
        return s
    try:
        s.report = validate_report(read_json(path))
    except (OSError, ValueError, ReportError) as e:
        why = f"report.json is malformed: {e}"
        if s.meta.get("error"):
            why = f"{s.meta['error']} ({why})"
        s.not_graded_reason = why
    return s


class Batch:
    def __init__(self, out):
        self.out = out
        self.info = {}
        self.skeleton = None  # None: skeleton.json missing
        self.seed = None  # the batch's secret seed, as text
        self.students = []
        self.warnings = []  # batch-level problems for the page
        self.partial = False  # only some students were read (--student)
        self.rubric = {}  # lab -> [(item, points)], from OUT/rubric.csv


def check_type(obj, key, kinds, what):
    if key in obj and not isinstance(obj[key], kinds):
        raise BadInput(f"{what}: '{key}' has the wrong type")


def load_batch(out, only=None):
    """The batch in OUT; with `only` (student ids), only those students are read (their own
    files need nothing of the others'). Raises BadInput."""
    if not os.path.isdir(out):
        raise BadInput(f"{out} is not a folder")
    b = Batch(out)
    path = os.path.join(out, "batch.json")
    try:
        info = read_json(path)
    except FileNotFoundError:
        raise BadInput(f"{path} is missing: not a batch output folder") from None
    except (OSError, ValueError) as e:
        raise BadInput(f"{path} cannot be read: {e}") from None
    if not isinstance(info, dict) or info.get("schema") != BATCH_SCHEMA:
        raise BadInput(f"{path} is not a {BATCH_SCHEMA} file")
    for key, kinds in (("started_at", str), ("finished_at", (str, type(None))),
                       ("gpus", list), ("device", (str, type(None))), ("total", int),
                       ("seed_file", str)):
        check_type(info, key, kinds, path)
    b.info = info

    students_dir = os.path.join(out, "students")
    if not os.path.isdir(students_dir):
        raise BadInput(f"{students_dir} is missing: not a batch output folder")

    path = os.path.join(out, "skeleton.json")
    if os.path.exists(path):
        try:
            skeleton = read_json(path)
        except (OSError, ValueError) as e:
            raise BadInput(f"{path} cannot be read: {e}") from None
        if not (isinstance(skeleton, dict) and all(isinstance(k, str) and isinstance(v, str)
                                                    for k, v in skeleton.items())):
            raise BadInput(f"{path} is not an object of sha256 strings")
        b.skeleton = skeleton
    else:
        b.warnings.append("skeleton.json is missing: files equal to the skeleton are not found")

    seed_file = info.get("seed_file", "seed")
    if seed_file:
        try:
            with open(os.path.join(out, seed_file), encoding="utf-8") as f:
                b.seed = f.read().strip() or None
        except (OSError, UnicodeDecodeError):
            b.warnings.append(f"the seed file ({seed_file}) cannot be read: reports are not "
                              "checked against the batch's seed")

    try:
        names = sorted(n for n in os.listdir(students_dir)
                       if os.path.isdir(os.path.join(students_dir, n)))
    except OSError as e:
        raise BadInput(f"{students_dir} cannot be listed: {e}") from None
    if only:
        missing = [x for x in only if x not in names]
        if missing:
            raise BadInput(f"no student {missing[0]!r} in {students_dir}")
        names = list(dict.fromkeys(only))
        b.partial = True
    b.students = [load_student(n, os.path.join(students_dir, n)) for n in names]
    b.rubric = read_rubric(os.path.join(out, RUBRIC))
    scores = read_report_scores(os.path.join(out, REPORT_SCORES), b.rubric,
                                {s.id for s in b.students} if not only else None)
    for s in b.students:
        s.report_points = scores.get(s.id, {})
        s.rubric = b.rubric
    analyse(b)
    return b


# ---------------------------------------------------------------------------------------------
# The report.md files: the figures they quote, and the instructor's rubric

RUBRIC = "rubric.csv"  # OUT/rubric.csv: lab,item,points
REPORT_SCORES = "report-scores.csv"  # OUT/report-scores.csv: student,lab,item,points
SCORES_TEMPLATE = "report-scores-template.csv"  # OUT/class/: the rows to fill in
# A quoted r this far from the graded run's (either way) is flagged: the student's GPU is not the
# batch's, so only a gross difference says something.
RATIO_FACTOR = 2.0
GRADE_LINE = re.compile(r"^\s*-\s*Grade\b[^:\n]*:\s*([0-9]+(?:\.[0-9]+)?)\s*/\s*([0-9]+(?:\.[0-9]+)?)",
                        re.MULTILINE)
PERF_LINE = re.compile(r"^\s*-\s*Performance\b[^:\n]*:(.*)$", re.MULTILINE)
QUOTED_R = re.compile(r"\br\s*=\s*([0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)")


def quoted_figures(text):
    """What a report.md quotes from its grade: (points, max) of its "- Grade ...: N / M" line and
    the r values of its "- Performance ...: r = a, r = b" line (None and [] when left blank)."""
    grade = None
    found = GRADE_LINE.search(text)
    if found:
        grade = (float(found.group(1)), float(found.group(2)))
    ratios = []
    found = PERF_LINE.search(text)
    if found:
        ratios = [float(x) for x in QUOTED_R.findall(found.group(1))]
    return grade, ratios


def unjudged_text(s, lab):
    """Why the graded run could not judge a lab's grade ("not judged here: no GPU", "... N
    check(s) skipped"), or None when it could: a run without a GPU, or with checks skipped, gave
    points that are not what the student's code earns."""
    if s.report.get("device") is None:
        return "not judged here: no GPU"
    skipped = sum(1 for c in lab["checks"] if c.get("status") == "skipped")
    if skipped:
        return f"not judged here: {skipped} check(s) skipped"
    return None


def check_figures(s):
    """Holds each report.md's quoted figures against the student's graded run: s.figures, and a
    flag for each that differs."""
    labs = s.labs()
    for lab, _, text in s.analysis:
        grade, ratios = quoted_figures(text)
        x = labs.get(lab)
        if x is None or (grade is None and not ratios):
            continue
        rows = []
        unjudged = unjudged_text(s, x)
        if grade is not None and unjudged:
            # The run could not judge the lab (no GPU, GPU checks skipped): its points are not the
            # grade, so a quoted grade is neither agreeing nor differing, as an r "not timed".
            rows.append((f"grade {number_text(grade[0])} / {number_text(grade[1])}",
                         unjudged, None))
        elif grade is not None:
            got = round(x["points"], 2)
            agrees = abs(grade[0] - got) <= 0.5 and abs(grade[1] - x["max_points"]) <= 0.5
            rows.append((f"grade {number_text(grade[0])} / {number_text(grade[1])}",
                         f"{number_text(got)} / {number_text(x['max_points'])}", agrees))
            if not agrees:
                s.flags.append(("report", f"lab {lab} report.md quotes a grade of "
                                          f"{number_text(grade[0])} / {number_text(grade[1])}; "
                                          f"the graded run gave {number_text(got)} / "
                                          f"{number_text(x['max_points'])}"))
        perf = [(c["check"], ratio_of(c)) for c in x["checks"] if is_perf(c)]
        for quoted, (check, got) in zip(ratios, perf):
            if got is None:
                rows.append((f"r = {quoted:.3g} ({check})", "not timed", None))
                continue
            agrees = quoted > 0 and 1 / RATIO_FACTOR <= quoted / got <= RATIO_FACTOR
            rows.append((f"r = {quoted:.3g} ({check})", f"r = {got:.3g}", agrees))
            if not agrees:
                s.flags.append(("report", f"lab {lab} report.md quotes r = {quoted:.3g} for "
                                          f"{check}; the graded run measured r = {got:.3g}"))
        s.figures[lab] = rows


def read_rubric(path):
    """{lab: [(item, points)]} from OUT/rubric.csv (lab,item,points; a header row), {} when
    there is none. Raises BadInput on a malformed one."""
    if not os.path.exists(path):
        return {}
    rubric = {}
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise BadInput(f"{path} cannot be read: {e}") from None
    if not rows or [c.strip().lower() for c in rows[0]] != ["lab", "item", "points"]:
        raise BadInput(f"{path}: the first row must be lab,item,points")
    for n, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        if len(row) != 3:
            raise BadInput(f"{path}:{n}: {len(row)} fields, expected 3 (lab,item,points)")
        lab, item, points = (c.strip() for c in row)
        if not re.fullmatch(r"[0-9]{2}", lab):
            raise BadInput(f"{path}:{n}: lab {lab!r} is not two digits (01 to 10)")
        if not item:
            raise BadInput(f"{path}:{n}: an item needs a name")
        try:
            value = float(points)
        except ValueError:
            value = -1.0
        if not (math.isfinite(value) and value > 0):
            raise BadInput(f"{path}:{n}: points {points!r} is not a positive number")
        if any(i == item for i, _ in rubric.get(lab, [])):
            raise BadInput(f"{path}:{n}: lab {lab} has item {item!r} twice")
        rubric.setdefault(lab, []).append((item, value))
    return rubric


def read_report_scores(path, rubric, students):
    """{student: {lab: {item: points}}} from OUT/report-scores.csv (student,lab,item,points),
    each row held to the rubric; rows with blank points are not scored yet. `students`: the
    ids a row may name (None: any). Raises BadInput on a malformed file."""
    if not os.path.exists(path):
        return {}
    if not rubric:
        raise BadInput(f"{path} needs {RUBRIC} beside it (lab,item,points)")
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise BadInput(f"{path} cannot be read: {e}") from None
    if not rows or [c.strip().lower() for c in rows[0]] != ["student", "lab", "item", "points"]:
        raise BadInput(f"{path}: the first row must be student,lab,item,points")
    scores = {}
    for n, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        if len(row) != 4:
            raise BadInput(f"{path}:{n}: {len(row)} fields, expected 4 (student,lab,item,points)")
        sid, lab, item, points = row[0], row[1].strip(), row[2].strip(), row[3].strip()
        if students is not None and sid not in students:
            raise BadInput(f"{path}:{n}: no student {sid!r} in this batch")
        most = dict(rubric.get(lab, [])).get(item)
        if most is None:
            raise BadInput(f"{path}:{n}: the rubric has no item {item!r} for lab {lab!r}")
        if not points:
            continue
        try:
            value = float(points)
        except ValueError:
            value = -1.0
        if not (math.isfinite(value) and 0 <= value <= most):
            raise BadInput(f"{path}:{n}: points {points!r} is not a number from 0 to "
                           f"{number_text(most)} (the rubric's for this item)")
        if item in scores.get(sid, {}).get(lab, {}):
            raise BadInput(f"{path}:{n}: {sid}'s lab {lab} item {item!r} is scored twice")
        scores.setdefault(sid, {}).setdefault(lab, {})[item] = value
    return scores


def report_points_total(s):
    return sum(sum(items.values()) for items in s.report_points.values())


def scores_template(b):
    """OUT/class/report-scores-template.csv: a row per student, report.md handed in, and item
    of the rubric for that lab; the points already given filled in."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["student", "lab", "item", "points"])
    for s in b.students:
        for lab, _, _ in s.analysis:
            for item, _ in b.rubric.get(lab, []):
                given = s.report_points.get(lab, {}).get(item)
                w.writerow([cell(s.id), lab, cell(item),
                            "" if given is None else number_text(given)])
    return out.getvalue()


# ---------------------------------------------------------------------------------------------
# Analysis: ratios, thresholds, compile failures, outliers

THRESHOLDS = re.compile(r"full credit at r <= ([0-9.eE+-]+), none at r >= ([0-9.eE+-]+)")


def is_perf(check):
    return "[perf]" in check.get("tags", "")


def ratio_of(check):
    """The check's r, from its measurements (the timed ratio, or the one untimed run's)."""
    m = check.get("measurements") or {}
    for key in ("ratio", "ratio_untimed_run"):
        r = m.get(key)
        if is_number(r) and math.isfinite(r) and r > 0:
            return float(r)
    return None


def thresholds_of(check):
    found = THRESHOLDS.search(check.get("message", ""))
    if not found:
        return None
    try:
        return float(found.group(1)), float(found.group(2))
    except ValueError:
        return None


def lab_of_path(path):
    found = re.search(r"(?:^|/)labs/(\d+)-", path)
    return found.group(1) if found else None


def is_report_path(path):
    """Whether a skeleton path is a lab's report.md template (labs/NN-name/report.md)."""
    return path == "report.md" or path.endswith("/report.md")


def labs_text(paths):
    """['labs/08-bfs/bfs.cu', 'labs/09-nbody/nbody.cu'] -> 'labs 08, 09'."""
    labs = sorted({lab_of_path(p) or p for p in paths})
    return ("lab " if len(labs) == 1 else "labs ") + ", ".join(labs)


def seed_text(report_seed):
    if report_seed is None:
        return None
    if is_number(report_seed):
        return str(int(report_seed)) if float(report_seed).is_integer() else str(report_seed)
    return str(report_seed)


def analyse(b):
    for s in b.students:
        if s.graded:
            analyse_report(b, s)
            check_figures(s)
        compiled = s.meta.get("compiled") or {}
        s.not_compiled = sorted(lab for lab, ok in compiled.items() if ok is False)
        for lab in s.labs().values():  # the report says so even when meta.json does not
            if lab["lab"] not in s.not_compiled and any(
                    c["status"] == "failed" and c["message"].startswith("not graded:")
                    and "does not compile" in c["message"] for c in lab["checks"]):
                s.not_compiled.append(lab["lab"])
        s.not_compiled.sort()
        ignored = s.meta.get("ignored") or []
        if ignored:
            shown = ", ".join(ignored[:3]) + (f" and {len(ignored) - 3} more" if len(ignored) > 3
                                               else "")
            s.flags.append(("ignored", f"{len(ignored)} file(s) not taken: {shown}"))

    # Lab files not in the submission (of the labs the batch grades). The skeleton's report.md
    # templates are left out: a missing report is shown as "no report", not as a missing lab.
    labs = b.info.get("labs")
    expected = [p for p in (b.skeleton or {})
                if not is_report_path(p) and (not isinstance(labs, list) or lab_of_path(p) in labs)]
    for s in b.students:
        files = s.meta.get("files") or {}
        if files and not s.meta_problem:
            absent = [p for p in expected if p not in files]
            if absent:
                s.flags.append(("missing", "not in the submission: " + labs_text(absent)))

    # (c) files equal to the skeleton's, (b) files equal to another student's.
    skeleton = b.skeleton or {}
    by_hash = {}
    for s in b.students:
        unchanged = []
        for path, sha in sorted((s.meta.get("files") or {}).items()):
            sha = sha.lower()
            if skeleton.get(path, "").lower() == sha:
                # A report.md left as its template is no report (the report pages say so), not
                # a lab left unchanged, and alike among students for no fault of theirs.
                if not is_report_path(path):
                    unchanged.append(path)
            else:
                by_hash.setdefault((path, sha), []).append(s.id)
        s.unchanged = unchanged
        if unchanged:
            s.flags.append(("unchanged", "unchanged from the skeleton: " + labs_text(unchanged)))
    b.duplicates = sorted((path, ids) for (path, _), ids in by_hash.items() if len(ids) > 1)
    index = {s.id: s for s in b.students}
    for path, ids in b.duplicates:
        lab = lab_of_path(path)
        what = f"lab {lab}" if lab else path
        for sid in ids:
            others = ", ".join(o for o in ids if o != sid)
            index[sid].flags.append(("duplicate", f"{what} file identical to {others}'s"))

    # Thresholds per lab, from the timing lines ("full credit at r <= X, none at r >= Y").
    seen = {}
    for s in b.students:
        for lab in s.labs().values():
            for c in lab["checks"]:
                t = thresholds_of(c) if is_perf(c) else None
                if t:
                    seen.setdefault(lab["lab"], {}).setdefault(t, 0)
                    seen[lab["lab"]][t] += 1
    b.thresholds = {lab: max(counts, key=counts.get) for lab, counts in seen.items()}


def analyse_report(b, s):
    r = s.report
    for lab in r["labs"]:
        for c in lab["checks"]:
            ratio = ratio_of(c) if is_perf(c) else None
            if ratio is not None and ratio < FAST_RATIO:
                s.fast.append((lab["lab"], c["check"], ratio, c["status"]))
    for lab, check, ratio, _ in s.fast:
        s.flags.append(("fast", f"lab {lab} {check}: r = {ratio:.3g}"))
    if r.get("device") is None:
        s.flags.append(("no-gpu", "graded without a GPU: its GPU checks were skipped"))
    sandbox = r.get("sandbox")
    if isinstance(sandbox, str) and sandbox.startswith("none"):
        s.flags.append(("unsandboxed", "graded unsandboxed: " + sandbox))
    target = r.get("target")
    if target not in (None, "student"):
        s.flags.append(("target", f"report of {target!r}, not of the student's files"))
    mine = seed_text(r.get("seed"))
    if b.seed is not None and mine is not None and mine != b.seed:
        s.flags.append(("seed", "graded with another seed than the batch's (a stale report?)"))


# ---------------------------------------------------------------------------------------------
# Per student: the seed withheld


def secrets_of(b, s):
    """The batch's seed and the report's, as text: never in a student's files."""
    found = {seed_text(b.seed)} | ({seed_text(s.report.get("seed"))} if s.report else set())
    return sorted(x for x in found if x)


def redact(text, secrets):
    """The text without the seed: CUDALAB_SEED=N, the per-case 'seed N' (derived from the base
    seed by an invertible mix, so it gives the base seed away) and the seed itself, wherever it
    stands as a number of its own. A seed of fewer than 4 digits is no secret and is left in
    other numbers' place."""
    if not text:
        return text
    text = re.sub(r"CUDALAB_SEED\s*=\s*[^\s,;)\]]+", "CUDALAB_SEED=" + WITHHELD, text)
    text = re.sub(r"(?i)\b(seeds?)(\s*[=:]?\s*)(?:0x[0-9a-f]+|\d+)\b",
                  lambda m: m.group(1) + m.group(2) + WITHHELD, text)
    for secret in secrets:
        forms = [secret]
        if secret.isdigit():
            if len(secret) < 4:
                continue
            forms.append(format(int(secret), "x"))
        for form in forms:
            text = re.sub(r"(?<![0-9A-Za-z])(?:0[xX])?" + re.escape(form) + r"(?![0-9A-Za-z])",
                          WITHHELD, text, flags=re.IGNORECASE)
    return text


def student_report(b, s):
    """The report for the student: the seed replaced by null, "seed_withheld": true, messages
    redacted."""
    secrets = secrets_of(b, s)
    out = {}
    for key, value in s.report.items():
        if key == "seed":
            out["seed"] = None
            out["seed_withheld"] = True
        elif key == "labs":
            out["labs"] = [dict(lab, checks=[dict(c, message=redact(c["message"], secrets))
                                             for c in lab["checks"]]) for lab in value]
        elif isinstance(value, str):
            out[key] = redact(value, secrets)
        else:
            out[key] = value
    out.setdefault("seed_withheld", True)
    out.setdefault("seed", None)
    return out


def class_max_score(b):
    """The most common max_points of the graded reports (for a student not graded)."""
    if b.partial:  # read the others' reports now: only a student not graded needs it
        if not hasattr(b, "all_maxima"):
            b.all_maxima = []
            folder = os.path.join(b.out, "students")
            for name in sorted(os.listdir(folder)):
                try:
                    top = read_json(os.path.join(folder, name, "report.json")).get("max_points")
                except (OSError, ValueError, AttributeError):
                    continue
                if is_number(top):
                    b.all_maxima.append(top)
        maxima = b.all_maxima
    else:
        maxima = [s.report["max_points"] for s in b.students if s.graded]
    return max(set(maxima), key=maxima.count) if maxima else None


def gradescope(b, s, report):
    """Gradescope's results.json, as the grade command's --gradescope writes it, plus the files
    of the submission that were not taken."""
    ignored = s.meta.get("ignored") or []
    note = ""
    if ignored:
        note = ("\nFiles of your submission that were not taken (only the lab files are): "
                + ", ".join(ignored))
    if report is None:
        result = {"score": 0}
        top = class_max_score(b)
        if top is not None:
            result["max_score"] = top
        result.update({
            "output": "Your submission could not be graded: " + s.error + note,
            "visibility": "visible",
            "tests": [],
        })
        return result
    device = report.get("device")
    output = ("Graded on " + device["name"] if device else
              "No GPU found (" + str(report.get("no_device_reason", "")) +
              "): GPU checks were skipped and earn no points.")
    tests = []
    for lab in report["labs"]:
        for c in lab["checks"]:
            tests.append({
                "name": f"Lab {' '.join(filter(None, (lab['lab'], lab['name'])))}: {c['check']}",
                "score": c["points"],
                "max_score": c["max"],
                "status": "passed" if c["status"] in ("passed", "partial") else "failed",
                "output": "SKIPPED: " + c["message"] if c["status"] == "skipped" else c["message"],
            })
    return {"score": report["points"], "max_score": report["max_points"], "output": output + note,
            "visibility": "visible", "tests": tests}


_XML_BAD = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text):
    """Text XML 1.0 can hold: control characters (a crash's output, colour codes) as \\xNN."""
    return _XML_BAD.sub(lambda m: f"\\x{ord(m.group(0)):02x}", text or "")


def first_line(text):
    return (text or "").split("\n", 1)[0]


def number_text(x, digits=4):
    """25 -> "25", 12.5 -> "12.5", 1/3 -> "0.3333"."""
    if x is None:
        return ""
    if float(x).is_integer():
        return str(int(x))
    return f"{x:.{digits}f}".rstrip("0").rstrip(".")


def junit(b, s, report):
    """JUnit XML: one <testsuite> per lab, one <testcase> per check."""
    root = ET.Element("testsuites", name=xml_text(f"cudalab {s.id}"))
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
    if report is None:
        suite = ET.SubElement(root, "testsuite", name="submission", tests="1", failures="0",
                              errors="1", skipped="0", time="0")
        case = ET.SubElement(suite, "testcase", classname="submission", name="grading", time="0")
        ET.SubElement(case, "error", message=xml_text(first_line(s.error))).text = xml_text(s.error)
        totals.update(tests=1, errors=1)
    else:
        stamp = report.get("generated_at")
        for lab in report["labs"]:
            checks = lab["checks"]
            failures = sum(c["status"] == "failed" for c in checks)
            skipped = sum(c["status"] == "skipped" for c in checks)
            attrs = {"name": xml_text(f"lab{lab['lab']} {lab['name']}".strip()),
                     "tests": str(len(checks)), "failures": str(failures), "errors": "0",
                     "skipped": str(skipped), "time": f"{lab['seconds']:.3f}"}
            if isinstance(stamp, str):
                attrs["timestamp"] = xml_text(stamp.rstrip("Z"))
            suite = ET.SubElement(root, "testsuite", attrs)
            props = ET.SubElement(suite, "properties")
            ET.SubElement(props, "property", name="points", value=number_text(lab["points"]))
            ET.SubElement(props, "property", name="max_points", value=number_text(lab["max_points"]))
            for c in checks:
                case = ET.SubElement(suite, "testcase", classname=f"lab{xml_text(lab['lab'])}",
                                     name=xml_text(c["check"]), time=f"{c['seconds']:.3f}")
                message = xml_text(c["message"])
                if c["status"] == "failed":
                    ET.SubElement(case, "failure", message=first_line(message) or "failed",
                                  type="failed").text = message
                elif c["status"] == "skipped":
                    ET.SubElement(case, "skipped", message=first_line(message))
                out = f"{c['status']}: {number_text(c['points'])}/{number_text(c['max'])} points"
                if message and c["status"] != "failed":
                    out += "\n" + message
                ET.SubElement(case, "system-out").text = out
            totals["tests"] += len(checks)
            totals["failures"] += failures
            totals["skipped"] += skipped
            totals["time"] += lab["seconds"]
    root.set("tests", str(totals["tests"]))
    root.set("failures", str(totals["failures"]))
    root.set("errors", str(totals["errors"]))
    root.set("skipped", str(totals["skipped"]))
    root.set("time", f"{totals['time']:.3f}")
    if hasattr(ET, "indent"):  # Python 3.9+
        ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=False)


def write_file(path, text):
    """Written whole or not at all (a temporary file renamed over the old one)."""
    folder = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_student(b, s):
    report = student_report(b, s) if s.graded else None
    secrets = secrets_of(b, s)
    if report is None:  # nothing of an earlier run may stay
        try:
            os.unlink(os.path.join(s.folder, "student-report.json"))
        except FileNotFoundError:
            pass
    else:
        write_file(os.path.join(s.folder, "student-report.json"),
                   json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    results = gradescope(b, s, report)
    results["output"] = redact(results["output"], secrets)
    write_file(os.path.join(s.folder, "results.json"),
               json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    write_file(os.path.join(s.folder, "junit.xml"),
               '<?xml version="1.0" encoding="UTF-8"?>\n' + junit(b, s, report) + "\n")
    page = os.path.join(s.folder, ANALYSIS_PAGE)
    if s.analysis:
        write_file(page, analysis_page(s))
    elif os.path.exists(page):  # nothing of an earlier run may stay
        os.unlink(page)


# ---------------------------------------------------------------------------------------------
# Per class: the CSV


def class_columns(b):
    """[(lab, name, max, [(check, max), ...])] in lab order, checks in the order reports list
    them (the first report that has a check places it)."""
    labs = {}
    for s in b.students:
        for lab in s.report["labs"] if s.graded else []:
            entry = labs.setdefault(lab["lab"], {"name": lab["name"], "max": lab["max_points"],
                                                 "checks": {}})
            for c in lab["checks"]:
                entry["checks"].setdefault(c["check"], c["max"])
    return [(lab, e["name"], e["max"], list(e["checks"].items()))
            for lab, e in sorted(labs.items(), key=lambda kv: (len(kv[0]), kv[0]))]


def flag_text(s):
    return "; ".join(f"{kind}: {text}" for kind, text in s.flags)


def cell(text):
    """A text cell a spreadsheet shows as text: one that starts like a formula (=, +, -, @) gets
    a leading apostrophe (a student id or a file name may come from the student)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def grades_csv(b, columns):
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    head = ["student", "points", "max_points", "percent"]
    head += [f"lab {lab}" for lab, *_ in columns]
    head += [f"{lab}: {check}" for lab, _, _, checks in columns for check, _ in checks]
    rubric_labs = sorted(b.rubric)
    head += [f"report {lab}" for lab in rubric_labs] + (["report_points"] if rubric_labs else [])
    head += ["graded", "error", "not_compiled", "flags"]
    w.writerow(head)
    for s in b.students:
        row = [cell(s.id)]
        labs = s.labs()
        if s.graded:
            r = s.report
            pct = 100.0 * r["points"] / r["max_points"] if r["max_points"] else 0.0
            row += [number_text(r["points"]), number_text(r["max_points"]), f"{pct:.1f}"]
        else:
            row += ["", "", ""]
        row += [number_text(labs[lab]["points"]) if lab in labs else "" for lab, *_ in columns]
        for lab, _, _, checks in columns:
            got = {c["check"]: c for c in labs[lab]["checks"]} if lab in labs else {}
            row += [number_text(got[check]["points"]) if check in got else ""
                    for check, _ in checks]
        for lab in rubric_labs:
            given = s.report_points.get(lab)
            row.append(number_text(sum(given.values())) if given else "")
        if rubric_labs:
            row.append(number_text(report_points_total(s)) if s.report_points else "")
        row += ["yes" if s.graded else "no", cell(s.error), cell(" ".join(s.not_compiled)),
                cell(flag_text(s))]
        w.writerow(row)
    return out.getvalue()


# ---------------------------------------------------------------------------------------------
# Per class: the plots


def load_pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    plt.rcParams.update({
        "font.size": 9, "axes.titlesize": 10, "axes.titleweight": "bold",
        "axes.spines.top": False, "axes.spines.right": False, "axes.edgecolor": "#888888",
        "axes.labelcolor": "#333333", "xtick.color": "#444444", "ytick.color": "#444444",
        "figure.dpi": 100, "savefig.dpi": 100,
    })
    return plt


def graded_labs(b):
    """{lab: [lab objects of the graded students]}"""
    out = {}
    for s in b.students:
        for lab in s.report["labs"] if s.graded else []:
            out.setdefault(lab["lab"], []).append(lab)
    return out


def plot_scores(plt, b, columns, path):
    """Small multiples: a histogram of the points per lab, and of the total."""
    per_lab = graded_labs(b)
    panels = [(f"{lab} {name}", maximum, [x["points"] for x in per_lab.get(lab, [])])
              for lab, name, maximum, _ in columns]
    totals = [s.report["points"] for s in b.students if s.graded]
    top = class_max_score(b) or 0
    panels.append(("total", top, totals))
    ncols = 6 if len(panels) > 8 else 4
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(11.5, 2.0 * nrows + 0.3), sharey=True,
                             squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax, (title, maximum, values) in zip(axes.flat, panels):
        values = list(values)
        maximum = maximum or max(values + [1])
        edges = [maximum * i / 10 for i in range(11)]
        ax.hist([min(max(v, 0), maximum) for v in values], bins=edges,
                color="#0072B2" if title != "total" else "#333333", edgecolor="white",
                linewidth=0.6)
        ax.set_xlim(0, maximum)
        mean = statistics.mean(values) if values else None
        ax.set_title(shorten(title, 21), loc="left", fontsize=9)
        if mean is not None:
            ax.axvline(mean, color="#D55E00", linewidth=1.2, linestyle="--")
            ax.set_xlabel(f"points (mean {mean:.0f})", fontsize=8, color="#333333")
        ax.yaxis.get_major_locator().set_params(integer=True)
        ax.tick_params(labelsize=7.5)
        ax.grid(axis="y", color="#e5e5e5", linewidth=0.6)
        ax.set_axisbelow(True)
    for ax in axes[:, 0]:
        ax.set_ylabel("students")
    fig.tight_layout(h_pad=1.2)
    save_png(fig, path)
    plt.close(fig)


def save_png(fig, path):
    """The figure as a PNG of 256 colours (a quarter of the size; flat colours and text show no
    difference) through Pillow, which matplotlib needs anyway; as matplotlib writes it where
    that fails."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", facecolor="white")
    try:
        from PIL import Image
        image = Image.open(io.BytesIO(buf.getvalue())).convert("RGB").quantize(256, method=2)  # fast octree
        buf = io.BytesIO()
        image.save(buf, format="PNG", optimize=True)
    except Exception:  # any Pillow trouble: keep matplotlib's own PNG
        buf.seek(0)
    data = buf.getvalue()
    with open(path + ".tmp", "wb") as f:
        f.write(data)
    os.replace(path + ".tmp", path)


def shorten(text, width):
    """At most `width` characters, and plain text to matplotlib (a '$' would start mathtext)."""
    text = text if len(text) <= width else text[:width - 1] + "…"
    return text.replace("$", r"\$")


def plot_pass_rates(plt, b, columns, path):
    """Per lab, one horizontal bar per check: the share of students passed / partial / failed /
    skipped. Two columns of labs (one for a few), each lab's panel as tall as its checks; the
    layout is in inches, so that a label never runs into the other column."""
    counts = {}
    for s in b.students:
        for lab in s.report["labs"] if s.graded else []:
            for c in lab["checks"]:
                n = counts.setdefault((lab["lab"], c["check"]), dict.fromkeys(STATUSES, 0))
                n[c["status"]] += 1
    labs = [(lab, name, checks) for lab, name, _, checks in columns if checks]
    if not labs:
        return False
    row, title, gap, axis, top_margin = 0.19, 0.30, 0.22, 0.42, 0.42  # inches
    label_w, bar_w, pct_w, col_gap = 3.05, 2.2, 0.42, 0.25

    def height(group):
        return sum(len(checks) * row + title for *_, checks in group) + gap * (len(group) - 1)

    # Two columns, in lab order, split where the taller one is shortest.
    split = len(labs)
    if sum(len(checks) for *_, checks in labs) > 24 and len(labs) > 1:
        split = min(range(1, len(labs)), key=lambda k: max(height(labs[:k]), height(labs[k:])))
    groups = [labs[:split], labs[split:]] if split < len(labs) else [labs]
    fig_w = len(groups) * (label_w + bar_w + pct_w) + (len(groups) - 1) * col_gap + 0.2
    fig_h = max(height(g) for g in groups) + axis + top_margin
    fig = plt.figure(figsize=(fig_w, fig_h))
    for col, group in enumerate(groups):
        x0 = 0.1 + col * (label_w + bar_w + pct_w + col_gap) + label_w
        y = fig_h - top_margin  # the top of the next panel, inches from the bottom
        for i, (lab, name, checks) in enumerate(group):
            h = len(checks) * row
            y -= title
            ax = fig.add_axes([x0 / fig_w, (y - h) / fig_h, bar_w / fig_w, h / fig_h])
            y -= h + gap
            ys = list(range(len(checks)))
            left = [0.0] * len(checks)
            for status in STATUSES:
                shares = []
                for check, _ in checks:
                    n = counts.get((lab, check), dict.fromkeys(STATUSES, 0))
                    seen = sum(n.values())
                    shares.append(100.0 * n[status] / seen if seen else 0.0)
                ax.barh(ys, shares, left=left, color=COLOURS[status], height=0.74, linewidth=0)
                left = [a + b_ for a, b_ in zip(left, shares)]
            for yi, (check, _) in zip(ys, checks):
                n = counts.get((lab, check), {})
                seen = sum(n.values()) if n else 0
                rate = 100.0 * n.get("passed", 0) / seen if seen else 0
                ax.text(102, yi, f"{rate:.0f}%", va="center", ha="left", fontsize=7.5,
                        color="#333333", clip_on=False)
            ax.set_yticks(ys)
            ax.set_yticklabels([f"{shorten(check, 50)} ({number_text(mx)})" for check, mx in checks],
                               fontsize=7.5)
            ax.set_xlim(0, 100)
            ax.set_ylim(len(checks) - 0.5, -0.5)
            ax.text(-label_w / bar_w * 100, -0.6, shorten(f"lab {lab} {name}", 60), ha="left",
                    va="bottom",
                    fontsize=9, fontweight="bold", clip_on=False)
            ax.tick_params(axis="y", length=0, pad=3)
            ax.set_xticks([0, 25, 50, 75, 100])
            ax.grid(axis="x", color="white", linewidth=0.6, alpha=0.7)
            if i == len(group) - 1:
                ax.set_xlabel("% of graded students", fontsize=8)
                ax.tick_params(axis="x", labelsize=7.5)
            else:
                ax.tick_params(axis="x", length=0)
                ax.set_xticklabels([])
            for side in ("left", "top", "right"):
                ax.spines[side].set_visible(False)
    handles = [plt.Rectangle((0, 0), 1, 1, color=COLOURS[s]) for s in STATUSES]
    fig.legend(handles, STATUSES, loc="upper left", ncol=4, frameon=False, fontsize=8.5,
               bbox_to_anchor=(0.1 / fig_w, 1.0), handlelength=1.2, columnspacing=1.4)
    save_png(fig, path)
    plt.close(fig)
    return True


def plot_ratios(plt, b, path):
    """Per lab, the performance ratios of every [perf] check: a box and the points, log scale,
    with the lab's r_full and r_zero where the messages give them."""
    per_lab = {}
    for s in b.students:
        for lab in s.report["labs"] if s.graded else []:
            for c in lab["checks"]:
                r = ratio_of(c) if is_perf(c) else None
                if r is not None:
                    per_lab.setdefault(lab["lab"], []).append((r, c["status"]))
    if not per_lab:
        return False
    labs = sorted(per_lab, key=lambda x: (len(x), x))
    fig, ax = plt.subplots(figsize=(11, 4.4))
    jitter = random.Random(0)
    everything = [r for lab in labs for r, _ in per_lab[lab]]
    # The box over the dots: with hundreds of students the dots would hide it.
    ax.boxplot([[r for r, _ in per_lab[lab]] for lab in labs], positions=range(len(labs)),
               widths=0.55, whis=(5, 95), showfliers=False, patch_artist=True, zorder=4,
               boxprops={"facecolor": "none", "edgecolor": "#1f3b57", "linewidth": 1.1},
               medianprops={"color": "#1f3b57", "linewidth": 2.0},
               whiskerprops={"color": "#1f3b57", "linewidth": 1.0},
               capprops={"color": "#1f3b57", "linewidth": 1.0})
    most = max(len(v) for v in per_lab.values())
    size = 14 if most <= 150 else max(3.0, 14 * math.sqrt(150 / most))
    alpha = 0.85 if most <= 150 else 0.5
    for status in ("passed", "partial", "failed"):
        xs, ys = [], []
        for i, lab in enumerate(labs):
            for r, st in per_lab[lab]:
                if st == status:
                    xs.append(i + jitter.uniform(-0.17, 0.17))
                    ys.append(r)
        if xs:
            ax.scatter(xs, ys, s=size, color=COLOURS[status], alpha=alpha, zorder=3,
                       edgecolors="none", label=f"check {status}")
    marked = False
    for i, lab in enumerate(labs):
        t = b.thresholds.get(lab)
        if t:
            ax.hlines(t[0], i - 0.38, i + 0.38, colors="#009E73", linestyles="--", linewidth=1.6,
                      zorder=2, label="r_full: full credit at or below" if not marked else None)
            ax.hlines(t[1], i - 0.38, i + 0.38, colors="#D55E00", linestyles="-", linewidth=1.6,
                      zorder=2, label="r_zero: no credit at or above" if not marked else None)
            everything += list(t)
            marked = True
    ax.axhline(FAST_RATIO, color="#CC79A7", linestyle=":", linewidth=1.3, zorder=1,
               label=f"r = {FAST_RATIO}: far faster than the reference")
    ax.axhline(1.0, color="#999999", linewidth=0.8, zorder=1)
    ax.set_yscale("log")
    low = min(everything + [FAST_RATIO]) / 1.6
    high = max(everything) * 1.6
    ax.set_ylim(low, high)
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator
    ticks = [m * 10 ** e for e in range(-3, 4) for m in (1, 2, 5) if low <= m * 10 ** e <= high]
    ax.yaxis.set_major_locator(FixedLocator(ticks))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_xticks(range(len(labs)))
    ax.set_xticklabels([shorten(f"lab {lab}", 12) + f"\n({len(per_lab[lab])})" for lab in labs])
    ax.set_xlim(-0.6, len(labs) - 0.4)
    ax.set_ylabel("r = candidate time / reference time")
    ax.grid(axis="y", which="major", color="#e5e5e5", linewidth=0.6)
    ax.set_axisbelow(True)
    legend = fig.legend(loc="upper center", ncol=3, frameon=False, fontsize=8.5,
                        bbox_to_anchor=(0.5, 1.0), markerscale=max(1.0, 30 / size) ** 0.5)
    for handle in legend.legend_handles if hasattr(legend, "legend_handles") else \
            legend.legendHandles:
        handle.set_alpha(1)
    fig.tight_layout(rect=(0, 0, 1, 0.88))
    save_png(fig, path)
    plt.close(fig)
    return True


# ---------------------------------------------------------------------------------------------
# The pages: Jinja2 templates (templates/reports/), autoescaped


@functools.lru_cache(maxsize=None)
def templates():
    """The pages' templates. Autoescaped: every value a page shows is read from OUT (ids, file
    names, messages, the report.md files), so none is ever taken as HTML."""
    import jinja2
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True, keep_trailing_newline=True)
    env.filters.update(num=number_text, points=lambda x: number_text(round(x, 2)),
                       g3=lambda x: f"{x:.3g}")
    env.globals.update(anchor=anchor, lab_grade_text=lab_grade_text, labs_text=labs_text,
                       files_links=files_links, lab_cells=lab_cells, percent=percent,
                       perf_ratio=lambda c: ratio_of(c) if is_perf(c) else None)
    return env


def render(name, **context):
    return templates().get_template(name).render(**context)


def anchor(sid):
    """The id of a student's row (and the fragment that links to it)."""
    return "s-" + urllib.parse.quote(sid, safe="")


def when(text):
    """'2026-11-26T14:03:00Z' -> datetime, or None."""
    if not isinstance(text, str):
        return None
    try:
        stamp = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=datetime.timezone.utc)


def when_text(text):
    stamp = when(text)
    if stamp is None:
        return text if text else "—"
    return stamp.astimezone(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def duration_text(seconds):
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, sec = divmod(rest, 60)
    return f"{h} h {m:02d} min" if h else f"{m} min {sec:02d} s" if m else f"{sec} s"


def score_stats(b):
    graded = [s for s in b.students if s.graded]
    percents = [100.0 * s.report["points"] / s.report["max_points"] if s.report["max_points"] else 0
                for s in graded]
    points = [s.report["points"] for s in graded]
    return graded, points, percents


def summary_line(b):
    graded, points, percents = score_stats(b)
    text = (f"batch-report: {len(b.students)} students, {len(graded)} graded, "
            f"{len(b.students) - len(graded)} not graded")
    if graded:
        maxima = {s.report["max_points"] for s in graded}
        if len(maxima) == 1:
            text += (f", mean score {statistics.mean(points):.1f}/{number_text(maxima.pop())} "
                     f"({statistics.mean(percents):.1f}%)")
        else:
            text += f", mean score {statistics.mean(percents):.1f}% of each one's maximum"
    return text


def lab_grade_text(s, lab):
    """'37.5 / 100' for the student's lab, or why there is none."""
    if not s.graded:
        return "not graded"
    x = s.labs().get(lab)
    if x is None:
        return "not in the report"
    return f"{number_text(round(x['points'], 2))} / {number_text(x['max_points'])}"


def percent(report):
    """The width of the score's bar: the share of the maximum, in %."""
    pct = 100.0 * report["points"] / report["max_points"] if report["max_points"] else 0
    return f"{pct:.0f}"


def lab_cells(s, columns):
    """[(class, text)] of a graded student's cell per lab: full marks, half or more, less, or
    none (not in the report)."""
    labs = s.labs()
    cells = []
    for lab, *_ in columns:
        if lab not in labs:
            cells.append(("none", "—"))
            continue
        x = labs[lab]
        f = x["points"] / x["max_points"] if x["max_points"] else 1.0
        kind = "full" if f >= 0.9995 else "mid" if f >= 0.5 else "low"
        cells.append((kind, number_text(round(x["points"], 1))))
    return cells


def analysis_page(s):
    """OUT/students/<s>/analysis.html: the student's report.md files beside the grades."""
    return render("analysis.html", s=s)


def files_links(s):
    """[(href, label)] of the student's files there are, relative to OUT/class/."""
    base = "../students/" + urllib.parse.quote(s.id) + "/"
    names = (("student-report.json", "student"), ("results.json", "gradescope"),
             ("junit.xml", "junit"), ("report.json", "report"), ("meta.json", "meta"),
             (ANALYSIS_PAGE, "reports"))
    return [(base + n, label) for n, label in names if os.path.exists(os.path.join(s.folder, n))]


PLOT_FIGURES = (
    ("scores", "Scores",
     "Points per lab: one histogram per lab and one of the total, over the graded students (10 "
     "bins from 0 to the lab's maximum); the dashed line is the mean."),
    ("ratios", "Performance ratios",
     "Performance ratio r of every timed check, per lab (log scale; the number of timed checks "
     "under each lab): boxes from the 1st to 3rd quartile, whiskers from the 5th to the 95th "
     "percentile, one dot per check. Credit is full at or below r_full and falls linearly to none "
     "at r_zero; below 0.5 a submission is more than twice as fast as the reference."),
    ("pass-rates", "Pass rate per check",
     "Share of the graded students per check, by status (the check's points in parentheses; the "
     "percentage is the share passed)."),
)


def batch_facts(b, graded):
    """[(what, text, or [lines])] of the batch: when, where, how long, the sandbox, the seed."""
    info = b.info
    facts = []
    started, finished = when(info.get("started_at")), when(info.get("finished_at"))
    facts.append(("started", when_text(info.get("started_at"))))
    if finished:
        span = f" ({duration_text((finished - started).total_seconds())})" if started else ""
        facts.append(("finished", when_text(info.get("finished_at")) + span))
    else:
        facts.append(("finished", "not finished (the batch is running, or stopped before the end)"))
    facts.append(("device", info.get("device") or "none: GPU checks skipped"))
    gpus = info.get("gpus")
    if isinstance(gpus, list):
        facts.append(("GPUs (one worker each)", ", ".join(map(str, gpus)) or "none"))
    build = [s.meta["build_seconds"] for s in b.students if is_number(s.meta.get("build_seconds"))]
    grade = [s.meta["grade_seconds"] for s in b.students if is_number(s.meta.get("grade_seconds"))]
    if build or grade:
        parts = []
        if build:
            parts.append(f"build {statistics.median(build):.1f} s")
        if grade:
            parts.append(f"grade {statistics.median(grade):.1f} s")
        facts.append(("per submission (median)", ", ".join(parts)))
    sandboxes = sorted({s.report.get("sandbox") for s in graded if isinstance(s.report.get("sandbox"), str)})
    if sandboxes:
        facts.append(("sandbox", sandboxes))
    facts.append(("seed", "secret: kept in the batch's " + (info.get("seed_file") or "seed") +
                  " file, not shown here, withheld from every student file"))
    return facts


def page(b, columns, plots, plot_note):
    """OUT/class/index.html."""
    info = b.info
    graded, points, percents = score_stats(b)
    not_graded = [s for s in b.students if not s.graded]
    top = class_max_score(b)
    cards = [("students", str(len(b.students)),
              f"of {info['total']} submissions" if isinstance(info.get("total"), int) else ""),
             ("graded", str(len(graded)), ""),
             ("not graded", str(len(not_graded)), "see the table below" if not_graded else "")]
    if graded:
        median = statistics.median(points)
        cards.append(("mean score", f"{statistics.mean(percents):.1f}%",
                      f"median {number_text(round(median, 1))}" +
                      (f" / {number_text(top)}" if top else "")))
        cards.append(("full marks", str(sum(p >= 99.95 for p in percents)), ""))
    flagged = sum(bool(s.flags or s.not_compiled) for s in b.students)
    cards.append(("flagged", str(flagged), "students with a flag"))
    return render(
        "class.html", b=b, info=info, columns=columns, plots=plots, plot_note=plot_note,
        started=when_text(info.get("started_at")), cards=cards, facts=batch_facts(b, graded),
        no_gpu=sum(1 for s in graded if s.report.get("device") is None),
        unsandboxed=sum(1 for s in b.students if any(k == "unsandboxed" for k, _ in s.flags)),
        fast_ratio=FAST_RATIO,
        fast=sorted(((s, *f) for s in b.students for f in s.fast), key=lambda x: x[3]),
        unchanged=[s for s in b.students if s.unchanged], not_graded=not_graded,
        figures=PLOT_FIGURES, with_reports=[s for s in b.students if s.analysis],
        out=os.path.abspath(b.out),
        made=f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}")


def write_class(b):
    folder = os.path.join(b.out, "class")
    os.makedirs(folder, exist_ok=True)
    columns = class_columns(b)
    write_file(os.path.join(folder, "grades.csv"), grades_csv(b, columns))
    if b.rubric:
        write_file(os.path.join(folder, SCORES_TEMPLATE), scores_template(b))
    plots, note = {}, None
    plt = load_pyplot()
    if plt is None:
        note = ("No plots: matplotlib cannot be imported by " + sys.executable +
                " (Debian: apt-get install python3-matplotlib).")
        print("batch-report: warning: " + note, file=sys.stderr)
        for name in PLOTS:  # an earlier run's plots would not match the page
            if os.path.exists(os.path.join(folder, name + ".png")):
                os.unlink(os.path.join(folder, name + ".png"))
    elif not any(s.graded for s in b.students):
        note = "No plots: no student was graded."
    else:
        for name, make in (("scores", lambda p: plot_scores(plt, b, columns, p) or True),
                           ("ratios", lambda p: plot_ratios(plt, b, p)),
                           ("pass-rates", lambda p: plot_pass_rates(plt, b, columns, p))):
            path = os.path.join(folder, name + ".png")
            if make(path):
                plots[name] = name + ".png"
            elif os.path.exists(path):
                os.unlink(path)
    write_file(os.path.join(folder, "index.html"), page(b, columns, plots, note))


# ---------------------------------------------------------------------------------------------


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit code 2
        raise BadInput(message)


def importable(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def system_python_instead(modules):
    """The system's python3, when this interpreter lacks one of MODULES and that one has them all
    (a pyenv or venv python3 first on PATH does not see Debian's python3-jinja2 or -matplotlib)."""
    if os.environ.get("CUDALAB_REPORT_REEXEC") or os.path.realpath(sys.executable) == \
            os.path.realpath(SYSTEM_PYTHON) or not os.access(SYSTEM_PYTHON, os.X_OK):
        return None
    if all(importable(m) for m in modules):
        return None
    import subprocess
    try:
        found = subprocess.run([SYSTEM_PYTHON, "-c", "import " + ", ".join(modules)],
                               capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return None
    return SYSTEM_PYTHON if found else None


def main(argv):
    parser = Parser(prog="cudalab batch-report",
                    description="Per-student and per-class reports of a ./cudalab batch.")
    parser.add_argument("out", metavar="OUT", help="the batch's output folder")
    parser.add_argument("--student", action="append", metavar="S",
                        help="only this student's files (no class report); repeatable")
    try:
        args = parser.parse_args(argv)
        b = load_batch(args.out, args.student)
        chosen = b.students
    except BadInput as e:
        print(f"cudalab batch-report: error: {e}", file=sys.stderr)
        return 2
    # The pages need Jinja2; the class's plots, matplotlib (without it: a page without plots).
    other = system_python_instead(["jinja2"] if args.student else ["jinja2", "matplotlib"])
    if other:  # the same run, with them
        sys.stdout.flush()
        os.environ["CUDALAB_REPORT_REEXEC"] = "1"
        os.environ["PYTHONPATH"] = base.module_env()["PYTHONPATH"]
        os.execv(other, [other, "-m", base.PACKAGE + ".reports", *argv])
    if not importable("jinja2"):
        print(f"cudalab batch-report: error: Jinja2 cannot be imported by {sys.executable}, and the "
              "pages need it (Debian: apt-get install python3-jinja2; ./cudalab batch installs it)",
              file=sys.stderr)
        return 2
    try:
        for s in chosen:
            write_student(b, s)
        if args.student:
            print(f"batch-report: wrote the files of {', '.join(s.id for s in chosen)}")
            return 0
        write_class(b)
    except OSError as e:
        print(f"cudalab batch-report: error: cannot write: {e}", file=sys.stderr)
        return 1
    print(summary_line(b) + f"; wrote {os.path.join(args.out, 'class', 'index.html')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
