#!/usr/bin/env python3
"""End-to-end test of the course's grading service (./cudalab serve) and its student client
(./cudalab login, submit, submissions) on this machine, CPU only: there the grader reports the GPU
checks as skipped, and what is checked is the service: the queue, exactly-once grading through
a worker killed and a service restarted, reuse, the clients, bad input.

It starts the service (one worker, the ci preset, 5 s per check) on a free localhost port and
imports a roster of 50 students. Then 50 real client processes at once, each a student in a folder
of their own (a copy of the files the client needs) with credentials of their own, log in and
hand in lab 01 three times each (--no-wait), the three files the class shares: the skeleton,
the plain answer and a file that does not compile; the service reuses the verdict of a file it
graded, so 150 submissions need three real gradings. All hand in their first file at once, and
the worker is killed (SIGKILL) while it grades the first; with those submissions queued, the whole
service is restarted (SIGTERM, then started again); then all hand in their other two. Once every
submission is done it checks, in the service's database (read only) and through the API: 150
submissions, each graded exactly once (one 'done' or 'reused' attempt), none lost, the killed
attempt recorded as lost, three real gradings, one verdict per file, the compile error's console
saying so, no console holding the seed or the service's folders. Then a student's waiting
`./cudalab submit --lab 01`
on the idle service (a new file: a real grading) must print the table and exit with the grade's
exit code; the service runs with a deadline for lab 01 (far ahead: every submission counts, and
the API says so), `./cudalab export` makes the batch's files of the counting submissions (a row
per student in grades.csv, a student's results.json), and a student opts in to the leaderboard
(`./cudalab leaderboard --opt-in`; the board is empty without a GPU). Then bad input must each be a
4xx with one line of JSON, the service answering after it: no token, a wrong one, a revoked one,
another student's submission, a body of 1 GiB (413 before it is read), a tar of an escaping path
and a link only, a body that is not gzip, an unknown lab. It prints the figures it measured and
exits 0 only when every expectation holds.

About a minute on 2 cores once the worker's framework is built (the killed worker's submission
waits out a lease of 15 s, --lease; --work: the folder of a batch e2e run's workers, its
out/work, `$tmp/e2e/out/work` in .ci/run, built by it and refused when it holds no build); without
it, the service builds the framework first (90 s more there).

usage: service_e2e.py [WORKDIR] [--work WORKER_FOLDER]   (WORKDIR default: a temporary folder)
"""

import argparse
import concurrent.futures
import csv
import glob
import gzip
import http.client
import io
import json
import os
import re
import select
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import threading
import time

from expectations import Expectations  # the tests' sibling module

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAB01 = "labs/01-conv1d-basic/conv1d_basic.cu"
ANSWER01 = "grader/labs/01-conv1d-basic/variants/answer.cu"
STUDENTS = 50
SUBMITS = 3  # per student
# What a student's folder needs to run ./cudalab login/submit/submissions: the driver, the client
# and what it imports (base.py, submissions.py: the list of labs, read from CMakeLists.txt) and the
# lab file handed in.
CLIENT_FILES = ["cudalab", "CMakeLists.txt", "grader/classroom/__init__.py",
                "grader/classroom/client.py", "grader/classroom/base.py",
                "grader/classroom/submissions.py"]
KINDS = ("skeleton", "answer", "compile-error")
DONE_WITHIN = 300  # seconds for the 150 submissions once the worker is built (the kill's
# lease and the restart included)
BUILD_ALLOWANCE = 900  # and more when the worker folder is new: the framework is built first
GATE_TIMEOUT = 600  # seconds the students and the test wait for each other at a step
# Seconds for the killed worker's attempt to be recorded as lost: its lease (--lease 15) passes first.
LOST_WITHIN = 120
DEADLINE_01 = "2099-01-01T00:00:00Z"  # lab 01's deadline (--deadlines): every submission is before


def log(text):
    print("service-e2e: " + text, flush=True)


def read(rel):
    with open(os.path.join(ROOT, rel)) as f:
        return f.read()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def client_env(config_dir):
    """The environment of a client: credentials of its own, no proxy (the service is local)."""
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env["CUDALAB_CONFIG_DIR"] = config_dir
    return env


# ---- HTTP, as a test sees it -----------------------------------------------------------------


def call(port, method, path, token=None, body=None, headers=None, timeout=30):
    """(status, body bytes) of one request; (None, why) when the service does not answer."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    h = dict(headers or {})
    if token is not None:
        h["Authorization"] = "Bearer " + token
    try:
        conn.request(method, path, body=body, headers=h)
        r = conn.getresponse()
        return r.status, r.read()
    except (OSError, http.client.HTTPException) as e:
        return None, str(e).encode()
    finally:
        conn.close()


def call_json(port, method, path, token=None, **kw):
    status, body = call(port, method, path, token, **kw)
    try:
        return status, json.loads(body.decode())
    except ValueError:
        return status, None


def health(port):
    status, answer = call_json(port, "GET", "/api/health", timeout=5)
    return answer if status == 200 and isinstance(answer, dict) and answer.get("ok") else None


def one_line_error(body):
    """The error text when BODY is one line of JSON {"error": "<one line>"}, else None."""
    text = body.decode(errors="replace").strip()
    try:
        error = json.loads(text).get("error")
    except (ValueError, AttributeError):
        return None
    if "\n" in text or not isinstance(error, str) or not error or "\n" in error:
        return None
    return error


def oversized_upload(port, token, size=1 << 30):
    """POSTs a SIZE-byte body streamed from a generator, reading the answer as soon as there is
    one (the service must not read the body first): (status, body, seconds, bytes sent)."""
    def chunks():
        block = b"\0" * (1 << 16)
        for _ in range(size // len(block)):
            yield block

    start = time.time()
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(("POST /api/submissions?labs=01 HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
               "Authorization: Bearer %s\r\nContent-Type: application/gzip\r\n"
               "Content-Length: %d\r\nConnection: close\r\n\r\n" % (port, token, size)).encode())
    s.setblocking(False)
    body, reply, sent, sending = chunks(), b"", 0, True
    pending = b""
    while time.time() - start < 60:
        readable, writable, _ = select.select([s], [s] if sending else [], [], 1)
        if readable:
            try:
                data = s.recv(1 << 16)
            except BlockingIOError:
                continue
            except OSError:
                break
            if not data:
                break
            reply += data
            continue  # an answer first: read all of it before sending more
        if writable:
            pending = pending or next(body, b"")
            if not pending:
                sending = False
                continue
            try:
                n = s.send(pending)
                sent, pending = sent + n, pending[n:]
            except BlockingIOError:
                pass
            except OSError:  # the service closed its side: what it answered is to be read
                sending = False
    s.close()
    seconds = time.time() - start
    head, _, content = reply.partition(b"\r\n\r\n")
    m = re.match(rb"HTTP/1\.[01] (\d{3})", head)
    return (int(m.group(1)) if m else None), content, seconds, sent


def tar_gz(members):
    """A gzip'ed tar of MEMBERS: (name, bytes) for a file, (name, "->target") for a link."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as t:
        for name, data in members:
            info = tarfile.TarInfo(name)
            if isinstance(data, str) and data.startswith("->"):
                info.type, info.linkname = tarfile.SYMTYPE, data[2:]
                t.addfile(info)
            else:
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue())


# ---- The service -----------------------------------------------------------------------------


class Service:
    """./cudalab serve as our child, in a session of its own; its output in
    WORKDIR/service-N.log."""

    def __init__(self, work, data, port, worker_folder):
        self.work, self.data, self.port = work, data, port
        self.url = "http://127.0.0.1:%d" % port
        preset = os.environ.get("CUDALAB_PRESET", "ci")
        self.argv = [os.path.join(ROOT, "cudalab"), "serve", "--data", data, "--port", str(port),
                     "--host", "127.0.0.1", "--workers", "1", "--preset", preset,
                     "--lab-timeout", "5", "--per-hour", "100", "--gpu-seconds-per-day", "100000",
                     # A killed worker's submission is graded again after 15 s, not 60.
                     "--lease", "15", "--deadlines", os.path.join(work, "deadlines.csv")]
        if worker_folder:
            self.argv += ["--work", worker_folder]
        self.proc, self.starts, self.logs = None, 0, []
        self.env = None  # its environment: ours, unless set

    def start(self, wait=60):
        self.starts += 1
        path = os.path.join(self.work, "service-%d.log" % self.starts)
        self.logs.append(path)
        with open(path, "w") as out:
            self.proc = subprocess.Popen(self.argv, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True, env=self.env)
        deadline = time.time() + wait
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit("service-e2e: the service exited with %d at start:\n%s" %
                                 (self.proc.returncode, self.tail()))
            if health(self.port):
                return
            time.sleep(0.2)
        raise SystemExit("service-e2e: the service did not answer /api/health within %d s:\n%s"
                         % (wait, self.tail()))

    def stop(self, wait=60):
        """SIGTERM, then waits; returns (seconds it took, whether it ended by itself)."""
        start = time.time()
        if self.proc is None or self.proc.poll() is not None:
            return 0.0, True
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(wait)
            return time.time() - start, True
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            return time.time() - start, False

    def tail(self, lines=30):
        text = ""
        for path in self.logs:
            with open(path, errors="replace") as f:
                text += "---- %s\n%s" % (os.path.basename(path),
                                         "".join(f.readlines()[-lines:]))
        return text

    def worker_pids(self):
        """The pids of the service's worker processes: `ps` lines whose command line has
        grader.classroom.worker and that descend from the service."""
        if self.proc is None:
            return []
        out = subprocess.run(["ps", "-eo", "pid=,ppid=,args="], capture_output=True,
                             text=True).stdout
        parent, args = {}, {}
        for line in out.splitlines():
            fields = line.split(None, 2)
            if len(fields) == 3:
                parent[int(fields[0])], args[int(fields[0])] = int(fields[1]), fields[2]
        pids = []
        for pid, cmd in args.items():
            if "grader.classroom.worker" not in cmd:
                continue
            p = pid
            while p > 1 and p != self.proc.pid:
                p = parent.get(p, 1)
            if p == self.proc.pid:
                pids.append(pid)
        return sorted(pids)


def query(data, sql, args=()):
    """The rows of SQL on DATA/service.sqlite, opened read-only (the service writes it)."""
    for _ in range(50):
        try:
            conn = sqlite3.connect("file:%s?mode=ro" % os.path.join(data, "service.sqlite"),
                                   uri=True, timeout=10)
            try:
                return conn.execute(sql, args).fetchall()
            finally:
                conn.close()
        except sqlite3.OperationalError as e:  # locked for a moment, or not made yet
            last = e
            time.sleep(0.2)
    raise SystemExit("service-e2e: cannot read %s/service.sqlite: %s" % (data, last))


# ---- The students ----------------------------------------------------------------------------


def student_folder(clients, sid, url):
    """A folder of the student's own: the files the client needs; credentials in config/."""
    folder = os.path.join(clients, sid)
    for rel in CLIENT_FILES + [LAB01]:
        src = os.path.join(ROOT, rel)
        if os.path.exists(src):
            os.makedirs(os.path.dirname(os.path.join(folder, rel)), exist_ok=True)
            shutil.copy2(src, os.path.join(folder, rel))
    return folder


def cudalab(folder, *argv, timeout=300):
    return subprocess.run([os.path.join(folder, "cudalab")] + list(argv), cwd=folder,
                          env=client_env(os.path.join(folder, "config")), capture_output=True,
                          text=True, timeout=timeout)


def hand_in(folder, text, *argv):
    with open(os.path.join(folder, LAB01), "w") as f:
        f.write(text)
    return cudalab(folder, "submit", "--lab", "01", *argv)


def run_student(i, sid, token, folder, url, files, gate):
    """One student: login; then, each time GATE (a barrier the test waits at too) lets them go,
    hand in their next file (--no-wait): the first, then (the service restarted) the other two.
    Returns ([(submission id, kind)], [problems])."""
    problems, handed = [], []

    def wait_gate():
        try:
            gate.wait(GATE_TIMEOUT)
        except threading.BrokenBarrierError:
            problems.append("%s: the test gave up waiting for the other students" % sid)

    r = cudalab(folder, "login", "--server", url, "--token", token)
    logged_in = r.returncode == 0 and r.stdout.startswith("logged in to %s as %s (" % (url, sid))
    if not logged_in:
        problems.append("%s: login exited %d: %s" % (sid, r.returncode,
                                                     (r.stdout + r.stderr).strip()))
    for j in range(SUBMITS):
        if j == 0:  # every student logged in: all hand in their first file at once
            wait_gate()
        elif j == 1:  # every first file handed in; then the service restarted
            wait_gate()
            wait_gate()
        if not logged_in:
            continue
        kind = KINDS[(i + j) % len(KINDS)]
        r = hand_in(folder, files[kind], "--no-wait")
        m = re.match(r"submission (\d+): .*; its page: %s/submissions/\1$" % re.escape(url),
                     r.stdout.strip())
        if r.returncode != 0 or not m:
            problems.append("%s: submit %d exited %d: %s" % (sid, j + 1, r.returncode,
                                                             (r.stdout + r.stderr).strip()))
        else:
            handed.append((int(m.group(1)), kind))
    wait_gate()  # the test counts the hand-ins once every student has made theirs
    return handed, problems


# ---- The test --------------------------------------------------------------------------------


def main(argv):
    p = argparse.ArgumentParser(prog="service_e2e.py", description=__doc__.split("\n\n")[0])
    p.add_argument("workdir", nargs="?", help="where it works (default: a temporary folder)")
    p.add_argument("--work", help="the workers' folder to reuse (a batch e2e's work/)")
    args = p.parse_args(argv)
    t0 = time.time()
    work = os.path.abspath(args.workdir or tempfile.mkdtemp(prefix="cudalab-service-e2e-"))
    data, clients = os.path.join(work, "data"), os.path.join(work, "clients")
    for d in (data, clients):
        shutil.rmtree(d, ignore_errors=True)
    os.makedirs(clients)
    worker_folder = os.path.abspath(args.work or os.path.join(work, "work"))
    built = os.path.isdir(worker_folder) and bool(glob.glob(os.path.join(
        worker_folder, "*", "tree", "build", "*", "grader", "cudalab-grade")))
    if args.work and not built:  # a wrong path would cost a framework build, silently
        p.error("--work %s holds no worker's build (a batch_e2e.py run's out/work); leave --work "
                "out to build one" % worker_folder)
    expect = Expectations()
    failures = expect.failures

    answer = read(ANSWER01)
    files = {"skeleton": read(LAB01), "answer": answer,
             "compile-error": answer + "\nthis is not C++;\n"}

    with open(os.path.join(work, "deadlines.csv"), "w") as f:
        f.write("lab,deadline\n01,%s\n" % DEADLINE_01)
    service = Service(work, data, free_port(), worker_folder)
    try:
        log("starting %s (worker folder %s, %s)" % (" ".join(service.argv[1:]), worker_folder,
                                                    "built before" if built else "built first"))
        service.start()

        # The roster: 50 students; the tokens file the import writes.
        with open(os.path.join(work, "roster.csv"), "w") as f:
            f.write("id,name\n")
            for i in range(1, STUDENTS + 1):
                f.write("s%02d,Student %d\n" % (i, i))
        r = subprocess.run([os.path.join(ROOT, "cudalab"), "roster", "import",
                            os.path.join(work, "roster.csv"), "--data", data],
                           capture_output=True, text=True)
        named = re.findall(r"(\S*tokens-\S*\.csv)", r.stdout)
        tokens_file = named[-1] if named else None
        if not expect(r.returncode == 0 and tokens_file and os.path.isfile(tokens_file),
                      "the roster import exits 0 and names its tokens file (exit %d: %s)" % (
                          r.returncode, (r.stdout + r.stderr).strip()[-300:])):
            return 1
        with open(tokens_file) as f:
            rows = [row for row in csv.reader(f) if row and row[0] != "id"]
        tokens = {row[0]: row[2] for row in rows}
        sids = sorted(tokens)
        if not expect(sids == ["s%02d" % i for i in range(1, STUDENTS + 1)],
                      "the tokens file has the 50 students (%d rows)" % len(sids)):
            return 1

        # 50 clients at once, three submissions each, in steps that the test and the students
        # take together (a barrier): all log in; all hand in their first file, while the worker
        # is killed as it grades; the service restarts with those queued (an identical file is
        # reused in milliseconds: once every student's last hand-in is in, none would be left);
        # all hand in their other two.
        folders = {sid: student_folder(clients, sid, service.url) for sid in sids}
        log("%d students log in and hand in %d files each, at once" % (STUDENTS, SUBMITS))
        start_clients = time.time()
        gate = threading.Barrier(STUDENTS + 1)
        pool = concurrent.futures.ThreadPoolExecutor(STUDENTS)
        futures = [pool.submit(run_student, i, sid, tokens[sid], folders[sid], service.url, files,
                               gate) for i, sid in enumerate(sids)]

        def step():
            try:
                gate.wait(GATE_TIMEOUT)
            except threading.BrokenBarrierError:
                expect(False, "the students reach the next step within %d s" % GATE_TIMEOUT)

        step()  # every student logged in: now they hand in their first file

        # The worker is killed while it grades the first submission.
        kills, killed, killed_sub = 0, [], None
        deadline = time.time() + 120 + (0 if built else BUILD_ALLOWANCE)
        while time.time() < deadline:
            running = query(data, "SELECT id FROM submissions WHERE state = 'running'")
            if running and service.worker_pids():
                time.sleep(1)  # into the grading: its build
                killed_sub = running[0][0]
                killed = service.worker_pids()
                for pid in killed:
                    os.kill(pid, signal.SIGKILL)
                kills += 1
                break
            time.sleep(0.2)
        kill_time = time.time()
        expect(kills == 1 and killed, "the worker %s killed (SIGKILL) while it grades submission "
               "%s" % (killed, killed_sub))

        # The service starts a worker in its place.
        replaced = []
        while time.time() - kill_time < 30 and not replaced:
            replaced = [pid for pid in service.worker_pids() if pid not in killed]
            time.sleep(0.2)
        expect(bool(replaced), "the service starts a new worker in place of the killed one "
               "(%.1f s)" % (time.time() - kill_time))

        step()  # every student's first file handed in

        # The whole service restarts while submissions are queued.
        queued_then = query(data, "SELECT count(*) FROM submissions WHERE state = 'queued'")[0][0]
        workers_before = service.worker_pids()
        took, clean = service.stop()
        left = [pid for pid in workers_before if os.path.exists("/proc/%d" % pid)]
        expect(clean and not left, "the service stops on SIGTERM in %.1f s, its worker with it "
               "(left: %s)" % (took, left))
        expect(queued_then > 0, "submissions were queued at the restart (%d)" % queued_then)
        restarts = 1
        service.start()

        step()  # the students hand in their other two files, to the restarted service
        step()  # and are done
        handed, problems = [], []
        for f in futures:
            h, pr = f.result()
            handed += h
            problems += pr
        pool.shutdown()
        clients_s = time.time() - start_clients
        expect(not problems, "%d logins and %d submissions by %d clients at once (the first "
               "hand-ins before the restart, the others after), each exit 0 (%.0f s)%s" % (
                   STUDENTS, STUDENTS * SUBMITS, STUDENTS, clients_s,
                   "".join("\n        " + x for x in problems[:5])))

        # The killed attempt is recorded as lost (once its lease has passed), and graded again.
        lost = []
        while time.time() - kill_time < LOST_WITHIN:
            lost = query(data, "SELECT count(*) FROM gradings WHERE submission = ? AND "
                         "outcome = 'lost'", (killed_sub,))[0][0]
            if lost:
                break
            time.sleep(0.5)
        expect(bool(lost), "the killed worker's attempt at submission %s is recorded as lost "
               "(%.0f s after the kill)" % (killed_sub, time.time() - kill_time))

        # Every submission done.
        deadline = t0 + DONE_WITHIN + (0 if built else BUILD_ALLOWANCE)
        while time.time() < deadline:
            pending = query(data, "SELECT count(*) FROM submissions WHERE state != 'done'")[0][0]
            if pending == 0:
                break
            time.sleep(1)
        graded_s = time.time() - t0
        rows = query(data, "SELECT s.id, s.student, s.state, (SELECT count(*) FROM gradings g "
                     "WHERE g.submission = s.id AND g.outcome IN ('done', 'reused')), "
                     "(SELECT count(*) FROM gradings g WHERE g.submission = s.id AND "
                     "g.outcome = 'done') FROM submissions s")
        ids = {r[0] for r in rows}
        expect(len(rows) == STUDENTS * SUBMITS and ids == {sub for sub, _ in handed},
               "%d submissions in the database, the ids the clients were given (%d)" % (
                   len(rows), len(handed)))
        not_done = [r[0] for r in rows if r[2] != "done"]
        expect(not not_done, "every submission done within %d s (%.0f s; not done: %s)" % (
            deadline - t0, graded_s, not_done[:10]))
        once = [r[0] for r in rows if r[3] != 1]
        expect(not once, "each submission has exactly one 'done' or 'reused' grading (not: %s)"
               % once[:10])
        real = query(data, "SELECT count(*) FROM gradings WHERE outcome = 'done'")[0][0]
        reused = query(data, "SELECT count(*) FROM gradings WHERE outcome = 'reused'")[0][0]
        lost_n = query(data, "SELECT count(*) FROM gradings WHERE outcome = 'lost'")[0][0]
        expect(real == len(KINDS), "three real gradings for the three files (%d done, %d reused, "
               "%d lost)" % (real, reused, lost_n))

        # One verdict per file, through the API, each student seeing their own.
        owner = {r[0]: r[1] for r in rows}
        verdicts = {}
        for sub, kind in sorted(handed):
            status, s = call_json(service.port, "GET", "/api/submissions/%d" % sub,
                                  tokens[owner[sub]])
            if status != 200 or not isinstance(s, dict):
                verdicts.setdefault(kind, set()).add(("HTTP %s" % status,))
                continue
            verdicts.setdefault(kind, set()).add((s.get("points"), s.get("max_points"),
                                                  s.get("exit_code"), s.get("console")))
        for kind in KINDS:
            v = verdicts.get(kind, set())
            one = next(iter(v)) if len(v) == 1 else None
            expect(one is not None and len(one) == 4 and one[3],
                   "%s: the 50 submissions of the file have one verdict, with a console (%s)" % (
                       kind, "%g/%g, exit %s" % (one[0] or 0, one[1] or 0, one[2])
                       if one and len(one) == 4 else "%d different" % len(v)))
        # The grade's table says "does not compile"; the compiler's own words name the file.
        ce = next(iter(verdicts.get("compile-error", {()})), ())
        console = (ce[3] or "") if len(ce) == 4 else ""
        expect(len(ce) == 4 and ce[2] not in (0, None) and (
            "does not compile" in console or
            'error detected in the compilation of "%s"' % LAB01 in console),
            "the file that does not compile: a failing exit code, and its console says so")
        # What a student sees holds none of the service's secrets: its seed, its folders.
        with open(os.path.join(data, "seed")) as f:
            seed = f.read().strip()
        consoles = [next(iter(v))[3] or "" for v in verdicts.values() if len(next(iter(v))) == 4]
        leaks = [x for x in (seed, data, worker_folder, ROOT) if any(x in c for c in consoles)]
        expect(consoles and not leaks, "the consoles hold neither the seed nor the service's "
               "folders (found: %s)" % ", ".join("the seed" if x == seed else x for x in leaks))

        # A student waits for a verdict on the idle service: a new file, a real grading.
        folder = folders["s01"]
        start = time.time()
        r = hand_in(folder, answer + "\n// handed in again, waiting\n")
        to_verdict = time.time() - start
        m = re.search(r"^submission (\d+): ([\d.?]+)/([\d.?]+) points; its page: %s/submissions/"
                      r"(\d+)\n\Z" % re.escape(service.url), r.stdout, re.M)
        sub = {}
        if m:
            _, sub = call_json(service.port, "GET", "/api/submissions/%s" % m.group(1),
                               tokens["s01"])
            sub = sub if isinstance(sub, dict) else {}
        expect(bool(m) and sub.get("console") and sub["console"] in r.stdout
               and r.returncode == sub.get("exit_code"),
               "a waiting ./cudalab submit --lab 01 prints the table and the points and exits "
               "with the submission's exit code (%d; %.0f s)%s" % (
                   r.returncode, to_verdict, "" if m else ":\n" + (r.stdout + r.stderr)[-800:]))
        r = cudalab(folder, "submissions")
        lines = r.stdout.splitlines()
        expect(r.returncode == 0 and len(lines) == SUBMITS + 2 and m and
               lines[1].split()[0] == m.group(1),
               "./cudalab submissions lists the student's 4 submissions, newest first")

        # Every submission graded: the last one counts (before lab 01's deadline), and the export
        # makes the batch's files of the counting submissions.
        expect(sub.get("counts") == {"01": True} and sub.get("deadline") == {"01": DEADLINE_01},
               "the last submission counts, before lab 01's deadline (counts %s, deadline %s)" % (
                   sub.get("counts"), sub.get("deadline")))
        start = time.time()
        exported = os.path.join(work, "export")
        shutil.rmtree(exported, ignore_errors=True)
        r = subprocess.run([os.path.join(ROOT, "cudalab"), "export", "--data", data, "--out",
                            exported], capture_output=True, text=True)
        export_s = time.time() - start
        try:
            with open(os.path.join(exported, "class", "grades.csv")) as f:
                graded_rows = [row["student"] for row in csv.DictReader(f)]
        except OSError:
            graded_rows = []
        expect(r.returncode == 0 and graded_rows == sids and os.path.isfile(
            os.path.join(exported, "students", "s01", "results.json")),
            "./cudalab export: grades.csv has a row per student (%d), s01's results.json "
            "(exit %d, %.1f s)%s" % (len(graded_rows), r.returncode, export_s,
                                     "" if r.returncode == 0 else ": " + r.stderr.strip()[-300:]))
        r = cudalab(folder, "leaderboard", "--opt-in")
        status, board = call_json(service.port, "GET", "/api/leaderboard/01", tokens["s02"])
        rows = board.get("rows") if isinstance(board, dict) else None
        expect(r.returncode == 0 and "is shown" in r.stdout and status == 200 and
               isinstance(rows, list) and all(isinstance(x, dict) and x.get("name") in (
                   "anonymous", "Student 1", "you") for x in rows),
               "./cudalab leaderboard --opt-in, then lab 01's board as another student sees it "
               "(%s row(s): none without a GPU)" % (len(rows) if isinstance(rows, list) else "no"))

        # Bad input: each a 4xx with one line of JSON; the service answers after it.
        bad = []

        def refused(what, status, body, want):
            error = one_line_error(body)
            alive = health(service.port) is not None
            ok = status == want and error is not None and alive
            bad.append(ok)
            expect(ok, "%s: %s (%s %s)%s" % (what, want, status, error or body[:200],
                                              "" if alive else "; the service no longer answers"))

        token2 = tokens["s02"]
        archive = tar_gz([(LAB01, answer.encode())])
        refused("no token", *call(service.port, "GET", "/api/me"), 401)
        refused("a wrong token", *call(service.port, "GET", "/api/me", "not-a-token"), 401)
        r = subprocess.run([os.path.join(ROOT, "cudalab"), "roster", "revoke", "s50",
                            "--data", data], capture_output=True, text=True)
        expect(r.returncode == 0, "roster revoke s50 exits 0 (%s)" % (r.stdout + r.stderr).strip())
        refused("a revoked token", *call(service.port, "GET", "/api/me", tokens["s50"]), 401)
        r = cudalab(folders["s50"], "submissions")
        expect(r.returncode == 2 and r.stderr.count("\n") == 1 and not r.stdout,
               "the revoked student's client: one line, exit 2 (%d: %s)" % (
                   r.returncode, r.stderr.strip()))
        other = next(sub for sub, _ in sorted(handed) if owner[sub] == "s01")
        status, body = call(service.port, "GET", "/api/submissions/%d" % other, token2)
        refused("another student's submission", status, body, 404)
        expect(one_line_error(body) == "no submission %d" % other,
               "another student's submission: 'no submission %d'" % other)
        status, body, seconds, sent = oversized_upload(service.port, token2)
        refused("a body of 1 GiB", status, body, 413)
        expect(status == 413 and seconds < 10 and sent < (64 << 20),
               "a body of 1 GiB: answered in %.2f s, %.1f MiB sent of 1024" % (
                   seconds, sent / (1 << 20)))
        unsafe = tar_gz([("../x", b"int x;\n"), (LAB01, "->/etc/passwd")])
        refused("a tar of '../x' and a link only", *call(
            service.port, "POST", "/api/submissions?labs=01", token2, unsafe,
            {"Content-Type": "application/gzip"}), 400)
        refused("a body that is not gzip", *call(
            service.port, "POST", "/api/submissions?labs=01", token2, b"just text\n" * 10,
            {"Content-Type": "application/gzip"}), 400)
        refused("labs=99", *call(service.port, "POST", "/api/submissions?labs=99", token2,
                                 archive, {"Content-Type": "application/gzip"}), 400)
        extra = query(data, "SELECT count(*) FROM submissions WHERE student = 's02'")[0][0]
        expect(extra == SUBMITS, "no bad request made a submission (s02 has %d)" % extra)
    finally:
        service.stop()

    total = time.time() - t0
    print("figures:")
    print("  students                 %d" % STUDENTS)
    print("  submissions              %d (+1 waited for)" % (STUDENTS * SUBMITS))
    print("  gradings                 %d real, %d reused, %d lost" % (real, reused, lost_n))
    print("  restarts                 %d" % restarts)
    print("  worker kills             %d" % kills)
    print("  bad requests refused     %d of %d" % (sum(bad), len(bad)))
    print("  clients' hand-in         %.0f s for %d logins and %d submissions" % (
        clients_s, STUDENTS, STUDENTS * SUBMITS))
    print("  all graded after         %.0f s" % graded_s)
    print("  time to verdict, idle    %.1f s (one lab, a real grading)" % to_verdict)
    print("  export                   %.1f s (%d students)" % (export_s, STUDENTS))
    print("  total                    %.0f s" % total)
    if failures:
        print(service.tail())
        print("%d expectation(s) failed" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
