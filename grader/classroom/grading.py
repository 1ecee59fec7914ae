"""One submission graded, and the batch's output folder OUT: the batch (OUT, its secret seed, the
labs), which submissions a run grades, one submission built and graded in a worker with its
meta.json, and the reports made of it (reports.py, run as its own process).
"""

import json
import os
import secrets
import shutil
import subprocess
import sys

from grader.classroom import base
from grader.classroom.base import (REPORTS_DIR, UsageError, now, read_file, say, sha256,
                                   write_json)
from grader.classroom.submissions import (is_report, list_submissions, read_submission,
                                          report_files, save_reports, student_files)
from grader.classroom.workers import tracked_files

STUDENT_OUTPUTS = ("report.json", "student-report.json", "results.json", "junit.xml")


def report_failed(student_dir):
    """True when the student's last report is missing, unreadable or has a failed check."""
    try:
        with open(os.path.join(student_dir, "report.json")) as f:
            return bool(json.load(f).get("failed", True))
    except (OSError, ValueError):
        return True


def read_meta(student_dir):
    try:
        with open(os.path.join(student_dir, "meta.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def choose(submissions, out, args, known):
    """The submissions this run grades, with their files read: [(sid, entry, files, ignored, error)]."""
    only = None
    if args.only:
        only = [s.strip() for s in args.only.split(",") if s.strip()]
        unknown = sorted(set(only) - {sid for sid, _ in submissions})
        if unknown:
            raise UsageError("--only: no submission for %s" % ", ".join(unknown))
    chosen = []
    for sid, entry in submissions:
        if only is not None and sid not in only:
            continue
        student_dir = os.path.join(out, "students", sid)
        files, ignored, error = read_submission(entry, list(known.values()) + report_files(known))
        hashes = {rel: sha256(data) for rel, data in files.items()}
        meta = read_meta(student_dir)
        graded = meta is not None and os.path.exists(os.path.join(student_dir, "report.json"))
        unchanged = graded and meta.get("files") == hashes and meta.get("error") == error
        if not args.force and only is None:
            if args.failed and graded and not report_failed(student_dir) and unchanged:
                continue
            if not args.failed and unchanged:
                continue
        chosen.append((sid, entry, files, ignored, error, hashes))
    return chosen


class Batch:
    """What every mode shares: the submissions, OUT, the seed, the labs, the workers' folder."""

    def __init__(self, args, create=True):
        """create=False (a dry run) writes nothing: no OUT, no seed (self.seed is then None when
        the batch has none yet)."""
        self.submissions_dir = os.path.abspath(args.submissions)
        self.submissions = list_submissions(self.submissions_dir)
        self.out = os.path.abspath(args.out)
        self.work = os.path.abspath(args.work) if args.work else os.path.join(self.out, "work")
        for name, path in (("--out", self.out), ("--work", self.work)):
            if path == self.submissions_dir or path.startswith(self.submissions_dir + os.sep):
                raise UsageError("%s must not be inside the submissions folder" % name)
        if create:
            # Not a git checkout: said after the arguments, before anything is written (a dry run
            # copies nothing, so it needs no git).
            tracked_files(base.ROOT)
        self.known = student_files(base.ROOT)
        self.labs = sorted(self.known)
        if args.lab:
            wanted = [l.strip() for l in args.lab.split(",") if l.strip()]
            for l in wanted:
                if l not in self.known:
                    raise UsageError("--lab: unknown lab '%s' (labs: %s)" %
                                     (l, ", ".join(self.labs)))
            self.labs = wanted
        seed_path = os.path.join(self.out, "seed")
        if create:
            os.makedirs(os.path.join(self.out, "students"), exist_ok=True)
            # The seed and every student's report: the instructor's eyes only.
            os.chmod(self.out, 0o700)
            if not os.path.exists(seed_path):
                fd = os.open(seed_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "w") as f:
                    f.write("%d\n" % secrets.randbelow(2**62))
            write_json(os.path.join(self.out, "skeleton.json"),
                       {rel: sha256(read_file(os.path.join(base.ROOT, rel)))
                        for rel in list(self.known.values()) + report_files(self.known)
                        if os.path.exists(os.path.join(base.ROOT, rel))})
        self.seed = None
        if os.path.exists(seed_path):
            with open(seed_path) as f:
                self.seed = int(f.read().strip())

    def student_dir(self, sid):
        return os.path.join(self.out, "students", sid)

    def info(self, gpus, device, graded_now, **more):
        """batch.json: what the class report says of the batch."""
        info = {"schema": "cudalab-batch/1", "started_at": now(), "finished_at": None,
                "gpus": gpus, "device": device, "total": len(self.submissions),
                "graded_now": graded_now, "seed_file": "seed", "labs": self.labs}
        info.update(more)
        return info


def clear_outputs(student_dir):
    """Removes a student's previous results: none may stand for a grade not made."""
    for name in STUDENT_OUTPUTS:
        try:
            os.remove(os.path.join(student_dir, name))
        except FileNotFoundError:
            pass
    shutil.rmtree(os.path.join(student_dir, REPORTS_DIR), ignore_errors=True)


def grade_submission(worker, b, item, more=None):
    """Builds and grades one submission in WORKER, then writes its meta.json and the student's
    reports; returns the meta. What goes wrong is that submission's error, never the batch's."""
    sid, entry, files, ignored, error, hashes = item
    student_dir = b.student_dir(sid)
    os.makedirs(student_dir, exist_ok=True)
    clear_outputs(student_dir)
    meta = {"student": sid, "submission": os.path.basename(entry), "files": hashes,
            "ignored": ignored, "error": error, "gpu": worker.gpu, "worker": worker.name,
            "build_seconds": 0.0, "grade_seconds": 0.0, "compiled": {}, "graded_at": now(),
            "state": "done"}
    meta.update(more or {})
    meta["reports"] = save_reports(student_dir, files)
    files = {rel: data for rel, data in files.items() if not is_report(rel)}
    if error is None and not files:
        meta["error"] = "no lab file found in the submission"
    if meta["error"] is None:
        try:
            build_s, grade_s, compiled = worker.grade(sid, files, student_dir, b.seed)
            meta.update(build_seconds=round(build_s, 2), grade_seconds=round(grade_s, 2),
                        compiled=compiled)
            if not os.path.exists(os.path.join(student_dir, "report.json")):
                meta["error"] = "the grade command wrote no report (see grade.log)"
        except Exception as e:  # one submission never stops the batch
            meta["error"] = "grading error: %s" % e
    write_json(os.path.join(student_dir, "meta.json"), meta)
    student_reports(b.out, sid)
    return meta


# What a technique check says when the GPU's performance counters could not be read (the check is
# then not verified, never passed): grader/framework/technique.cpp, judge_technique.
UNCOUNTED = "could not be counted, so the technique is not verified: "


def uncounted_reason(report_path):
    """Why the counters could not be read in this grade (report.json), or None when they were
    (or no technique check needed them: without a GPU none runs)."""
    try:
        with open(report_path) as f:
            report = json.load(f)
    except (OSError, ValueError):
        return None
    for lab in report.get("labs", []):
        for check in lab.get("checks", []):
            message = check.get("message") or ""
            if UNCOUNTED in message:
                return message.split(UNCOUNTED, 1)[1].splitlines()[0]
    return None


def student_reports(out, sid):
    """The student's pages; reports.py says something only when it fails (the progress line
    counts the students)."""
    r = subprocess.run(base.module_command("reports") + [out, "--student", sid],
                       env=base.module_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if r.returncode != 0:
        say(r.stdout.rstrip("\n"), file=sys.stderr)


def class_reports(out):
    r = subprocess.run(base.module_command("reports") + [out], env=base.module_env(),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.stdout.strip():
        say(r.stdout.rstrip("\n"), file=sys.stderr if r.returncode else sys.stdout)
    if r.returncode != 0:
        say("batch: the class report failed (exit %d)" % r.returncode, file=sys.stderr)
