#!/usr/bin/env python3
"""End-to-end test of the grading service on Slurm (./cudalab serve --slurm) on the one-node
cluster of slurm_e2e.py, which runs it while its cluster is up (as root; CPU only: GPU checks
skipped). It reuses a batch_e2e.py run: its worker folder (built) and its seed, so that the
service's verdicts must be the batch's for the same files.

The service (--max-jobs 1: the cluster's two fake GPUs would otherwise run a second job in a
worker folder of its own, whose framework build takes minutes here) and three students, real
`./cudalab login` and `./cudalab submit --no-wait` clients: s1 hands in alice's lab 01 file of the
batch's fixtures (the answer), s2 carol's (it does not compile), s3 alice's again. While s1's job grades,
the service is restarted (SIGTERM, then started again): the job goes on and is adopted by the new
service, which submits nothing twice. Then s2's job is cancelled (scancel) while it grades: its
worker gives the submission back, the service sees the job gone and submits it once more, and it
is graded. s3's file, identical to s1's, is given s1's verdict by the service with no job. Last, a
waiting `./cudalab submit` on the idle service (a new file) measures the time from submit to
verdict through Slurm. The jobs' Python processes run under an audit hook of the test's (a
usercustomize.py, through PYTHONUSERBASE in the environment sbatch passes on) that records any
SQLite connection and any opening of DIR/service.sqlite: none may happen, only the service opens
the database. It checks each verdict (the points, and each check's status and points in
the report) against the batch's report of the same file, that
each submission has exactly one 'done' or 'reused' grading, the jobs submitted (four: s1, s2
twice, s4) and what the service's logs and database say of them.

usage: service_slurm_e2e.py E2E_WORKDIR   (a batch_e2e.py run's folder; starts a cluster of its
own, as slurm_e2e.py does; about 60 s on 2 cores)
"""

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import service_e2e  # noqa: E402
from expectations import Expectations  # noqa: E402
from service_e2e import LAB01, call_json, cudalab, hand_in, query, student_folder  # noqa: E402

WAIT_S = 120  # for a submission to reach a state (a job to start, to grade)


def log(text):
    print("service-slurm-e2e: " + text, flush=True)


def sh(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, **kw)


def lab_verdict(report, lab):
    """(points, max points, [failed checks]) of LAB in a report.json."""
    for entry in report.get("labs") or []:
        if entry.get("lab") == lab:
            return (entry.get("points"), entry.get("max_points"),
                    sorted("%s: %s" % (lab, c.get("check")) for c in entry.get("checks") or []
                           if c.get("status") == "failed"))
    return None


def lab_checks(path, lab):
    """[(check, status, points)] of LAB in the report.json at PATH ([] without one)."""
    try:
        with open(path) as f:
            report = json.load(f)
    except (OSError, ValueError):
        return []
    return [(c.get("check"), c.get("status"), c.get("points")) for entry in report.get("labs") or []
            if entry.get("lab") == lab for c in entry.get("checks") or []]


AUDIT = r"""# cudalab service_slurm_e2e.py: in a Slurm job, records opening a database.
import os, sys
if os.environ.get("SLURM_JOB_ID"):
    def _cudalab_log(text):
        with open(%(log)r, "a") as f:
            f.write("%%s job %%s pid %%d\n" %% (text, os.environ["SLURM_JOB_ID"], os.getpid()))
    _cudalab_log("loaded")
    def _cudalab_hook(event, args):
        if event == "sqlite3.connect" or (event == "open" and isinstance(args[0], str) and
                                          "service.sqlite" in args[0]):
            _cudalab_log("opened %%s %%s" %% (event, args[0]))
    sys.addaudithook(_cudalab_hook)
"""


def audit_env(tmp):
    """The environment of a service whose jobs' Python processes record, in TMP/audit.log, any
    SQLite connection and opening of the database (a usercustomize.py under PYTHONUSERBASE)."""
    env = dict(os.environ, PYTHONUSERBASE=os.path.join(tmp, "pyuser"))
    site = subprocess.run([sys.executable, "-c", "import site; print(site.getusersitepackages())"],
                          env=env, capture_output=True, text=True, check=True).stdout.strip()
    os.makedirs(site, exist_ok=True)
    log_path = os.path.join(tmp, "audit.log")
    with open(os.path.join(site, "usercustomize.py"), "w") as f:
        f.write(AUDIT % {"log": log_path})
    return env, log_path


def check(e2e, tmp, report):
    """The test, on the cluster that is up (SLURM_CONF set): E2E, a batch_e2e.py folder; TMP, a
    folder of its own; REPORT(cond, what), the caller's expect. Returns the figures it
    measured."""
    began = time.time()
    failed = []

    def expect(cond, what):
        if not cond:
            failed.append(what)
        report(cond, what)
        return cond

    ref = os.path.join(e2e, "out")
    work = os.path.join(ref, "work")
    data, clients = os.path.join(tmp, "data"), os.path.join(tmp, "clients")
    os.makedirs(data, mode=0o700)
    os.makedirs(clients)
    # The batch's seed: the service's verdicts are then the batch's, check for check.
    shutil.copy2(os.path.join(ref, "seed"), os.path.join(data, "seed"))
    expected, checks = {}, {}
    for sid in ("alice", "carol"):
        path = os.path.join(ref, "students", sid, "report.json")
        with open(path) as f:
            expected[sid] = lab_verdict(json.load(f), "01")
        checks[sid] = lab_checks(path, "01")
    with open(os.path.join(e2e, "submissions", "alice", LAB01)) as f:
        files = {"alice": f.read()}
    with zipfile.ZipFile(os.path.join(e2e, "submissions", "carol.zip")) as z:
        files["carol"] = z.read(os.path.basename(LAB01)).decode()

    port = service_e2e.free_port()
    service = service_e2e.Service(tmp, data, port, work)
    service.argv = [os.path.join(ROOT, "cudalab"), "serve", "--data", data, "--port", str(port),
                    "--slurm", "--max-jobs", "1", "--preset",
                    os.environ.get("CUDALAB_PRESET", "ci"), "--lab-timeout", "5", "--lease", "15",
                    "--work", work, "--per-hour", "100"]
    service.env, audit_log = audit_env(tmp)
    figures = {}
    try:
        start = time.time()
        service.start()
        figures["start"] = time.time() - start
        with open(os.path.join(tmp, "roster.csv"), "w") as f:
            f.write("id,name\ns1,Student 1\ns2,Student 2\ns3,Student 3\ns4,Student 4\n")
        r = sh([os.path.join(ROOT, "cudalab"), "roster", "import", os.path.join(tmp, "roster.csv"),
                "--data", data])
        named = re.findall(r"(\S*tokens-\S*\.csv)", r.stdout)
        if not expect(r.returncode == 0 and named, "the roster import names its tokens file"):
            return figures
        with open(named[-1]) as f:
            tokens = {row[0]: row[2] for row in csv.reader(f) if row and row[0] != "id"}
        folders = {}
        for sid in sorted(tokens):
            folders[sid] = student_folder(clients, sid, service.url)
            r = cudalab(folders[sid], "login", "--server", service.url, "--token", tokens[sid])
            expect(r.returncode == 0, "%s logs in (%s)" % (sid, (r.stdout + r.stderr).strip()))

        # Three hand-ins at once: alice's file, carol's, alice's again.
        handed = {}
        for sid, text in (("s1", files["alice"]), ("s2", files["carol"]), ("s3", files["alice"])):
            r = hand_in(folders[sid], text, "--no-wait")
            m = re.match(r"submission (\d+): ", r.stdout)
            expect(r.returncode == 0 and m, "%s: ./cudalab submit --no-wait (%s)" % (
                sid, (r.stdout + r.stderr).strip()))
            handed[sid] = int(m.group(1)) if m else None
        sub1, sub2, sub3 = handed["s1"], handed["s2"], handed["s3"]

        def row(sub):
            rows = query(data, "SELECT state, slurm_job, slurm_failed, worker FROM submissions "
                         "WHERE id = ?", (sub,))
            return rows[0] if rows else (None, None, None, None)

        def running(sub, what):
            """SUB's job, once squeue shows it running (its worker starting: the grade takes a
            few seconds more), looked at every 0.1 s."""
            r = wait(sub, "has a Slurm job", lambda r: r[0] == "running" and
                     r[1] not in (None, "submitting"))
            end = time.time() + WAIT_S
            while r and time.time() < end:
                if sh(["squeue", "--noheader", "--job", r[1], "--format=%T"]).stdout.strip() == \
                        "RUNNING":
                    return r
                time.sleep(0.1)
            expect(False, "submission %s %s within %d s (%s)" % (sub, what, WAIT_S, row(sub)))
            return None

        def wait(sub, what, cond, timeout=WAIT_S):
            end = time.time() + timeout
            while time.time() < end:
                r = row(sub)
                if cond(r):
                    return r
                time.sleep(0.3)
            expect(False, "submission %s %s within %d s (%s)" % (sub, what, timeout, row(sub)))
            return None

        # s1's job grades: the service restarts meanwhile.
        r1 = running(sub1, "is graded by its Slurm job")
        job1 = r1[1] if r1 else None
        took, clean = service.stop()
        figures["stop"] = took
        live = sh(["squeue", "--noheader", "--format=%i"]).stdout.split()
        expect(clean and job1 in live, "the service stops (%.1f s) while Slurm job %s grades "
               "submission %s; the job goes on" % (took, job1, sub1))
        expect(any("left queued or running: they grade on" in open(p).read()
                   for p in service.logs), "the service says its jobs go on")
        start = time.time()
        service.start()
        figures["restart"] = time.time() - start
        r1 = wait(sub1, "is graded", lambda r: r[0] == "done")
        expect(r1 and r1[1] == job1, "submission %s graded by Slurm job %s, adopted by the "
               "restarted service (its job: %s)" % (sub1, job1, r1 and r1[1]))

        # s2's job is cancelled while it grades: submitted once more, graded.
        r2 = running(sub2, "is graded by its Slurm job")
        job2 = r2[1] if r2 else None
        if job2:
            time.sleep(0.5)  # into its worker's start (its verdict takes 2 to 3 s more)
            sh(["scancel", job2])
        r2 = wait(sub2, "is graded", lambda r: r[0] == "done")
        ended = json.loads(r2[2]) if r2 and r2[2] else []
        expect(r2 and r2[1] not in (None, job2) and len(ended) == 1 and ended[0][0] == job2 and
               ended[0][1].startswith("cancelled"),
               "submission %s: Slurm job %s cancelled (scancel) while it graded, the service "
               "submitted job %s, which graded it (the store: %s)" % (
                   sub2, job2, r2 and r2[1], ended))
        gradings = query(data, "SELECT outcome FROM gradings WHERE submission = ? ORDER BY id",
                         (sub2,))
        expect([g[0] for g in gradings] == ["lost", "done"],
               "submission %s: the cancelled job's attempt lost, the next one done (%s)" % (
                   sub2, [g[0] for g in gradings]))

        # s3's: s1's verdict, given by the service, with no job.
        wait(sub3, "is given a verdict", lambda r: r[0] == "done")
        reused = query(data, "SELECT reused_from, slurm_job FROM submissions WHERE id = ?",
                       (sub3,))
        expect(reused and reused[0] == (sub1, None), "submission %s (alice's file again): "
               "submission %s's verdict, with no job (%s)" % (sub3, sub1, reused))

        # A waiting ./cudalab submit on the idle service: a new file, a job.
        start = time.time()
        r = hand_in(folders["s4"], files["alice"] + "\n// handed in again, waiting\n")
        figures["to_verdict"] = time.time() - start
        m = re.search(r"^submission (\d+): ([\d.?]+)/([\d.?]+) points; its page:", r.stdout, re.M)
        sub4 = int(m.group(1)) if m else None
        expect(m and r.returncode in (0, 1), "a waiting ./cudalab submit prints the table and "
               "the points (exit %d, %.1f s from submit to verdict through Slurm)%s" % (
                   r.returncode, figures["to_verdict"], "" if m else ":\n" +
                   (r.stdout + r.stderr)[-600:]))

        if sub4:  # where the time to a verdict went
            t = query(data, "SELECT created_at, started_at, finished_at, build_seconds, "
                      "grade_seconds FROM submissions WHERE id = ?", (sub4,))[0]
            figures.update(to_claim=t[1] - t[0], claim_to_verdict=t[2] - t[1], build=t[3] or 0,
                           grade=t[4] or 0)
            log("submit to verdict %.1f s: %.1f s until the service saw its job running "
                "(sbatch, Slurm's start), %.1f s from there to the verdict recorded (the "
                "worker's start and its check of its folder's build, %.1f s building the file, "
                "%.1f s grading it, the service's look for the verdict)" % (figures["to_verdict"], figures["to_claim"],
                                     figures["claim_to_verdict"], figures["build"],
                                     figures["grade"]))

        # The verdicts: the batch's, through the API.
        for sid, sub, ref_sid in (("s1", sub1, "alice"), ("s2", sub2, "carol"),
                                  ("s3", sub3, "alice"), ("s4", sub4, "alice")):
            status, got = call_json(port, "GET", "/api/submissions/%s" % sub, tokens[sid])
            got = got if isinstance(got, dict) else {}
            lab = (got.get("per_lab") or [{}])[0]
            verdict = (lab.get("points"), lab.get("max_points"), sorted(
                got.get("failed_checks") or []))
            mine = lab_checks(os.path.join(data, "submissions", str(sub), "report.json"), "01")
            expect(status == 200 and verdict == expected[ref_sid] and not got.get("error") and
                   mine and mine == checks[ref_sid],
                   "%s's submission %s: the batch's verdict of %s's lab 01 (%s/%s, %d failed; "
                   "the same %d checks' status and points)" % (
                       sid, sub, ref_sid, verdict[0], verdict[1], len(verdict[2]), len(mine)))
        rows = query(data, "SELECT s.id, (SELECT count(*) FROM gradings g WHERE g.submission = "
                     "s.id AND g.outcome IN ('done', 'reused')) FROM submissions s")
        expect(len(rows) == 4 and all(n == 1 for _, n in rows),
               "4 submissions, each with exactly one 'done' or 'reused' grading (%s)" % rows)
        scripts = sorted(n for n in os.listdir(os.path.join(data, "slurm", "logs")))
        logged = "".join(open(p).read() for p in service.logs)
        submitted = re.findall(r"^serve: submission (\d+): Slurm job (\d+)$", logged, re.M)
        expect(sorted(int(s) for s, _ in submitted) == sorted([sub1, sub2, sub2, sub4]),
               "four jobs submitted: s1's once (not again after the restart), s2's twice, s4's "
               "(%s; logs %s)" % (submitted, scripts))
        expect("submission %d: Slurm job %s ended without a verdict (cancelled): queued for a "
               "new job" % (sub2, job2) in logged, "the service's log says the cancelled job's "
               "submission was queued for a new job")
        figures["jobs"] = len(submitted)
        audit = open(audit_log).read() if os.path.exists(audit_log) else ""
        loaded = set(re.findall(r"^loaded job (\d+) ", audit, re.M))
        opened = [l for l in audit.splitlines() if l.startswith("opened")]
        expect(loaded >= {j for _, j in submitted} and not opened,
               "the jobs' workers never opened the database (an audit hook in each of the %d "
               "jobs' Python processes: %s)" % (len(loaded), "; ".join(opened[:3]) or
                                                "no SQLite connection, no open of it"))
    finally:
        service.stop()
        figures["total"] = time.time() - began
        if failed:
            print(service.tail())
    return figures


def main(argv):
    if os.geteuid() != 0 or len(argv) != 1:
        print("usage (as root): service_slurm_e2e.py E2E_WORKDIR" if len(argv) != 1 else
              "SKIPPED: the Slurm test runs the daemons as root (CI does)")
        return 2 if len(argv) != 1 else 77
    import slurm_e2e
    tmp = tempfile.mkdtemp(prefix="cudalab-service-slurm-e2e-")
    expect = Expectations()
    failures = expect.failures

    slurm_e2e.install()
    cluster = slurm_e2e.Cluster(os.path.join(tmp, "cluster"))
    try:
        cluster.start()
        figures = check(os.path.abspath(argv[0]), os.path.join(tmp, "service"), expect)
    finally:
        cluster.stop()
    print("figures: %s" % ", ".join("%s %.1f" % kv for kv in sorted(figures.items())))
    if failures:
        print("%d check(s) failed; logs in %s" % (len(failures), tmp))
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
