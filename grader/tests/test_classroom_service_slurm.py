"""Unit tests of the grading service's Slurm backend (grader/classroom/service_slurm.py and the
store's Slurm columns): a fake squeue, sbatch, scontrol and scancel on PATH keep their jobs in a
JSON file, so that what the Dispatcher submits, adopts, requeues, fails and cancels is checked
without a cluster. The real cluster's test: scripts/tests/service_slurm_e2e.py (CI, in
slurm_e2e.py).

    python3 -m unittest grader/tests/test_classroom_service_slurm.py     (from the repository root)
"""

import json
import os
import sqlite3
import sys
import tempfile
import types
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from grader.classroom import service_slurm, store, worker  # noqa: E402

T0 = 1_800_000_000.0

# The fake Slurm: one script under four names; its jobs in $FAKE_SLURM (JSON):
# {"next": n, "jobs": {id: {"name", "state"}}, "ended": {id: JobState}, "calls": [argv]}.
FAKE = r'''#!/usr/bin/env python3
import json, os, re, sys
path = os.environ["FAKE_SLURM"]
s = json.load(open(path))
me = os.path.basename(sys.argv[0])
s["calls"].append([me] + sys.argv[1:])
out = ""
if me == "squeue":
    out = "".join("%s|%s|%s\n" % (i, j["name"], j["state"]) for i, j in s["jobs"].items())
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


class DispatcherTest(unittest.TestCase):
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
        # The jobs go on; nothing is submitted twice, however often it looks.
        self.assertEqual(d.step(), 2)
        self.assertEqual(len(self.sbatches()), 2)

    def test_a_restart_adopts_the_jobs_and_a_job_submitted_but_not_recorded(self):
        d = self.dispatcher()
        a, b, c = self.add("a"), self.add("b"), self.add("c")
        d.step()
        self.assertEqual(len(self.sbatches()), 3)
        # Killed while sbatch ran for c: its job exists, the row says 'submitting'.
        store.set_slurm_job(self.conn, c, store.SUBMITTING, "3")
        d.lock.close()
        d2 = self.dispatcher()
        self.assertEqual(d2.step(), 3)
        self.assertEqual(len(self.sbatches()), 3)
        self.assertEqual([self.row(i)["slurm_job"] for i in (a, b, c)], ["1", "2", "3"])
        # Killed before sbatch ran: no job by that name, so it is submitted (once).
        self.end("3", "CANCELLED")
        store.requeue_slurm(self.conn, c, "3", "x", worker.slurm_suffix("3"))
        store.set_slurm_job(self.conn, c, store.SUBMITTING, None)
        self.assertEqual(d2.step(), 3)
        self.assertEqual(len(self.sbatches()), 4)
        self.assertEqual(self.row(c)["slurm_job"], "4")

    def test_a_second_dispatcher_on_the_same_folder_is_refused(self):
        self.dispatcher()
        with self.assertRaisesRegex(service_slurm.UsageError, "another ./cudalab serve --slurm"):
            self.dispatcher()

    def test_a_job_that_ends_without_a_verdict_is_submitted_again_once_then_failed(self):
        d = self.dispatcher()
        sub = self.add()
        d.step()
        # Its worker claims it, then Slurm kills the job (time limit): the lease is still on.
        job, _ = store.claim_id(self.conn, sub, "owner-1",
                                "node:42 " + worker.slurm_suffix("1"))
        self.assertIsNotNone(job)
        self.end("1", "TIMEOUT")
        d.step()
        row = self.row(sub)
        self.assertEqual((row["state"], row["slurm_job"]), ("queued", "2"))
        self.assertEqual(json.loads(row["slurm_failed"]), [["1", "time limit"]])
        self.assertEqual([g["outcome"] for g in store.gradings(self.conn, sub)], ["lost"])
        # The second job is cancelled before it starts: no second try.
        self.end("2", "CANCELLED")
        d.step()
        row = self.row(sub)
        self.assertEqual(row["state"], "done")
        self.assertEqual(row["exit_code"], 1)
        self.assertEqual(row["error"], "not graded: its 2 Slurm jobs ended before grading "
                         "finished (job 1: time limit; job 2: cancelled)")
        self.assertEqual([g["outcome"] for g in store.gradings(self.conn, sub)], ["lost", "done"])
        with open(os.path.join(self.data, "submissions", str(sub), "console.log")) as f:
            self.assertEqual(f.read(), row["error"] + "\n")
        d.step()  # once: nothing more
        self.assertEqual(len(self.sbatches()), 2)
        self.assertEqual(len(store.gradings(self.conn, sub)), 2)

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
        self.assertEqual(self.row(sub)["error"], "not graded: its Slurm job ended before grading "
                         "finished (job 1: node failure)")

    def test_a_verdict_recorded_by_the_job_is_left_alone(self):
        d = self.dispatcher()
        sub = self.add()
        d.step()
        job, _ = store.claim_id(self.conn, sub, "o", "n:1 " + worker.slurm_suffix("1"))
        self.assertTrue(store.finish(self.conn, sub, "o", {"points": 5, "max_points": 10,
                                                          "exit_code": 1, "error": None}))
        self.end("1", "COMPLETED")
        d.step()
        row = self.row(sub)
        self.assertEqual((row["state"], row["points"], row["slurm_failed"]), ("done", 5, None))
        self.assertEqual(len(self.sbatches()), 1)

    def test_a_hand_started_workers_lease_is_not_taken(self):
        d = self.dispatcher()
        sub = self.add()
        d.step()
        store.claim_id(self.conn, sub, "hand", "laptop:7")  # not the job's worker
        self.end("1", "CANCELLED")
        d.step()
        row = self.row(sub)
        self.assertEqual((row["state"], row["lease_owner"], row["slurm_job"]),
                         ("running", "hand", None))
        self.assertEqual(len(self.sbatches()), 1)

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
