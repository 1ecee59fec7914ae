"""A grading worker of the class service: claims the queued submissions from DIR/service.sqlite,
grades each one as ./cudalab batch does, and records the verdict.

    python3 -m grader.classroom.worker --data DIR [--gpu N] [--preset P] [--work DIR]
                                        [--timeout S] [--once | --job ID]

`./cudalab serve` starts one per GPU (and restarts one that dies); one can also be started by
hand, on the same machine as DIR. The grading is ./cudalab batch's: one workers.Worker (a copy of
the repository and one build of the framework, in a folder of WORK claimed with
workers.claim_worker_folder), submissions.read_submission on the upload,
grading.grade_submission with the service's secret seed (DIR/seed). Each lab's solution grader is
built the first time a submission of that lab comes (a class rarely submits every lab on the first
day).

Exactly once (store.py): the job is claimed with a lease, which a heartbeat thread extends every
10 s; the results go to DIR/submissions/<id>.tmp-<owner>/, and only the worker whose finishing
UPDATE still found the job its own renames that folder to DIR/submissions/<id>. A worker killed
while grading loses its lease after 60 s and the job is claimed again; a worker stopped (SIGTERM,
SIGINT) gives its job back at once.

--once grades one queued submission, if there is one, and exits.

--job ID grades submission ID, and only it, then exits: the command of a Slurm job of
`./cudalab serve --slurm` (grader/classroom/service_slurm.py), on a node that sees DIR and the
repository at the same paths. It never opens the database (SQLite cannot be shared across hosts;
an audit hook makes any attempt an error): the service claimed the submission for the job (the
job's id, $SLURM_JOB_ID, is the lease's owner) and keeps its lease while squeue lists the job.
The worker reads what to grade from DIR/slurm/<id>.json (written by the service), the upload and
the seed from DIR, grades into DIR/submissions/<id>.tmp-<job>/ on the GPU Slurm gave the job
(CUDA_VISIBLE_DEVICES), and last writes its verdict to DIR/slurm/done/<id>-<job>.json (a file
renamed into place: there whole, or not at all), which the service records with the same
finishing UPDATE and rename as a local worker's. A job stopped (scancel, its time limit), or whose
framework does not build (exit code 1), leaves no verdict: the service submits the submission
once more, then records the error.
"""

import argparse
import contextlib
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import sys
import threading
import time
import types
import uuid

from grader.classroom import base, grading, reports, store, submissions, workers

ROOT = base.ROOT
POLL_S = 1.0  # how often an idle worker looks for a job
MAX_CONSOLE_ERROR_LINES = 40  # compile error lines shown for a file that does not compile
# The files of a graded submission copied for an identical one (besides whatever else is there).
RESULT_FILES = ("report.json", "grade.log", "build.log", "meta.json", "console.log")
TMP_NAME = re.compile(r"^(\d+)\.tmp-([0-9a-f]+)$")


# ---- DIR: what the service, the workers and the roster tool share ------------------------------


def db_path(data):
    """DIR/service.sqlite, or the postgresql:// URL in DIR/database.conf (store.database)."""
    return store.database(data)


def prepare_data_dir(data):
    """DIR and its folders; DIR is the instructor's only (0700): the seed, the tokens."""
    os.makedirs(data, exist_ok=True)
    os.chmod(data, 0o700)
    for name in ("uploads", "submissions"):
        os.makedirs(os.path.join(data, name), exist_ok=True)


def ensure_seed(data):
    """The service's secret seed (DIR/seed, made once as ./cudalab batch makes OUT/seed)."""
    path = os.path.join(data, "seed")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write("%d\n" % secrets.randbelow(2**62))
            f.flush()
            os.fsync(f.fileno())
    except FileExistsError:
        pass
    with open(path) as f:
        return int(f.read().strip())


def read_seed(data):
    """The service's seed, which must be there (a Slurm job's worker makes nothing in DIR)."""
    try:
        with open(os.path.join(data, "seed")) as f:
            return int(f.read().strip())
    except (OSError, ValueError) as e:
        raise base.UsageError("cannot read the service's seed in %s: %s" % (data, e))


def job_path(data, sub_id):
    """What a Slurm job's worker grades: {"id", "student", "labs", "upload"}, written by the
    service before it submits the job."""
    return os.path.join(data, "slurm", "%d.json" % sub_id)


def done_dir(data):
    """Where the Slurm jobs' workers leave their verdicts for the service."""
    return os.path.join(data, "slurm", "done")


DONE_NAME = re.compile(r"^(\d+)-([0-9]+)\.json$")


def verdict_path(data, sub_id, job):
    return os.path.join(done_dir(data), "%d-%s.json" % (sub_id, job))


def write_verdict(data, sub_id, job, verdict):
    """DIR/slurm/done/<id>-<job>.json, whole or not at all: written beside it, flushed to disk,
    then renamed into place (atomic on a shared filesystem too)."""
    os.makedirs(done_dir(data), exist_ok=True)
    path = verdict_path(data, sub_id, job)
    part = os.path.join(done_dir(data), ".%d-%s.json.part" % (sub_id, job))
    with open(part, "w") as f:
        json.dump(verdict, f, indent=1, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())
    os.rename(part, path)
    return path


def forbid_database(data):
    """An audit hook: this process (a Slurm job's worker) may not open DATA's database, nor any
    SQLite database; an attempt raises."""
    path = os.path.join(os.path.abspath(data), store.SQLITE_NAME)

    def hook(event, args):
        if event == "sqlite3.connect" or (
                event == "open" and isinstance(args[0], (str, bytes)) and
                os.path.abspath(os.fsdecode(args[0])).startswith(path)):
            raise RuntimeError("a Slurm job's worker does not open the service's database (%s)"
                               % path)
    sys.addaudithook(hook)


def seed_hash(seed):
    return hashlib.sha256(str(seed).encode()).hexdigest()


def result_dir(data, row):
    """Where a done submission's results are: DIR/submissions/<id>, or its owner's tmp folder when
    the worker stopped between recording the verdict and renaming the folder."""
    final = os.path.join(data, "submissions", str(row["id"]))
    if os.path.isdir(final) or not row["lease_owner"]:
        return final
    tmp = os.path.join(data, "submissions", "%d.tmp-%s" % (row["id"], row["lease_owner"]))
    return tmp if os.path.isdir(tmp) else final


def publish(tmp, final):
    """The tmp folder becomes the submission's results (a stale one there goes first)."""
    if os.path.isdir(final):
        shutil.rmtree(final)
    try:
        os.rename(tmp, final)
    except FileNotFoundError:
        if not os.path.isdir(final):  # not renamed by another process meanwhile (recover())
            raise


def recover(conn, data):
    """At a worker's start: a tmp folder whose verdict was recorded becomes the results (its
    worker stopped before renaming it); one of an attempt that lost its job goes. A tmp folder
    of a job still running is kept (its worker may be alive)."""
    folder = os.path.join(data, "submissions")
    for name in sorted(os.listdir(folder)):
        m = TMP_NAME.match(name)
        if not m:
            continue
        row = store.get_submission(conn, int(m.group(1)))
        path = os.path.join(folder, name)
        if row is not None and row["lease_owner"] == m.group(2):
            if row["state"] == "running":
                continue
            if row["state"] == "done":
                if not os.path.isdir(os.path.join(folder, m.group(1))):
                    publish(path, os.path.join(folder, m.group(1)))
                    continue
        shutil.rmtree(path, ignore_errors=True)


def kill_session(sid, sig=signal.SIGKILL):
    """Sends SIG to every process of session SID but this one. A worker the service starts leads
    a session of its own; what it started stays in it, even the compilers that Ninja puts in
    process groups of their own, which a killpg of the worker's group would miss."""
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            if os.getsid(int(name)) == sid:
                os.kill(int(name), sig)
        except OSError:  # gone meanwhile, or not ours to see
            pass


# ---- The console shown to the student ----------------------------------------------------------


def compile_errors(build_log):
    """The compiler's messages of each failed step of build.log, without its command line (the
    line after Ninja's FAILED:), each distinct block once, at most MAX_CONSOLE_ERROR_LINES."""
    try:
        with open(build_log, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return ""
    blocks, block, skip = [], None, False
    for line in lines:
        if line.startswith("FAILED: "):
            if block:
                blocks.append(block)
            block, skip = [], True
            continue
        if block is None:
            continue
        if skip:  # the compiler's command line
            skip = False
            continue
        if re.match(r"^\[\d+/\d+\]", line) or line.startswith("ninja: "):
            blocks.append(block)
            block = None
            continue
        block.append(line)
    if block:
        blocks.append(block)
    shown, seen = [], set()
    for b in blocks:
        text = "\n".join(b).strip("\n")
        if text and text not in seen:
            seen.add(text)
            shown += text.split("\n")
    if not shown:  # no failed step found (a build stopped by its time limit): its end
        shown = lines[-20:]
    if len(shown) > MAX_CONSOLE_ERROR_LINES:
        shown = shown[:MAX_CONSOLE_ERROR_LINES] + ["[... %d more lines]" %
                                                   (len(shown) - MAX_CONSOLE_ERROR_LINES)]
    return "\n".join(shown) + "\n"


def without_paths(text, paths):
    """TEXT without the service machine's folders (the worker's tree, DIR): paths under them
    become relative, the folders themselves nothing."""
    for p in sorted(set(paths), key=len, reverse=True):
        text = text.replace(p + "/", "").replace(p, "")
    return text


# ---- The worker ---------------------------------------------------------------------------------


class Stop(BaseException):
    """SIGTERM or SIGINT: give the job back and exit. A BaseException, so that
    grading.grade_submission's `except Exception` does not take it for a grading error."""


class Shim:
    """What grading.grade_submission and grading.student_reports use of a grading.Batch: the secret
    seed, the student's folder (this job's tmp folder) and OUT, a batch output folder made for
    this job whose students/<sid> is a link to the tmp folder (reports.py writes the
    student's files, the seed withheld, there)."""

    def __init__(self, out, seed, folder):
        self.out, self.seed, self.folder = out, seed, folder

    def student_dir(self, sid):
        return self.folder


class Grader:
    def __init__(self, args):
        self.args = args
        self.data = os.path.abspath(args.data)
        self.host = socket.gethostname().split(".")[0]
        self.name = "%s:%d" % (self.host, os.getpid())  # the service finds it by its pid
        if getattr(args, "job", None) is not None:  # a Slurm job's: no database (run_job)
            self.owner = getattr(args, "owner", None) or os.environ.get("SLURM_JOB_ID")
            if not self.owner or not self.owner.isdigit():
                raise base.UsageError("--job grades for a Slurm job: $SLURM_JOB_ID (or --owner) "
                                      "must be the job's id")
            self.name += " " + slurm_suffix(self.owner)
            self.seed = read_seed(self.data)
            self.conn = None
        else:
            prepare_data_dir(self.data)
            self.seed = ensure_seed(self.data)
            self.conn = store.connect(db_path(self.data))
        self.seed_hash = seed_hash(self.seed)
        self.known = submissions.student_files(ROOT)
        self.paths = list(self.known.values()) + submissions.report_files(self.known)
        self.work = os.path.abspath(args.work) if args.work else os.path.join(self.data, "work")
        self.lock = threading.Lock()
        self.job = None  # (id, owner) of the job held
        self.state = "starting"
        self.stopped = threading.Event()
        self.worker = None
        self.prepared = set()  # the labs whose solution graders this worker built

    def log(self, text):
        base.say("[worker %s%s] %s" % (self.name, "" if self.args.gpu is None else
                                        ", GPU " + self.args.gpu, text))

    # -- heartbeat: the lease, and the workers table ---------------------------------------------

    def heartbeat(self):
        conn = store.connect(db_path(self.data))
        service = os.environ.get("CUDALAB_SERVICE_PID")
        while not self.stopped.is_set():
            if service and os.getppid() != int(service):
                # The service that started it is gone (killed): stop as if it had said so,
                # giving the job back, rather than grade on unsupervised.
                self.log("the service (pid %s) is gone: stopping" % service)
                os.kill(os.getpid(), signal.SIGTERM)
                service = None
            with self.lock:
                job, state = self.job, self.state
            try:
                store.worker_seen(conn, self.name, os.getpid(), self.host, self.args.gpu, state,
                                  job[0] if job else None)
                if job and not store.extend_lease(conn, job[0], job[1], lease_s=self.args.lease):
                    self.log("submission %d is no longer this worker's (its lease passed): its "
                             "result will be discarded" % job[0])
            except Exception as e:  # a busy database: the next beat tries again
                self.log("heartbeat: %s" % e)
            # A beat well within the lease, however short the lease is.
            self.stopped.wait(min(store.HEARTBEAT_S, self.args.lease / 3.0))
        conn.close()

    def set_state(self, state, job=None):
        with self.lock:
            self.state, self.job = state, job
        if self.conn is None:  # a Slurm job's worker: the service lists the job
            return
        # At once, not at the next beat: the class page shows which worker grades what.
        try:
            store.worker_seen(self.conn, self.name, os.getpid(), self.host, self.args.gpu, state,
                              job[0] if job else None)
        except Exception as e:
            self.log("cannot record its state: %s" % e)

    # -- the loop ---------------------------------------------------------------------------------

    def run(self):
        beat = threading.Thread(target=self.heartbeat, daemon=True)
        try:
            beat.start()
            recover(self.conn, self.data)
            folder, self.folder_lock = workers.claim_worker_folder(self.work)
            self.worker = workers.Worker(folder, self.args.gpu, self.worker_args(), [],
                                         gpu_lock=getattr(self.args, "gpu_lock", None))
            self.set_state("preparing")
            self.worker.prepare()  # the framework: the grade command
            self.set_state("idle")
            while True:
                owner = uuid.uuid4().hex
                job = store.claim(self.conn, owner, self.name, lease_s=self.args.lease)
                if job is None:
                    if self.args.once:
                        self.log("no submission queued")
                        return 0
                    time.sleep(POLL_S)
                    continue
                self.handle(job, owner)
                if self.args.once:
                    return 0
        except Stop:
            with self.lock:
                job = self.job
            # The job it held goes back to the queue at once (a no-op when its verdict was
            # recorded just before).
            if job and store.release(self.conn, job[0], job[1]):
                self.log("submission %d given back to the queue" % job[0])
            self.log("stopping")
            return 0
        finally:
            self.stopped.set()
            try:
                store.worker_gone(self.conn, self.name)
            except Exception:
                pass

    def run_job(self):
        """--job ID: grades that submission for its Slurm job, without the database (see the
        module's doc). Exit code 0 when its verdict is left for the service, 1 when none is (the
        framework did not build) or the verdict is that the job had no GPU."""
        sub_id, owner = self.args.job, self.owner
        folder = os.path.join(self.data, "submissions")
        tmp = os.path.join(folder, "%d.tmp-%s" % (sub_id, owner))
        try:
            try:
                with open(job_path(self.data, sub_id)) as f:
                    job = json.load(f)
            except (OSError, ValueError) as e:
                raise base.UsageError("no job file of submission %d (%s)" % (sub_id, e))
            self.job = (sub_id, owner)
            self.log("submission %d of %s (labs %s), for Slurm job %s" %
                     (sub_id, job["student"], job["labs"], owner))
            shutil.rmtree(tmp, ignore_errors=True)
            os.makedirs(tmp)
            if self.args.gpu is None and os.environ.get("SLURM_JOB_ID"):
                self.leave(job, tmp, self.no_gpu(job, tmp))
                return 1
            labs = job["labs"].split(",")
            work_folder, self.folder_lock = workers.claim_worker_folder(self.work)
            # A Slurm job has its GPU to itself: no lock to share.
            self.worker = workers.Worker(work_folder, self.args.gpu, self.worker_args(), labs)
            self.worker.prepare()  # the framework and these labs' solution graders
            self.prepared = set(labs)
            try:
                result = self.grade(job, tmp)
            except Exception as e:  # the submission's verdict says so
                self.log("submission %d: grading error: %s" % (sub_id, e))
                result = {"error": "grading error: %s" % one_line(str(e)), "exit_code": 1,
                          "seed_hash": self.seed_hash, "gpu": self.args.gpu}
            self.leave(job, tmp, result)
            return 0
        except Stop:
            shutil.rmtree(tmp, ignore_errors=True)
            self.log("stopping: submission %d left to the service" % sub_id)
            return 0
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        finally:
            self.stopped.set()

    def leave(self, job, tmp, result):
        """The verdict of a Slurm job's worker, for the service to record (write_verdict)."""
        write_verdict(self.data, job["id"], self.owner, {
            "submission": job["id"], "job": self.owner, "worker": self.name, "result": result,
            "finished_at": time.time()})
        self.log("submission %d %s: %s/%s points%s; the service records it" % (
            job["id"], "graded", num(result.get("points")), num(result.get("max_points")),
            ", " + result["error"] if result.get("error") else ""))

    def no_gpu(self, job, tmp):
        """A Slurm job given no GPU: the submission's verdict says so (as the batch's task)."""
        error = ("not graded: the Slurm job was given no GPU (CUDA_VISIBLE_DEVICES is not set: "
                 "is the cluster's gpu gres configured?)")
        with open(os.path.join(tmp, "console.log"), "w") as f:
            f.write(error + "\n")
        self.log("submission %d: %s" % (job["id"], error))
        return {"error": error, "exit_code": 1, "seed_hash": self.seed_hash, "gpu": None}

    def worker_args(self):
        """The options workers.Worker reads (./cudalab batch's, with its defaults)."""
        return types.SimpleNamespace(
            preset=self.args.preset, timeout=self.args.timeout, submission_timeout=1800,
            build_timeout=900, jobs=0, sandbox="auto",
            data_dir=os.environ.get("CUDALAB_DATA_DIR", os.path.join(ROOT, "data")))

    def handle(self, job, owner):
        sub_id = job["id"]
        self.set_state("grading", (sub_id, owner))
        self.log("submission %d of %s (labs %s), attempt %d" %
                 (sub_id, job["student"], job["labs"], job["attempts"]))
        folder = os.path.join(self.data, "submissions")
        tmp = os.path.join(folder, "%d.tmp-%s" % (sub_id, owner))
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        try:
            source = store.find_reusable(self.conn, job["key"], self.seed_hash, sub_id)
            if source is not None:
                result, outcome = self.reuse(job, source, tmp), "reused"
            else:
                result, outcome = self.grade(job, tmp), "done"
        except Stop:  # run() gives the job back
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        except Exception as e:  # the submission's verdict says so; the worker goes on
            self.log("submission %d: grading error: %s" % (sub_id, e))
            result, outcome = {"error": "grading error: %s" % one_line(str(e)), "exit_code": 1,
                               "seed_hash": self.seed_hash, "gpu": self.args.gpu}, "done"
        if store.finish(self.conn, sub_id, owner, result, outcome):
            publish(tmp, os.path.join(folder, str(sub_id)))
            # The tmp folders of the attempts that lost this job (a worker killed while grading).
            for name in os.listdir(folder):
                if name.startswith("%d.tmp-" % sub_id):
                    shutil.rmtree(os.path.join(folder, name), ignore_errors=True)
            self.log("submission %d %s: %s/%s points%s" % (
                sub_id, "graded" if outcome == "done" else "reused from %s" % result["reused_from"],
                num(result.get("points")), num(result.get("max_points")),
                ", " + result["error"] if result.get("error") else ""))
        else:
            shutil.rmtree(tmp, ignore_errors=True)
            self.log("submission %d: another worker took it over; this result is discarded" % sub_id)
        self.set_state("idle")

    def reuse(self, job, source, tmp):
        """An identical submission (same lab files, labs and seed) was graded: its grade stands,
        costing no GPU time and giving no second timing to pick from. Only the grade is copied:
        what is this submission's own (its report.md files, the files list in meta.json, the
        student's reports) is made from its own upload."""
        src = result_dir(self.data, source)
        for name in RESULT_FILES:
            if os.path.exists(os.path.join(src, name)):
                shutil.copy2(os.path.join(src, name), os.path.join(tmp, name))
        upload = os.path.join(self.data, job["upload"])
        files, ignored, error = submissions.read_submission(upload, self.paths)
        try:
            with open(os.path.join(tmp, "meta.json")) as f:
                meta = json.load(f)
        except (OSError, ValueError):
            meta = {}
        meta.update(student=job["student"], submission=os.path.basename(upload),
                    files={rel: base.sha256(data) for rel, data in files.items()},
                    ignored=ignored, reused_from=source["id"], graded_at=base.now(),
                    build_seconds=0.0, grade_seconds=0.0, submission_id=job["id"],
                    service_worker=self.name, reports=submissions.save_reports(tmp, files))
        base.write_json(os.path.join(tmp, "meta.json"), meta)
        with self.batch_out(job, tmp) as out:
            grading.student_reports(out, job["student"])
        result = {c: source[c] for c in store.RESULT_COLUMNS}
        for c in ("lab_points", "failed_checks"):
            result[c] = store.decode(source, c)
        result.update(build_seconds=0.0, grade_seconds=0.0, reused_from=source["id"], gpu=None)
        return result

    @contextlib.contextmanager
    def batch_out(self, job, tmp):
        """OUT for grading.student_reports (reports.py) while it is used: batch.json,
        the seed's path, and students/<sid> a link to the tmp folder, where the student's
        files (the seed withheld) are written."""
        out = os.path.join(tmp, ".batch")
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(os.path.join(out, "students"))
        os.symlink(tmp, os.path.join(out, "students", job["student"]))
        base.write_json(os.path.join(out, "batch.json"), {
            "schema": "cudalab-batch/1", "started_at": base.now(), "finished_at": None,
            "gpus": [] if self.args.gpu is None else [self.args.gpu], "device": None, "total": 1,
            "graded_now": 1, "seed_file": os.path.join(self.data, "seed"),
            "labs": job["labs"].split(",")})
        try:
            yield out
        finally:
            shutil.rmtree(out, ignore_errors=True)

    def grade(self, job, tmp):
        labs = job["labs"].split(",")
        if not set(labs) <= self.prepared:  # build these labs' solution graders, once
            self.worker.labs = sorted(self.prepared | set(labs))
            self.worker.prepare()
            self.prepared |= set(labs)
        self.worker.labs = labs
        upload = os.path.join(self.data, job["upload"])
        files, ignored, error = submissions.read_submission(upload, self.paths)
        hashes = {rel: base.sha256(data) for rel, data in files.items()}
        item = (job["student"], upload, files, ignored, error, hashes)
        with self.batch_out(job, tmp) as out:
            meta = grading.grade_submission(self.worker, Shim(out, self.seed, tmp), item,
                                          {"submission_id": job["id"], "service_worker": self.name})
        return self.result(tmp, meta)

    def result(self, tmp, meta):
        """The verdict's columns from the grade's files; writes console.log, what the student
        sees: the grade command's output (or, when a file did not compile, the compiler's
        errors), without the service's paths and with the seed withheld."""
        report = None
        try:
            with open(os.path.join(tmp, "report.json")) as f:
                report = json.load(f)
        except (OSError, ValueError):
            pass
        error = one_line(meta.get("error")) if meta.get("error") else None
        # A GPU whose performance counters cannot be read gives no verdict on the technique
        # checks: no grade at all, unless the instructor allowed it (--allow-uncounted).
        uncounted = grading.uncounted_reason(os.path.join(tmp, "report.json"))
        if uncounted and not getattr(self.args, "allow_uncounted", False):
            self.log("the GPU's performance counters cannot be read: %s" % uncounted)
            report = None
            error = (
                "not graded: this service's GPU cannot read its performance counters, which the "
                "technique checks need (%s); the instructor has to allow them" % one_line(uncounted))
        if report is None and error is None:
            error = "the grade command wrote no report"
        result = {"error": error, "build_seconds": meta.get("build_seconds", 0.0),
                  "grade_seconds": meta.get("grade_seconds", 0.0), "seed_hash": self.seed_hash,
                  "gpu": self.args.gpu, "reused_from": None, "points": None, "max_points": None,
                  "lab_points": None, "failed_checks": None}
        if report is not None:
            labs = report.get("labs") or []
            result.update(
                points=report.get("points"), max_points=report.get("max_points"),
                lab_points={lab.get("lab"): [lab.get("points"), lab.get("max_points")]
                            for lab in labs},
                failed_checks=["%s: %s" % (lab.get("lab"), c.get("check"))
                               for lab in labs for c in lab.get("checks") or []
                               if c.get("status") == "failed"])
        failed = report is None or bool(report.get("failed", True))
        result["exit_code"] = 1 if (error or failed) else 0

        # As the local grade shows it: a file that does not compile, its compiler's errors first
        # (once, without the command line), then the grade's table, with every lab's points.
        console = ""
        if meta.get("compiled") and not all(meta["compiled"].values()):
            console = compile_errors(os.path.join(tmp, "build.log")) + "\n"
        try:
            with open(os.path.join(tmp, "grade.log"), errors="replace") as f:
                graded = f.read()
        except OSError:
            graded = ""
        # Where the service wrote the JSON report is nothing the student needs.
        console += "".join(l for l in graded.splitlines(True) if not l.startswith("JSON report: "))
        if error:
            console += ("\n" if console and not console.endswith("\n") else "") + error + "\n"
        console = without_paths(console, [self.worker.tree, self.worker.dir, self.work, self.data, ROOT])
        console = redact(console, self.seed, report)
        with open(os.path.join(tmp, "console.log"), "w") as f:
            f.write(console)
        return result


def slurm_suffix(job):
    """The end of the name of the worker of Slurm job JOB."""
    return "(Slurm job %s)" % job


def redact(text, seed, report=None):
    """The text without the secret seed (reports.py's rule: CUDALAB_SEED=..., 'seed N', the
    number itself)."""
    secrets_ = [str(seed)]
    if report and report.get("seed") is not None:
        secrets_.append(str(report["seed"]))
    return reports.redact(text, sorted(set(secrets_)))


def one_line(text):
    text = (text or "").strip()
    return text.splitlines()[0] if text else text


def num(x):
    if isinstance(x, float) and x.is_integer():
        return int(x)
    return x


def parse(argv):
    p = argparse.ArgumentParser(prog="python3 -m grader.classroom.worker",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True, help="the service's folder (DIR)")
    p.add_argument("--gpu", help="the GPU to grade on (an nvidia-smi index or UUID; default none)")
    p.add_argument("--gpu-lock", help="the lock file of the workers that share this GPU "
                   "(./cudalab serve --per-gpu; grader/grade/gpu_lock.h)")
    p.add_argument("--preset", default=os.environ.get("CUDALAB_PRESET", "default"),
                   help="CMake preset of the worker's build (default: CUDALAB_PRESET or default)")
    p.add_argument("--work", help="where the workers' folders are (default DIR/work)")
    p.add_argument("--timeout", type=int, default=120, help="seconds per check (default 120)")
    once = p.add_mutually_exclusive_group()
    once.add_argument("--once", action="store_true", help="grade one queued submission, then exit")
    once.add_argument("--job", type=int, metavar="ID",
                      help="grade submission ID only, then exit, without opening the database: "
                           "a Slurm job of ./cudalab serve --slurm (the GPU: --gpu, else the "
                           "job's CUDA_VISIBLE_DEVICES)")
    p.add_argument("--owner", help="--job: the job's id (default: $SLURM_JOB_ID)")
    p.add_argument("--allow-uncounted", action="store_true",
                   help="keep a grade whose technique checks could not read the GPU's counters")
    p.add_argument("--lease", type=int, default=store.LEASE_S,
                   help="seconds a claim holds without a heartbeat: how long a killed worker's "
                        "submission waits before another worker grades it (default %d)" %
                        store.LEASE_S)
    args = p.parse_args(argv)
    if args.timeout < 1:
        p.error("--timeout must be at least 1")
    if args.lease < 3:
        p.error("--lease must be at least 3 (seconds)")
    if args.job is not None and args.job < 1:
        p.error("--job must be a submission id (1 or more)")
    if args.job is not None and args.gpu is None:
        args.gpu = os.environ.get("CUDA_VISIBLE_DEVICES") or None  # the GPU Slurm gave the job
    return args


def main(argv):
    args = parse(argv)
    # Its own process group, so that stopping it stops the builds and grades it started (the
    # service starts it in a session of its own anyway). Not when run at a terminal, where the
    # shell's job control (Ctrl-C) already reaches the whole job.
    if not sys.stdin.isatty():
        try:
            os.setpgid(0, 0)
        except OSError:
            pass
    if args.job is not None:
        forbid_database(args.data)
    try:
        grader = Grader(args)
    except base.UsageError as e:
        print("worker: error: %s" % e, file=sys.stderr)
        return 2

    def stop(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise Stop()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        code = grader.run() if args.job is None else grader.run_job()
    except base.UsageError as e:
        print("worker: error: %s" % e, file=sys.stderr)
        code = 2
    except (RuntimeError, OSError) as e:  # the framework does not build, a full disk
        print("worker: error: %s" % e, file=sys.stderr)
        code = 1
    # What it started and left running (a build's compilers, a grade's checks).
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if os.getsid(0) == os.getpid():
        kill_session(os.getpid(), signal.SIGTERM)
    elif os.getpgid(0) == os.getpid():
        os.killpg(os.getpid(), signal.SIGTERM)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
