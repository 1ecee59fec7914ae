"""Unit tests of the class service's store (grader/classroom/store.py), the roster's parsing, the
per-lab deadlines and which submission counts (deadlines.py), and the leaderboard's ranking and
opt-in naming (leaderboard.py): no network, no build, a database in a temporary folder.

    python3 -m unittest grader/tests/test_classroom_store.py     (from the repository root)

The store's and the roster's tests run on SQLite and again on PostgreSQL (the Postgres* classes):
on the server at $CUDALAB_TEST_POSTGRESQL (a postgresql:// URL of a database they may empty),
else on a throwaway cluster they start in a temporary folder with Debian's postgresql package
(initdb, pg_ctl; as the postgres user when run as root) and stop at the end. Without a server,
nor psycopg2, those tests are SKIPPED and say why (scripts/setup postgresql installs both).
"""

import glob
import os
import pwd
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from grader.classroom import deadlines, leaderboard, roster, store  # noqa: E402

T0 = 1_800_000_000.0  # the tests' clock


class Postgres:
    """The PostgreSQL server of the tests: url() (started at its first call), or SkipTest."""
    started = None  # (url, cluster folder, pg_ctl, user) or the reason there is none

    @classmethod
    def url(cls):
        if cls.started is None:
            try:
                cls.started = cls.start()
            except Exception as e:  # no server: the tests say why they skip
                cls.started = "no PostgreSQL server could be started (%s)" % e
        if isinstance(cls.started, str):
            raise unittest.SkipTest(cls.started)
        return cls.started[0]

    @staticmethod
    def start():
        try:
            import psycopg2  # noqa: F401
        except ImportError:
            raise RuntimeError("no psycopg2: scripts/setup postgresql") from None
        given = os.environ.get("CUDALAB_TEST_POSTGRESQL")
        if given:
            return (given, None, None, None)
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not found:
            raise RuntimeError("no initdb: scripts/setup postgresql")
        bindir = os.path.dirname(found[-1])
        folder = tempfile.mkdtemp(prefix="cudalab-pg-")
        os.chmod(folder, 0o755)
        as_user = []
        if os.geteuid() == 0:  # initdb refuses root: the cluster is the postgres user's
            entry = pwd.getpwnam("postgres")
            os.chown(folder, entry.pw_uid, entry.pw_gid)
            runuser = shutil.which("runuser", path=os.environ.get("PATH", "") +
                                   ":/usr/sbin:/sbin") or "runuser"
            as_user = [runuser, "-u", "postgres", "--"]

        def run(*args):
            cmd = as_user + list(args)
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=60)

        data = os.path.join(folder, "data")
        try:
            run(os.path.join(bindir, "initdb"), "-D", data, "-A", "trust", "-U", "postgres",
                "--no-sync")
            run(os.path.join(bindir, "pg_ctl"), "-D", data, "-w", "-l",
                os.path.join(folder, "log"), "-o",
                "-c listen_addresses='' -k %s -c fsync=off" % folder, "start")
        except subprocess.CalledProcessError as e:
            shutil.rmtree(folder, ignore_errors=True)
            raise RuntimeError(e.stderr.decode(errors="replace").strip()[-300:]) from None
        return ("postgresql:///postgres?host=%s&user=postgres" % folder, folder,
                os.path.join(bindir, "pg_ctl"), as_user)

    @classmethod
    def empty(cls):
        """A URL of the database, its tables dropped."""
        url = cls.url()
        import psycopg2
        conn = psycopg2.connect(url)
        conn.autocommit = True
        conn.cursor().execute("DROP TABLE IF EXISTS students, tokens, submissions, gradings, "
                              "leaderboard, settings, workers CASCADE")
        conn.close()
        return url

    @classmethod
    def stop(cls):
        if isinstance(cls.started, tuple) and cls.started[1]:
            _, folder, pg_ctl, as_user = cls.started
            subprocess.run(as_user + [pg_ctl, "-D", os.path.join(folder, "data"), "-w", "-m",
                                      "fast", "stop"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(20):  # (the server removes its socket's files as it ends)
                shutil.rmtree(folder, ignore_errors=True)
                if not os.path.exists(folder):
                    break
                time.sleep(0.1)
        cls.started = None


def tearDownModule():
    Postgres.stop()


class StoreTest(unittest.TestCase):
    postgres = False

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "service.sqlite")
        if getattr(self, "postgres", False):
            self.path = Postgres.empty()
        self.conn = store.connect(self.path)
        for sid in ("alice", "bob"):
            store.upsert_student(self.conn, sid, sid.title(), now=T0)

    def tearDown(self):
        self.conn.close()
        self.tmp.cleanup()

    def add(self, student="alice", labs=("01",), key="k", now=T0, **limits):
        placed = []

        def place(sub_id):
            placed.append(sub_id)
            return "uploads/%d.tar.gz" % sub_id

        sub_id = store.add_submission(self.conn, student, list(labs), key, place, now=now, **limits)
        self.assertEqual(placed, [sub_id])
        return sub_id

    # -- tokens --------------------------------------------------------------------------------

    def test_tokens_are_stored_as_sha256_only(self):
        token = store.new_token()
        self.assertGreaterEqual(len(token), 32)
        store.set_student_token(self.conn, "alice", token, now=T0)
        rows = self.conn.execute("SELECT hash FROM tokens").fetchall()
        self.assertEqual([r["hash"] for r in rows], [store.hash_token(token)])
        self.assertRegex(rows[0]["hash"], r"^[0-9a-f]{64}$")
        if not self.postgres:  # The token itself is nowhere in the database file.
            self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            with open(self.path, "rb") as f:
                self.assertNotIn(token.encode(), f.read())
        self.assertEqual(store.authenticate(self.conn, token),
                         {"student": "alice", "name": "Alice", "instructor": False})

    def test_unknown_empty_and_revoked_tokens(self):
        token = store.new_token()
        store.set_student_token(self.conn, "bob", token)
        self.assertIsNone(store.authenticate(self.conn, "nope"))
        self.assertIsNone(store.authenticate(self.conn, ""))
        self.assertTrue(store.revoke_student(self.conn, "bob"))
        self.assertIsNone(store.authenticate(self.conn, token))
        self.assertFalse(store.revoke_student(self.conn, "carol"))
        self.assertEqual(store.get_student(self.conn, "bob")["revoked"], 1)
        # A new token un-revokes.
        again = store.new_token()
        store.set_student_token(self.conn, "bob", again)
        self.assertEqual(store.authenticate(self.conn, again)["student"], "bob")

    def test_reissue_replaces_the_old_token(self):
        first, second = store.new_token(), store.new_token()
        store.set_student_token(self.conn, "alice", first)
        store.set_student_token(self.conn, "alice", second)
        self.assertIsNone(store.authenticate(self.conn, first))
        self.assertEqual(store.authenticate(self.conn, second)["student"], "alice")

    def test_instructor_token(self):
        first, second = store.new_token(), store.new_token()
        store.set_instructor_token(self.conn, first)
        self.assertEqual(store.authenticate(self.conn, first),
                         {"student": None, "name": "instructor", "instructor": True})
        self.assertTrue(store.is_instructor_token(self.conn, first))
        store.set_instructor_token(self.conn, second)
        self.assertIsNone(store.authenticate(self.conn, first))
        self.assertTrue(store.authenticate(self.conn, second)["instructor"])

    def test_ensure_instructor_token_file(self):
        data = os.path.join(self.tmp.name, "data")
        os.makedirs(data)
        path, made = roster.ensure_instructor_token(self.conn, data)
        self.assertTrue(made)
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o600)
        with open(path) as f:
            token = f.read().strip()
        self.assertTrue(store.authenticate(self.conn, token)["instructor"])
        # A second call keeps it; a new database learns its hash.
        self.assertEqual(roster.ensure_instructor_token(self.conn, data), (path, False))
        other = store.connect(os.path.join(self.tmp.name, "other.sqlite"))
        roster.ensure_instructor_token(other, data)
        self.assertTrue(store.authenticate(other, token)["instructor"])
        other.close()

    def test_upsert_student(self):
        self.assertFalse(store.upsert_student(self.conn, "alice", "Alice Liddell", "a@x"))
        self.assertEqual(store.get_student(self.conn, "alice")["name"], "Alice Liddell")
        self.assertTrue(store.upsert_student(self.conn, "carol", "Carol"))
        self.assertEqual([s["id"] for s in store.list_students(self.conn)],
                         ["alice", "bob", "carol"])

    # -- the queue -----------------------------------------------------------------------------

    def test_submissions_queue_in_order(self):
        a = self.add(now=T0)
        b = self.add("bob", ("01", "02"), now=T0 + 1)
        self.assertEqual((a, b), (1, 2))
        row = store.get_submission(self.conn, b)
        self.assertEqual((row["state"], row["labs"], row["upload"]), ("queued", "01,02",
                                                                       "uploads/2.tar.gz"))
        self.assertEqual(store.position(self.conn, store.get_submission(self.conn, a)), 1)
        self.assertEqual(store.position(self.conn, row), 2)
        self.assertEqual(store.counts(self.conn), {"queued": 2, "running": 0, "done": 0})
        self.assertEqual([r["id"] for r in store.list_submissions(self.conn)], [b, a])
        self.assertEqual([r["id"] for r in store.list_submissions(self.conn, "alice")], [a])

    def test_a_failed_place_leaves_no_row(self):
        def place(sub_id):
            raise OSError("disk full")

        with self.assertRaises(OSError):
            store.add_submission(self.conn, "alice", ["01"], "k", place)
        self.assertEqual(store.counts(self.conn)["queued"], 0)
        self.assertEqual(self.add(), 1)  # the id was not used

    def test_claim_lease_finish(self):
        a = self.add(now=T0)
        b = self.add(now=T0 + 1)
        job = store.claim(self.conn, "o1", "w1", now=T0 + 10)
        self.assertEqual(job["id"], a)
        self.assertEqual((job["state"], job["lease_owner"], job["attempts"]), ("running", "o1", 1))
        self.assertEqual(job["lease_until"], T0 + 10 + store.LEASE_S)
        self.assertEqual(store.position(self.conn, job), 0)
        self.assertEqual(store.position(self.conn, store.get_submission(self.conn, b)), 1)
        # The next claim takes the next job, not the leased one.
        job2 = store.claim(self.conn, "o2", "w2", now=T0 + 11)
        self.assertEqual(job2["id"], b)
        self.assertIsNone(store.claim(self.conn, "o3", "w3", now=T0 + 12))
        # Extending the lease keeps it past its first end.
        self.assertTrue(store.extend_lease(self.conn, a, "o1", now=T0 + 60))
        self.assertFalse(store.extend_lease(self.conn, a, "someone", now=T0 + 60))
        self.assertIsNone(store.claim(self.conn, "o3", "w3", now=T0 + 65))
        result = {"points": 40.0, "max_points": 100.0, "exit_code": 1, "error": None,
                  "lab_points": {"01": [40, 100]}, "failed_checks": ["01: edge cases"],
                  "build_seconds": 2.5, "grade_seconds": 7.5, "seed_hash": "s"}
        self.assertTrue(store.finish(self.conn, a, "o1", result, now=T0 + 110))
        row = store.get_submission(self.conn, a)
        self.assertEqual((row["state"], row["points"], row["exit_code"]), ("done", 40.0, 1))
        self.assertEqual(store.decode(row, "failed_checks"), ["01: edge cases"])
        self.assertEqual(store.decode(row, "lab_points"), {"01": [40, 100]})
        self.assertIsNone(store.position(self.conn, row))
        self.assertIsNone(store.eta_seconds(self.conn, row))
        # Finishing twice changes nothing.
        self.assertFalse(store.finish(self.conn, a, "o1", result, now=T0 + 111))
        self.assertEqual([g["outcome"] for g in store.gradings(self.conn, a)], ["done"])

    def test_expired_lease_is_claimed_again_and_the_first_owner_loses(self):
        a = self.add(now=T0)
        store.claim(self.conn, "dead", "w1", now=T0 + 1)
        # Before the lease passes nobody takes it; after, the next worker does.
        self.assertIsNone(store.claim(self.conn, "o2", "w2", now=T0 + 1 + store.LEASE_S - 1))
        job = store.claim(self.conn, "o2", "w2", now=T0 + 2 + store.LEASE_S)
        self.assertEqual((job["id"], job["lease_owner"], job["attempts"]), (a, "o2", 2))
        # The first owner comes back: its result is refused, its lease cannot be extended.
        self.assertFalse(store.extend_lease(self.conn, a, "dead", now=T0 + 70))
        self.assertFalse(store.finish(self.conn, a, "dead", {"points": 100.0}, now=T0 + 80))
        self.assertEqual(store.get_submission(self.conn, a)["state"], "running")
        self.assertTrue(store.finish(self.conn, a, "o2", {"points": 10.0, "exit_code": 1},
                                     now=T0 + 90))
        row = store.get_submission(self.conn, a)
        self.assertEqual((row["state"], row["points"], row["lease_owner"]), ("done", 10.0, "o2"))
        outcomes = [(g["owner"], g["attempt"], g["outcome"]) for g in store.gradings(self.conn, a)]
        self.assertEqual(outcomes, [("dead", 1, "lost"), ("o2", 2, "done")])

    def test_release_requeues_at_once(self):
        a = self.add(now=T0)
        store.claim(self.conn, "o1", "w1", now=T0 + 1)
        self.assertTrue(store.release(self.conn, a, "o1", now=T0 + 2))
        self.assertFalse(store.release(self.conn, a, "o1", now=T0 + 2))
        self.assertEqual(store.get_submission(self.conn, a)["state"], "queued")
        job = store.claim(self.conn, "o2", "w1", now=T0 + 3)
        self.assertEqual((job["id"], job["attempts"]), (a, 2))
        self.assertEqual([g["outcome"] for g in store.gradings(self.conn, a)], ["lost", None])

    def test_two_processes_never_claim_one_job(self):
        for i in range(20):
            self.add(now=T0 + i)
        claimed, errors = [], []

        def claimer(n):
            conn = store.connect(self.path)
            try:
                while True:
                    job = store.claim(conn, "owner-%d-%d" % (n, len(claimed)), "w%d" % n,
                                      now=T0 + 100)
                    if job is None:
                        return
                    claimed.append(job["id"])
            except Exception as e:  # pragma: no cover - the assertion shows it
                errors.append(e)
            finally:
                conn.close()

        threads = [threading.Thread(target=claimer, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(sorted(claimed), list(range(1, 21)))

    def test_reuse_needs_same_key_same_seed_and_a_report(self):
        a = self.add(key="K", now=T0)
        store.claim(self.conn, "o1", "w", now=T0)
        store.finish(self.conn, a, "o1", {"points": 5.0, "max_points": 100.0, "seed_hash": "S",
                                          "exit_code": 1})
        b = self.add("bob", key="K", now=T0 + 1)
        self.assertEqual(store.find_reusable(self.conn, "K", "S", b)["id"], a)
        self.assertIsNone(store.find_reusable(self.conn, "K", "other seed", b))
        self.assertIsNone(store.find_reusable(self.conn, "other", "S", b))
        self.assertIsNone(store.find_reusable(self.conn, "K", "S", a))  # not itself
        store.claim(self.conn, "o2", "w", now=T0 + 2)
        self.assertTrue(store.finish(self.conn, b, "o2", {"points": 5.0, "reused_from": a,
                                                          "seed_hash": "S"}, outcome="reused"))
        self.assertEqual(store.gradings(self.conn, b)[0]["outcome"], "reused")
        # A grading error is not reused: it is graded again.
        c = self.add(key="E", now=T0 + 3)
        store.claim(self.conn, "o3", "w", now=T0 + 3)
        store.finish(self.conn, c, "o3", {"error": "grading error: x", "seed_hash": "S"})
        self.assertIsNone(store.find_reusable(self.conn, "E", "S", c + 1))

    def test_eta(self):
        self.assertEqual(store.mean_grading_seconds(self.conn), store.DEFAULT_GRADING_S)
        a = self.add(now=T0)
        b = self.add(now=T0 + 1)
        c = self.add(now=T0 + 2)
        store.claim(self.conn, "o1", "w", now=T0 + 10)
        store.finish(self.conn, a, "o1", {"points": 1.0, "build_seconds": 4.0,
                                          "grade_seconds": 6.0}, now=T0 + 20)  # 10 s
        store.claim(self.conn, "o2", "w", now=T0 + 20)
        store.finish(self.conn, b, "o2", {"points": 1.0, "build_seconds": 10.0,
                                          "grade_seconds": 20.0}, now=T0 + 80)  # 30 s
        self.assertEqual(store.mean_grading_seconds(self.conn), 20.0)
        d = self.add(now=T0 + 81)
        row = store.get_submission(self.conn, d)
        self.assertEqual(store.position(self.conn, row), 2)  # c runs first
        self.assertEqual(store.eta_seconds(self.conn, row, now=T0 + 82), 40)  # no worker: 1
        store.worker_seen(self.conn, "h:1", now=T0 + 82)
        store.worker_seen(self.conn, "h:2", now=T0 + 82)
        self.assertEqual(store.eta_seconds(self.conn, row, now=T0 + 83), 20)
        self.assertEqual(store.position(self.conn, store.get_submission(self.conn, c)), 1)
        # A reused result (no seconds) does not count.
        e = self.add(key="same", now=T0 + 84)
        store.claim(self.conn, "o3", "w", now=T0 + 85)
        store.claim(self.conn, "o4", "w", now=T0 + 85)
        store.finish(self.conn, e, "o4", {"points": 1.0, "reused_from": a}, outcome="reused",
                     now=T0 + 86)
        self.assertEqual(store.mean_grading_seconds(self.conn), 20.0)

    def test_workers_alive(self):
        store.worker_seen(self.conn, "h:1", pid=1, state="idle", now=T0)
        store.worker_seen(self.conn, "h:2", pid=2, state="grading", submission=3, now=T0 + 20)
        self.assertEqual(store.alive_workers(self.conn, now=T0 + 25), 2)
        self.assertEqual(store.alive_workers(self.conn, now=T0 + 35), 1)
        store.worker_seen(self.conn, "h:1", pid=1, state="idle", now=T0 + 36)
        self.assertEqual(store.alive_workers(self.conn, now=T0 + 40), 2)
        store.worker_gone(self.conn, "h:2")
        self.assertEqual([w["name"] for w in store.list_workers(self.conn, now=T0 + 40)], ["h:1"])

    # -- rate limits ---------------------------------------------------------------------------

    def test_per_hour_limit(self):
        for i in range(3):
            self.add(now=T0 + i, per_hour=3)
        with self.assertRaises(store.Limited) as caught:
            self.add(now=T0 + 10, per_hour=3)
        self.assertIn("3 submissions per hour", str(caught.exception))
        self.assertEqual(store.counts(self.conn)["queued"], 3)  # nothing was added
        self.add("bob", now=T0 + 10, per_hour=3)  # another student is not limited
        self.add(now=T0 + 3601, per_hour=3)  # an hour after the first, one slot is free

    def test_gpu_seconds_per_day_limit(self):
        a = self.add(now=T0)
        store.claim(self.conn, "o1", "w", now=T0)
        store.finish(self.conn, a, "o1", {"points": 1.0, "build_seconds": 60.0,
                                          "grade_seconds": 50.0}, now=T0 + 110)
        self.assertEqual(store.gpu_seconds_since(self.conn, "alice", T0 - 1), 110.0)
        self.assertEqual(store.gpu_seconds_since(self.conn, "bob", T0 - 1), 0)
        store.check_limits(self.conn, "alice", gpu_seconds_per_day=111, now=T0 + 200)
        with self.assertRaises(store.Limited) as caught:
            self.add(now=T0 + 200, gpu_seconds_per_day=110)
        self.assertIn("110 s of grading per day", str(caught.exception))
        # A day later it no longer counts.
        self.add(now=T0 + 86401, gpu_seconds_per_day=110)

    def test_lost_attempts_count_against_the_gpu_budget(self):
        a = self.add(now=T0)
        store.claim(self.conn, "o1", "w", now=T0)
        store.claim(self.conn, "o2", "w", now=T0 + 100)  # o1's lease passed
        store.finish(self.conn, a, "o1", {"build_seconds": 30.0, "grade_seconds": 30.0},
                     now=T0 + 101)
        store.finish(self.conn, a, "o2", {"build_seconds": 5.0, "grade_seconds": 5.0},
                     now=T0 + 120)
        self.assertEqual(store.gpu_seconds_since(self.conn, "alice", T0 - 1), 70.0)
        self.assertEqual([g["outcome"] for g in store.gradings(self.conn, a)], ["lost", "done"])

    def test_schema_is_idempotent_and_wal(self):
        again = store.connect(self.path)
        if not self.postgres:
            self.assertEqual(again.execute("PRAGMA journal_mode").fetchone()[0], "wal")
        again.close()
        errors = (sqlite3.IntegrityError,)
        if self.postgres:
            import psycopg2
            errors = (psycopg2.IntegrityError,)
        with self.assertRaises(errors):
            self.conn.execute("INSERT INTO submissions (id, student, labs, upload, key, state, "
                              "created_at) VALUES (1, 'alice', '01', 'u', 'k', 'lost', 0)")

    def test_times_keep_their_precision(self):
        sub_id = self.add(now=T0 + 0.125)
        self.assertEqual(store.get_submission(self.conn, sub_id)["created_at"], T0 + 0.125)

    def test_slurm_claims_are_conditional(self):
        a = self.add(now=T0)
        self.assertTrue(store.set_slurm_job(self.conn, a, store.SUBMITTING, None))
        self.assertFalse(store.set_slurm_job(self.conn, a, store.SUBMITTING, None))
        self.assertTrue(store.claim_for_job(self.conn, a, "101", "w", now=T0 + 1))
        self.assertFalse(store.claim_for_job(self.conn, a, "102", "w", now=T0 + 2))
        row = store.get_submission(self.conn, a)
        self.assertEqual((row["state"], row["lease_owner"], row["slurm_job"]),
                         ("running", "101", "101"))
        self.assertIsNone(store.claim(self.conn, "o", "w", now=T0 + 2))
        self.assertEqual(store.requeue_slurm(self.conn, a, "101", "node died", "(101)",
                                             now=T0 + 3), [["101", "node died"]])
        self.assertIsNone(store.requeue_slurm(self.conn, a, "101", "again", "(101)"))
        self.assertTrue(store.fail_slurm(self.conn, a, "every job failed", now=T0 + 4))
        self.assertFalse(store.fail_slurm(self.conn, a, "twice", now=T0 + 5))
        outcomes = [(g["owner"], g["outcome"]) for g in store.gradings(self.conn, a)]
        self.assertEqual(outcomes, [("101", "lost"), ("service", "done")])

    def test_settings_and_leaderboard_upserts(self):
        store.set_setting(self.conn, "deadlines_file", "/x")
        store.set_setting(self.conn, "deadlines_file", "/y 100%")
        self.assertEqual(store.get_setting(self.conn, "deadlines_file"), "/y 100%")
        store.set_leaderboard(self.conn, "alice", True)
        store.set_leaderboard(self.conn, "alice", False)
        self.assertFalse(store.opted_in(self.conn, "alice"))
        store.worker_seen(self.conn, "h:1", 1, "h", None, "idle", now=T0)
        store.worker_seen(self.conn, "h:1", 1, "h", None, "grading", 1, now=T0 + 5)
        self.assertEqual([w["state"] for w in store.list_workers(self.conn, now=T0 + 6)],
                         ["grading"])


class PostgresStoreTest(StoreTest):
    postgres = True


class RosterTest(unittest.TestCase):
    postgres = False

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, text):
        path = os.path.join(self.tmp.name, "roster.csv")
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_read_roster(self):
        path = self.write("name,id,email\nAlice A,alice,a@x\n\nBob,bob.b-2_x,\n")
        self.assertEqual(roster.read_roster(path),
                         [("alice", "Alice A", "a@x"), ("bob.b-2_x", "Bob", None)])

    def test_bad_rosters(self):
        for text, why in (("alice,Alice\n", "header"), ("id,name\n../x,X\n", "is not"),
                          ("id,name\n..,X\n", "is not"), ("id,name\n%s,X\n" % ("a" * 65), "is not"),
                          ("id,name\na,A\na,B\n", "line 2 too"), ("id,name\n", "no student"),
                          ("id,name\nal ice,A\n", "is not"), ("id,name\na,\n", "no name")):
            with self.assertRaises(roster.RosterError, msg=text) as caught:
                roster.read_roster(self.write(text))
            self.assertIn(why, str(caught.exception))

    def test_import_and_revoke(self):
        data = os.path.join(self.tmp.name, "data")
        target = os.path.join(data, "service.sqlite")
        if self.postgres:  # DIR/database.conf names the database, for every entry point
            target = Postgres.empty()
            os.makedirs(data)
            with open(os.path.join(data, store.CONF_NAME), "w") as f:
                f.write("# the service's database\n%s\n" % target)
        self.assertEqual(store.database(data), target)
        path = self.write("id,name\nalice,Alice\nbob,Bob\n")
        with open(os.devnull, "w") as quiet:
            roster.import_roster(data, path, out=quiet)
            tokens_files = [n for n in os.listdir(data) if n.startswith("tokens-")]
            self.assertEqual(len(tokens_files), 1)
            tokens_file = os.path.join(data, tokens_files[0])
            self.assertEqual(os.stat(tokens_file).st_mode & 0o777, 0o600)
            with open(tokens_file) as f:
                rows = [line.strip().split(",") for line in f][1:]
            self.assertEqual([r[:2] for r in rows], [["alice", "Alice"], ["bob", "Bob"]])
            conn = store.connect(target)
            self.assertEqual(store.authenticate(conn, rows[0][2])["student"], "alice")
            # Again with a new student: the others keep their token, one new file.
            roster.import_roster(data, self.write("id,name\nalice,Alice\nbob,Bob\ncarol,C\n"),
                                 out=quiet)
            self.assertEqual(store.authenticate(conn, rows[0][2])["student"], "alice")
            self.assertEqual(len([n for n in os.listdir(data) if n.startswith("tokens-")]), 2)
            roster.revoke(data, "bob", out=quiet)
            self.assertIsNone(store.authenticate(conn, rows[1][2]))
            with self.assertRaises(roster.RosterError):
                roster.revoke(data, "nobody", out=quiet)
            conn.close()
        self.assertTrue(os.path.exists(os.path.join(data, "instructor-token")))
        self.assertEqual(os.path.exists(os.path.join(data, "service.sqlite")), not self.postgres)


class PostgresRosterTest(RosterTest):
    postgres = True

    def test_read_roster(self):  # (no database)
        pass

    def test_bad_rosters(self):
        pass

    def test_a_database_conf_without_a_url(self):
        with open(os.path.join(self.tmp.name, store.CONF_NAME), "w") as f:
            f.write("# nothing\n/var/db.sqlite\n")
        with self.assertRaisesRegex(ValueError, "not a postgresql:// URL"):
            store.database(self.tmp.name)


# ---- Deadlines ---------------------------------------------------------------------------------

KNOWN = {"01": "labs/01-conv1d-basic/conv1d_basic.cu", "02": "labs/02-conv1d-tiled/conv1d_tiled.cu"}
DEADLINE_01 = 1796515140.0  # 2026-12-05T23:59:00Z


class DeadlinesTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "deadlines.csv")

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, text):
        with open(self.path, "w") as f:
            f.write(text)
        return self.path

    def test_a_file_of_deadlines(self):
        found = deadlines.read_deadlines(self.write(
            "lab,deadline\n# lab 01 first\n01,2026-12-05T23:59:00Z\n\n"
            "02-conv1d-tiled, 2026-12-06T00:59:00+01:00 \n"), KNOWN)
        self.assertEqual(found, {"01": DEADLINE_01, "02": DEADLINE_01})
        self.assertEqual(deadlines.iso(found["02"]), "2026-12-05T23:59:00Z")
        # No header, nothing but comments: fine.
        self.assertEqual(deadlines.parse_deadlines("01,2026-12-05T23:59:00Z\n", "f", KNOWN),
                         {"01": DEADLINE_01})
        self.assertEqual(deadlines.parse_deadlines("lab,deadline\n# none yet\n", "f", KNOWN), {})

    def test_malformed_files_are_one_line_naming_the_line(self):
        for text, why in (
                ("01,2026-12-05T23:59:00\n", "line 1: deadline '2026-12-05T23:59:00' has no "
                                             "timezone"),
                ("01,2026-12-05\n", "has no timezone"),
                ("lab,deadline\n01,next friday\n", "line 2: deadline 'next friday' not an ISO"),
                ("01,2026-13-05T23:59:00Z\n", "not an ISO 8601 time"),
                ("99,2026-12-05T23:59:00Z\n", "line 1: unknown lab '99' (labs: 01, 02)"),
                ("01,2026-12-05T23:59:00Z\n01,2026-12-06T23:59:00Z\n",
                 "line 2: lab 01 has a deadline on line 1 too"),
                ("01,2026-12-05T23:59:00Z,x\n", "line 1: expected lab,deadline"),
                ("01\n", "got 1 field(s)")):
            with self.subTest(text=text):
                with self.assertRaises(deadlines.DeadlineError) as caught:
                    deadlines.read_deadlines(self.write(text), KNOWN)
                message = str(caught.exception)
                self.assertIn(why, message)
                self.assertTrue(message.startswith(self.path), message)
                self.assertNotIn("\n", message)
        with self.assertRaisesRegex(deadlines.DeadlineError, "^cannot read the deadlines file "):
            deadlines.read_deadlines(os.path.join(self.tmp.name, "missing.csv"), KNOWN)

    def test_the_file_is_read_again_when_it_changes(self):
        warnings = []
        self.write("01,2026-12-05T23:59:00Z\n")
        watched = deadlines.Deadlines(self.path, KNOWN, warnings.append)
        self.assertEqual(watched.get(), {"01": DEADLINE_01})
        self.write("01,2026-12-05T23:59:00Z\n02,2026-12-05T23:59:00Z\n")
        os.utime(self.path, ns=(time.time_ns(), time.time_ns() + 10**9))
        self.assertEqual(watched.get(), {"01": DEADLINE_01, "02": DEADLINE_01})
        # Malformed while the service runs: the deadlines read before stay, said once.
        self.write("01,someday\n")
        self.assertEqual(watched.get(), {"01": DEADLINE_01, "02": DEADLINE_01})
        self.assertEqual(watched.get(), {"01": DEADLINE_01, "02": DEADLINE_01})
        self.assertEqual(len(warnings), 1)
        self.assertIn("the deadlines read before stay", warnings[0])
        # A malformed file at the start is the service's error (it exits 2 with it).
        with self.assertRaises(deadlines.DeadlineError):
            deadlines.Deadlines(self.path, KNOWN)
        self.assertEqual(deadlines.Deadlines(None).get(), {})


class CountingTest(unittest.TestCase):
    """Which submission counts: the last graded one before the lab's deadline."""

    setUp, tearDown, add = StoreTest.setUp, StoreTest.tearDown, StoreTest.add

    def done(self, student, labs, created, state="done"):
        sub_id = self.add(student, labs, now=created)
        self.conn.execute("UPDATE submissions SET state = ? WHERE id = ?", (state, sub_id))
        return sub_id

    def counted(self, rules):
        found = deadlines.counting(store.list_submissions(self.conn), rules)
        return {sid: {lab: row["id"] for lab, row in mine.items()} for sid, mine in found.items()}

    def test_the_last_before_the_deadline_counts(self):
        d = T0 + 100
        a1 = self.done("alice", ("01",), T0)
        a2 = self.done("alice", ("01", "02"), T0 + 50)
        a3 = self.done("alice", ("01",), T0 + 100)  # at the deadline: after it
        a4 = self.done("alice", ("02",), T0 + 500)  # lab 02 has no deadline: it counts
        b1 = self.done("bob", ("01",), T0 + 99.5)
        self.done("bob", ("01",), T0 + 99.9, state="queued")  # not graded (yet): does not count
        self.assertEqual(self.counted({"01": d}), {"alice": {"01": a2, "02": a4},
                                                   "bob": {"01": b1}})
        # Without deadlines the latest graded counts.
        self.assertEqual(self.counted({}), {"alice": {"01": a3, "02": a4}, "bob": {"01": b1}})
        # Each submission's status per lab, as its page and the API say it.
        counted = deadlines.counting(store.list_submissions(self.conn), {"01": d})["alice"]
        rows = {r["id"]: r for r in store.list_submissions(self.conn, "alice")}
        self.assertEqual(deadlines.lab_status(rows[a3], "01", {"01": d}, counted), {
            "counts": False, "deadline": deadlines.iso(d), "after_deadline": True,
            "counting_id": a2})
        self.assertEqual(deadlines.lab_status(rows[a2], "01", {"01": d}, counted)["counts"], True)
        self.assertEqual(deadlines.lab_status(rows[a1], "01", {"01": d}, counted), {
            "counts": False, "deadline": deadlines.iso(d), "after_deadline": False,
            "counting_id": a2})
        self.assertEqual(deadlines.lab_status(rows[a4], "02", {"01": d}, counted), {
            "counts": True, "deadline": None, "after_deadline": False, "counting_id": a4})

    def test_only_after_the_deadline_counts_nothing(self):
        self.done("alice", ("01",), T0 + 200)
        self.assertEqual(self.counted({"01": T0 + 100}), {})


# ---- The leaderboard ---------------------------------------------------------------------------


def lab_report(ratios, statuses=None, points=None):
    """A lab's entry of a report: a correctness check (10 points) and one performance check per
    ratio (20 points each)."""
    checks = [{"check": "edge cases", "tags": "[correctness][lab01]", "points": 10, "max": 10,
               "status": "passed", "measurements": {}}]
    for i, r in enumerate(ratios):
        checks.append({"check": "perf %d" % i, "tags": "[perf][lab01]", "points": 20, "max": 20,
                       "status": "passed", "measurements": {} if r is None else {"ratio": r}})
    for i, status in enumerate(statuses or []):
        checks[i]["status"] = status
        if status in ("failed", "skipped"):
            checks[i]["points"] = 0
    total = sum(c["points"] for c in checks)
    return {"lab": "01", "name": "conv1d-basic", "points": total if points is None else points,
            "max_points": sum(c["max"] for c in checks), "checks": checks}


class LeaderboardTest(unittest.TestCase):
    def entry(self, sid, entry, created=0.0):
        return {"student": sid, "name": "Name of " + sid, "entry": entry, "created_at": created,
                "submission": int(created)}

    def test_fully_correct_only(self):
        self.assertEqual(leaderboard.lab_score(lab_report([0.5, 2.0])), (True, 1.0))
        # A failed, a skipped (no GPU) or a partial check, or no measured ratio: not ranked.
        self.assertFalse(leaderboard.fully_correct(lab_report([1.0], ["failed"])))
        self.assertFalse(leaderboard.fully_correct(lab_report([1.0], ["passed", "skipped"])))
        partial = lab_report([1.0], ["passed", "partial"], points=25)
        self.assertFalse(leaderboard.fully_correct(partial))
        self.assertFalse(leaderboard.fully_correct({"lab": "01", "points": 0, "max_points": 0,
                                                    "checks": []}))
        self.assertFalse(leaderboard.fully_correct(None))
        self.assertEqual(leaderboard.lab_score(lab_report([None])), (True, None))
        rows = leaderboard.standings([
            self.entry("a", lab_report([1.0], ["failed"])),
            self.entry("b", lab_report([1.0], ["passed", "skipped"])),
            self.entry("c", lab_report([None])),
            self.entry("d", None),
            self.entry("e", lab_report([0.9]))], {"a", "b", "c", "d", "e"})
        self.assertEqual(rows, [{"rank": 1, "r": 0.9, "name": "Name of e", "you": False}])

    def test_ranked_by_the_geometric_mean_ties_share_a_rank(self):
        entries = [self.entry("slow", lab_report([2.0, 2.0]), 1),
                   self.entry("fast", lab_report([0.25, 1.0]), 2),   # r = 0.5
                   self.entry("tie-late", lab_report([0.8]), 9),
                   self.entry("tie-early", lab_report([0.8]), 3)]
        rows = leaderboard.standings(entries, {"slow", "fast", "tie-late", "tie-early"})
        self.assertEqual([(r["rank"], r["r"], r["name"]) for r in rows], [
            (1, 0.5, "Name of fast"), (2, 0.8, "Name of tie-early"),
            (2, 0.8, "Name of tie-late"), (4, 2.0, "Name of slow")])

    def test_names_only_of_those_who_opted_in_and_you(self):
        entries = [self.entry("alice", lab_report([0.5]), 1),
                   self.entry("bob", lab_report([0.7]), 2),
                   self.entry("carol", lab_report([0.9]), 3)]
        rows = leaderboard.standings(entries, {"bob"}, caller="carol")
        self.assertEqual([(r["name"], r["you"]) for r in rows],
                         [("anonymous", False), ("Name of bob", False), ("you", True)])
        # The instructor (no caller) sees the same names; no row carries an id.
        rows = leaderboard.standings(entries, {"bob"})
        self.assertEqual([r["name"] for r in rows], ["anonymous", "Name of bob", "anonymous"])
        self.assertEqual({k for r in rows for k in r}, {"rank", "r", "name", "you"})
        self.assertFalse(any("alice" in str(r) or "carol" in str(r) for r in rows))

    def test_opt_in_is_kept_in_the_store(self):
        with tempfile.TemporaryDirectory() as tmp:
            conn = store.connect(os.path.join(tmp, "service.sqlite"))
            for sid in ("alice", "bob"):
                store.upsert_student(conn, sid, sid.title())
            self.assertEqual(store.leaderboard_names(conn), set())  # out by default
            self.assertFalse(store.opted_in(conn, "alice"))
            store.set_leaderboard(conn, "alice", True)
            store.set_leaderboard(conn, "bob", True)
            store.set_leaderboard(conn, "bob", False)
            self.assertEqual(store.leaderboard_names(conn), {"alice"})
            self.assertTrue(store.opted_in(conn, "alice"))
            store.set_setting(conn, "deadlines_file", "/x/deadlines.csv")
            self.assertEqual(store.get_setting(conn, "deadlines_file"), "/x/deadlines.csv")
            store.set_setting(conn, "deadlines_file", None)
            self.assertIsNone(store.get_setting(conn, "deadlines_file"))
            conn.close()


if __name__ == "__main__":
    unittest.main()
