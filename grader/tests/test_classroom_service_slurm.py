"""Unit tests of the grading service's Slurm backend (grader/classroom/service_slurm.py and the
store's Slurm columns): a fake squeue, sbatch, scontrol and scancel on PATH keep their jobs in a
JSON file, so that what the Dispatcher submits, claims, adopts, records, requeues, fails and
cancels is checked without a cluster; and the job's worker (worker.py --job) grades with the
database unreadable and any SQLite connection an error, leaving its verdict in a file that the
Dispatcher records. The real cluster's test: scripts/tests/service_slurm_e2e.py (CI, in
slurm_e2e.py).

    python3 -m unittest grader/tests/test_classroom_service_slurm.py     (from the repository root)
"""

import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
import types
import unittest
from unittest import mock

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from grader.classroom import base, service_slurm, store, worker  # noqa: E402

T0 = 1_800_000_000.0

# The fake Slurm: one script under four names; its jobs in $FAKE_SLURM (JSON):
# {"next": n, "jobs": {id: {"name", "state"[, "node"]}}, "ended": {id: JobState},
# "calls": [argv]}.
FAKE = r'''#!/usr/bin/env python3
import json, os, re, sys
path = os.environ["FAKE_SLURM"]
s = json.load(open(path))
me = os.path.basename(sys.argv[0])
s["calls"].append([me] + sys.argv[1:])
out = ""
if me == "squeue":
    out = "".join("%s|%s|%s|%s\n" % (i, j["name"], j["state"], j.get("node", ""))
                  for i, j in s["jobs"].items())
elif me == "sbatch":
    script = open(sys.argv[-1]).read()
    name = re.search(r"^#SBATCH --job-name=(\S+)", script, re.M).group(1)
    i = str(s["next"])
    s["next"] += 1
    s["jobs"][i] = {"name": name, "state": "PENDING"}
    out = i + "\n"
elif me == "scancel":
    s["ended"][sys.argv[1]] = "CANCELLED"
    s["jobs"].pop(sys.argv[1], None)
elif me == "scontrol":
    state = s["ended"].get(sys.argv[-1])
    if state is None:
        sys.exit(1)
    out = "JobId=%s JobName=x\n   JobState=%s Reason=None\n" % (sys.argv[-1], state)
json.dump(s, open(path, "w"))
sys.stdout.write(out)
'''


class SlurmFixture(unittest.TestCase):
    """DIR with one student, and the fake Slurm on PATH."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.data = os.path.join(self.tmp.name, "data")
        worker.prepare_data_dir(self.data)
        self.conn = store.connect(worker.db_path(self.data))
        store.upsert_student(self.conn, "alice", "Alice", now=T0)
        bin_dir = os.path.join(self.tmp.name, "bin")
        os.makedirs(bin_dir)
        with open(os.path.join(bin_dir, "fake"), "w") as f:
            f.write(FAKE)
        os.chmod(os.path.join(bin_dir, "fake"), 0o755)
        for name in ("squeue", "sbatch", "scancel", "scontrol"):
            os.symlink("fake", os.path.join(bin_dir, name))
        self.state = os.path.join(self.tmp.name, "slurm.json")
        self.save({"next": 1, "jobs": {}, "ended": {}, "calls": []})
        self.env = dict(os.environ)
        os.environ["FAKE_SLURM"] = self.state
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ["PATH"]
        self.dispatchers = []

    def tearDown(self):
        os.environ.clear()
        os.environ.update(self.env)
        for d in self.dispatchers:
            d.lock.close()
            d.conn.close()
        self.conn.close()
        os.chmod(worker.db_path(self.data), 0o600)  # (a test made it unreadable)
        self.tmp.cleanup()

    def load(self):
        with open(self.state) as f:
            return json.load(f)

    def save(self, s):
        with open(self.state, "w") as f:
            json.dump(s, f)

    def dispatcher(self, **options):
        args = dict(preset="ci", lab_timeout=5, lease=15, work=None, allow_uncounted=False,
                    partition=None, max_jobs=0, time=None, slurm_retries=1)
        args.update(options)
        d = service_slurm.Dispatcher(self.data, types.SimpleNamespace(**args))
        self.dispatchers.append(d)
        return d

    def add(self, key="k"):
        return store.add_submission(self.conn, "alice", ["01"], key,
                                    lambda i: "uploads/%d.tar.gz" % i, now=T0)

    def row(self, sub_id):
        return store.get_submission(self.conn, sub_id)

    def sbatches(self):
        return [c for c in self.load()["calls"] if c[0] == "sbatch"]

    def end(self, job, state):
        s = self.load()
        s["jobs"].pop(job, None)
        s["ended"][job] = state
        self.save(s)

    # -----------------------------------------------------------------------------------------

    def run_state(self, job, state, node="node7"):
        s = self.load()
        s["jobs"][job].update(state=state, node=node)
        self.save(s)

    def leave(self, sub, job, points=5):
        """What job JOB's worker leaves for SUB: its tmp folder and its verdict file."""
        tmp = os.path.join(self.data, "submissions", "%d.tmp-%s" % (sub, job))
        os.makedirs(tmp, exist_ok=True)
        with open(os.path.join(tmp, "console.log"), "w") as f:
            f.write("graded by %s\n" % job)
        worker.write_verdict(self.data, sub, job, {"worker": "node7:1 (Slurm job %s)" % job,
                                                   "result": {"points": points, "max_points": 10,
                                                              "exit_code": 1, "error": None,
                                                              "lab_points": {"01": [points, 10]}}})
        return tmp

    def console(self, sub):
        with open(os.path.join(self.data, "submissions", str(sub), "console.log")) as f:
            return f.read()



class DispatcherTest(SlurmFixture):
    def test_each_queued_submission_becomes_a_job_within_max_jobs(self):
        d = self.dispatcher(max_jobs=2, partition="gpu")
        ids = [self.add("k%d" % i) for i in range(3)]
        self.assertEqual(d.step(), 2)
        self.assertEqual([self.row(i)["slurm_job"] for i in ids], ["1", "2", None])
        with open(os.path.join(self.data, "slurm", "%d.sbatch" % ids[0])) as f:
            script = f.read()
        self.assertIn("#SBATCH --job-name=%s%d\n" % (d.prefix, ids[0]), script)
        self.assertIn("#SBATCH --gres=gpu:1\n", script)
        self.assertIn("#SBATCH --time=75\n", script)
        self.assertIn("#SBATCH --partition=gpu\n", script)
        self.assertIn("-m grader.classroom.worker --data %s --job %d" % (self.data, ids[0]), script)
        # What the job's worker grades, in a file: it does not read the database.
        with open(worker.job_path(self.data, ids[0])) as f:
            self.assertEqual(json.load(f), {"id": ids[0], "student": "alice", "labs": "01",
                                            "upload": "uploads/%d.tar.gz" % ids[0]})
        # Claimed by the service for the job: the job's id owns the lease.
        row = self.row(ids[0])
        self.assertEqual((row["state"], row["lease_owner"], row["worker"], row["attempts"]),
                         ("running", "1", "Slurm job 1 (waiting)", 1))
        self.assertEqual(self.row(ids[2])["state"], "queued")
        # The jobs go on; nothing is submitted twice, however often it looks.
        self.assertEqual(d.step(), 2)
        self.assertEqual(len(self.sbatches()), 2)

    def test_the_lease_is_kept_while_squeue_lists_the_job_and_a_running_job_is_a_worker(self):
        d = self.dispatcher()
        sub = self.add()
        d.step()
        conn = self.conn
        conn.execute("UPDATE submissions SET lease_until = 0 WHERE id = ?", (sub,))
        d.step()  # PENDING: the lease is kept, nothing else
        row = self.row(sub)
        self.assertGreater(row["lease_until"], time.time())
        self.assertEqual(row["worker"], "Slurm job 1 (waiting)")
        self.assertEqual(store.list_workers(conn), [])
        self.run_state("1", "RUNNING")
        d.step()
        row = self.row(sub)
        self.assertEqual(row["worker"], "node7 (Slurm job 1)")
        self.assertEqual([(w["name"], w["state"], w["submission"]) for w in
                          store.list_workers(conn)], [("node7 (Slurm job 1)", "grading", sub)])
        started = row["started_at"]
        d.step()
        self.assertEqual(self.row(sub)["started_at"], started)  # once
        self.leave(sub, "1")
        d.collect()
        self.assertEqual(self.row(sub)["state"], "done")
        self.assertEqual(store.list_workers(conn), [])

    def test_the_jobs_verdict_is_recorded_by_the_service_exactly_once(self):
        d = self.dispatcher()
        sub = self.add()
        d.step()
        tmp = self.leave(sub, "1")
        d.step()  # the job is still listed (it is ending): its verdict is recorded all the same
        row = self.row(sub)
        self.assertEqual((row["state"], row["points"], row["slurm_job"], row["slurm_failed"]),
                         ("done", 5, "1", None))
        self.assertEqual(store.decode(row, "lab_points"), {"01": [5, 10]})
        self.assertEqual([(g["owner"], g["outcome"]) for g in store.gradings(self.conn, sub)],
                         [("1", "done")])
        self.assertFalse(os.path.exists(tmp))
        self.assertEqual(self.console(sub), "graded by 1\n")
        self.assertEqual(os.listdir(worker.done_dir(self.data)), [])
        self.end("1", "COMPLETED")
        d.step()
        d.step()
        self.assertEqual(self.row(sub)["points"], 5)
        self.assertEqual(len(self.sbatches()), 1)

    def test_a_restart_adopts_the_jobs_and_a_job_submitted_but_not_recorded(self):
        d = self.dispatcher()
        a, b, c, e = self.add("a"), self.add("b"), self.add("c"), self.add("e")
        d.step()
        self.assertEqual(len(self.sbatches()), 4)

        def unclaimed(sub):  # as if the service was killed while sbatch ran for SUB
            self.conn.execute("UPDATE submissions SET state = 'queued', lease_owner = NULL, "
                              "lease_until = NULL, attempts = 0, slurm_job = ? WHERE id = ?",
                              (store.SUBMITTING, sub))
            self.conn.execute("DELETE FROM gradings WHERE submission = ?", (sub,))
        unclaimed(c)
        # ... and E's job (4) ended while the service was down, its verdict left in DIR.
        unclaimed(e)
        self.leave(e, "4", points=7)
        self.end("4", "COMPLETED")
        # ... and B's job (2) too, long enough ago for its lease to have passed.
        self.leave(b, "2", points=3)
        self.end("2", "COMPLETED")
        self.conn.execute("UPDATE submissions SET lease_until = 0 WHERE id = ?", (b,))
        d.lock.close()
        d2 = self.dispatcher()
        self.assertEqual(d2.step(), 2)
        self.assertEqual(len(self.sbatches()), 4)
        self.assertEqual([self.row(i)["slurm_job"] for i in (a, b, c, e)], ["1", "2", "3", "4"])
        self.assertEqual([self.row(i)["lease_owner"] for i in (a, c)], ["1", "3"])
        self.assertEqual([(self.row(i)["state"], self.row(i)["points"]) for i in (b, e)],
                         [("done", 3), ("done", 7)])
        self.assertEqual(self.console(e), "graded by 4\n")
        # Killed before sbatch ran: no job by that name, so it is submitted (once).
        self.end("3", "CANCELLED")
        store.requeue_slurm(self.conn, c, "3", "x", worker.slurm_suffix("3"))
        store.set_slurm_job(self.conn, c, store.SUBMITTING, None)
        self.assertEqual(d2.step(), 2)
        self.assertEqual(len(self.sbatches()), 5)
        self.assertEqual(self.row(c)["slurm_job"], "5")

    def test_a_second_dispatcher_on_the_same_folder_is_refused(self):
        self.dispatcher()
        with self.assertRaisesRegex(service_slurm.UsageError, "another ./cudalab serve --slurm"):
            self.dispatcher()

    def test_a_job_that_ends_without_a_verdict_is_submitted_again_once_then_failed(self):
        d = self.dispatcher()
        sub = self.add()
        d.step()
        self.run_state("1", "RUNNING")
        d.step()
        # Its worker was grading, then Slurm kills the job (time limit), leaving its tmp folder.
        tmp = os.path.join(self.data, "submissions", "%d.tmp-1" % sub)
        os.makedirs(tmp)
        self.end("1", "TIMEOUT")
        d.step()  # gone: one more look, for a verdict that shows late
        self.assertEqual(self.row(sub)["slurm_job"], "1")
        d.step()
        row = self.row(sub)
        self.assertEqual((row["state"], row["slurm_job"], row["lease_owner"]),
                         ("running", "2", "2"))
        self.assertEqual(json.loads(row["slurm_failed"]), [["1", "time limit"]])
        self.assertEqual([g["outcome"] for g in store.gradings(self.conn, sub)], ["lost", None])
        self.assertFalse(os.path.exists(tmp))
        self.assertEqual(store.list_workers(self.conn), [])
        # The second job is cancelled before it starts: no second try.
        self.end("2", "CANCELLED")
        d.step()
        d.step()
        row = self.row(sub)
        self.assertEqual(row["state"], "done")
        self.assertEqual(row["exit_code"], 1)
        self.assertEqual(row["error"], "not graded: its 2 Slurm jobs ended before grading "
                         "finished (job 1: time limit; job 2: cancelled)")
        self.assertEqual([g["outcome"] for g in store.gradings(self.conn, sub)],
                         ["lost", "lost", "done"])
        self.assertEqual(self.console(sub), row["error"] + "\n")
        d.step()  # once: nothing more
        self.assertEqual(len(self.sbatches()), 2)
        self.assertEqual(len(store.gradings(self.conn, sub)), 3)

    def test_no_retry_when_told_so_and_how_a_job_ended_from_its_log(self):
        d = self.dispatcher(slurm_retries=0)
        sub = self.add()
        d.step()
        with open(d.log_path(sub, "1"), "w") as f:
            f.write("slurmstepd: error: *** JOB 1 ON vm CANCELLED AT 2026-11-28T10:00:00 DUE TO "
                    "NODE FAILURE ***\n")
        s = self.load()
        s["jobs"].pop("1")  # gone, and scontrol no longer knows it (MinJobAge)
        self.save(s)
        d.step()
        d.step()
        self.assertEqual(self.row(sub)["error"], "not graded: its Slurm job ended before grading "
                         "finished (job 1: node failure)")

    def test_a_verdict_of_a_job_that_lost_its_submission_is_discarded(self):
        d = self.dispatcher()
        sub = self.add()
        d.step()
        # The service was down past the lease, and a worker started by hand took it over.
        job, _ = store.claim_id(self.conn, sub, "hand", "laptop:7", now=time.time() + 3600)
        self.assertEqual(job["lease_owner"], "hand")
        tmp = self.leave(sub, "1")
        d.step()
        row = self.row(sub)
        self.assertEqual((row["state"], row["lease_owner"]), ("running", "hand"))
        self.assertFalse(os.path.exists(tmp))
        self.assertEqual(os.listdir(worker.done_dir(self.data)), [])
        # Its job gone, the hand-started worker's lease is not taken.
        self.end("1", "COMPLETED")
        d.step()
        d.step()
        row = self.row(sub)
        self.assertEqual((row["state"], row["lease_owner"], row["slurm_job"]),
                         ("running", "hand", None))
        self.assertEqual(len(self.sbatches()), 1)

    def test_a_service_stopped_between_the_verdict_and_the_rename_renames_at_its_start(self):
        d = self.dispatcher()
        sub = self.add()
        d.step()
        tmp = self.leave(sub, "1")
        self.assertTrue(store.finish(self.conn, sub, "1", {"points": 5}))  # then killed
        d.lock.close()
        self.dispatcher().step()
        self.assertFalse(os.path.exists(tmp))
        self.assertEqual(self.console(sub), "graded by 1\n")
        self.assertEqual(os.listdir(worker.done_dir(self.data)), [])

    def test_a_waiting_job_for_a_submission_that_has_another_is_cancelled(self):
        d = self.dispatcher()
        sub = self.add()
        d.step()
        s = self.load()
        s["jobs"]["9"] = {"name": "%s%d" % (d.prefix, sub), "state": "PENDING"}
        s["jobs"]["10"] = {"name": "someone-elses-job", "state": "PENDING"}
        self.save(s)
        d.step()
        cancels = [c for c in self.load()["calls"] if c[0] == "scancel"]
        self.assertEqual(cancels, [["scancel", "9"]])

    def test_squeue_failing_concludes_nothing(self):
        d = self.dispatcher()
        sub = self.add()
        d.step()
        os.remove(self.state)  # the fake fails: no answer
        self.assertIsNone(d.step())
        self.save({"next": 2, "jobs": {"1": {"name": "%s%d" % (d.prefix, sub),
                                             "state": "RUNNING"}}, "ended": {}, "calls": []})
        self.assertEqual(d.step(), 1)
        self.assertEqual(self.row(sub)["slurm_job"], "1")


class JobWorkerTest(SlurmFixture):
    """The job's worker (worker.py --job) never opens the database: it grades with the database
    file unreadable and every SQLite connection an error, and leaves its verdict in a file that
    the service records."""

    def setUp(self):
        super().setUp()
        self.sub = store.add_submission(self.conn, "alice", ["01"], "k",
                                        lambda i: "uploads/%d" % i, now=T0)
        upload = os.path.join(self.data, "uploads", str(self.sub))
        os.makedirs(upload)
        with open(os.path.join(upload, "notes.txt"), "w") as f:
            f.write("hello\n")
        worker.ensure_seed(self.data)
        self.d = self.dispatcher()
        self.d.step()  # job 1, claimed for it by the service

    def no_database(self):
        """The database unreadable, and any SQLite connection an error, while it is in force."""
        os.chmod(worker.db_path(self.data), 0)

        def refused(*a, **kw):
            raise AssertionError("the job's worker opened a database: %s" % (a,))
        return mock.patch.multiple(worker.store.sqlite3, connect=refused)

    def test_the_jobs_worker_grades_without_the_database(self):
        class FakeWorker:
            def __init__(self, folder, gpu, args, labs):
                self.gpu, self.name, self.tree, self.dir = gpu, "w", folder, folder
                self.labs = labs

            def prepare(self):
                pass

        def grade(w, shim, item, more):  # what the grade command leaves in the student's folder
            base.write_json(os.path.join(shim.folder, "report.json"), {
                "points": 4, "max_points": 10, "failed": True, "labs": [
                    {"lab": "01", "points": 4, "max_points": 10,
                     "checks": [{"check": "edge cases", "status": "failed"}]}]})
            with open(os.path.join(shim.folder, "grade.log"), "w") as f:
                f.write("lab 01: 4/10\n")
            return {"build_seconds": 1.5, "grade_seconds": 0.5, "compiled": {}}

        args = worker.parse(["--data", self.data, "--job", str(self.sub), "--gpu", "0",
                             "--owner", "1", "--work", os.path.join(self.tmp.name, "work")])
        with self.no_database(), \
                mock.patch.object(worker.workers, "claim_worker_folder",
                                  lambda work: (os.path.join(work, "w0"), None)), \
                mock.patch.object(worker.workers, "Worker", FakeWorker), \
                mock.patch.object(worker.grading, "grade_submission", grade):
            g = worker.Grader(args)
            self.assertIsNone(g.conn)
            self.assertEqual(g.run_job(), 0)
        with open(worker.verdict_path(self.data, self.sub, "1")) as f:
            left = json.load(f)
        self.assertEqual((left["result"]["points"], left["result"]["failed_checks"]),
                         (4, ["01: edge cases"]))
        self.assertEqual(self.row(self.sub)["state"], "running")  # the service records it:
        self.d.collect()
        row = self.row(self.sub)
        self.assertEqual((row["state"], row["points"], row["build_seconds"], row["gpu"]),
                         ("done", 4, 1.5, "0"))
        self.assertEqual(self.console(self.sub), "lab 01: 4/10\n")

    def test_the_jobs_worker_command_opens_no_database(self):
        """python3 -m grader.classroom.worker --job, as the job runs it (given no GPU: its
        verdict says so), under an audit hook of the test's that records any SQLite connection
        or opening of the database's files."""
        seen = os.path.join(self.tmp.name, "opened.txt")
        code = ("import os, runpy, sys\n"
                "def hook(event, args):\n"
                "    if event == 'sqlite3.connect' or (event == 'open' and isinstance(args[0], str)"
                " and 'service.sqlite' in args[0]):\n"
                "        open(%r, 'a').write('%%s %%s\\n' %% (event, args[0]))\n"
                "sys.addaudithook(hook)\n"
                "sys.argv = ['worker'] + sys.argv[1:]\n"
                "runpy.run_module('grader.classroom.worker', run_name='__main__')\n" % seen)
        env = dict(os.environ, SLURM_JOB_ID="1", PYTHONPATH=ROOT)
        env.pop("CUDA_VISIBLE_DEVICES", None)
        os.chmod(worker.db_path(self.data), 0)
        r = subprocess.run([sys.executable, "-c", code, "--data", self.data, "--job",
                            str(self.sub)], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("given no GPU", r.stdout + r.stderr)
        self.assertFalse(os.path.exists(seen), open(seen).read() if os.path.exists(seen) else "")
        os.chmod(worker.db_path(self.data), 0o600)
        self.d.collect()
        row = self.row(self.sub)
        self.assertEqual((row["state"], row["exit_code"]), ("done", 1))
        self.assertTrue(row["error"].startswith("not graded: the Slurm job was given no GPU"))
        # Its own hook: the job's worker may not open a database at all.
        r = subprocess.run([sys.executable, "-c", "import sys; from grader.classroom import "
                            "worker, store; worker.forbid_database(sys.argv[1]); "
                            "store.connect(worker.db_path(sys.argv[1]))", self.data],
                           env=env, capture_output=True, text=True, timeout=60)
        self.assertIn("RuntimeError: a Slurm job's worker does not open the service's database",
                      r.stderr)


class StoreSlurmTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "service.sqlite")

    def tearDown(self):
        self.tmp.cleanup()

    def test_a_database_made_before_gets_the_slurm_columns(self):
        old = sqlite3.connect(self.path)
        old.executescript(store.SCHEMA.replace(
            "    gpu TEXT,\n    slurm_job TEXT,", "    gpu TEXT,\n    x TEXT,").replace(
            "    slurm_failed TEXT", "    y TEXT"))
        old.close()
        conn = store.connect(self.path)
        columns = {r[1] for r in conn.execute("PRAGMA table_info(submissions)")}
        self.assertTrue({"slurm_job", "slurm_failed"} <= columns)
        conn.close()
        store.connect(self.path).close()  # again: nothing to add

    def test_claim_id_claims_only_that_submission(self):
        conn = store.connect(self.path)
        store.upsert_student(conn, "a", "A", now=T0)
        ids = [store.add_submission(conn, "a", ["01"], "k", lambda i: "u/%d" % i, now=T0)
               for _ in range(2)]
        job, why = store.claim_id(conn, ids[1], "o1", "w", now=T0)
        self.assertEqual((job["id"], why), (ids[1], None))
        self.assertEqual(store.claim_id(conn, ids[1], "o2", "w", now=T0 + 1), (None, "running"))
        self.assertEqual(store.get_submission(conn, ids[0])["state"], "queued")
        job, why = store.claim_id(conn, ids[1], "o2", "w", now=T0 + store.LEASE_S + 1)
        self.assertEqual(job["lease_owner"], "o2")  # its lease passed: taken over
        self.assertTrue(store.finish(conn, ids[1], "o2", {"points": 1}, now=T0 + 70))
        self.assertEqual(store.claim_id(conn, ids[1], "o3", "w"), (None, "done"))
        self.assertEqual(store.claim_id(conn, 99, "o3", "w"), (None, "missing"))
        conn.close()


if __name__ == "__main__":
    unittest.main()
