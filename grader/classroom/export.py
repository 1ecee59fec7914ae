"""The class service's grades as a batch: the exports (CSV, Gradescope, JUnit) are the batch's.

    ./cudalab export --data DIR --out OUT [--lab 01,02] [--deadlines FILE]
    python3 -m grader.classroom.export --data DIR --out OUT ...

Builds in OUT the folder ./cudalab batch would have written had it graded each student's
counting submissions (grader/classroom/deadlines.py: per lab, the last graded submission made
before the lab's deadline), then runs the batch's reports (reports.py) on it, so that
OUT/class/grades.csv, OUT/class/index.html and each student's student-report.json, results.json
(Gradescope) and junit.xml are made by the batch's own code:

    OUT/batch.json                     cudalab-batch/1, as ./cudalab batch writes it (and the
                                       service's folder, the deadlines and the submissions taken)
    OUT/skeleton.json                  {student file: sha256 of the skeleton's}
    OUT/seed                           the service's secret seed (0600; OUT is 0700)
    OUT/students/<id>/report.json      the counting submissions' reports merged: each lab's entry
                                       from its counting submission, the points, max_points and
                                       failed recomputed, the other fields from the latest of them
    OUT/students/<id>/meta.json        as the batch writes it: the files taken (their sha256, from
                                       the uploads), compiled, the error; "submissions": {lab: id}
    OUT/students/<id>/analysis/NN-name.md  the report.md handed in with the lab's counting
                                       submission

A student of the roster with no counting submission of the labs exported is not graded: their
meta.json says "no submission before the deadline". --lab: the labs to export (default: those
with a counting submission). The deadlines are those of the file the service runs with
(./cudalab serve --deadlines FILE; recorded in DIR), or --deadlines FILE's. A second export to the
same OUT replaces the students' files (an instructor's OUT/rubric.csv and report-scores.csv stay).

Bad arguments (OUT inside DIR, an OUT that is not an export of DIR, an unknown lab, a malformed
deadlines file): one line on stderr, exit code 2; the report failing, exit code 1.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

from grader.classroom import deadlines as deadline_rules
from grader.classroom import base, store, submissions, worker

ROOT = base.ROOT
NO_SUBMISSION = "no submission before the deadline"
DEADLINES_SETTING = "deadlines_file"


class ExportError(Exception):
    """Bad arguments or input: one line on stderr, exit code 2."""


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def lab_entry(report, lab):
    if not isinstance(report, dict) or not isinstance(report.get("labs"), list):
        return None
    for entry in report["labs"]:
        if isinstance(entry, dict) and entry.get("lab") == lab:
            return entry
    return None


def total(values):
    s = sum(values)
    return int(s) if isinstance(s, float) and s.is_integer() else s


def merge_reports(by_lab, latest):
    """One grade report of several: BY_LAB {lab: the report of its counting submission}; each
    lab's entry is taken from its report, points, max_points and failed are recomputed over them
    (failed: a check worth points failed, as the grade command says it), and the other fields
    are LATEST's (the report of the latest submission). A lab whose report has no entry of it is
    left out."""
    labs = []
    for lab in sorted(by_lab):
        entry = lab_entry(by_lab[lab], lab)
        if entry is not None:
            labs.append(entry)
    merged = {}
    for key, value in latest.items():
        merged[key] = value
    merged["labs"] = labs
    merged["points"] = total(l.get("points", 0) for l in labs if is_number(l.get("points", 0)))
    merged["max_points"] = total(l.get("max_points", 0) for l in labs
                                 if is_number(l.get("max_points", 0)))
    merged["failed"] = any(isinstance(c, dict) and c.get("status") == "failed" and
                           is_number(c.get("max")) and c["max"] > 0
                           for l in labs for c in l.get("checks") or [])
    # The fields in the order the grade command writes them: labs last.
    merged["labs"] = merged.pop("labs")
    return merged


def write_private(path, text):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)


def inside(path, folder):
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def check_folders(data, out):
    if not store.exists(worker.db_path(data)):
        raise ExportError("--data %s holds no service database (service.sqlite)" % data)
    if inside(out, data):
        raise ExportError("--out %s must not be inside the service's folder %s" % (out, data))
    if inside(data, out):
        raise ExportError("--out %s must not hold the service's folder %s" % (out, data))
    if os.path.exists(out) and not os.path.isdir(out):
        raise ExportError("--out %s exists and is not a folder" % out)
    if os.path.isdir(out) and os.listdir(out):
        # Never over a batch's own folder (its seed, its students' grades), or another export.
        try:
            info = read_json(os.path.join(out, "batch.json"))
        except (OSError, ValueError):
            info = None
        if not isinstance(info, dict) or info.get("service_data") != data:
            raise ExportError("--out %s is not empty and is not an export of %s: name a new "
                              "folder" % (out, data))


def chosen_labs(text, known, counted):
    if text:
        labs = []
        for want in [w.strip() for w in text.split(",") if w.strip()]:
            lab = deadline_rules.lab_id(want, known)
            if lab is None:
                raise ExportError("--lab: unknown lab '%s' (labs: %s)" %
                                  (want[:40], ", ".join(sorted(known))))
            if lab not in labs:
                labs.append(lab)
        if not labs:
            raise ExportError("--lab: no lab named")
        return sorted(labs)
    found = sorted({lab for mine in counted.values() for lab in mine})
    return found or sorted(known)


def load_deadlines(conn, path, known):
    """{lab: deadline} of --deadlines FILE, or of the file the service runs with."""
    recorded = store.get_setting(conn, DEADLINES_SETTING)
    source = path or recorded
    if not source:
        return {}, None
    try:
        return deadline_rules.read_deadlines(source, known), source
    except deadline_rules.DeadlineError as e:
        hint = "" if path else " (the file ./cudalab serve --deadlines names; --deadlines FILE " \
                               "gives another)"
        raise ExportError("%s%s" % (e, hint))


class Submission:
    """What the export reads of one counting submission, once: its report, meta.json, upload."""

    def __init__(self, data, row, paths):
        self.row = row
        folder = worker.result_dir(data, row)
        self.problem = None
        try:
            self.report = read_json(os.path.join(folder, "report.json"))
        except (OSError, ValueError):
            self.report = None
        try:
            self.meta = read_json(os.path.join(folder, "meta.json"))
            if not isinstance(self.meta, dict):
                self.meta = {}
        except (OSError, ValueError):
            self.meta = {}
        self.files, self.ignored, error = submissions.read_submission(
            os.path.join(data, row["upload"]), paths)
        if error:
            self.problem = "its upload: %s" % error


def student_files(s, lab, known):
    """{path: bytes} of the lab's files in the submission: its .cu and its report.md."""
    rel = known[lab]
    report = os.path.dirname(rel) + "/" + base.REPORT_NAME
    return {p: s.files[p] for p in (rel, report) if p in s.files}


def write_student(folder, sid, mine, subs, labs, known, deadlines):
    """OUT/students/<sid>: report.json (when a lab has a report), meta.json, analysis/; returns
    True when the student is graded."""
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    meta = {"student": sid, "submission": None, "files": {}, "ignored": [], "error": None,
            "gpu": None, "worker": None, "build_seconds": 0.0, "grade_seconds": 0.0,
            "compiled": {}, "graded_at": None, "state": "done", "reports": [],
            "submissions": {lab: mine[lab]["id"] for lab in sorted(mine)},
            "deadlines": {lab: deadline_rules.iso(deadlines.get(lab)) for lab in labs}}
    if not mine:
        meta["error"] = NO_SUBMISSION if any(lab in deadlines for lab in labs) else \
            "no submission"
        base.write_json(os.path.join(folder, "meta.json"), meta)
        return False
    by_lab, problems, handed = {}, {}, {}
    for lab in sorted(mine):
        s = subs[mine[lab]["id"]]
        files = student_files(s, lab, known)
        handed.update(files)
        meta["files"].update({p: base.sha256(d) for p, d in files.items()})
        if lab_entry(s.report, lab) is not None:
            by_lab[lab] = s.report
        else:
            problems[lab] = "submission %d: %s" % (s.row["id"], s.row["error"] or s.problem or
                                                    "its report has no lab %s" % lab)
        compiled = (s.meta.get("compiled") or {}).get(lab)
        if isinstance(compiled, bool):
            meta["compiled"][lab] = compiled
        meta["ignored"] += [x for x in s.ignored if x not in meta["ignored"]]
    rows = sorted({mine[lab]["id"]: mine[lab] for lab in mine}.values(),
                  key=lambda r: (r["created_at"], r["id"]))
    latest = subs[rows[-1]["id"]]
    meta.update(submission=os.path.basename(latest.row["upload"]), gpu=latest.row["gpu"],
                worker=latest.meta.get("worker"),
                build_seconds=round(sum(r["build_seconds"] or 0.0 for r in rows), 2),
                grade_seconds=round(sum(r["grade_seconds"] or 0.0 for r in rows), 2),
                graded_at=deadline_rules.iso(latest.row["finished_at"]),
                reports=submissions.save_reports(folder, handed))
    if problems:
        meta["lab_errors"] = problems
    if by_lab:
        reports = [subs[r["id"]].report for r in rows if subs[r["id"]].report is not None]
        merged = merge_reports(by_lab, reports[-1])
        base.write_json(os.path.join(folder, "report.json"), merged)
    else:
        meta["error"] = "not graded: " + "; ".join("lab %s, %s" % (lab, why)
                                                   for lab, why in sorted(problems.items()))
    base.write_json(os.path.join(folder, "meta.json"), meta)
    return bool(by_lab)


def export(data, out, lab_text=None, deadlines_path=None, quiet=False):
    """Writes OUT from DIR (see the module's docstring) and runs the batch's report on it;
    returns 0, or 1 when the batch's reports (reports.py) failed. ExportError for bad arguments."""
    data, out = os.path.abspath(data), os.path.abspath(out)
    check_folders(data, out)
    known = submissions.student_files(ROOT)
    paths = list(known.values()) + submissions.report_files(known)
    conn = store.connect(worker.db_path(data))
    try:
        deadlines, source = load_deadlines(conn, deadlines_path, known)
        counted = deadline_rules.counting(store.done_submissions(conn), deadlines)
        labs = chosen_labs(lab_text, known, counted)
        students = store.list_students(conn)
    finally:
        conn.close()
    try:
        with open(os.path.join(data, "seed")) as f:
            seed = f.read().strip()
    except OSError as e:
        raise ExportError("cannot read the service's seed %s: %s" %
                          (os.path.join(data, "seed"), e.strerror))

    started = base.now()
    os.makedirs(os.path.join(out, "students"), exist_ok=True)
    os.chmod(out, 0o700)  # the seed, every student's report: the instructor's eyes only
    write_private(os.path.join(out, "seed"), seed + "\n")
    base.write_json(os.path.join(out, "skeleton.json"),
                     {rel: base.sha256(base.read_file(os.path.join(ROOT, rel))) for rel in paths
                      if os.path.exists(os.path.join(ROOT, rel))})
    subs, graded, taken = {}, 0, {}
    roster = [s["id"] for s in students]
    for sid in roster:
        mine = {lab: row for lab, row in counted.get(sid, {}).items() if lab in labs}
        for row in mine.values():
            if row["id"] not in subs:
                subs[row["id"]] = Submission(data, row, paths)
        taken[sid] = {lab: mine[lab]["id"] for lab in sorted(mine)}
        graded += write_student(os.path.join(out, "students", sid), sid, mine, subs, labs, known,
                                deadlines)
    # A folder of a student no longer in the roster (an earlier export's) goes.
    for name in os.listdir(os.path.join(out, "students")):
        path = os.path.join(out, "students", name)
        if name not in roster and os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
    gpus = sorted({s.row["gpu"] for s in subs.values() if s.row["gpu"]})
    devices = sorted({(s.report.get("device") or {}).get("name") for s in subs.values()
                      if isinstance(s.report, dict) and isinstance(s.report.get("device"), dict)
                      and isinstance(s.report["device"].get("name"), str)})
    base.write_json(os.path.join(out, "batch.json"), {
        "schema": "cudalab-batch/1", "started_at": started, "finished_at": base.now(),
        "gpus": gpus, "device": ", ".join(devices) if devices else None, "total": len(roster),
        "graded_now": 0, "seed_file": "seed", "labs": labs,
        "source": "the class service's counting submissions (grader/classroom/export.py)",
        "service_data": data, "deadlines_file": source,
        "deadlines": {lab: deadline_rules.iso(deadlines.get(lab)) for lab in labs},
        "submissions": taken})
    if not quiet:
        print("export: %d student(s), %d with a counting submission of lab(s) %s%s; in %s" % (
            len(roster), graded, ",".join(labs),
            "" if not any(lab in deadlines for lab in labs) else " (deadlines: %s)" % ", ".join(
                "%s %s" % (lab, deadline_rules.iso(deadlines[lab])) for lab in labs
                if lab in deadlines), out), flush=True)
    r = subprocess.run(base.module_command("reports") + [out], env=base.module_env(),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.stdout.strip() and (not quiet or r.returncode != 0):
        print(r.stdout.rstrip("\n"), file=sys.stdout if r.returncode == 0 else sys.stderr)
    if r.returncode != 0:
        print("export: the batch's report failed (exit %d)" % r.returncode, file=sys.stderr)
        return 1
    return 0


class Parser(argparse.ArgumentParser):
    """argparse, with a usage error as one line."""

    def error(self, message):
        raise ExportError(message)


def main(argv):
    p = Parser(prog="cudalab export", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True, help="the service's folder (DIR)")
    p.add_argument("--out", required=True, help="the batch-shaped folder to write (not inside "
                   "DIR; keep it private: it holds the seed)")
    p.add_argument("--lab", help="the labs to export, e.g. 01,02 (default: those with a "
                   "counting submission)")
    p.add_argument("--deadlines", help="a deadlines file (lab,deadline) instead of the one the "
                   "service runs with")
    try:
        args = p.parse_args(argv)
        return export(args.data, args.out, args.lab, args.deadlines)
    except ExportError as e:
        print("export: error: %s" % e, file=sys.stderr)
        return 2
    except base.UsageError as e:
        print("export: error: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:
        print("export: error: %s%s" % (e.strerror or e, ": %s" % e.filename if e.filename
                                       else ""), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
