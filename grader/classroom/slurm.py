"""./cudalab batch --slurm: the batch on a Slurm cluster (docs/instructors.md).

The batch submits job arrays, one task per submission to grade (OUT/slurm/manifest.tsv says
which), each task running the batch for its one submission (--task-index: the single-machine
path, on the GPU Slurm gives it). A collector job (--collect) runs once every task has ended,
whatever their end, and makes the class reports.
"""

import json
import os
import re
import shlex
import socket
import subprocess
import sys

from grader.classroom import base
from grader.classroom.base import UsageError, now, sha256, write_json
from grader.classroom.grading import (class_reports, choose, clear_outputs, grade_submission,
                                      read_meta, student_reports)
from grader.classroom.submissions import read_submission, report_files
from grader.classroom.workers import Worker, claim_worker_folder, detect_gpus

# What meta.json says of a submission a Slurm task has not graded (yet): written when the batch
# is submitted, then when its task starts, so that a task Slurm cancels or kills leaves it.
NOT_RUN = "not graded: the Slurm task did not run (cancelled, or it could not start)"
KILLED = ("not graded: the Slurm task ended before grading finished (time limit or node "
          "failure)")
DEFAULT_MAX_ARRAY_SIZE = 1001  # Slurm's default MaxArraySize


def max_array_size(config_text):
    """MaxArraySize from `scontrol show config` (task indices run from 0 to MaxArraySize - 1)."""
    m = re.search(r"^MaxArraySize\s*=\s*(\d+)", config_text, re.M)
    return int(m.group(1)) if m else DEFAULT_MAX_ARRAY_SIZE


def split_arrays(count, max_size):
    """[(first manifest index, tasks)]: COUNT tasks in arrays of at most MAX_SIZE tasks."""
    if max_size < 1:
        raise UsageError("the cluster's MaxArraySize is %d: no job array can be submitted" %
                         max_size)
    return [(start, min(max_size, count - start)) for start in range(0, count, max_size)]


def task_minutes(args):
    """The time limit of one task: --time, or what the batch's own limits allow a submission
    (its build and its grade) plus 30 minutes for the worker's framework build on a new node."""
    if args.time:
        return args.time
    return -(-(args.build_timeout + args.submission_timeout) // 60) + 30


def write_manifest(path, rows):
    """rows: [(student, submission's name in SUBMISSIONS)]; line i is task index i."""
    with open(path + ".partial", "w") as f:
        f.write("# index\tstudent\tsubmission (in the submissions folder): one Slurm task each\n")
        for i, (sid, name) in enumerate(rows):
            f.write("%d\t%s\t%s\n" % (i, sid, name))
    os.replace(path + ".partial", path)


def read_manifest(path):
    """{index: (student, submission's name)}."""
    rows = {}
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("#") or not line.strip():
                    continue
                fields = line.rstrip("\n").split("\t")
                if len(fields) != 3 or not fields[0].isdigit():
                    raise UsageError("%s: malformed line: %r" % (path, line.rstrip("\n")))
                rows[int(fields[0])] = (fields[1], fields[2])
    except OSError as e:
        raise UsageError("cannot read the manifest: %s" % e)
    return rows


def sbatch_script(options, command, note):
    """A batch script: #SBATCH lines, a comment, the command (a list, or a shell line), run with
    the repository on PYTHONPATH (the batch is the package grader.classroom's; a cluster may not
    pass the submitting shell's environment on)."""
    lines = (["#!/bin/bash"] + ["#SBATCH %s" % o for o in options] + ["# " + note] +
             ["export PYTHONPATH=%s" % shlex.quote(base.ROOT)])
    if not isinstance(command, str):
        command = " ".join(shlex.quote(a) for a in command)
    return "\n".join(lines + ["exec " + command]) + "\n"


def task_command(args, b):
    """The command line of a task, but its --task-index: the options that decide a grade."""
    cmd = base.module_command("batch") + [
        b.submissions_dir, "--out", b.out, "--work", b.work, "--lab", ",".join(b.labs),
        "--timeout", str(args.timeout), "--submission-timeout", str(args.submission_timeout),
        "--build-timeout", str(args.build_timeout), "--sandbox", args.sandbox,
        "--data-dir", os.path.abspath(args.data_dir), "--preset", args.preset]
    return cmd + (["--jobs", str(args.jobs)] if args.jobs else [])


def array_script(args, b, number, start, tasks, previous=None):
    """The sbatch script of job array NUMBER (1, 2, ...): TASKS tasks, for the manifest's lines
    START to START + TASKS - 1. With --max-parallel, each array waits for the one before
    (PREVIOUS, its job id), so that K is the limit of the whole batch."""
    options = ["--job-name=cudalab-batch",
               "--array=0-%d%s" % (tasks - 1, "%%%d" % args.max_parallel
                                   if args.max_parallel else ""),
               "--gres=gpu:1", "--time=%d" % task_minutes(args)]
    if args.partition:
        options.append("--partition=%s" % shlex.quote(args.partition))
    options.append("--output=%s" % shlex.quote(os.path.join(b.out, "slurm", "logs", "%A_%a.out")))
    if args.max_parallel and previous:
        options.append("--dependency=afterany:%s" % previous)
    line = " ".join(shlex.quote(a) for a in task_command(args, b))
    line += ' --task-index "$((%d + SLURM_ARRAY_TASK_ID))"' % start
    note = ("CUDA Labs batch (./cudalab batch --slurm): task i grades line %d+i of %s" %
            (start, os.path.join(b.out, "slurm", "manifest.tsv")))
    return sbatch_script(options, line, note)


def collector_script(args, b, array_ids):
    """The collector's sbatch script: runs once every task of ARRAY_IDS has ended, however."""
    options = ["--job-name=cudalab-collect", "--dependency=afterany:%s" % ":".join(array_ids),
               "--time=30"]
    if args.partition:
        options.append("--partition=%s" % shlex.quote(args.partition))
    options.append("--output=%s" % shlex.quote(
        os.path.join(b.out, "slurm", "logs", "collect-%j.out")))
    command = base.module_command("batch") + [b.submissions_dir, "--out", b.out, "--collect"]
    return sbatch_script(options, command, "CUDA Labs batch (./cudalab batch --slurm): the "
                         "class reports, once every task has ended")


def slurm_command(argv, what):
    """The output of a Slurm command; a missing command or a failure is a UsageError."""
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    except FileNotFoundError:
        raise UsageError("--slurm: %s not found: run this on a machine of the Slurm cluster "
                         "(a login node)" % argv[0])
    except subprocess.TimeoutExpired:
        raise UsageError("--slurm: %s did not answer in 120 s" % argv[0])
    if r.returncode != 0:
        why = (r.stderr.strip().splitlines() or ["exit code %d" % r.returncode])[-1]
        raise UsageError("--slurm: %s failed: %s" % (what, why))
    return r.stdout


def live_jobs(ids):
    """Those of the job ids IDS that Slurm still has queued or running."""
    try:
        r = subprocess.run(["squeue", "-h", "-o", "%F"], capture_output=True, text=True,
                           timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return []
    listed = set(r.stdout.split()) if r.returncode == 0 else set()
    return [i for i in ids if i in listed]


def check_no_live_jobs(out):
    """Refuses to start while a Slurm submission of this batch is queued or running."""
    try:
        with open(os.path.join(out, "slurm", "jobs.json")) as f:
            jobs = json.load(f)
        ids = [str(i) for i in jobs["arrays"] + [jobs["collector"]]]
    except (OSError, ValueError, KeyError, TypeError):
        return
    live = live_jobs(ids)
    if live:
        raise UsageError("the batch's Slurm jobs are still queued or running (%s): wait for "
                         "them to end (squeue -j %s) or cancel them (scancel %s)" %
                         (", ".join(live), ",".join(live), " ".join(live)))


def submit_slurm(args, b):
    """Writes the manifest, submits the job arrays and the collector (or prints them)."""
    if not args.dry_run:
        check_no_live_jobs(b.out)
    chosen = choose(b.submissions, b.out, args, b.known)
    print("batch: %d submission(s), %d to grade now on Slurm" % (len(b.submissions), len(chosen)),
          flush=True)
    if not chosen:
        print("batch: nothing to grade: no job submitted (--failed, --only or --force re-grade)")
        return 0
    for sid, entry, *_ in chosen:
        if any(c in os.path.basename(entry) for c in "\t\n\r"):
            raise UsageError("%s: a tab or a line break in a submission's name: rename it" % entry)
    if args.dry_run:
        try:
            config = subprocess.run(["scontrol", "show", "config"], capture_output=True,
                                    text=True, timeout=120).stdout
        except (OSError, subprocess.TimeoutExpired):
            config = ""
    else:
        config = slurm_command(["scontrol", "show", "config"], "scontrol show config")
    max_size = max_array_size(config)
    arrays = split_arrays(len(chosen), max_size)
    if args.dry_run:
        print("# MaxArraySize %d%s; the manifest, %s:" % (
            max_size, "" if "MaxArraySize" in config else " (Slurm's default: no cluster answered)",
            os.path.join(b.out, "slurm", "manifest.tsv")))
        for i, (sid, entry, *_) in enumerate(chosen):
            print("# %d\t%s\t%s" % (i, sid, os.path.basename(entry)))
        scripts = [("array-%d.sbatch" % n, array_script(
            args, b, n, start, tasks, "<job id of array %d>" % (n - 1) if n > 1 else None))
            for n, (start, tasks) in enumerate(arrays, 1)]
        scripts.append(("collect.sbatch", collector_script(
            args, b, ["<job id of array %d>" % n for n in range(1, len(arrays) + 1)])))
        for name, script in scripts:
            print("\n# ---- %s (sbatch --parsable %s)\n%s" % (name, name, script), end="")
        return 0

    slurm_dir = os.path.join(b.out, "slurm")
    os.makedirs(os.path.join(slurm_dir, "logs"), exist_ok=True)
    write_manifest(os.path.join(slurm_dir, "manifest.tsv"),
                   [(sid, os.path.basename(entry)) for sid, entry, *_ in chosen])
    # Until its task starts, each submission to grade says it has not been graded.
    for sid, entry, files, ignored, error, hashes in chosen:
        student_dir = b.student_dir(sid)
        os.makedirs(student_dir, exist_ok=True)
        clear_outputs(student_dir)
        write_json(os.path.join(student_dir, "meta.json"),
                   {"student": sid, "submission": os.path.basename(entry), "files": hashes,
                    "ignored": ignored, "error": NOT_RUN, "state": "queued"})
    write_json(os.path.join(b.out, "batch.json"), b.info([], None, len(chosen), slurm=True))

    def sbatch(name, script):
        path = os.path.join(slurm_dir, name)
        with open(path, "w") as f:
            f.write(script)
        try:
            out = slurm_command(["sbatch", "--parsable", path], "sbatch " + path)
        except UsageError:
            if ids:
                subprocess.run(["scancel"] + ids)
                print("batch: cancelled the jobs already submitted: %s" % " ".join(ids),
                      file=sys.stderr)
            raise
        ids.append(out.strip().split(";")[0])
        return ids[-1]

    ids = []
    for n, (start, tasks) in enumerate(arrays, 1):
        sbatch("array-%d.sbatch" % n, array_script(args, b, n, start, tasks,
                                                   ids[-1] if ids else None))
    array_ids = list(ids)
    collector = sbatch("collect.sbatch", collector_script(args, b, array_ids))
    write_json(os.path.join(slurm_dir, "jobs.json"),
               {"submitted_at": now(), "arrays": array_ids, "collector": collector,
                "tasks": len(chosen), "max_array_size": max_size})
    for (start, tasks), job in zip(arrays, array_ids):
        print("batch: job array %s: %d task(s), manifest lines %d-%d, %s" % (
            job, tasks, start, start + tasks - 1,
            "at most %d at once" % args.max_parallel if args.max_parallel else "one GPU each"))
    print("batch: collector job %s: the class reports, once every task has ended" % collector)
    print("batch: watch them: squeue -j %s   (a task's log: %s)" % (
        ",".join(ids), os.path.join(slurm_dir, "logs", "<array>_<task>.out")))
    print("batch: when job %s has ended: %s; running the same command again grades what is "
          "missing (--failed: and what failed)" % (
              collector, os.path.join(b.out, "class", "index.html")))
    return 0


def run_task(args, b):
    """One task of the job array: grades line --task-index of the manifest, as run_here would."""
    rows = read_manifest(os.path.join(b.out, "slurm", "manifest.tsv"))
    if args.task_index not in rows:
        raise UsageError("--task-index %d: no such line in the manifest" % args.task_index)
    sid, name = rows[args.task_index]
    entry = os.path.join(b.submissions_dir, name)
    if b.seed is None:
        raise UsageError("%s: no seed: not a submitted batch" % b.out)
    files, ignored, error = read_submission(entry, list(b.known.values()) + report_files(b.known))
    hashes = {rel: sha256(data) for rel, data in files.items()}
    item = (sid, entry, files, ignored, error, hashes)
    slurm = {"job": "%s_%s" % (os.environ.get("SLURM_ARRAY_JOB_ID", "?"),
                               os.environ.get("SLURM_ARRAY_TASK_ID", "?")),
             "host": socket.gethostname(), "started_at": now()}
    student_dir = b.student_dir(sid)
    os.makedirs(student_dir, exist_ok=True)
    clear_outputs(student_dir)
    meta = {"student": sid, "submission": name, "files": hashes, "ignored": ignored,
            "error": KILLED, "state": "started", "slurm": slurm}
    # Left as it is if Slurm kills the task: the collector says so.
    write_json(os.path.join(student_dir, "meta.json"), meta)
    gpu = os.environ.get("CUDA_VISIBLE_DEVICES")
    if not gpu:
        meta.update(state="done", error="not graded: the Slurm task was given no GPU "
                    "(CUDA_VISIBLE_DEVICES is not set: is the cluster's gpu gres configured?)")
        write_json(os.path.join(student_dir, "meta.json"), meta)
        student_reports(b.out, sid)
        return 1
    folder, lock = claim_worker_folder(b.work)
    worker = Worker(folder, gpu, args, b.labs)
    try:
        worker.prepare()
    except Exception as e:
        meta.update(state="done", error="grading error: %s" % e, worker=worker.name)
        write_json(os.path.join(student_dir, "meta.json"), meta)
        student_reports(b.out, sid)
        return 1
    detected = detect_gpus()
    meta = grade_submission(worker, b, item, {"slurm": slurm,
                                              "device": detected[0] if detected else None})
    lock.close()
    print("batch: %s graded%s" % (sid, ": " + meta["error"] if meta["error"] else ""))
    return 0


def collect(args, b):
    """The collector job: says which tasks did not finish, then makes the class reports."""
    rows = read_manifest(os.path.join(b.out, "slurm", "manifest.tsv"))
    counts = {"done": 0, "unfinished": 0, "queued": 0}
    gpus, devices = set(), set()
    for index, (sid, name) in sorted(rows.items()):
        student_dir = b.student_dir(sid)
        meta = read_meta(student_dir) or {"student": sid, "submission": name, "error": NOT_RUN,
                                          "state": "queued"}
        state = meta.get("state")
        if state == "started":  # the task ended before it finished: killed, or its node died
            clear_outputs(student_dir)  # what it left may be half written
            meta.update(state="unfinished", error=KILLED)
        elif state not in counts:
            meta.update(state="queued", error=NOT_RUN)
        write_json(os.path.join(student_dir, "meta.json"), meta)
        counts[meta["state"]] += 1
        if meta["state"] == "done" and meta.get("gpu") is not None:
            gpus.add("%s:%s" % (meta.get("slurm", {}).get("host", "?"), meta["gpu"]))
            if meta.get("device"):
                devices.add(meta["device"])
    path = os.path.join(b.out, "batch.json")
    try:
        with open(path) as f:
            batch = json.load(f)
    except (OSError, ValueError):
        batch = b.info([], None, len(rows), slurm=True)
    batch.update(finished_at=now(), gpus=sorted(gpus), device=", ".join(sorted(devices)) or None)
    write_json(path, batch)
    class_reports(b.out)
    print("collect: %d graded, %d ended before grading finished, %d never ran" % (
        counts["done"], counts["unfinished"], counts["queued"]))
    return 0
