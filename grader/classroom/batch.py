"""Grades a class: ./cudalab batch SUBMISSIONS [options] (docs/instructors.md).

SUBMISSIONS holds one entry per student: a folder, or an archive (.zip, .tar.gz, .tgz, .tar)
with that student's lab files. Only the known student files are taken (each lab's one .cu file,
found by its path in the repository or, when that is unique, by its name, and each lab's
report.md, found by its path); anything else is ignored and listed in the student's meta.json.
The report.md files are not compiled: they are kept in OUT/students/<id>/analysis/.

Each worker (one per GPU, CUDA_VISIBLE_DEVICES set to it; --per-gpu N puts N on each, sharing
the GPU's lock so that their untimed checks and builds run side by side and each one's timed
checks alone) has a copy of the repository and one build of the framework, made once. For each
submission it puts the skeletons back, copies the student's files in, rebuilds only what they
compile into (in a bubblewrap sandbox that sees the worker's copy and the system, not the
submissions or the batch's output), and runs the grade command (its checks in sandboxes) with
the batch's secret seed. What goes wrong in one
submission (a compile error, a crash, a hang, garbage) fails that submission's labs, never the
batch. A re-run grades only what is not graded yet, or changed since (--only, --failed, --force).

On a Slurm cluster (--slurm) the same happens in a job array: one task per submission, each
running the batch for its one submission (--task-index, the single-machine path), then a
collector job (--collect) that makes the class reports once every task has ended.

Output (OUT, default batch-out/): seed (the batch's secret seed, mode 0600), batch.json,
skeleton.json, students/<id>/{report.json, meta.json, build.log, grade.log, student-report.json,
results.json, junit.xml, analysis/NN-name.md, analysis.html} and class/{grades.csv, index.html}
(reports.py); the workers' folders in work/ (--work); with --slurm, slurm/{manifest.tsv,
jobs.json, *.sbatch, logs/}.

Run by ./cudalab batch (python3 -m grader.classroom.batch, ROOT on PYTHONPATH). The pieces are
the package's: submissions.py (which files are taken), workers.py (the workers' folders and
builds), grading.py (one submission graded, OUT), slurm.py (--slurm), reports.py (the reports).
"""

import argparse
import concurrent.futures
import errno
import os
import queue
import sys
import time

from grader.classroom import base
from grader.classroom.base import OUTPUT_LOCK, PROGRESS_LINE, UsageError, now, say, write_json
from grader.classroom.grading import (Batch, choose, class_reports, clear_outputs,
                                      grade_submission, report_failed, uncounted_reason)
from grader.classroom.slurm import check_no_live_jobs, collect, run_task, submit_slurm
from grader.classroom.workers import (Worker, claim_worker_folder, detect_gpus, worker_gpus,
                                      worker_plan)


class Progress:
    """The submissions done of those to grade now: graded (a report.json) or not (the class
    report's words), and how many of them failed a check; about how long is left."""

    def __init__(self, total):
        self.total, self.done, self.failed, self.not_graded = total, 0, 0, 0
        self.start = time.time()
        self.tty = sys.stderr.isatty()

    def line(self):
        elapsed = time.time() - self.start
        left = (self.total - self.done) * elapsed / self.done
        return "%d/%d done: %d graded (%d with failures), %d not graded%s" % (
            self.done, self.total, self.done - self.not_graded, self.failed, self.not_graded,
            ", about %.0f s left" % left if self.done < self.total else "")

    def finished(self, failed, not_graded):
        with OUTPUT_LOCK:
            self.done += 1
            self.not_graded += not_graded
            self.failed += failed and not not_graded
            line = self.line()
            if self.tty and self.done < self.total:
                sys.stderr.write("\r\033[K" + line)
                PROGRESS_LINE[0] = line
            else:
                sys.stderr.write(("\r\033[K" if self.tty else "") + line + "\n")
                PROGRESS_LINE[0] = ""
            sys.stderr.flush()


def run_here(args, b):
    """Grades the batch on this machine: one worker per GPU."""
    check_no_live_jobs(b.out)
    detected = detect_gpus()
    gpus = worker_gpus(args.gpus, detected, os.environ.get("CUDA_VISIBLE_DEVICES"))
    chosen = choose(b.submissions, b.out, args, b.known)
    batch = b.info([g for g in gpus if g is not None], detected[0] if detected else None,
                   len(chosen))
    write_json(os.path.join(b.out, "batch.json"), batch)
    print("batch: %d submission(s), %d to grade now, %d worker(s)%s" % (
        len(b.submissions), len(chosen), len(gpus) * args.per_gpu,
        "" if gpus != [None] else " (no GPU: GPU checks are reported as skipped)"), flush=True)

    if chosen:
        workers, locks = [], []  # the folders' locks, held until the batch ends
        for gpu, gpu_lock in worker_plan(gpus, args.per_gpu, b.work)[: len(chosen)]:
            folder, lock = claim_worker_folder(b.work)
            locks.append(lock)
            workers.append(Worker(folder, gpu, args, b.labs, gpu_lock))
        with concurrent.futures.ThreadPoolExecutor(len(workers)) as pool:
            for f in [pool.submit(w.prepare) for w in workers]:
                f.result()
        todo = queue.Queue()
        for item in chosen:
            todo.put(item)
        progress = Progress(len(chosen))
        uncounted = []  # why the counters cannot be read here, once a grade says so

        def work(worker):
            while not uncounted:
                try:
                    item = todo.get_nowait()
                except queue.Empty:
                    return
                meta = grade_submission(worker, b, item)
                reason = uncounted_reason(os.path.join(b.student_dir(item[0]), "report.json"))
                if reason and not args.allow_uncounted:
                    # Not a verdict: that submission is graded again once the counters work.
                    clear_outputs(b.student_dir(item[0]))
                    uncounted.append(reason)
                    return
                graded = os.path.exists(os.path.join(b.student_dir(item[0]), "report.json"))
                failed = meta["error"] or report_failed(b.student_dir(item[0]))
                progress.finished(1 if failed else 0, 0 if graded else 1)

        with concurrent.futures.ThreadPoolExecutor(len(workers)) as pool:
            for f in [pool.submit(work, w) for w in workers]:
                f.result()
        if uncounted:
            raise UsageError(
                "the GPU's performance counters cannot be read here (%s), so the technique "
                "checks would not be verified; allow them (docs/setup.md, \"Performance "
                "counters\") or grade anyway with --allow-uncounted" % uncounted[0])
    batch["finished_at"] = now()
    write_json(os.path.join(b.out, "batch.json"), batch)
    class_reports(b.out)
    print("batch: reports in %s (class: %s)" % (b.out, os.path.join(b.out, "class", "index.html")))
    return 0


def run(args):
    if args.task_index is not None:
        return run_task(args, Batch(args, create=False))
    if args.collect:
        return collect(args, Batch(args, create=False))
    if args.slurm:
        return submit_slurm(args, Batch(args, create=not args.dry_run))
    return run_here(args, Batch(args))


def parse(argv):
    p = argparse.ArgumentParser(prog="cudalab batch", description=__doc__.split("\n\n")[0])
    p.add_argument("submissions", help="folder with one folder or archive per student")
    p.add_argument("--out", default="batch-out", help="output folder (default: batch-out)")
    p.add_argument("--gpus", help="GPUs to use, one worker each, e.g. 0,1 "
                   "(default: those CUDA_VISIBLE_DEVICES names, else all)")
    p.add_argument("--lab", help="grade only these labs, e.g. 01,02 (default: all)")
    p.add_argument("--only", help="grade only these students, e.g. alice,bob (even if graded)")
    p.add_argument("--failed", action="store_true", help="re-grade the submissions that failed")
    p.add_argument("--force", action="store_true", help="re-grade every submission")
    p.add_argument("--timeout", type=int, default=120, help="seconds per check (default 120)")
    p.add_argument("--submission-timeout", type=int, default=1800,
                   help="seconds for one submission's grade (default 1800)")
    p.add_argument("--build-timeout", type=int, default=900,
                   help="seconds for one submission's build (default 900)")
    p.add_argument("--jobs", type=int, default=0, help="untimed checks at once per worker (default: auto)")
    p.add_argument("--per-gpu", type=int, default=1, metavar="N",
                   help="workers per GPU, each with its own copy and build: their untimed checks "
                   "and builds run side by side, each one's timed checks with nothing else on the "
                   "GPU (default 1)")
    p.add_argument("--allow-uncounted", action="store_true",
                   help="grade even where the GPU's performance counters cannot be read (the "
                   "technique checks with an execution signature are then not verified and earn "
                   "nothing; by default the batch stops)")
    p.add_argument("--sandbox", default="auto", choices=["auto", "on", "off"],
                   help="the grade command's sandbox (default auto)")
    p.add_argument("--data-dir",
                   default=os.environ.get("CUDALAB_DATA_DIR", os.path.join(base.ROOT, "data")),
                   help="the datasets (default: data/ of the repository)")
    p.add_argument("--preset", default=os.environ.get("CUDALAB_PRESET", "default"),
                   help="CMake preset of the workers' builds (default: CUDALAB_PRESET or default)")
    p.add_argument("--work", help="where the workers' folders live, one per worker and host, "
                   "kept between runs (default: OUT/work)")
    s = p.add_argument_group("on a Slurm cluster (docs/instructors.md)")
    s.add_argument("--slurm", action="store_true",
                   help="submit a job array, one task (one GPU) per submission, and a collector")
    s.add_argument("--partition", help="the partition of the jobs (default: the cluster's)")
    s.add_argument("--max-parallel", type=int, metavar="K",
                   help="at most K tasks at once (default: as many as GPUs are free)")
    s.add_argument("--time", type=int, metavar="MIN",
                   help="minutes per task (default: the build and submission timeouts + 30)")
    s.add_argument("--dry-run", action="store_true",
                   help="print the manifest and the sbatch scripts, submit nothing")
    s.add_argument("--task-index", type=int, help=argparse.SUPPRESS)  # run by a task
    s.add_argument("--collect", action="store_true", help=argparse.SUPPRESS)  # by the collector
    args = p.parse_args(argv)
    for name in ("timeout", "submission_timeout", "build_timeout"):
        if getattr(args, name) < 1:
            raise UsageError("--%s must be at least 1" % name.replace("_", "-"))
    if args.jobs < 0:
        raise UsageError("--jobs must be at least 1")
    if not 1 <= args.per_gpu <= 16:
        raise UsageError("--per-gpu must be from 1 to 16")
    if args.force and (args.failed or args.only):
        raise UsageError("--force re-grades everything: not with --failed or --only")
    for name in ("max_parallel", "time"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            raise UsageError("--%s must be at least 1" % name.replace("_", "-"))
    if not args.slurm:
        for name in ("partition", "max_parallel", "time", "dry_run"):
            if getattr(args, name) not in (None, False):
                raise UsageError("--%s goes with --slurm" % name.replace("_", "-"))
    elif args.gpus:
        raise UsageError("--gpus: on Slurm each task gets its GPU from Slurm (--gres=gpu:1)")
    if (args.task_index is not None or args.collect) and (args.slurm or args.only or args.failed
                                                           or args.force):
        raise UsageError("--task-index and --collect are run by the Slurm jobs, with no other mode")
    if args.task_index is not None and args.task_index < 0:
        raise UsageError("--task-index must be at least 0")
    return args


def main(argv):
    try:
        return run(parse(argv))
    except UsageError as e:
        say("cudalab batch: error: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:  # a full disk, a folder it may not write: one line, not a traceback
        where = ": %s" % e.filename if e.filename else ""
        hint = "; free some space, then run it again: it grades what is left" \
            if e.errno == errno.ENOSPC else ""
        say("cudalab batch: error: %s%s%s" % (e.strerror or e, where, hint), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ncudalab batch: interrupted; a re-run grades what is left", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
