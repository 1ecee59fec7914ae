"""The class service's state in SQLite (DIR/service.sqlite, WAL), or in PostgreSQL when
DIR/database.conf holds its postgresql:// URL (database(); the adapter below): students, their tokens (a
sha256 of each, never the token), the submissions' queue and the log of every grading attempt,
the leaderboard's opt-ins and the service's settings (the deadlines file it runs with).

Every query of the service, the worker and the roster tool is a function here, on a connection
from connect(). Connections are in autocommit mode: a function that must be atomic opens its own
BEGIN IMMEDIATE transaction, which takes SQLite's write lock at once, so that two workers (two
processes) never claim one job and a rate limit is counted and a submission added as one step.

Times are seconds since the epoch (time.time()); every function that depends on the clock takes
`now` so that the tests can move it.

The queue, exactly once: a worker claims the oldest queued submission, or a running one whose
lease has passed (its worker died), under a fresh owner (a uuid) with a lease it extends while it
grades; it finishes with an UPDATE ... WHERE lease_owner = its owner, which changes no row when
another worker took the job over since. Each attempt is a row of `gradings`, outcome 'done',
'reused' (results copied from an identical earlier submission) or 'lost' (its lease passed, or
its worker let the job go): one submission has exactly one 'done' or 'reused' attempt.

On Slurm (./cudalab serve --slurm, grader/classroom/service_slurm.py's Dispatcher), each
submission is a Slurm job, and only the service opens the database: it claims the submission for
the job once sbatch gave the job's id (claim_for_job: the job's id is the lease's owner), keeps
the lease while squeue lists the job (slurm_beat), and records the verdict that the job's worker
left in a file, with finish() as a local worker does. The row says which job (slurm_job: its id,
or SUBMITTING while sbatch runs) and the jobs that ended without a verdict (slurm_failed). A job
that ended so is taken back once (requeue_slurm: conditional on the job still being the row's),
and after too many the submission gets its error as its verdict (fail_slurm).
"""

import contextlib
import hashlib
import json
import os
import re
import secrets
import sqlite3
import time

LEASE_S = 60  # a claim's lease; the worker extends it every HEARTBEAT_S while it grades
HEARTBEAT_S = 10
ALIVE_S = 30  # a worker not heard from for this long is not counted as alive
DEFAULT_GRADING_S = 30.0  # the ETA's seconds per grading before any was made
ETA_SAMPLE = 20  # the ETA's mean is over this many last gradings
STATES = ("queued", "running", "done")
SUBMITTING = "submitting"  # slurm_job while sbatch runs (a crash then: the job is found by name)
# Columns added since the first schema: a database made before gets them at connect().
ADDED_COLUMNS = {"submissions": [("slurm_job", "TEXT"), ("slurm_failed", "TEXT")]}

SCHEMA = """
CREATE TABLE IF NOT EXISTS students (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT,
    revoked INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL
);
-- One row per valid token: a student's (student set) or the instructor's (student NULL).
CREATE TABLE IF NOT EXISTS tokens (
    hash TEXT PRIMARY KEY,
    student TEXT REFERENCES students(id),
    instructor INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY,
    student TEXT NOT NULL REFERENCES students(id),
    labs TEXT NOT NULL,              -- "01,02"
    upload TEXT NOT NULL,            -- relative to DIR: uploads/<id>.tar.gz
    key TEXT NOT NULL,               -- sha256 of the graded files and the labs (reuse)
    state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done')),
    lease_owner TEXT,                -- kept once done: the tmp folder's name has it
    lease_until REAL,
    attempts INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL,
    started_at REAL,
    finished_at REAL,
    points REAL,
    max_points REAL,
    lab_points TEXT,                 -- JSON {"01": [points, max_points]}
    failed_checks TEXT,              -- JSON ["01: edge cases", ...]
    exit_code INTEGER,
    error TEXT,
    build_seconds REAL,
    grade_seconds REAL,
    seed_hash TEXT,                  -- sha256 of the seed it was graded with (reuse)
    reused_from INTEGER,
    worker TEXT,
    gpu TEXT,
    slurm_job TEXT,                  -- the Slurm job that grades it (--slurm), or 'submitting'
    slurm_failed TEXT                -- JSON [[job, why], ...]: jobs that ended without a verdict
);
CREATE INDEX IF NOT EXISTS submissions_state ON submissions(state, id);
CREATE INDEX IF NOT EXISTS submissions_student ON submissions(student, id);
CREATE INDEX IF NOT EXISTS submissions_key ON submissions(key, state);
CREATE TABLE IF NOT EXISTS gradings (
    id INTEGER PRIMARY KEY,
    submission INTEGER NOT NULL REFERENCES submissions(id),
    owner TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    worker TEXT,
    started_at REAL NOT NULL,
    finished_at REAL,
    outcome TEXT CHECK (outcome IS NULL OR outcome IN ('done', 'lost', 'reused')),
    build_seconds REAL NOT NULL DEFAULT 0,
    grade_seconds REAL NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS gradings_submission ON gradings(submission);
CREATE INDEX IF NOT EXISTS gradings_started ON gradings(started_at);
-- The students who show their name on the leaderboards (./cudalab leaderboard --opt-in); a
-- student without a row has not opted in.
CREATE TABLE IF NOT EXISTS leaderboard (
    student TEXT PRIMARY KEY REFERENCES students(id),
    opt_in INTEGER NOT NULL,
    updated_at REAL NOT NULL
);
-- What the service runs with that the export must know too: 'deadlines_file' (its path).
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT
);
-- The workers' heartbeats: how many are alive (the health check, the ETA).
CREATE TABLE IF NOT EXISTS workers (
    name TEXT PRIMARY KEY,
    pid INTEGER,
    host TEXT,
    gpu TEXT,
    state TEXT,
    submission INTEGER,
    started_at REAL NOT NULL,
    seen_at REAL NOT NULL
);
"""


class Limited(Exception):
    """A submission over a rate limit (the API's 429); the message is one line."""


SQLITE_NAME = "service.sqlite"  # DIR's database by default
CONF_NAME = "database.conf"  # DIR/database.conf: a PostgreSQL URL in its place


def is_url(target):
    return target.startswith(("postgresql://", "postgres://"))


def database(data):
    """DATA's database: the PostgreSQL URL that DATA/database.conf holds (its first line that is
    neither blank nor a # comment), else the SQLite file DATA/service.sqlite. Every entry point
    (the service, its workers, roster, export) opens connect(database(DIR))."""
    path = os.path.join(data, CONF_NAME)
    try:
        with open(path) as f:
            lines = [line.strip() for line in f]
    except FileNotFoundError:
        return os.path.join(data, SQLITE_NAME)
    for line in lines:
        if line and not line.startswith("#"):
            if not is_url(line):
                raise ValueError("%s: %r is not a postgresql:// URL" % (path, line))
            return line
    raise ValueError("%s holds no postgresql:// URL" % path)


def exists(target):
    """Whether the database is there (a PostgreSQL one is taken to be: connect() says if not)."""
    return is_url(target) or os.path.isfile(target)


def connect(target):
    """A connection to the database TARGET (a path: SQLite; a postgresql:// URL: PostgreSQL),
    created with its schema when new."""
    if is_url(target):
        return _Postgres(target)
    conn = sqlite3.connect(target, timeout=30, isolation_level=None, check_same_thread=False,
                           factory=_SQLite)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA busy_timeout = 30000")
    conn.execute("PRAGMA journal_mode = WAL")
    # A commit is on disk when it returns: a submission acknowledged is never lost.
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.executescript(SCHEMA)
    for table, columns in ADDED_COLUMNS.items():
        have = {r[1] for r in conn.execute("PRAGMA table_info(%s)" % table)}
        for name, kind in columns:
            if name not in have:
                try:
                    conn.execute("ALTER TABLE %s ADD COLUMN %s %s" % (table, name, kind))
                except sqlite3.OperationalError as e:  # another process added it meanwhile
                    if "duplicate column" not in str(e):
                        raise
    return conn


@contextlib.contextmanager
def transaction(conn):
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on an exception): one writer at a time (on
    PostgreSQL: BEGIN and an advisory lock that COMMIT or ROLLBACK releases)."""
    conn.begin()
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


# ---- The adapter: what differs between SQLite and PostgreSQL, and nothing else -----------------
#
# The queries are written once, in SQLite's dialect with ? placeholders; on PostgreSQL,
# _Postgres.execute rewrites the two things that differ (? becomes %s; "IS ?", equal or both
# NULL, becomes IS NOT DISTINCT FROM), its schema has DOUBLE PRECISION for REAL (PostgreSQL's
# REAL has 4 bytes: too few for seconds since the epoch) and a BIGSERIAL id for gradings, and
# begin() is BEGIN plus one transaction-wide advisory lock in place of SQLite's BEGIN IMMEDIATE:
# one writing transaction at a time on either, so that each transaction here (its SELECTs, its
# conditional UPDATEs) runs as on SQLite, and the statements outside one (extend_lease, a
# heartbeat) are single statements, atomic on both.

PG_LOCK = 0x637564616C6162  # the advisory lock's key ("cudalab")


class _SQLite(sqlite3.Connection):
    def begin(self):
        self.execute("BEGIN IMMEDIATE")


def _pg_sql(sql):
    return re.sub(r"\bIS \?", "IS NOT DISTINCT FROM ?", sql).replace("%", "%%").replace("?", "%s")


def _pg_schema():
    schema = re.sub(r"\bREAL\b", "DOUBLE PRECISION", SCHEMA)
    old = "gradings (\n    id INTEGER PRIMARY KEY"
    assert old in schema
    return schema.replace(old, "gradings (\n    id BIGSERIAL PRIMARY KEY")


class _Postgres:
    """A psycopg2 connection (Debian's python3-psycopg2) that looks like a sqlite3 one to the
    functions here: execute() returns a cursor (fetchone, fetchall, rowcount, iteration) whose
    rows are read by column name or index; autocommit, as the SQLite connections are."""

    def __init__(self, url):
        try:
            import psycopg2
            import psycopg2.extras
        except ImportError:
            raise RuntimeError("a postgresql:// database needs psycopg2: apt-get install "
                               "python3-psycopg2 (or scripts/setup postgresql)") from None
        self.cursor_factory = psycopg2.extras.DictCursor
        self.raw = psycopg2.connect(url)
        self.raw.autocommit = True
        with transaction(self):  # (two processes creating the tables at once would collide)
            self.execute(_pg_schema())
            for table, columns in ADDED_COLUMNS.items():
                for name, kind in columns:
                    self.execute("ALTER TABLE %s ADD COLUMN IF NOT EXISTS %s %s" %
                                 (table, name, kind))

    def execute(self, sql, params=()):
        cur = self.raw.cursor(cursor_factory=self.cursor_factory)
        cur.execute(_pg_sql(sql), tuple(params))
        return cur

    def begin(self):
        self.execute("BEGIN")
        self.execute("SELECT pg_advisory_xact_lock(?)", (PG_LOCK,))

    def close(self):
        self.raw.close()


def now_s():
    return time.time()


# ---- Tokens and students ----------------------------------------------------------------------


def new_token():
    return secrets.token_urlsafe(24)


def hash_token(token):
    """What the database keeps of a token: its sha256, hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def upsert_student(conn, sid, name, email=None, now=None):
    """Adds the student or updates their name and email; True when the student is new."""
    now = now_s() if now is None else now
    with transaction(conn):
        found = conn.execute("SELECT id FROM students WHERE id = ?", (sid,)).fetchone()
        if found:
            conn.execute("UPDATE students SET name = ?, email = ? WHERE id = ?", (name, email, sid))
            return False
        conn.execute("INSERT INTO students (id, name, email, created_at) VALUES (?, ?, ?, ?)",
                     (sid, name, email, now))
        return True


def set_student_token(conn, sid, token, now=None):
    """Gives the student TOKEN (its hash), in place of any earlier one; un-revokes them."""
    now = now_s() if now is None else now
    with transaction(conn):
        conn.execute("DELETE FROM tokens WHERE student = ?", (sid,))
        conn.execute("INSERT INTO tokens (hash, student, instructor, created_at) VALUES (?, ?, 0, ?)",
                     (hash_token(token), sid, now))
        conn.execute("UPDATE students SET revoked = 0 WHERE id = ?", (sid,))


def has_token(conn, sid):
    return conn.execute("SELECT 1 FROM tokens WHERE student = ?", (sid,)).fetchone() is not None


def revoke_student(conn, sid):
    """The student's token stops working (it is deleted); False when there is no such student.
    Their submissions stay (queued ones are still graded)."""
    with transaction(conn):
        if conn.execute("SELECT 1 FROM students WHERE id = ?", (sid,)).fetchone() is None:
            return False
        conn.execute("DELETE FROM tokens WHERE student = ?", (sid,))
        conn.execute("UPDATE students SET revoked = 1 WHERE id = ?", (sid,))
        return True


def set_instructor_token(conn, token, now=None):
    """TOKEN becomes the instructor's one token (an earlier one stops working)."""
    now = now_s() if now is None else now
    with transaction(conn):
        conn.execute("DELETE FROM tokens WHERE instructor = 1")
        conn.execute("DELETE FROM tokens WHERE hash = ?", (hash_token(token),))
        conn.execute("INSERT INTO tokens (hash, student, instructor, created_at) "
                     "VALUES (?, NULL, 1, ?)", (hash_token(token), now))


def is_instructor_token(conn, token):
    row = conn.execute("SELECT instructor FROM tokens WHERE hash = ?", (hash_token(token),)).fetchone()
    return bool(row and row["instructor"])


def authenticate(conn, token):
    """{"student": id or None, "name": ..., "instructor": bool} for a valid token, else None
    (unknown, or its student revoked)."""
    if not token:
        return None
    row = conn.execute(
        "SELECT t.instructor, s.id, s.name, s.revoked FROM tokens t "
        "LEFT JOIN students s ON s.id = t.student WHERE t.hash = ?",
        (hash_token(token),)).fetchone()
    if row is None:
        return None
    if row["instructor"]:
        return {"student": None, "name": "instructor", "instructor": True}
    if row["id"] is None or row["revoked"]:
        return None
    return {"student": row["id"], "name": row["name"], "instructor": False}


def get_student(conn, sid):
    return conn.execute("SELECT * FROM students WHERE id = ?", (sid,)).fetchone()


def list_students(conn):
    return conn.execute("SELECT * FROM students ORDER BY id").fetchall()


# ---- Submissions ------------------------------------------------------------------------------


def submissions_since(conn, student, since):
    return conn.execute("SELECT COUNT(*) FROM submissions WHERE student = ? AND created_at > ?",
                        (student, since)).fetchone()[0]


def gpu_seconds_since(conn, student, since):
    """Build and grade seconds of every grading attempt of the student's submissions started
    after SINCE (a lost attempt's seconds count too: the GPU was used)."""
    return conn.execute(
        "SELECT COALESCE(SUM(g.build_seconds + g.grade_seconds), 0) FROM gradings g "
        "JOIN submissions s ON s.id = g.submission WHERE s.student = ? AND g.started_at > ?",
        (student, since)).fetchone()[0]


def check_limits(conn, student, per_hour=None, gpu_seconds_per_day=None, now=None):
    """Raises Limited when the student may not submit now."""
    now = now_s() if now is None else now
    if per_hour is not None:
        recent = conn.execute(
            "SELECT created_at FROM submissions WHERE student = ? AND created_at > ? "
            "ORDER BY created_at", (student, now - 3600)).fetchall()
        if len(recent) >= per_hour:
            wait = max(1, int(recent[0]["created_at"] + 3600 - now + 59) // 60)
            raise Limited("over the limit of %d submissions per hour: try again in %d min" %
                          (per_hour, wait))
    if gpu_seconds_per_day is not None:
        used = gpu_seconds_since(conn, student, now - 86400)
        if used >= gpu_seconds_per_day:
            raise Limited("over the limit of %d s of grading per day (%.0f s used in the last 24 h)"
                          % (gpu_seconds_per_day, used))


def add_submission(conn, student, labs, key, place, per_hour=None, gpu_seconds_per_day=None,
                   now=None):
    """Queues a submission; returns its id. PLACE(id) puts its upload where the row will say
    (DIR/uploads/<id>.tar.gz) and returns that path relative to DIR: it runs inside the
    transaction, before the row is written, so a row never lacks its file (a crash in between
    leaves a file without a row, which the next id's upload replaces). The limits are counted in
    the same transaction: two uploads at once cannot both pass the last free slot."""
    now = now_s() if now is None else now
    with transaction(conn):
        check_limits(conn, student, per_hour, gpu_seconds_per_day, now)
        # Ids are never reused (rows are never deleted): the next is the largest plus one.
        sub_id = conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM submissions").fetchone()[0]
        upload = place(sub_id)
        conn.execute("INSERT INTO submissions (id, student, labs, upload, key, state, created_at) "
                     "VALUES (?, ?, ?, ?, ?, 'queued', ?)",
                     (sub_id, student, ",".join(labs), upload, key, now))
        return sub_id


def get_submission(conn, sub_id):
    return conn.execute("SELECT * FROM submissions WHERE id = ?", (sub_id,)).fetchone()


def list_submissions(conn, student=None):
    """Newest first; one student's, or everyone's (student None)."""
    if student is None:
        return conn.execute("SELECT * FROM submissions ORDER BY id DESC").fetchall()
    return conn.execute("SELECT * FROM submissions WHERE student = ? ORDER BY id DESC",
                        (student,)).fetchall()


def counts(conn):
    """{"queued": n, "running": n, "done": n}."""
    found = dict(conn.execute("SELECT state, COUNT(*) FROM submissions GROUP BY state").fetchall())
    return {s: found.get(s, 0) for s in STATES}


def queue(conn):
    """The submissions not done: running ones first, then the queued ones in the order they run."""
    return conn.execute(
        "SELECT * FROM submissions WHERE state != 'done' "
        "ORDER BY CASE state WHEN 'running' THEN 0 ELSE 1 END, id").fetchall()


def position(conn, row):
    """1 for the queued submission that runs next, 2 for the one after, ...; 0 while it runs;
    None once done."""
    if row["state"] == "running":
        return 0
    if row["state"] != "queued":
        return None
    return conn.execute("SELECT COUNT(*) FROM submissions WHERE state = 'queued' AND id <= ?",
                        (row["id"],)).fetchone()[0]


def mean_grading_seconds(conn):
    """The mean build and grade seconds of the last ETA_SAMPLE gradings done (not reused; not
    counting a worker's one-time build of a lab's solution grader), DEFAULT_GRADING_S before
    any."""
    rows = conn.execute(
        "SELECT build_seconds + grade_seconds FROM gradings WHERE outcome = 'done' "
        "AND build_seconds + grade_seconds > 0 ORDER BY finished_at DESC LIMIT ?",
        (ETA_SAMPLE,)).fetchall()
    if not rows:
        return DEFAULT_GRADING_S
    return sum(r[0] for r in rows) / len(rows)


def eta_seconds(conn, row, now=None):
    """About how long until ROW is graded: its position times the mean grading, over the alive
    workers (at least one: with none, the queue waits for one); None once done."""
    now = now_s() if now is None else now
    pos = position(conn, row)
    if pos is None:
        return None
    mean = mean_grading_seconds(conn)
    workers = max(1, alive_workers(conn, now))
    if pos == 0:
        return int(max(0.0, mean - (now - (row["started_at"] or now))) + 0.5)
    return int(pos * mean / workers + 0.5)


def latest_per_lab(conn):
    """{student: {lab: row of their latest submission of that lab}}."""
    latest = {}
    for row in conn.execute("SELECT * FROM submissions ORDER BY id"):
        for lab in row["labs"].split(","):
            latest.setdefault(row["student"], {})[lab] = row
    return latest


def submission_counts(conn):
    return dict(conn.execute("SELECT student, COUNT(*) FROM submissions GROUP BY student").fetchall())


def done_submissions(conn):
    """Every graded submission (state done), oldest first: what deadlines.counting() reads."""
    return conn.execute("SELECT * FROM submissions WHERE state = 'done' ORDER BY id").fetchall()


# ---- The leaderboard's opt-in, and the service's settings -------------------------------------


def set_leaderboard(conn, sid, opt_in, now=None):
    """The student shows their name on the leaderboards (OPT_IN true) or not."""
    now = now_s() if now is None else now
    conn.execute("INSERT INTO leaderboard (student, opt_in, updated_at) VALUES (?, ?, ?) "
                 "ON CONFLICT(student) DO UPDATE SET opt_in = excluded.opt_in, "
                 "updated_at = excluded.updated_at", (sid, 1 if opt_in else 0, now))


def leaderboard_names(conn):
    """The ids of the students who opted in."""
    return {r[0] for r in conn.execute("SELECT student FROM leaderboard WHERE opt_in = 1")}


def opted_in(conn, sid):
    row = conn.execute("SELECT opt_in FROM leaderboard WHERE student = ?", (sid,)).fetchone()
    return bool(row and row[0])


def set_setting(conn, key, value):
    """VALUE (a text, or None to remove it) for KEY."""
    if value is None:
        conn.execute("DELETE FROM settings WHERE key = ?", (key,))
    else:
        conn.execute("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE "
                     "SET value = excluded.value", (key, value))


def get_setting(conn, key):
    row = conn.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
    return None if row is None else row[0]


# ---- The queue: claim, lease, finish ----------------------------------------------------------


def claim(conn, owner, worker=None, now=None, lease_s=LEASE_S):
    """Claims the oldest submission that is queued, or running with its lease passed (its worker
    died), for OWNER: running, leased until now + LEASE_S, one more attempt, a gradings row.
    Returns the row as claimed, or None when there is nothing to do."""
    now = now_s() if now is None else now
    with transaction(conn):
        row = conn.execute(
            "SELECT * FROM submissions WHERE state = 'queued' "
            "OR (state = 'running' AND lease_until < ?) ORDER BY id LIMIT 1", (now,)).fetchone()
        if row is None:
            return None
        # An earlier attempt whose lease passed has lost the job, whether its worker comes back.
        conn.execute("UPDATE gradings SET outcome = 'lost', finished_at = ? "
                     "WHERE submission = ? AND outcome IS NULL", (now, row["id"]))
        conn.execute(
            "UPDATE submissions SET state = 'running', lease_owner = ?, lease_until = ?, "
            "attempts = attempts + 1, started_at = ?, worker = ? WHERE id = ?",
            (owner, now + lease_s, now, worker, row["id"]))
        conn.execute("INSERT INTO gradings (submission, owner, attempt, worker, started_at) "
                     "VALUES (?, ?, ?, ?, ?)", (row["id"], owner, row["attempts"] + 1, worker, now))
        return conn.execute("SELECT * FROM submissions WHERE id = ?", (row["id"],)).fetchone()


def claim_id(conn, sub_id, owner, worker=None, now=None, lease_s=LEASE_S):
    """claim() of submission SUB_ID only (a Slurm job's worker grades the one it was submitted
    for): (row as claimed, None), or (None, why not: 'done', 'running' (another worker holds
    its lease) or 'missing')."""
    now = now_s() if now is None else now
    with transaction(conn):
        row = conn.execute("SELECT * FROM submissions WHERE id = ?", (sub_id,)).fetchone()
        if row is None:
            return None, "missing"
        if row["state"] == "done":
            return None, "done"
        if row["state"] == "running" and (row["lease_until"] or 0) >= now:
            return None, "running"
        conn.execute("UPDATE gradings SET outcome = 'lost', finished_at = ? "
                     "WHERE submission = ? AND outcome IS NULL", (now, sub_id))
        conn.execute(
            "UPDATE submissions SET state = 'running', lease_owner = ?, lease_until = ?, "
            "attempts = attempts + 1, started_at = ?, worker = ? WHERE id = ?",
            (owner, now + lease_s, now, worker, sub_id))
        conn.execute("INSERT INTO gradings (submission, owner, attempt, worker, started_at) "
                     "VALUES (?, ?, ?, ?, ?)", (sub_id, owner, row["attempts"] + 1, worker, now))
        return conn.execute("SELECT * FROM submissions WHERE id = ?", (sub_id,)).fetchone(), None


def extend_lease(conn, sub_id, owner, now=None, lease_s=LEASE_S):
    """Extends OWNER's lease; False when the job is no longer theirs."""
    now = now_s() if now is None else now
    cur = conn.execute("UPDATE submissions SET lease_until = ? WHERE id = ? AND lease_owner = ? "
                       "AND state = 'running'", (now + lease_s, sub_id, owner))
    return cur.rowcount == 1


RESULT_COLUMNS = ("points", "max_points", "lab_points", "failed_checks", "exit_code", "error",
                  "build_seconds", "grade_seconds", "seed_hash", "reused_from", "gpu")


def finish(conn, sub_id, owner, result, outcome="done", now=None):
    """Records OWNER's verdict: one transaction, which changes the submission only while OWNER
    still holds it. True when it did (the caller then publishes its results); False when another
    worker took the job over (the caller discards them). RESULT: the RESULT_COLUMNS (lab_points
    and failed_checks as Python values); OUTCOME: 'done' or 'reused'."""
    assert outcome in ("done", "reused")
    now = now_s() if now is None else now
    values = dict(result)
    for name in ("lab_points", "failed_checks"):
        if name in values and values[name] is not None:
            values[name] = json.dumps(values[name])
    columns = [c for c in RESULT_COLUMNS if c in values]
    with transaction(conn):
        cur = conn.execute(
            "UPDATE submissions SET state = 'done', finished_at = ?, lease_until = NULL%s "
            "WHERE id = ? AND lease_owner = ? AND state = 'running'" %
            "".join(", %s = ?" % c for c in columns),
            [now] + [values[c] for c in columns] + [sub_id, owner])
        won = cur.rowcount == 1
        # (A verdict recorded once stays: a second finish of the same owner changes nothing.)
        conn.execute(
            "UPDATE gradings SET outcome = ?, finished_at = ?, build_seconds = ?, grade_seconds = ? "
            "WHERE submission = ? AND owner = ? AND (outcome IS NULL OR outcome = 'lost')",
            (outcome if won else "lost", now, values.get("build_seconds") or 0,
             values.get("grade_seconds") or 0, sub_id, owner))
        return won


def release(conn, sub_id, owner, now=None):
    """A worker that stops while grading gives the job back: queued again at once (not after its
    lease), its attempt 'lost'. False when it was no longer OWNER's."""
    now = now_s() if now is None else now
    with transaction(conn):
        cur = conn.execute("UPDATE submissions SET state = 'queued', lease_until = NULL, "
                           "started_at = NULL WHERE id = ? AND lease_owner = ? AND state = 'running'",
                           (sub_id, owner))
        conn.execute("UPDATE gradings SET outcome = 'lost', finished_at = ? "
                     "WHERE submission = ? AND owner = ? AND outcome IS NULL", (now, sub_id, owner))
        return cur.rowcount == 1


# ---- Slurm: the job of each submission (./cudalab serve --slurm) -----------------------------


def slurm_pending(conn):
    """The submissions not done that have a Slurm job (or one being submitted), oldest first."""
    return conn.execute("SELECT * FROM submissions WHERE state != 'done' AND slurm_job IS NOT NULL "
                        "ORDER BY id").fetchall()


def slurm_unsubmitted(conn, now=None):
    """The submissions without a Slurm job that are queued, or running under a lease that has
    passed (a worker started by hand that died), oldest first: what is to be submitted."""
    now = now_s() if now is None else now
    return conn.execute("SELECT * FROM submissions WHERE slurm_job IS NULL AND (state = 'queued' "
                        "OR (state = 'running' AND lease_until < ?)) ORDER BY id",
                        (now,)).fetchall()


def claim_for_job(conn, sub_id, job, worker, was=SUBMITTING, now=None, lease_s=LEASE_S):
    """The service claims submission SUB_ID for Slurm job JOB, whose id is the lease's owner (the
    job's worker grades into submissions/<id>.tmp-<JOB> without opening the database): as
    claim(), if the row's job is WAS and it is queued or its lease has passed; its job becomes
    JOB. False when the row changed meanwhile (done, or a worker's lease on it)."""
    now = now_s() if now is None else now
    with transaction(conn):
        row = conn.execute(
            "SELECT * FROM submissions WHERE id = ? AND slurm_job IS ? AND (state = 'queued' OR "
            "(state = 'running' AND lease_until < ?))", (sub_id, was, now)).fetchone()
        if row is None:
            return False
        conn.execute("UPDATE gradings SET outcome = 'lost', finished_at = ? "
                     "WHERE submission = ? AND outcome IS NULL", (now, sub_id))
        conn.execute(
            "UPDATE submissions SET state = 'running', lease_owner = ?, lease_until = ?, "
            "attempts = attempts + 1, started_at = ?, worker = ?, slurm_job = ? WHERE id = ?",
            (job, now + lease_s, now, worker, job, sub_id))
        conn.execute("INSERT INTO gradings (submission, owner, attempt, worker, started_at) "
                     "VALUES (?, ?, ?, ?, ?)", (sub_id, job, row["attempts"] + 1, worker, now))
        return True


def slurm_beat(conn, jobs, lease_s=LEASE_S, now=None):
    """The service's heartbeat for the jobs squeue lists, in one transaction. JOBS: [(submission
    id, job, worker name or None)]: each lease of the job is extended; with a name (the job
    runs, on a node), the job is listed among the workers, and the submission's worker becomes
    that name, its started_at now, the first time (when its worker is still WAITING(job))."""
    now = now_s() if now is None else now
    with transaction(conn):
        for sub_id, job, name in jobs:
            cur = conn.execute(
                "UPDATE submissions SET lease_until = ? WHERE id = ? AND lease_owner = ? AND "
                "slurm_job = ? AND state = 'running'", (now + lease_s, sub_id, job, job))
            if cur.rowcount != 1 or name is None:
                continue
            conn.execute("UPDATE submissions SET worker = ?, started_at = ? WHERE id = ? AND "
                         "worker = ?", (name, now, sub_id, slurm_waiting(job)))
            conn.execute("UPDATE gradings SET worker = ? WHERE submission = ? AND owner = ?",
                         (name, sub_id, job))
            worker_seen(conn, name, None, name.split(" ")[0], None, "grading", sub_id, now)


def slurm_waiting(job):
    """The worker of a submission claimed for Slurm job JOB until the job runs."""
    return "Slurm job %s (waiting)" % job


def set_slurm_job(conn, sub_id, job, was):
    """The row's job becomes JOB if it was WAS (None, SUBMITTING or a job id); False when the
    row changed meanwhile (or is done: a done submission needs no job)."""
    with transaction(conn):
        cur = conn.execute(
            "UPDATE submissions SET slurm_job = ? WHERE id = ? AND state != 'done' AND "
            "slurm_job IS ?", (job, sub_id, was))
        return cur.rowcount == 1


def requeue_slurm(conn, sub_id, job, why, worker_suffix, now=None):
    """Slurm job JOB of the submission ended without its verdict (WHY, one line): the row is
    queued again without a job, the job added to slurm_failed, and the job's attempt (its lease
    owner the job, or, as before the service claimed for its jobs, its worker column ending with
    WORKER_SUFFIX; the job is gone, so is it) recorded as 'lost'. A lease of another worker (one started by hand) is left to run out. Returns the
    failed jobs so far, or None when the row was no longer JOB's (done, or taken back already)."""
    now = now_s() if now is None else now
    with transaction(conn):
        row = conn.execute("SELECT * FROM submissions WHERE id = ? AND slurm_job = ? AND "
                           "state != 'done'", (sub_id, job)).fetchone()
        if row is None:
            return None
        failed = (decode(row, "slurm_failed") or []) + [[job, why]]
        conn.execute("UPDATE submissions SET slurm_job = NULL, slurm_failed = ? WHERE id = ?",
                     (json.dumps(failed), sub_id))
        if row["state"] == "running" and (row["lease_owner"] == job or
                                          (row["worker"] or "").endswith(worker_suffix)):
            conn.execute("UPDATE submissions SET state = 'queued', lease_until = NULL, "
                         "started_at = NULL WHERE id = ?", (sub_id,))
            conn.execute("UPDATE gradings SET outcome = 'lost', finished_at = ? "
                         "WHERE submission = ? AND owner = ? AND outcome IS NULL",
                         (now, sub_id, row["lease_owner"]))
        return failed


def fail_slurm(conn, sub_id, error, worker=None, now=None):
    """The verdict of a submission whose Slurm jobs all ended without one: ERROR (one line),
    exit code 1, recorded once, as its one 'done' attempt. False when it is done already, or
    running under a worker's lease (whose verdict stands)."""
    now = now_s() if now is None else now
    with transaction(conn):
        row = conn.execute("SELECT * FROM submissions WHERE id = ?", (sub_id,)).fetchone()
        if row is None or row["state"] == "done" or (
                row["state"] == "running" and (row["lease_until"] or 0) >= now):
            return False
        conn.execute("UPDATE gradings SET outcome = 'lost', finished_at = ? "
                     "WHERE submission = ? AND outcome IS NULL", (now, sub_id))
        conn.execute(
            "UPDATE submissions SET state = 'done', finished_at = ?, lease_owner = NULL, "
            "lease_until = NULL, error = ?, exit_code = 1, attempts = attempts + 1, worker = ? "
            "WHERE id = ?", (now, error, worker, sub_id))
        conn.execute("INSERT INTO gradings (submission, owner, attempt, worker, started_at, "
                     "finished_at, outcome) VALUES (?, 'service', ?, ?, ?, ?, 'done')",
                     (sub_id, row["attempts"] + 1, worker, now, now))
        return True


def find_reusable(conn, key, seed_hash, exclude_id):
    """A graded submission (a report made, no grading error) of the same files and labs with the
    same seed: its results stand for another identical one."""
    return conn.execute(
        "SELECT * FROM submissions WHERE key = ? AND seed_hash = ? AND state = 'done' "
        "AND points IS NOT NULL AND error IS NULL AND id != ? ORDER BY id LIMIT 1",
        (key, seed_hash, exclude_id)).fetchone()


def gradings(conn, sub_id=None):
    if sub_id is None:
        return conn.execute("SELECT * FROM gradings ORDER BY id").fetchall()
    return conn.execute("SELECT * FROM gradings WHERE submission = ? ORDER BY id",
                        (sub_id,)).fetchall()


def owned_by(conn, sub_id, owner):
    """True while OWNER holds the running submission (a tmp folder of it must be kept)."""
    row = conn.execute("SELECT 1 FROM submissions WHERE id = ? AND lease_owner = ? "
                       "AND state = 'running'", (sub_id, owner)).fetchone()
    return row is not None


# ---- Workers ----------------------------------------------------------------------------------


def worker_seen(conn, name, pid=None, host=None, gpu=None, state=None, submission=None, now=None):
    """A worker's heartbeat (and its registration the first time)."""
    now = now_s() if now is None else now
    conn.execute(
        "INSERT INTO workers (name, pid, host, gpu, state, submission, started_at, seen_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET pid = excluded.pid, "
        "host = excluded.host, gpu = excluded.gpu, state = excluded.state, "
        "submission = excluded.submission, seen_at = excluded.seen_at",
        (name, pid, host, gpu, state, submission, now, now))


def worker_gone(conn, name):
    conn.execute("DELETE FROM workers WHERE name = ?", (name,))


def alive_workers(conn, now=None):
    now = now_s() if now is None else now
    return conn.execute("SELECT COUNT(*) FROM workers WHERE seen_at > ?",
                        (now - ALIVE_S,)).fetchone()[0]


def list_workers(conn, now=None):
    now = now_s() if now is None else now
    return conn.execute("SELECT * FROM workers WHERE seen_at > ? ORDER BY name",
                        (now - ALIVE_S,)).fetchall()


def decode(row, column):
    """A JSON column's value (None stays None)."""
    value = row[column]
    return None if value is None else json.loads(value)
