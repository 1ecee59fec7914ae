#!/usr/bin/env python3
"""End-to-end test of ./cudalab batch --slurm against a real Slurm, on this machine (as root).

It installs what is missing of Debian's slurmctld, slurmd, slurm-client and munge, makes a
one-node cluster of this host in a temporary folder (no accounting daemon; a GPU gres of two fake
device nodes, so that each task gets CUDA_VISIBLE_DEVICES as on a real node, and with cgroup v1
the device constraint of a real cluster, checked; MaxArraySize 4, so that seven submissions need
two job arrays), starts its daemons and stops them at the end. Then it grades the seven synthetic
submissions of batch_e2e.py through the job arrays and the collector, and checks that the class
CSV and each student's report are those the single-machine batch made of the same submissions
with the same seed (GPU checks skipped on both), that the tasks reused the single-machine
batch's worker folder, and that a task killed at its time limit (1 minute) is reported as such:
that task is submitted first and runs beside the rest, in a worker folder of its own. Then, on
the same cluster, the grading service on Slurm (./cudalab serve --slurm: service_slurm_e2e.py;
about 40 s). Run by CI (.ci/run) after batch_e2e.py; about 2 minutes on 2 cores.

usage: slurm_e2e.py [E2E_WORKDIR]
  E2E_WORKDIR: the folder of a batch_e2e.py run (its submissions/ and out/). Without it,
  batch_e2e.py runs first, in a temporary folder (its worker's framework build: about 1 min).
"""

import csv
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)
import batch_e2e  # noqa: E402
import service_slurm_e2e  # noqa: E402
from expectations import Expectations  # noqa: E402
from grader.classroom import base, grading, slurm  # noqa: E402

PACKAGES = ["slurmctld", "slurmd", "slurm-client", "munge"]
PORTS = (16817, 16818)  # not Slurm's defaults: a Slurm of the machine's own is left alone
MAX_ARRAY_SIZE = 4  # seven submissions: two job arrays
TIME_LIMIT = 600  # seconds for the whole test once the packages are there (it takes about 130)


def log(text):
    print("slurm-e2e: " + text, flush=True)


def sh(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, **kw)


def install():
    """Installs what is missing of the packages; returns the seconds it took (0: nothing)."""
    if all(shutil.which(c) for c in ("slurmctld", "slurmd", "sbatch", "munged")):
        return 0.0
    start = time.time()
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for argv in (["apt-get", "update", "-qq"],
                 ["apt-get", "install", "-y", "-qq", "--no-install-recommends"] + PACKAGES):
        r = sh(argv, env=env, timeout=600)
        if r.returncode != 0:
            raise SystemExit("slurm-e2e: %s failed:\n%s" % (" ".join(argv), r.stdout + r.stderr))
    return time.time() - start


class Cluster:
    """A one-node Slurm cluster on this host, in FOLDER: munged, slurmctld and slurmd, run in
    the foreground as our children, so that stop() ends them."""

    def __init__(self, folder, gpus=2):
        self.dir = folder
        self.host = socket.gethostname().split(".")[0]
        # Slurm's cgroup v1 plugin needs the freezer (to track processes) and the devices
        # controller (ConstrainDevices); without them, processes are tracked by their parents.
        self.cgroups = all(os.path.isdir("/sys/fs/cgroup/" + c) for c in ("freezer", "devices"))
        self.conf = os.path.join(folder, "slurm.conf")
        self.procs = []
        d = lambda *p: os.path.join(folder, *p)  # noqa: E731
        for sub in ("state", "spool", "log", "dev", "run"):
            os.makedirs(d(sub))
        # munge: the key 0400 in a 0700 folder (munged refuses anything looser).
        os.makedirs(d("munge"), mode=0o700)
        with open(d("munge", "munge.key"), "wb") as f:
            f.write(os.urandom(128))
        os.chmod(d("munge", "munge.key"), 0o400)
        # The GPUs: character devices (Slurm's gres takes no regular file), the NVIDIA major.
        for i in range(gpus):
            os.mknod(d("dev", "nvidia%d" % i), 0o600 | 0o020000, os.makedev(195, i))
        cpus = os.cpu_count() or 2
        with open(self.conf, "w") as f:
            f.write("""\
ClusterName=cudalab-ci
SlurmctldHost={host}
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={run}/munge.socket
StateSaveLocation={state}
SlurmdSpoolDir={spool}
SlurmctldPidFile={run}/slurmctld.pid
SlurmdPidFile={run}/slurmd.pid
SlurmctldLogFile={logs}/slurmctld.log
SlurmdLogFile={logs}/slurmd.log
{tracking}
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
# No accounting daemon (no sacct): squeue and scontrol only.
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
MaxArraySize={max_array}
KillWait=5
SlurmdParameters=config_overrides
NodeName={host} CPUs={cpus} Gres=gpu:{gpus} State=UNKNOWN
PartitionName=ci Nodes=ALL Default=YES MaxTime=INFINITE State=UP
""".format(host=self.host, ctld_port=PORTS[0], d_port=PORTS[1], run=d("run"), state=d("state"),
           spool=d("spool"), logs=d("log"), max_array=MAX_ARRAY_SIZE, cpus=cpus, gpus=gpus,
           tracking="ProctrackType=proctrack/cgroup\nTaskPlugin=task/cgroup" if self.cgroups else
           "# No cgroup v1 here: processes tracked by their parents, devices not constrained.\n"
           "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none"))
        if self.cgroups:  # each task sees only its own GPU's device node
            with open(d("cgroup.conf"), "w") as f:
                f.write("CgroupPlugin=cgroup/v1\nConstrainDevices=yes\n")
        with open(d("gres.conf"), "w") as f:
            f.write("NodeName=%s Name=gpu File=%s\n" % (
                self.host, d("dev", "nvidia[0-%d]" % (gpus - 1) if gpus > 1 else "nvidia0")))
        os.environ["SLURM_CONF"] = self.conf  # for sbatch, squeue, scontrol, and the jobs

    def start(self, timeout=60):
        d = lambda *p: os.path.join(self.dir, *p)  # noqa: E731
        self.spawn(["munged", "--foreground", "--force", "--socket=" + d("run", "munge.socket"),
                    "--key-file=" + d("munge", "munge.key"), "--log-file=" + d("log", "munged.log"),
                    "--pid-file=" + d("run", "munged.pid"),
                    "--seed-file=" + d("run", "munged.seed")])
        self.wait_for(lambda: os.path.exists(d("run", "munge.socket")), 10, "munged's socket")
        # Started by these names: under their -wlm names the daemons leave the gres out.
        self.spawn(["slurmctld", "-D", "-c", "-f", self.conf])
        self.spawn(["slurmd", "-D", "-f", self.conf])
        self.wait_for(lambda: sh(["sinfo", "-h", "-o", "%t"]).stdout.strip() == "idle", timeout,
                      "the node to be idle")

    def spawn(self, argv):
        log_path = os.path.join(self.dir, "log", os.path.basename(argv[0]) + ".out")
        self.procs.append(subprocess.Popen(argv, stdout=open(log_path, "w"),
                                           stderr=subprocess.STDOUT, start_new_session=True))

    def wait_for(self, ready, timeout, what):
        end = time.time() + timeout
        while not ready():
            for p in self.procs:
                if p.poll() is not None:
                    raise SystemExit("slurm-e2e: %s exited (%d) while waiting for %s; logs in %s"
                                     % (p.args[0], p.returncode, what, self.dir))
            if time.time() > end:
                raise SystemExit("slurm-e2e: no %s after %d s; logs in %s" % (
                    what, timeout, self.dir))
            time.sleep(0.5)

    def stop(self):
        if self.procs:
            sh(["scancel", "--user", "root"], timeout=30)
        for p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(15)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.procs = []
        if self.cgroups:  # the cgroups Slurm made, now empty
            for top in [os.path.join("/sys/fs/cgroup", c, "slurm_" + self.host)
                        for c in os.listdir("/sys/fs/cgroup")]:
                for dirpath, dirnames, filenames in os.walk(top, topdown=False):
                    try:
                        os.rmdir(dirpath)
                    except OSError:
                        pass

    def device_isolation(self):
        """What a job given one GPU gets when it opens each GPU's device node: {index: error}.
        Its own: 'No such device or address' (allowed; no driver behind it); another's, with
        ConstrainDevices: 'Operation not permitted'. Returns (its CUDA_VISIBLE_DEVICES, errors)."""
        nodes = sorted(os.listdir(os.path.join(self.dir, "dev")))
        probe = "echo CVD=$CUDA_VISIBLE_DEVICES; " + "; ".join(
            "head -c1 %s >/dev/null" % os.path.join(self.dir, "dev", n) for n in nodes)
        out = os.path.join(self.dir, "log", "isolation.out")
        r = sh(["sbatch", "--parsable", "--gres=gpu:1", "--output=" + out, "--wrap", probe])
        if r.returncode != 0:
            raise SystemExit("slurm-e2e: sbatch failed: " + r.stderr)
        wait_jobs([r.stdout.strip()], 60)
        text = open(out).read() if os.path.exists(out) else ""
        visible = re.search(r"CVD=(\S*)", text)
        errors = {int(m.group(1)): m.group(2) for m in
                  re.finditer(r"nvidia(\d+)' for reading: (.*)", text)}
        return visible.group(1) if visible else None, errors


def submit(argv):
    """Runs the batch with --slurm ARGV; returns (output, [job ids]): the arrays, then the
    collector."""
    r = sh(batch_e2e.BATCH + ["--slurm"] + argv, env=batch_e2e.env())
    if r.returncode != 0:
        raise SystemExit("slurm-e2e: the submission failed (%d):\n%s" % (r.returncode,
                                                                         r.stdout + r.stderr))
    ids = re.findall(r"^batch: (?:job array|collector job) (\d+)", r.stdout, re.M)
    return r.stdout, ids


def wait_jobs(ids, timeout):
    """Polls squeue until none of IDS is queued or running (sbatch --wait is slow); seconds."""
    start = time.time()
    while slurm.live_jobs(ids):
        if time.time() - start > timeout:
            raise SystemExit("slurm-e2e: jobs %s still running after %d s:\n%s" % (
                ", ".join(ids), timeout, sh(["squeue"]).stdout))
        time.sleep(1)
    return time.time() - start


def comparable(report):
    """A report without what differs between two runs of the same grade: times (a check's, a lab's,
    the phases'), dates."""
    if isinstance(report, dict):
        return {k: comparable(v) for k, v in report.items()
                if k not in ("seconds", "generated_at", "phases")}
    if isinstance(report, list):
        return [comparable(v) for v in report]
    return report


def sleeper():
    """A lab 01 file whose build takes minutes, so that its task runs out of time: the grader runs
    no code of the file, and without a GPU nothing of it runs at all, so the time goes in the
    compiler (500 constant expressions of 10^5 steps each, about 2 s of compiler per 10; Slurm ends
    the task at its 1-minute limit long before)."""
    spin = ("\nconstexpr unsigned long spin(unsigned long n, unsigned long salt) {\n"
            "  unsigned long x = salt;\n"
            "  for (unsigned long i = 0; i < n; ++i) x = x * 6364136223846793005ul + i;\n"
            "  return x;\n}\n")
    asserts = "".join('static_assert(spin(100000, %d) != %d, "");\n' % (k, k) for k in range(500))
    return batch_e2e.answer("01-conv1d-basic") + spin + asserts


def main(argv):
    if os.geteuid() != 0:
        print("SKIPPED: the Slurm test runs the daemons as root (CI does)")
        return 77
    began = time.time()
    tmp = tempfile.mkdtemp(prefix="cudalab-slurm-e2e-")
    preset = os.environ.get("CUDALAB_PRESET", "default")
    if argv:
        e2e = os.path.abspath(argv[0])
    else:
        e2e = os.path.join(tmp, "e2e")
        log("no batch_e2e.py folder given: running it first, in %s" % e2e)
        if subprocess.run([sys.executable, os.path.join(HERE, "batch_e2e.py"), e2e]).returncode:
            raise SystemExit("slurm-e2e: batch_e2e.py failed")
    subs, ref = os.path.join(e2e, "submissions"), os.path.join(e2e, "out")
    work = os.path.join(ref, "work")
    if not os.path.exists(os.path.join(ref, "class", "grades.csv")):
        raise SystemExit("slurm-e2e: %s holds no batch_e2e.py run (no out/class/grades.csv)" % e2e)
    workers_before = sorted(n for n in os.listdir(work) if os.path.isdir(os.path.join(work, n)))

    log("working in %s" % tmp)
    seconds = install()
    log("packages: %s" % ("installed in %.0f s" % seconds if seconds else "already installed"))
    cluster = Cluster(os.path.join(tmp, "cluster"))

    def stop(signum, frame):
        raise SystemExit("slurm-e2e: %s; the cluster is stopped, its logs kept in %s" % (
            "out of time (%d s)" % TIME_LIMIT if signum == signal.SIGALRM else
            "stopped by signal %d" % signum, tmp))

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGALRM, stop)
    signal.alarm(TIME_LIMIT)
    expect = Expectations()
    failures = expect.failures

    try:
        start = time.time()
        cluster.start()
        log("one-node cluster %s up in %.1f s (Slurm %s, %s)" % (
            cluster.host, time.time() - start, sh(["scontrol", "--version"]).stdout.split()[-1],
            "cgroup v1, ConstrainDevices" if cluster.cgroups else "no cgroup v1: no device "
            "constraint"))
        visible, errors = cluster.device_isolation()
        expect(visible in ("0", "1"), "a job given one GPU has CUDA_VISIBLE_DEVICES=%s" % visible)
        if cluster.cgroups and visible in ("0", "1"):
            own, other = int(visible), 1 - int(visible)
            expect(errors.get(own) == "No such device or address" and
                   errors.get(other) == "Operation not permitted",
                   "ConstrainDevices: it may open its GPU's device node, not the other's (%s)" %
                   errors)

        # A task Slurm kills at its time limit (1 minute; Slurm looks every 30 s), submitted first
        # so that its minute or more passes while the rest runs beside it: it holds one of the two
        # fake GPUs and one CPU (the class's tasks run one at a time, the service's jobs too), and
        # a worker folder of its own (its framework build is where the minute goes, if not its
        # compile of the file), so that the class's tasks still find the batch's folder free. Its
        # compiles slow the class's tasks (66 to 70 s of building and grading, 37 s alone; at nice
        # 19 no less, on this 2-CPU machine), but that costs less than its minute after them.
        subs2, out2 = os.path.join(tmp, "submissions-2"), os.path.join(tmp, "out-2")
        batch_e2e.write_tree(os.path.join(subs2, "gina"), {batch_e2e.LAB01: sleeper()})
        sleeper_start = time.time()
        _, sleeper_ids = submit([subs2, "--out", out2, "--time", "1", "--lab", "01", "--preset",
                                 preset, "--work", os.path.join(tmp, "work-sleeper")])

        # The class, on Slurm, with the single-machine batch's seed and worker folder.
        out = os.path.join(tmp, "out")
        os.makedirs(out, mode=0o700)
        shutil.copy2(os.path.join(ref, "seed"), os.path.join(out, "seed"))
        common = ["--lab", "01,02", "--timeout", "5", "--preset", preset, "--work", work]
        start = time.time()
        text, ids = submit([subs, "--out", out, "--max-parallel", "1"] + common)
        print(text, end="")
        expect(len(ids) == 3, "two job arrays (MaxArraySize %d) and a collector: %s" % (
            MAX_ARRAY_SIZE, ids))
        manifest = slurm.read_manifest(os.path.join(out, "slurm", "manifest.tsv"))
        expect(sorted(s for s, _ in manifest.values()) == sorted(os.listdir(os.path.join(
            ref, "students"))), "the manifest: one line per submission (%d)" % len(manifest))
        scripts = [open(os.path.join(out, "slurm", n)).read()
                   for n in ("array-1.sbatch", "array-2.sbatch", "collect.sbatch")]
        expect("--array=0-3%1" in scripts[0] and "--array=0-2%1" in scripts[1] and
               "--dependency=afterany:%s" % ids[0] in scripts[1] and
               "--dependency=afterany:%s:%s" % (ids[0], ids[1]) in scripts[2],
               "arrays of 4 and 3 tasks, one at a time, the second after the first, the "
               "collector after both")
        busy = sh(batch_e2e.BATCH + [subs, "--out", out, "--slurm", "--max-parallel", "1"] + common,
                  env=batch_e2e.env())
        expect(busy.returncode == 2 and "still queued or running" in busy.stderr,
               "no second submission while the batch's jobs run: %s" % busy.stderr.strip())
        wait_jobs(ids, 300)
        wall = time.time() - start
        metas = [grading.read_meta(os.path.join(out, "students", s)) or {} for s, _ in
                 manifest.values()]
        busy = sum(m.get("build_seconds", 0) + m.get("grade_seconds", 0) for m in metas)
        log("7 submissions graded through Slurm, one task at a time, in %.0f s from the "
            "submission to the collector's end: %.0f s building and grading, %.0f s for the "
            "rest (Slurm, the worker's check, the reports)" % (wall, busy, wall - busy))

        collector_log = os.path.join(out, "slurm", "logs", "collect-%s.out" % ids[-1])
        collected = open(collector_log).read() if os.path.exists(collector_log) else ""
        expect("collect: 7 graded, 0 ended before grading finished, 0 never ran" in collected,
               "the collector ran after the tasks and found the seven graded")
        csv_ref = open(os.path.join(ref, "class", "grades.csv")).read()
        csv_path = os.path.join(out, "class", "grades.csv")
        csv_slurm = open(csv_path).read() if os.path.exists(csv_path) else ""
        expect(csv_slurm == csv_ref, "the class CSV equals the single-machine batch's")
        if csv_slurm != csv_ref:
            print("single machine:\n%s\nslurm:\n%s" % (csv_ref, csv_slurm))
        for sid in sorted(os.listdir(os.path.join(ref, "students"))):
            paths = [os.path.join(d, "students", sid, "report.json") for d in (ref, out)]
            same = all(os.path.exists(p) for p in paths) and \
                comparable(json.load(open(paths[0]))) == comparable(json.load(open(paths[1])))
            expect(same, "%s: the same report.json as on one machine (times aside)" % sid)
            meta = grading.read_meta(os.path.join(out, "students", sid)) or {}
            expect(meta.get("state") == "done" and meta.get("gpu") in ("0", "1") and
                   meta.get("worker") == "%s-0" % base.SAFE_ID.sub("_", cluster.host),
                   "%s: graded on the GPU the gres gave (CUDA_VISIBLE_DEVICES=%s), in worker "
                   "folder %s" % (sid, meta.get("gpu"), meta.get("worker")))
        workers = sorted(n for n in os.listdir(work) if os.path.isdir(os.path.join(work, n)))
        expect(workers == workers_before, "the tasks reused the single-machine batch's worker "
               "folder, no new one: %s" % workers)
        again = sh(batch_e2e.BATCH + [subs, "--out", out, "--slurm", "--dry-run"] + common,
                   env=batch_e2e.env())
        expect("0 to grade now" in again.stdout, "a re-submission would grade nothing")

        # The grading service on the same cluster: a job per submission, a restart, a scancel.
        log("the grading service on Slurm (./cudalab serve --slurm)")
        figures = service_slurm_e2e.check(e2e, os.path.join(tmp, "service"), expect)
        log("the service on Slurm: %.0f s (%d jobs; a waiting submit %.1f s from submit to "
            "verdict; the service's start %.1f s, its restart %.1f s)" % (
                figures.get("total", 0), figures.get("jobs", 0), figures.get("to_verdict", 0),
                figures.get("start", 0), figures.get("restart", 0)))

        # The task past its time limit, submitted first (above), has ended by now.
        wait_jobs(sleeper_ids, 180)
        task_log = os.path.join(out2, "slurm", "logs", "%s_0.out" % sleeper_ids[0])
        if os.path.exists(task_log):
            log("the task with a 1-minute limit ended %.0f s after its submission (its log's "
                "last change), beside the class's tasks and the service's jobs" %
                (os.path.getmtime(task_log) - sleeper_start))
        expect(os.path.exists(task_log) and "DUE TO TIME LIMIT" in open(task_log).read(),
               "Slurm cancelled the task at its time limit")
        meta = grading.read_meta(os.path.join(out2, "students", "gina")) or {}
        expect(meta.get("state") == "unfinished" and meta.get("error") == slurm.KILLED,
               "gina's meta.json: %s" % meta.get("error"))
        rows = list(csv.DictReader(open(os.path.join(out2, "class", "grades.csv"))))
        expect(len(rows) == 1 and rows[0]["graded"] == "no" and rows[0]["error"] == slurm.KILLED,
               "the class CSV reports gina as not graded: the task ended before grading finished")
        again = sh(batch_e2e.BATCH + [subs2, "--out", out2, "--slurm", "--dry-run", "--lab", "01",
                                      "--preset", preset], env=batch_e2e.env())
        expect("1 to grade now" in again.stdout, "a re-submission would grade gina again")
    finally:
        cluster.stop()
    log("%d check(s) failed" % len(failures) if failures else "all checks passed")
    log("duration: %.0f s (packages, cluster, two batches, the service)" % (time.time() - began))
    if failures:
        print("logs kept in %s" % tmp)
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
