"""./cudalab serve --slurm: the grading service's submissions graded as Slurm jobs
(docs/instructors.md, "The service on a Slurm cluster").

Instead of worker processes of its own, the service submits each queued submission as one Slurm
job (sbatch, one GPU: --gres=gpu:1) whose script runs the service's worker for exactly that
submission, `python3 -m grader.classroom.worker --data DIR --job ID`, on a node that sees DIR and
the repository at the same paths (a shared filesystem, as the batch's tasks need).

Only this process opens the database (SQLite in WAL mode: every process that opens it must be on
one host). Once sbatch gave the job's id, the service claims the submission for the job (the
store's claim, its lease owned by the job's id), and keeps the lease while squeue lists the job.
The job's worker reads what to grade from DIR/slurm/<id>.json (written here before sbatch), the
upload and the seed, grades into DIR/submissions/<id>.tmp-<job>/, and writes its verdict to
DIR/slurm/done/<id>-<job>.json (renamed into place: whole or absent). The service records it with
store.finish (conditional on the job still owning the submission) and renames the tmp folder, as
a local worker's exactly-once path does; a verdict of a job that no longer owns its submission is
discarded. Every POLL_S seconds its Dispatcher lists its jobs (squeue, by their names,
cudalab-svc-<DIR's hash>-<id>: a job is found even when its id was never recorded) and compares
them with the store and the verdicts (looked for every VERDICT_POLL_S in between):

- a submission whose job is no longer listed and left no verdict (at two looks in a row: a file
  on a shared filesystem may show a moment late) ended without one (scancel, its time limit, a
  node failure, a job that could not start): it is queued again for a new job, --slurm-retries
  times (default 1); then its verdict is an error naming its jobs and how each ended
  (scontrol's JobState while Slurm keeps it, else the job's log);
- a queued submission identical to one graded (the same files, labs and seed) gets that verdict
  here, at once, with no job (worker.Grader's reuse, as a worker would);
- the other queued ones are submitted, oldest first, while fewer than --max-jobs are live.

Durable: the job of each submission is in the store (slurm_job), marked 'submitting' before
sbatch runs and given its id (and the claim) after; a service stopped or killed leaves its jobs
to Slurm, and they leave their verdicts in DIR. The next start adopts the jobs by name (a
'submitting' row whose job exists, or left a verdict, gets its id; one whose job does not is
submitted again), records the verdicts left meanwhile (a lease that passed meanwhile is still the
job's unless another worker took the submission), so a restart neither loses a submission nor
submits one twice. A job listed for a submission that has another job, or none to do, is
cancelled while it waits.
"""

import fcntl
import getpass
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
import types
import uuid

from grader.classroom import base, slurm, store, worker
from grader.classroom.base import UsageError

POLL_S = 2.0  # how often the service looks at its jobs and its queue
VERDICT_POLL_S = 0.5  # how often it looks for the jobs' verdicts in between
SBATCH_BACKOFF_S = 30  # after a failed sbatch, the next try
BUILD_TIMEOUT, SUBMISSION_TIMEOUT = 900, 1800  # the worker's (worker.Grader.worker_args)
# How a job ended, from scontrol's JobState (kept for MinJobAge, 300 s by default, after its end).
ENDINGS = {"CANCELLED": "cancelled", "TIMEOUT": "time limit", "NODE_FAIL": "node failure",
           "PREEMPTED": "preempted", "OUT_OF_MEMORY": "out of memory", "BOOT_FAIL": "boot failure",
           "DEADLINE": "deadline", "FAILED": "failed"}
LOG_ENDING = re.compile(r"\*\*\* JOB \d+ ON \S+ CANCELLED AT \S+(?: DUE TO ([A-Z ]+?))? \*\*\*")


def job_minutes(minutes):
    """A job's time limit: --time, else the worker's build and grade limits plus 30 minutes for
    the framework's build on a node that has not built it (75), as the batch's tasks."""
    return slurm.task_minutes(types.SimpleNamespace(
        time=minutes, build_timeout=BUILD_TIMEOUT, submission_timeout=SUBMISSION_TIMEOUT))


def check_cluster(partition):
    """At the start: squeue answers, and the partition exists; a UsageError (one line) if not."""
    slurm.slurm_command(["squeue", "--noheader", "--user", getpass.getuser()], "squeue")
    if partition:
        try:
            slurm.slurm_command(["scontrol", "show", "partition", partition],
                                "scontrol show partition")
        except UsageError:
            raise UsageError("--partition %s: the cluster has no such partition (sinfo lists "
                             "them)" % partition)


class Dispatcher:
    """Keeps a Slurm job for each queued submission of DIR (see the module's doc). ARGS: the
    service's options (preset, lab_timeout, lease, work, allow_uncounted, partition, max_jobs,
    time, slurm_retries)."""

    def __init__(self, data, args):
        self.data, self.args = data, args
        self.prefix = "cudalab-svc-%s-" % hashlib.sha256(data.encode()).hexdigest()[:8]
        self.user = getpass.getuser()
        self.jobs_dir = os.path.join(data, "slurm")
        self.logs = os.path.join(self.jobs_dir, "logs")
        os.makedirs(self.logs, mode=0o700, exist_ok=True)
        os.makedirs(worker.done_dir(data), mode=0o700, exist_ok=True)
        # One dispatcher per DIR: two would submit each submission twice.
        self.lock = open(os.path.join(self.jobs_dir, "dispatcher.lock"), "a")
        try:
            fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.lock.close()
            raise UsageError("another ./cudalab serve --slurm runs on %s: stop it first" % data)
        self.conn = store.connect(worker.db_path(data))
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.next_sbatch = 0.0
        self.squeue_failed = False
        self.reuser = None
        self.gone = set()  # the jobs found gone without a verdict at the last look

    def say(self, text):
        print("serve: %s" % text, file=sys.stderr, flush=True)

    # -- Slurm ------------------------------------------------------------------------------------

    def script(self, sub_id):
        """The job's sbatch script: the worker for submission SUB_ID, on one GPU."""
        options = ["--job-name=%s%d" % (self.prefix, sub_id), "--gres=gpu:1",
                   "--time=%d" % job_minutes(self.args.time),
                   "--output=%s" % shlex.quote(self.log_path(sub_id, "%j"))]
        if self.args.partition:
            options.append("--partition=%s" % shlex.quote(self.args.partition))
        command = base.module_command("worker") + [
            "--data", self.data, "--job", str(sub_id), "--preset", self.args.preset,
            "--timeout", str(self.args.lab_timeout), "--lease", str(self.args.lease)]
        if self.args.allow_uncounted:
            command.append("--allow-uncounted")
        if self.args.work:
            command += ["--work", os.path.abspath(self.args.work)]
        return slurm.sbatch_script(options, command, "CUDA Labs grading service (./cudalab serve "
                                   "--slurm): grades submission %d of %s" % (sub_id, self.data))

    def log_path(self, sub_id, job):
        return os.path.join(self.logs, "%d-%s.out" % (sub_id, job))

    def list_jobs(self):
        """{submission id: [(job id, state, node)]} of this service's jobs that Slurm has queued
        or running; None when squeue does not answer (nothing is concluded then)."""
        try:
            r = subprocess.run(["squeue", "--noheader", "--user", self.user,
                                "--format=%i|%j|%T|%N"], capture_output=True, text=True,
                               timeout=60)
        except (OSError, subprocess.TimeoutExpired) as e:
            why = str(e)
        else:
            if r.returncode == 0:
                self.squeue_failed = False
                jobs = {}
                for line in r.stdout.splitlines():
                    fields = [f.strip() for f in line.split("|")]
                    if len(fields) >= 3 and fields[1].startswith(self.prefix) and \
                            fields[1][len(self.prefix):].isdigit():
                        jobs.setdefault(int(fields[1][len(self.prefix):]), []).append(
                            (fields[0], fields[2], fields[3] if len(fields) > 3 else ""))
                return jobs
            why = (r.stderr.strip().splitlines() or ["exit code %d" % r.returncode])[-1]
        if not self.squeue_failed:  # once, until it answers again
            self.say("squeue failed (%s): the jobs are looked at again when it answers" % why)
        self.squeue_failed = True
        return None

    def how_ended(self, sub_id, job):
        """How job JOB ended, in a few words: scontrol's JobState while Slurm keeps the job,
        else its log's CANCELLED line or the worker's error, else that it never ran."""
        try:
            r = subprocess.run(["scontrol", "show", "job", job], capture_output=True, text=True,
                               timeout=60)
            state = re.search(r"\bJobState=(\S+)", r.stdout) if r.returncode == 0 else None
        except (OSError, subprocess.TimeoutExpired):
            state = None
        text = ""
        try:
            with open(self.log_path(sub_id, job), errors="replace") as f:
                text = f.read()[-65536:]
        except OSError:
            pass
        errors = re.findall(r"^worker: error: (.*)$", text, re.M)
        if state and state.group(1) in ENDINGS:
            why = ENDINGS[state.group(1)]
        elif LOG_ENDING.search(text):
            due = LOG_ENDING.findall(text)[-1]
            why = due.lower() if due else "cancelled"
        elif state or text:
            why = "ended without a verdict"
        else:
            why = "never ran (cancelled while it waited, or it could not start)"
        return why + (": " + errors[-1] if errors else "")

    def sbatch(self, row):
        """Submits ROW's job and claims the submission for it; its id is recorded before this
        returns. False when sbatch failed."""
        sub_id = row["id"]
        if not store.set_slurm_job(self.conn, sub_id, store.SUBMITTING, None):
            return False  # done meanwhile (reused, or a worker started by hand)
        self.write_job(row)
        path = os.path.join(self.jobs_dir, "%d.sbatch" % sub_id)
        with open(path, "w") as f:
            f.write(self.script(sub_id))
        try:
            out = slurm.slurm_command(["sbatch", "--parsable", path], "sbatch " + path)
        except UsageError as e:
            store.set_slurm_job(self.conn, sub_id, None, store.SUBMITTING)
            self.say("submission %d: %s; trying again in %d s" % (sub_id, e, SBATCH_BACKOFF_S))
            self.next_sbatch = time.time() + SBATCH_BACKOFF_S
            return False
        job = out.strip().split(";")[0]
        if self.claim(sub_id, job):
            self.say("submission %d: Slurm job %s" % (sub_id, job))
        return True

    def write_job(self, row):
        """DIR/slurm/<id>.json: what the job's worker grades (it does not read the database)."""
        base.write_json(worker.job_path(self.data, row["id"]), {
            "id": row["id"], "student": row["student"], "labs": row["labs"],
            "upload": row["upload"]})

    def claim(self, sub_id, job, was=store.SUBMITTING):
        """The submission is claimed for JOB (its lease owned by the job's id); if it cannot be
        (done meanwhile, or a worker started by hand holds it), JOB is cancelled."""
        if store.claim_for_job(self.conn, sub_id, job, store.slurm_waiting(job), was,
                               lease_s=self.args.lease):
            return True
        store.set_slurm_job(self.conn, sub_id, None, was)
        row = store.get_submission(self.conn, sub_id)
        self.cancel(job, "submission %d is %s" % (sub_id, "graded" if row["state"] == "done"
                                                   else "held by %s" % row["worker"]))
        return False

    def cancel(self, job, why):
        subprocess.run(["scancel", job], capture_output=True, timeout=60)
        self.say("cancelled Slurm job %s: %s" % (job, why))

    # -- the loop ----------------------------------------------------------------------------

    def verdicts(self):
        """{(submission id, job): path} of the verdicts the jobs left (a listing of the folder,
        which a shared filesystem's client reads afresh)."""
        found = {}
        for name in os.listdir(worker.done_dir(self.data)):
            m = worker.DONE_NAME.match(name)
            if m:
                found[(int(m.group(1)), m.group(2))] = os.path.join(worker.done_dir(self.data),
                                                                    name)
        return found

    def step(self):
        """One look at the jobs and the queue: returns the number of live jobs."""
        listing = self.list_jobs()  # before the rows: a job not listed had ended when they are read
        if listing is None:
            return None
        left = self.verdicts()  # after squeue: a job gone had left its verdict before
        live = 0
        kept, gone, beats = set(), set(), []
        for row in store.slurm_pending(self.conn):
            sub_id, job = row["id"], row["slurm_job"]
            jobs = listing.get(sub_id, [])
            if job == store.SUBMITTING:  # the service stopped while sbatch ran
                found = [j for j, _, _ in jobs] + sorted(j for s, j in left if s == sub_id)
                if found and self.claim(sub_id, found[0]):
                    self.say("submission %d: adopted Slurm job %s (submitted before a restart)"
                             % (sub_id, found[0]))
                    if found[0] in (j for j, _, _ in jobs):
                        kept.add(found[0])
                        live += 1
                elif not found:
                    store.set_slurm_job(self.conn, sub_id, None, store.SUBMITTING)
                continue
            mine = [(state, node) for j, state, node in jobs if j == job]
            if mine:
                kept.add(job)
                live += 1
                if row["state"] == "queued":  # submitted by a service that did not claim
                    self.write_job(row)
                    self.claim(sub_id, job, job)
                state, node = mine[0]
                beats.append((sub_id, job, "%s %s" % (node.split(",")[0] or "?",
                                                      worker.slurm_suffix(job))
                              if state == "RUNNING" else None))
            elif (sub_id, job) not in left:
                if job in self.gone:
                    self.ended(row, job)
                else:  # one more look: its verdict may show a moment late
                    gone.add(job)
                    live += 1
        self.gone = gone
        store.slurm_beat(self.conn, beats, lease_s=self.args.lease)
        self.collect(left)
        for sub_id, jobs in listing.items():  # another job for a submission: not needed
            for job, state, _ in jobs:
                if job not in kept and state == "PENDING":
                    row = store.get_submission(self.conn, sub_id)
                    if row is None or row["slurm_job"] not in (job, store.SUBMITTING):
                        self.cancel(job, "submission %d has %s" % (
                            sub_id, "no such submission" if row is None else
                            "its verdict" if row["state"] == "done" else
                            "job %s" % row["slurm_job"]))
        for row in store.slurm_unsubmitted(self.conn):
            if self.stopping.is_set():
                break
            if self.reuse(row):
                continue
            if self.args.max_jobs and live >= self.args.max_jobs or time.time() < self.next_sbatch:
                continue  # (an identical one graded meanwhile is still reused at once)
            if self.sbatch(row):
                live += 1
        return live

    def collect(self, left=None):
        """Records the verdicts the jobs left (LEFT: verdicts(), else looked for now): as a local
        worker's exactly-once path, the finishing UPDATE (only while the job still owns the
        submission), then the tmp folder renamed to DIR/submissions/<id>. A verdict of a job
        that no longer owns its submission is discarded, with its folder."""
        left = self.verdicts() if left is None else left
        folder = os.path.join(self.data, "submissions")
        for (sub_id, job), path in sorted(left.items()):
            row = store.get_submission(self.conn, sub_id)
            if row is not None and row["slurm_job"] == store.SUBMITTING:
                continue  # step() adopts the job first
            tmp = os.path.join(folder, "%d.tmp-%s" % (sub_id, job))
            final = os.path.join(folder, str(sub_id))
            try:
                with open(path) as f:
                    verdict = json.load(f)
                result = verdict["result"]
            except (OSError, ValueError, KeyError, TypeError) as e:
                result, verdict = None, {}
                self.say("submission %d: Slurm job %s's verdict cannot be read (%s): discarded"
                         % (sub_id, job, e))
            if result is not None and row is not None and row["state"] == "running" and \
                    row["lease_owner"] == job and os.path.isdir(tmp):
                if store.finish(self.conn, sub_id, job, result, "done"):
                    worker.publish(tmp, final)
                    for other in os.listdir(folder):  # attempts that lost it
                        if other.startswith("%d.tmp-" % sub_id):
                            shutil.rmtree(os.path.join(folder, other), ignore_errors=True)
                    self.say("submission %d graded by Slurm job %s: %s/%s points%s" % (
                        sub_id, job, worker.num(result.get("points")),
                        worker.num(result.get("max_points")),
                        ", " + result["error"] if result.get("error") else ""))
            elif row is not None and row["state"] == "done" and row["lease_owner"] == job:
                if os.path.isdir(tmp) and not os.path.isdir(final):  # stopped before the rename
                    worker.publish(tmp, final)
            else:
                shutil.rmtree(tmp, ignore_errors=True)
                self.say("submission %d: Slurm job %s's verdict discarded (the job no longer "
                         "holds the submission)" % (sub_id, job))
            if row is not None and row["worker"] and row["worker"].endswith(
                    worker.slurm_suffix(job)):
                store.worker_gone(self.conn, row["worker"])
            os.remove(path)

    def ended(self, row, job):
        """ROW's job JOB is gone and the submission has no verdict: queued for a new job, or,
        after --slurm-retries of them, its verdict is the error."""
        sub_id = row["id"]
        why = self.how_ended(sub_id, job)
        failed = store.requeue_slurm(self.conn, sub_id, job, why, worker.slurm_suffix(job))
        shutil.rmtree(os.path.join(self.data, "submissions", "%d.tmp-%s" % (sub_id, job)),
                      ignore_errors=True)  # a killed worker's
        if row["worker"] and row["worker"].endswith(worker.slurm_suffix(job)):
            store.worker_gone(self.conn, row["worker"])
        if failed is None:
            return
        if len(failed) <= self.args.slurm_retries:
            self.say("submission %d: Slurm job %s ended without a verdict (%s): queued for a new "
                     "job" % (sub_id, job, why))
            return
        error = "not graded: %s ended before grading finished (%s)" % (
            "its Slurm job" if len(failed) == 1 else "its %d Slurm jobs" % len(failed),
            "; ".join("job %s: %s" % (j, w) for j, w in failed))
        if store.fail_slurm(self.conn, sub_id, error, "Slurm job %s" % job):
            folder = os.path.join(self.data, "submissions", str(sub_id))
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, "console.log"), "w") as f:
                f.write(error + "\n")
            self.say("submission %d: %s" % (sub_id, error))

    def reuse(self, row):
        """An identical submission was graded: ROW gets its verdict here, with no job (as a
        worker would: worker.Grader.handle). True when it did."""
        if self.reuser is None:
            self.reuser = Reuser(self.data, self.args)
        source = store.find_reusable(self.conn, row["key"], self.reuser.seed_hash, row["id"])
        if source is None:
            return False
        owner = uuid.uuid4().hex
        job, _ = store.claim_id(self.reuser.conn, row["id"], owner, self.reuser.name,
                                lease_s=self.args.lease)
        if job is None:
            return False
        self.reuser.handle(job, owner)
        return True

    def loop(self):
        next_step = 0.0
        while not self.stopping.is_set():
            try:
                if time.time() >= next_step:
                    next_step = time.time() + POLL_S
                    self.step()
                else:
                    self.collect()
            except Exception as e:  # a busy database, a full disk: the next look tries again
                self.say("slurm: %s" % worker.one_line(str(e)))
            self.stopping.wait(VERDICT_POLL_S)

    def start(self):
        self.thread.start()

    def stop(self):
        """Stops looking; the jobs go on (the next start collects them). Returns how many of
        them Slurm still has."""
        self.stopping.set()
        self.thread.join()
        listing = self.list_jobs() or {}
        return sum(len(j) for j in listing.values())


class Reuser(worker.Grader):
    """worker.Grader's reuse of a verdict, in the service's process: no GPU, no worker folder,
    not listed among the workers."""

    def __init__(self, data, args):
        super().__init__(types.SimpleNamespace(
            data=data, gpu=None, preset=args.preset, work=args.work, timeout=args.lab_timeout,
            once=False, job=None, lease=args.lease, allow_uncounted=args.allow_uncounted))
        self.name = "%s:%d (service)" % (self.host, os.getpid())

    def set_state(self, state, job=None):
        with self.lock:
            self.state, self.job = state, job
