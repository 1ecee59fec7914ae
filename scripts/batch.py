#!/usr/bin/env python3
"""Grades a class: ./cudalab batch SUBMISSIONS [options] (docs/instructors.md).

SUBMISSIONS holds one entry per student: a folder, or an archive (.zip, .tar.gz, .tgz, .tar)
with that student's lab files. Only the known student files are taken (each lab's one .cu file,
found by its path in the repository or, when that is unique, by its name, and each lab's
report.md, found by its path); anything else is ignored and listed in the student's meta.json.
The report.md files are not compiled: they are kept in OUT/students/<id>/analysis/.

Each worker (one per GPU, CUDA_VISIBLE_DEVICES set to it) has a copy of the repository and one
build of the framework, made once. For each submission it puts the skeletons back, copies the
student's files in, rebuilds only what they compile into (in a bubblewrap sandbox that sees the
worker's copy and the system, not the submissions or the batch's output), and runs the grade
command (each check in its own sandbox) with the batch's secret seed. What goes wrong in one
submission (a compile error, a crash, a hang, garbage) fails that submission's labs, never the
batch. A re-run grades only what is not graded yet, or changed since (--only, --failed, --force).

On a Slurm cluster (--slurm) the same happens in a job array: one task per submission, each
running this script for its one submission (--task-index, the single-machine path), then a
collector job (--collect) that makes the class reports once every task has ended.

Output (OUT, default batch-out/): seed (the batch's secret seed, mode 0600), batch.json,
skeleton.json, students/<id>/{report.json, meta.json, build.log, grade.log, student-report.json,
results.json, junit.xml, analysis/NN-name.md, analysis.html} and class/{grades.csv, index.html} (scripts/batch_report.py); the
workers' folders in work/ (--work); with --slurm, slurm/{manifest.tsv, jobs.json, *.sbatch, logs/}.
"""

import argparse
import concurrent.futures
import datetime
import errno
import fcntl
import hashlib
import json
import os
import queue
import re
import secrets
import shlex
import shutil
import socket
import stat
import subprocess
import sys
import tarfile
import threading
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".zip")
MAX_FILE_BYTES = 1 << 20  # a lab file larger than 1 MiB is not a lab file
MAX_MEMBERS = 10000  # entries looked at in one submission
SAFE_ID = re.compile(r"[^A-Za-z0-9@._+-]")
STUDENT_OUTPUTS = ("report.json", "student-report.json", "results.json", "junit.xml")
REPORT_NAME = "report.md"  # labs/NN-name/report.md: the student's analysis of the lab
REPORTS_DIR = "analysis"  # OUT/students/<id>/analysis/NN-name.md: the report.md files handed in
# What meta.json says of a submission a Slurm task has not graded (yet): written when the batch
# is submitted, then when its task starts, so that a task Slurm cancels or kills leaves it.
NOT_RUN = "not graded: the Slurm task did not run (cancelled, or it could not start)"
KILLED = ("not graded: the Slurm task ended before grading finished (time limit or node "
          "failure)")


class UsageError(Exception):
    """Bad input: one line on stderr, exit code 2."""


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def write_json(path, value):
    tmp = path + ".partial"
    with open(tmp, "w") as f:
        json.dump(value, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def tracked_files(root):
    """The files git knows in ROOT (the workers' copies are made of them); a UsageError when ROOT
    is not a git checkout (a downloaded archive of the repository)."""
    try:
        listed = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True)
    except OSError as e:
        raise UsageError("cannot run git (%s): the batch copies the files git tracks in %s" %
                         (e.strerror, root))
    if listed.returncode != 0:
        raise UsageError("%s is not a git checkout: the batch copies the files git tracks; grade "
                         "from a clone of the repository (git clone)" % root)
    return [rel for rel in listed.stdout.decode().split("\0") if rel]


# Output: the progress line (on a terminal, one line rewritten in place on stderr) is cleared
# before anything else is printed, and drawn again after it.
OUTPUT_LOCK = threading.RLock()
PROGRESS_LINE = [""]  # the progress line on the terminal now ("" when none is)


def say(text, file=None):
    with OUTPUT_LOCK:
        if PROGRESS_LINE[0]:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
        print(text, file=file or sys.stdout, flush=True)
        if PROGRESS_LINE[0]:
            sys.stderr.write(PROGRESS_LINE[0])
            sys.stderr.flush()


# ---- The labs' student files ------------------------------------------------------------------


def student_files(root):
    """{lab id: repo-relative path of the student's file}, from each lab's CMake registration."""
    files = {}
    with open(os.path.join(root, "CMakeLists.txt")) as f:
        text = f.read()
    for name, source in re.findall(r"cudalab_add_lab\(\s*(\d\d-[a-z0-9-]+)\s+SOURCE\s+(\S+)", text):
        files[name[:2]] = "labs/%s/%s" % (name, source)
    if not files:
        raise UsageError("no labs found in %s/CMakeLists.txt" % root)
    return files


def report_files(known):
    """[repo-relative path of each lab's report.md]: the student's analysis (the exercises' numbers,
    the answers to the questions), handed in beside the lab file, kept in OUT, never compiled."""
    return [os.path.dirname(rel) + "/" + REPORT_NAME for rel in known.values()]


def is_report(rel):
    return rel.endswith("/" + REPORT_NAME)


def save_reports(student_dir, files):
    """Writes the submission's report.md files to OUT/students/<id>/analysis/NN-name.md (the
    earlier ones go); returns their names there."""
    folder = os.path.join(student_dir, REPORTS_DIR)
    shutil.rmtree(folder, ignore_errors=True)
    saved = []
    for rel, data in sorted(files.items()):
        if is_report(rel):
            os.makedirs(folder, exist_ok=True)
            name = os.path.basename(os.path.dirname(rel)) + ".md"
            with open(os.path.join(folder, name), "wb") as f:
                f.write(data)
            saved.append(REPORTS_DIR + "/" + name)
    return saved


def match_members(names, known):
    """Which member of a submission is which known file: ({known path: member}, [ignored]).

    A member matches a known path when it is that path or ends with it ("alice/labs/01-.../x.cu"),
    or, when no member does, when its file name is the known file's (Gradescope-style flat
    uploads). Several candidates for one file: the shortest path is taken, the others ignored."""
    taken, ignored = {}, []
    by_base = {}
    for path in known:
        by_base.setdefault(os.path.basename(path), []).append(path)
    for path in known:
        exact = [n for n in names if n == path or n.endswith("/" + path)]
        if not exact and len(by_base[os.path.basename(path)]) == 1:
            exact = [n for n in names if os.path.basename(n) == os.path.basename(path)]
        if exact:
            exact.sort(key=lambda n: (n.count("/"), n))
            taken[path] = exact[0]
    used = set(taken.values())
    for n in names:
        if n not in used:
            ignored.append(n)
    return taken, sorted(ignored)


def read_file(path):
    with open(path, "rb") as f:
        return f.read()


def clean_member(name):
    """A member's path, normalised; None when it could escape (absolute, '..')."""
    name = name.replace("\\", "/")
    while name.startswith("./"):
        name = name[2:]
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if not parts or name.startswith("/") or ".." in parts:
        return None
    return "/".join(parts)


def read_submission(entry, known):
    """(files {known path: bytes}, ignored [paths with why], error or None) of one submission.

    Nothing is extracted to disk: members are read in memory, regular files only (no links), at
    most MAX_FILE_BYTES each."""
    members = {}  # clean name -> reader
    ignored = []
    try:
        if os.path.isdir(entry):
            for dirpath, dirnames, filenames in os.walk(entry, followlinks=False):
                for fn in filenames:
                    full = os.path.join(dirpath, fn)
                    rel = os.path.relpath(full, entry).replace(os.sep, "/")
                    if os.path.islink(full) or not os.path.isfile(full):
                        ignored.append(rel + " (not a regular file)")
                        continue
                    members[rel] = (os.path.getsize(full), lambda p=full: read_file(p))
                    if len(members) > MAX_MEMBERS:
                        return {}, [], "more than %d files" % MAX_MEMBERS
        elif entry.endswith(".zip"):
            archive = zipfile.ZipFile(entry)
            for info in archive.infolist()[: MAX_MEMBERS + 1]:
                if info.is_dir():
                    continue
                name = clean_member(info.filename)
                mode = (info.external_attr >> 16) & 0o170000
                if name is None or mode == stat.S_IFLNK:
                    ignored.append(info.filename + " (unsafe path or link)")
                    continue
                members[name] = (info.file_size, lambda i=info: archive.read(i))
            if len(archive.infolist()) > MAX_MEMBERS:
                return {}, [], "more than %d files" % MAX_MEMBERS
        else:
            archive = tarfile.open(entry, "r:*")
            count = 0
            for info in archive:
                count += 1
                if count > MAX_MEMBERS:
                    return {}, [], "more than %d files" % MAX_MEMBERS
                if info.isdir():
                    continue
                name = clean_member(info.name)
                if name is None or not info.isreg():
                    ignored.append(info.name + " (unsafe path, link or special file)")
                    continue
                members[name] = (info.size, lambda i=info: archive.extractfile(i).read())
    except (OSError, zipfile.BadZipFile, tarfile.TarError, EOFError, ValueError) as e:
        return {}, [], "cannot read the submission: %s" % e
    taken, rest = match_members(sorted(members), known)
    files = {}
    for path, member in taken.items():
        size, read = members[member]
        if size > MAX_FILE_BYTES:
            ignored.append(member + " (larger than 1 MiB)")
            continue
        try:
            files[path] = read()
        except (OSError, zipfile.BadZipFile, tarfile.TarError, EOFError, ValueError) as e:
            return {}, [], "cannot read %s: %s" % (member, e)
    ignored += [n + " (not a lab file)" for n in rest]
    return files, sorted(ignored), None


def list_submissions(folder):
    """[(student id, entry path)], sorted; an id two entries share is a UsageError."""
    if not os.path.isdir(folder):
        raise UsageError("%s: not a folder of submissions" % folder)
    try:
        names = sorted(os.listdir(folder))
    except OSError as e:
        raise UsageError("%s: cannot read the folder of submissions: %s" % (folder, e.strerror))
    found = {}
    for name in names:
        if name.startswith("."):
            continue
        path = os.path.join(folder, name)
        if os.path.isdir(path):
            sid = name
        else:
            suffix = next((s for s in ARCHIVE_SUFFIXES if name.endswith(s)), None)
            if suffix is None:
                continue  # not a submission (a README, a CSV of the LMS)
            sid = name[: -len(suffix)]
        sid = SAFE_ID.sub("_", sid) or "_"
        if sid in found:
            raise UsageError("two submissions for student '%s': %s and %s" % (sid, found[sid], path))
        found[sid] = path
    if not found:
        raise UsageError("%s holds no submissions (folders or .zip/.tar.gz/.tgz/.tar archives)" % folder)
    return sorted(found.items())


# ---- Workers ----------------------------------------------------------------------------------


def worker_gpus(requested, detected, visible=None):
    """The GPU of each worker: one worker per GPU asked for (--gpus 0,1), else per GPU that
    CUDA_VISIBLE_DEVICES (`visible`) lets through, else per GPU found; one worker without a GPU
    when there is none. Two workers never share a GPU: timings never share."""
    if requested is None and visible is not None and detected:
        requested = visible
        if not visible.strip():
            return [None]  # CUDA_VISIBLE_DEVICES="" hides every GPU
    if requested is not None:
        gpus = [g.strip() for g in requested.split(",") if g.strip()]
        if not gpus:
            raise UsageError("--gpus: no GPU named")
        for g in gpus:
            if not re.fullmatch(r"\d+|GPU-[0-9a-fA-F-]+|MIG-[0-9a-fA-F/-]+", g):
                raise UsageError("--gpus: '%s' is not a GPU index or UUID" % g)
        if len(set(gpus)) != len(gpus):
            raise UsageError("--gpus: a GPU is named twice (timed checks must not share a GPU)")
        if detected is not None and any(g.isdigit() and int(g) >= len(detected) for g in gpus):
            raise UsageError("--gpus %s: this machine has %d GPU(s)" % (requested, len(detected)))
        return gpus
    if detected:
        return [str(i) for i in range(len(detected))]
    return [None]


def detect_gpus():
    """Names of the GPUs nvidia-smi lists, [] when there is none (or no driver)."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return []
    if out.returncode != 0:
        return []
    return [line.strip() for line in out.stdout.splitlines() if line.strip()]


def build_sandbox(tree):
    """bubblewrap for building untrusted files: the system read-only, the worker's tree writable,
    nothing else (no submissions, no batch output, no home), no network. [] without bwrap."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return []
    p = [bwrap, "--die-with-parent", "--unshare-all", "--cap-drop", "ALL"]
    for d in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc", "/opt"):
        if os.path.islink(d):
            p += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            p += ["--ro-bind", d, d]
    p += ["--tmpfs", "/tmp", "--bind", tree, tree, "--proc", "/proc", "--dev", "/dev",
          "--chdir", tree, "--"]
    try:
        ok = subprocess.run(p + ["true"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    return p if ok else []


def cpus():
    """The CPUs this process may use (a Slurm task's allocation, not the node's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 2


def claim_worker_folder(work):
    """(folder, lock): the first worker folder of this host in WORK that no running batch or
    Slurm task holds, WORK/<host>-<n>, held through an flock on WORK/<host>-<n>.lock until the
    lock file is closed (at the latest when the process ends, killed or not). A folder keeps its
    build: the next batch or task that takes it rebuilds only what changed."""
    os.makedirs(work, mode=0o700, exist_ok=True)
    host = SAFE_ID.sub("_", socket.gethostname().split(".")[0]) or "host"
    n = 0
    while True:
        name = "%s-%d" % (host, n)
        lock = open(os.path.join(work, name + ".lock"), "a")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return os.path.join(work, name), lock
        except BlockingIOError:
            lock.close()
            n += 1


class Worker:
    """A copy of the repository with one build of the framework, graded in one at a time."""

    def __init__(self, folder, gpu, args, labs):
        self.gpu, self.args, self.labs = gpu, args, labs
        self.dir = folder
        self.name = os.path.basename(folder)
        self.tree = os.path.join(self.dir, "tree")
        self.build = os.path.join(self.tree, "build", args.preset)
        self.known = student_files(ROOT)  # the tree is a copy: the same labs and files
        self.sandbox = []

    def log(self, text):
        say("[worker %s%s] %s" % (self.name, "" if self.gpu is None else ", GPU " + self.gpu, text))

    def prepare(self):
        """Copies the tracked files of the repository (those changed since, in a folder used
        before) and builds the framework (only what changed, in a folder used before)."""
        files = tracked_files(ROOT)
        built = os.path.isdir(self.build)
        for rel in files:
            if not rel:
                continue
            src, dst = os.path.join(ROOT, rel), os.path.join(self.tree, rel)
            if not os.path.isfile(src):
                continue
            mine = os.stat(src)
            try:
                theirs = os.stat(dst)
                if (theirs.st_size, int(theirs.st_mtime)) == (mine.st_size, int(mine.st_mtime)):
                    continue
            except FileNotFoundError:
                pass
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(src, dst)
        self.log("checking the framework's build (made before)" if built else
                 "configuring and building the framework (once)")
        start = time.time()
        env = dict(os.environ)
        with open(os.path.join(self.dir, "framework-build.log"), "w") as log:
            arch = os.environ.get("CUDALAB_CUDA_ARCHITECTURES")
            # No CTest test of the student's graders: listing their checks would run the
            # student's code at build time.
            cfg = subprocess.run(["cmake", "--preset", self.args.preset,
                                  "-DCUDALAB_STUDENT_TESTS=OFF"] +
                                 (["-DCUDALAB_CUDA_ARCHITECTURES=" + arch] if arch else []),
                                 cwd=self.tree, env=env, stdout=log, stderr=subprocess.STDOUT)
            if cfg.returncode != 0:
                raise RuntimeError("worker %s: configure failed (see %s)" % (self.name, log.name))
            targets = ["cudalab-grade"] + ["lab%s-grader-solution" % i for i in self.labs]
            b = subprocess.run(["cmake", "--build", "--preset", self.args.preset, "-j",
                                str(cpus()), "--target"] + targets,
                               cwd=self.tree, env=env, stdout=log, stderr=subprocess.STDOUT)
            if b.returncode != 0:
                raise RuntimeError("worker %s: the framework does not build (see %s)" %
                                   (self.name, log.name))
        self.sandbox = build_sandbox(self.tree)
        self.log("ready in %.0f s%s" % (time.time() - start,
                                        "" if self.sandbox else " (no bubblewrap: builds unsandboxed)"))

    def manifest(self):
        rows = {}
        with open(os.path.join(self.build, "cudalab-labs.tsv")) as f:
            for line in f:
                fields = line.rstrip("\n").split("\t")
                if len(fields) >= 11:
                    rows[fields[0]] = fields
        return rows

    def grade(self, sid, files, student_dir, seed):
        """Builds and grades one submission; returns (build seconds, grade seconds, compiled)."""
        # The skeletons back, then the student's files.
        for rel in self.known.values():
            shutil.copy2(os.path.join(ROOT, rel), os.path.join(self.tree, rel))
        for rel, data in files.items():
            if is_report(rel):  # read by the instructor, not compiled
                continue
            with open(os.path.join(self.tree, rel), "wb") as f:
                f.write(data)
        manifest = self.manifest()
        # Nothing of the previous submission may be graded or read: its binaries and objects go.
        for lab in self.labs:
            short = manifest[lab][1] if lab in manifest else ""
            for name in ("lab%s-grader-student" % lab, "lab%s-student-link-check" % lab,
                         "lab%s-%s" % (lab, short)):
                try:
                    os.remove(os.path.join(self.build, name))
                except FileNotFoundError:
                    pass
            if lab in manifest:
                for obj in manifest[lab][10].split(";"):
                    if obj:
                        try:
                            os.remove(obj)
                        except FileNotFoundError:
                            pass
        targets = []
        for lab in self.labs:
            targets += ["lab%s-grader-student" % lab, "lab%s-student-link-check" % lab]
        start = time.time()
        with open(os.path.join(student_dir, "build.log"), "w") as log:
            cmd = ["cmake", "--build", "--preset", self.args.preset, "-j",
                   str(cpus()), "--target"] + targets + ["--", "-k", "0"]
            try:
                subprocess.run(self.sandbox + cmd, cwd=self.tree, stdout=log, stderr=subprocess.STDOUT,
                               timeout=self.args.build_timeout)
            except subprocess.TimeoutExpired:
                log.write("\nbatch: the build took more than %d s and was stopped\n" %
                          self.args.build_timeout)
        build_seconds = time.time() - start
        compiled = {lab: os.access(os.path.join(self.build, "lab%s-grader-student" % lab), os.X_OK)
                    for lab in self.labs}
        env = dict(os.environ)
        env["CUDALAB_SEED"] = str(seed)
        env["CUDALAB_DATA_DIR"] = self.args.data_dir
        env.pop("CUDA_VISIBLE_DEVICES", None)
        if self.gpu is not None:
            env["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"  # the indices nvidia-smi and --gpus use
            env["CUDA_VISIBLE_DEVICES"] = self.gpu
        cmd = [os.path.join(self.build, "grader", "cudalab-grade"), "--lab", ",".join(self.labs),
               "--json", os.path.join(student_dir, "report.json"), "--timeout",
               str(self.args.timeout), "--color", "never", "--sandbox", self.args.sandbox]
        if self.args.jobs:
            cmd += ["--jobs", str(self.args.jobs)]
        elif cpus() < (os.cpu_count() or 1):  # a Slurm task's CPUs, not the node's
            cmd += ["--jobs", str(min(cpus(), 8))]
        start = time.time()
        with open(os.path.join(student_dir, "grade.log"), "w") as log:
            try:
                subprocess.run(cmd, cwd=self.tree, env=env, stdout=log, stderr=subprocess.STDOUT,
                               timeout=self.args.submission_timeout)
            except subprocess.TimeoutExpired:
                log.write("\nbatch: grading took more than %d s and was stopped\n" %
                          self.args.submission_timeout)
        return build_seconds, time.time() - start, compiled


# ---- The batch --------------------------------------------------------------------------------


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


def report_failed(student_dir):
    """True when the student's last report is missing, unreadable or has a failed check."""
    try:
        with open(os.path.join(student_dir, "report.json")) as f:
            return bool(json.load(f).get("failed", True))
    except (OSError, ValueError):
        return True


def read_meta(student_dir):
    try:
        with open(os.path.join(student_dir, "meta.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def choose(submissions, out, args, known):
    """The submissions this run grades, with their files read: [(sid, entry, files, ignored, error)]."""
    only = None
    if args.only:
        only = [s.strip() for s in args.only.split(",") if s.strip()]
        unknown = sorted(set(only) - {sid for sid, _ in submissions})
        if unknown:
            raise UsageError("--only: no submission for %s" % ", ".join(unknown))
    chosen = []
    for sid, entry in submissions:
        if only is not None and sid not in only:
            continue
        student_dir = os.path.join(out, "students", sid)
        files, ignored, error = read_submission(entry, list(known.values()) + report_files(known))
        hashes = {rel: sha256(data) for rel, data in files.items()}
        meta = read_meta(student_dir)
        graded = meta is not None and os.path.exists(os.path.join(student_dir, "report.json"))
        unchanged = graded and meta.get("files") == hashes and meta.get("error") == error
        if not args.force and only is None:
            if args.failed and graded and not report_failed(student_dir) and unchanged:
                continue
            if not args.failed and unchanged:
                continue
        chosen.append((sid, entry, files, ignored, error, hashes))
    return chosen


class Batch:
    """What every mode shares: the submissions, OUT, the seed, the labs, the workers' folder."""

    def __init__(self, args, create=True):
        """create=False (a dry run) writes nothing: no OUT, no seed (self.seed is then None when
        the batch has none yet)."""
        self.submissions_dir = os.path.abspath(args.submissions)
        self.submissions = list_submissions(self.submissions_dir)
        self.out = os.path.abspath(args.out)
        self.work = os.path.abspath(args.work) if args.work else os.path.join(self.out, "work")
        for name, path in (("--out", self.out), ("--work", self.work)):
            if path == self.submissions_dir or path.startswith(self.submissions_dir + os.sep):
                raise UsageError("%s must not be inside the submissions folder" % name)
        if create:
            # Not a git checkout: said after the arguments, before anything is written (a dry run
            # copies nothing, so it needs no git).
            tracked_files(ROOT)
        self.known = student_files(ROOT)
        self.labs = sorted(self.known)
        if args.lab:
            wanted = [l.strip() for l in args.lab.split(",") if l.strip()]
            for l in wanted:
                if l not in self.known:
                    raise UsageError("--lab: unknown lab '%s' (labs: %s)" %
                                     (l, ", ".join(self.labs)))
            self.labs = wanted
        seed_path = os.path.join(self.out, "seed")
        if create:
            os.makedirs(os.path.join(self.out, "students"), exist_ok=True)
            # The seed and every student's report: the instructor's eyes only.
            os.chmod(self.out, 0o700)
            if not os.path.exists(seed_path):
                fd = os.open(seed_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "w") as f:
                    f.write("%d\n" % secrets.randbelow(2**62))
            write_json(os.path.join(self.out, "skeleton.json"),
                       {rel: sha256(read_file(os.path.join(ROOT, rel)))
                        for rel in list(self.known.values()) + report_files(self.known)
                        if os.path.exists(os.path.join(ROOT, rel))})
        self.seed = None
        if os.path.exists(seed_path):
            with open(seed_path) as f:
                self.seed = int(f.read().strip())

    def student_dir(self, sid):
        return os.path.join(self.out, "students", sid)

    def info(self, gpus, device, graded_now, **more):
        """batch.json: what the class report says of the batch."""
        info = {"schema": "cudalab-batch/1", "started_at": now(), "finished_at": None,
                "gpus": gpus, "device": device, "total": len(self.submissions),
                "graded_now": graded_now, "seed_file": "seed", "labs": self.labs}
        info.update(more)
        return info


def clear_outputs(student_dir):
    """Removes a student's previous results: none may stand for a grade not made."""
    for name in STUDENT_OUTPUTS:
        try:
            os.remove(os.path.join(student_dir, name))
        except FileNotFoundError:
            pass
    shutil.rmtree(os.path.join(student_dir, REPORTS_DIR), ignore_errors=True)


def grade_submission(worker, b, item, more=None):
    """Builds and grades one submission in WORKER, then writes its meta.json and the student's
    reports; returns the meta. What goes wrong is that submission's error, never the batch's."""
    sid, entry, files, ignored, error, hashes = item
    student_dir = b.student_dir(sid)
    os.makedirs(student_dir, exist_ok=True)
    clear_outputs(student_dir)
    meta = {"student": sid, "submission": os.path.basename(entry), "files": hashes,
            "ignored": ignored, "error": error, "gpu": worker.gpu, "worker": worker.name,
            "build_seconds": 0.0, "grade_seconds": 0.0, "compiled": {}, "graded_at": now(),
            "state": "done"}
    meta.update(more or {})
    meta["reports"] = save_reports(student_dir, files)
    files = {rel: data for rel, data in files.items() if not is_report(rel)}
    if error is None and not files:
        meta["error"] = "no lab file found in the submission"
    if meta["error"] is None:
        try:
            build_s, grade_s, compiled = worker.grade(sid, files, student_dir, b.seed)
            meta.update(build_seconds=round(build_s, 2), grade_seconds=round(grade_s, 2),
                        compiled=compiled)
            if not os.path.exists(os.path.join(student_dir, "report.json")):
                meta["error"] = "the grade command wrote no report (see grade.log)"
        except Exception as e:  # one submission never stops the batch
            meta["error"] = "grading error: %s" % e
    write_json(os.path.join(student_dir, "meta.json"), meta)
    student_reports(b.out, sid)
    return meta


# What a technique check says when the GPU's performance counters could not be read (the check is
# then not verified, never passed): grader/framework/technique.cpp, judge_technique.
UNCOUNTED = "could not be counted, so the technique is not verified: "


def uncounted_reason(report_path):
    """Why the counters could not be read in this grade (report.json), or None when they were
    (or no technique check needed them: without a GPU none runs)."""
    try:
        with open(report_path) as f:
            report = json.load(f)
    except (OSError, ValueError):
        return None
    for lab in report.get("labs", []):
        for check in lab.get("checks", []):
            message = check.get("message") or ""
            if UNCOUNTED in message:
                return message.split(UNCOUNTED, 1)[1].splitlines()[0]
    return None


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
        len(b.submissions), len(chosen), len(gpus),
        "" if gpus != [None] else " (no GPU: GPU checks are reported as skipped)"), flush=True)

    if chosen:
        workers, locks = [], []  # the folders' locks, held until the batch ends
        for gpu in gpus[: len(chosen)]:
            folder, lock = claim_worker_folder(b.work)
            locks.append(lock)
            workers.append(Worker(folder, gpu, args, b.labs))
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


# ---- On a Slurm cluster -----------------------------------------------------------------------
#
# The batch submits one job array, one task per submission to grade (OUT/slurm/manifest.tsv says
# which), each task running this script with --task-index: the single-machine path for its one
# submission, on the GPU Slurm gives it. A collector job (--collect) runs once every task has
# ended, whatever their end, and makes the class reports.

DEFAULT_MAX_ARRAY_SIZE = 1001  # Slurm's default MaxArraySize


def max_array_size(config_text):
    """MaxArraySize from `scontrol show config` (task indices run from 0 to MaxArraySize - 1)."""
    m = re.search(r"^MaxArraySize\s*=\s*(\d+)", config_text, re.M)
    return int(m.group(1)) if m else DEFAULT_MAX_ARRAY_SIZE


def split_arrays(count, max_size):
    """[(first manifest index, tasks)]: COUNT tasks in arrays of at most MAX_SIZE tasks."""
    if max_size < 1:
        raise UsageError("the cluster's MaxArraySize is %d: no job array can be submitted" %
                         max_size)
    return [(start, min(max_size, count - start)) for start in range(0, count, max_size)]


def task_minutes(args):
    """The time limit of one task: --time, or what the batch's own limits allow a submission
    (its build and its grade) plus 30 minutes for the worker's framework build on a new node."""
    if args.time:
        return args.time
    return -(-(args.build_timeout + args.submission_timeout) // 60) + 30


def write_manifest(path, rows):
    """rows: [(student, submission's name in SUBMISSIONS)]; line i is task index i."""
    with open(path + ".partial", "w") as f:
        f.write("# index\tstudent\tsubmission (in the submissions folder): one Slurm task each\n")
        for i, (sid, name) in enumerate(rows):
            f.write("%d\t%s\t%s\n" % (i, sid, name))
    os.replace(path + ".partial", path)


def read_manifest(path):
    """{index: (student, submission's name)}."""
    rows = {}
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("#") or not line.strip():
                    continue
                fields = line.rstrip("\n").split("\t")
                if len(fields) != 3 or not fields[0].isdigit():
                    raise UsageError("%s: malformed line: %r" % (path, line.rstrip("\n")))
                rows[int(fields[0])] = (fields[1], fields[2])
    except OSError as e:
        raise UsageError("cannot read the manifest: %s" % e)
    return rows


def sbatch_script(options, command, note):
    """A batch script: #SBATCH lines, a comment, the command (a list, or a shell line)."""
    lines = ["#!/bin/bash"] + ["#SBATCH %s" % o for o in options] + ["# " + note]
    if not isinstance(command, str):
        command = " ".join(shlex.quote(a) for a in command)
    return "\n".join(lines + ["exec " + command]) + "\n"


def task_command(args, b):
    """The command line of a task, but its --task-index: the options that decide a grade."""
    cmd = [sys.executable, os.path.join(ROOT, "scripts", "batch.py"), b.submissions_dir,
           "--out", b.out, "--work", b.work, "--lab", ",".join(b.labs),
           "--timeout", str(args.timeout), "--submission-timeout", str(args.submission_timeout),
           "--build-timeout", str(args.build_timeout), "--sandbox", args.sandbox,
           "--data-dir", os.path.abspath(args.data_dir), "--preset", args.preset]
    return cmd + (["--jobs", str(args.jobs)] if args.jobs else [])


def array_script(args, b, number, start, tasks, previous=None):
    """The sbatch script of job array NUMBER (1, 2, ...): TASKS tasks, for the manifest's lines
    START to START + TASKS - 1. With --max-parallel, each array waits for the one before
    (PREVIOUS, its job id), so that K is the limit of the whole batch."""
    options = ["--job-name=cudalab-batch",
               "--array=0-%d%s" % (tasks - 1, "%%%d" % args.max_parallel
                                   if args.max_parallel else ""),
               "--gres=gpu:1", "--time=%d" % task_minutes(args)]
    if args.partition:
        options.append("--partition=%s" % shlex.quote(args.partition))
    options.append("--output=%s" % shlex.quote(os.path.join(b.out, "slurm", "logs", "%A_%a.out")))
    if args.max_parallel and previous:
        options.append("--dependency=afterany:%s" % previous)
    line = " ".join(shlex.quote(a) for a in task_command(args, b))
    line += ' --task-index "$((%d + SLURM_ARRAY_TASK_ID))"' % start
    note = ("CUDA Labs batch (./cudalab batch --slurm): task i grades line %d+i of %s" %
            (start, os.path.join(b.out, "slurm", "manifest.tsv")))
    return sbatch_script(options, line, note)


def collector_script(args, b, array_ids):
    """The collector's sbatch script: runs once every task of ARRAY_IDS has ended, however."""
    options = ["--job-name=cudalab-collect", "--dependency=afterany:%s" % ":".join(array_ids),
               "--time=30"]
    if args.partition:
        options.append("--partition=%s" % shlex.quote(args.partition))
    options.append("--output=%s" % shlex.quote(
        os.path.join(b.out, "slurm", "logs", "collect-%j.out")))
    command = [sys.executable, os.path.join(ROOT, "scripts", "batch.py"), b.submissions_dir,
               "--out", b.out, "--collect"]
    return sbatch_script(options, command, "CUDA Labs batch (./cudalab batch --slurm): the "
                         "class reports, once every task has ended")


def slurm_command(argv, what):
    """The output of a Slurm command; a missing command or a failure is a UsageError."""
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    except FileNotFoundError:
        raise UsageError("--slurm: %s not found: run this on a machine of the Slurm cluster "
                         "(a login node)" % argv[0])
    except subprocess.TimeoutExpired:
        raise UsageError("--slurm: %s did not answer in 120 s" % argv[0])
    if r.returncode != 0:
        why = (r.stderr.strip().splitlines() or ["exit code %d" % r.returncode])[-1]
        raise UsageError("--slurm: %s failed: %s" % (what, why))
    return r.stdout


def live_jobs(ids):
    """Those of the job ids IDS that Slurm still has queued or running."""
    try:
        r = subprocess.run(["squeue", "-h", "-o", "%F"], capture_output=True, text=True,
                           timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return []
    listed = set(r.stdout.split()) if r.returncode == 0 else set()
    return [i for i in ids if i in listed]


def check_no_live_jobs(out):
    """Refuses to start while a Slurm submission of this batch is queued or running."""
    try:
        with open(os.path.join(out, "slurm", "jobs.json")) as f:
            jobs = json.load(f)
        ids = [str(i) for i in jobs["arrays"] + [jobs["collector"]]]
    except (OSError, ValueError, KeyError, TypeError):
        return
    live = live_jobs(ids)
    if live:
        raise UsageError("the batch's Slurm jobs are still queued or running (%s): wait for "
                         "them to end (squeue -j %s) or cancel them (scancel %s)" %
                         (", ".join(live), ",".join(live), " ".join(live)))


def submit_slurm(args, b):
    """Writes the manifest, submits the job arrays and the collector (or prints them)."""
    if not args.dry_run:
        check_no_live_jobs(b.out)
    chosen = choose(b.submissions, b.out, args, b.known)
    print("batch: %d submission(s), %d to grade now on Slurm" % (len(b.submissions), len(chosen)),
          flush=True)
    if not chosen:
        print("batch: nothing to grade: no job submitted (--failed, --only or --force re-grade)")
        return 0
    for sid, entry, *_ in chosen:
        if any(c in os.path.basename(entry) for c in "\t\n\r"):
            raise UsageError("%s: a tab or a line break in a submission's name: rename it" % entry)
    if args.dry_run:
        try:
            config = subprocess.run(["scontrol", "show", "config"], capture_output=True,
                                    text=True, timeout=120).stdout
        except (OSError, subprocess.TimeoutExpired):
            config = ""
    else:
        config = slurm_command(["scontrol", "show", "config"], "scontrol show config")
    max_size = max_array_size(config)
    arrays = split_arrays(len(chosen), max_size)
    if args.dry_run:
        print("# MaxArraySize %d%s; the manifest, %s:" % (
            max_size, "" if "MaxArraySize" in config else " (Slurm's default: no cluster answered)",
            os.path.join(b.out, "slurm", "manifest.tsv")))
        for i, (sid, entry, *_) in enumerate(chosen):
            print("# %d\t%s\t%s" % (i, sid, os.path.basename(entry)))
        scripts = [("array-%d.sbatch" % n, array_script(
            args, b, n, start, tasks, "<job id of array %d>" % (n - 1) if n > 1 else None))
            for n, (start, tasks) in enumerate(arrays, 1)]
        scripts.append(("collect.sbatch", collector_script(
            args, b, ["<job id of array %d>" % n for n in range(1, len(arrays) + 1)])))
        for name, script in scripts:
            print("\n# ---- %s (sbatch --parsable %s)\n%s" % (name, name, script), end="")
        return 0

    slurm_dir = os.path.join(b.out, "slurm")
    os.makedirs(os.path.join(slurm_dir, "logs"), exist_ok=True)
    write_manifest(os.path.join(slurm_dir, "manifest.tsv"),
                   [(sid, os.path.basename(entry)) for sid, entry, *_ in chosen])
    # Until its task starts, each submission to grade says it has not been graded.
    for sid, entry, files, ignored, error, hashes in chosen:
        student_dir = b.student_dir(sid)
        os.makedirs(student_dir, exist_ok=True)
        clear_outputs(student_dir)
        write_json(os.path.join(student_dir, "meta.json"),
                   {"student": sid, "submission": os.path.basename(entry), "files": hashes,
                    "ignored": ignored, "error": NOT_RUN, "state": "queued"})
    write_json(os.path.join(b.out, "batch.json"), b.info([], None, len(chosen), slurm=True))

    def sbatch(name, script):
        path = os.path.join(slurm_dir, name)
        with open(path, "w") as f:
            f.write(script)
        try:
            out = slurm_command(["sbatch", "--parsable", path], "sbatch " + path)
        except UsageError:
            if ids:
                subprocess.run(["scancel"] + ids)
                print("batch: cancelled the jobs already submitted: %s" % " ".join(ids),
                      file=sys.stderr)
            raise
        ids.append(out.strip().split(";")[0])
        return ids[-1]

    ids = []
    for n, (start, tasks) in enumerate(arrays, 1):
        sbatch("array-%d.sbatch" % n, array_script(args, b, n, start, tasks,
                                                   ids[-1] if ids else None))
    array_ids = list(ids)
    collector = sbatch("collect.sbatch", collector_script(args, b, array_ids))
    write_json(os.path.join(slurm_dir, "jobs.json"),
               {"submitted_at": now(), "arrays": array_ids, "collector": collector,
                "tasks": len(chosen), "max_array_size": max_size})
    for (start, tasks), job in zip(arrays, array_ids):
        print("batch: job array %s: %d task(s), manifest lines %d-%d, %s" % (
            job, tasks, start, start + tasks - 1,
            "at most %d at once" % args.max_parallel if args.max_parallel else "one GPU each"))
    print("batch: collector job %s: the class reports, once every task has ended" % collector)
    print("batch: watch them: squeue -j %s   (a task's log: %s)" % (
        ",".join(ids), os.path.join(slurm_dir, "logs", "<array>_<task>.out")))
    print("batch: when job %s has ended: %s; running the same command again grades what is "
          "missing (--failed: and what failed)" % (
              collector, os.path.join(b.out, "class", "index.html")))
    return 0


def run_task(args, b):
    """One task of the job array: grades line --task-index of the manifest, as run_here would."""
    rows = read_manifest(os.path.join(b.out, "slurm", "manifest.tsv"))
    if args.task_index not in rows:
        raise UsageError("--task-index %d: no such line in the manifest" % args.task_index)
    sid, name = rows[args.task_index]
    entry = os.path.join(b.submissions_dir, name)
    if b.seed is None:
        raise UsageError("%s: no seed: not a submitted batch" % b.out)
    files, ignored, error = read_submission(entry, list(b.known.values()) + report_files(b.known))
    hashes = {rel: sha256(data) for rel, data in files.items()}
    item = (sid, entry, files, ignored, error, hashes)
    slurm = {"job": "%s_%s" % (os.environ.get("SLURM_ARRAY_JOB_ID", "?"),
                               os.environ.get("SLURM_ARRAY_TASK_ID", "?")),
             "host": socket.gethostname(), "started_at": now()}
    student_dir = b.student_dir(sid)
    os.makedirs(student_dir, exist_ok=True)
    clear_outputs(student_dir)
    meta = {"student": sid, "submission": name, "files": hashes, "ignored": ignored,
            "error": KILLED, "state": "started", "slurm": slurm}
    # Left as it is if Slurm kills the task: the collector says so.
    write_json(os.path.join(student_dir, "meta.json"), meta)
    gpu = os.environ.get("CUDA_VISIBLE_DEVICES")
    if not gpu:
        meta.update(state="done", error="not graded: the Slurm task was given no GPU "
                    "(CUDA_VISIBLE_DEVICES is not set: is the cluster's gpu gres configured?)")
        write_json(os.path.join(student_dir, "meta.json"), meta)
        student_reports(b.out, sid)
        return 1
    folder, lock = claim_worker_folder(b.work)
    worker = Worker(folder, gpu, args, b.labs)
    try:
        worker.prepare()
    except Exception as e:
        meta.update(state="done", error="grading error: %s" % e, worker=worker.name)
        write_json(os.path.join(student_dir, "meta.json"), meta)
        student_reports(b.out, sid)
        return 1
    detected = detect_gpus()
    meta = grade_submission(worker, b, item, {"slurm": slurm,
                                              "device": detected[0] if detected else None})
    lock.close()
    print("batch: %s graded%s" % (sid, ": " + meta["error"] if meta["error"] else ""))
    return 0


def collect(args, b):
    """The collector job: says which tasks did not finish, then makes the class reports."""
    rows = read_manifest(os.path.join(b.out, "slurm", "manifest.tsv"))
    counts = {"done": 0, "unfinished": 0, "queued": 0}
    gpus, devices = set(), set()
    for index, (sid, name) in sorted(rows.items()):
        student_dir = b.student_dir(sid)
        meta = read_meta(student_dir) or {"student": sid, "submission": name, "error": NOT_RUN,
                                          "state": "queued"}
        state = meta.get("state")
        if state == "started":  # the task ended before it finished: killed, or its node died
            clear_outputs(student_dir)  # what it left may be half written
            meta.update(state="unfinished", error=KILLED)
        elif state not in counts:
            meta.update(state="queued", error=NOT_RUN)
        write_json(os.path.join(student_dir, "meta.json"), meta)
        counts[meta["state"]] += 1
        if meta["state"] == "done" and meta.get("gpu") is not None:
            gpus.add("%s:%s" % (meta.get("slurm", {}).get("host", "?"), meta["gpu"]))
            if meta.get("device"):
                devices.add(meta["device"])
    path = os.path.join(b.out, "batch.json")
    try:
        with open(path) as f:
            batch = json.load(f)
    except (OSError, ValueError):
        batch = b.info([], None, len(rows), slurm=True)
    batch.update(finished_at=now(), gpus=sorted(gpus), device=", ".join(sorted(devices)) or None)
    write_json(path, batch)
    class_reports(b.out)
    print("collect: %d graded, %d ended before grading finished, %d never ran" % (
        counts["done"], counts["unfinished"], counts["queued"]))
    return 0


def run(args):
    if args.task_index is not None:
        return run_task(args, Batch(args, create=False))
    if args.collect:
        return collect(args, Batch(args, create=False))
    if args.slurm:
        return submit_slurm(args, Batch(args, create=not args.dry_run))
    return run_here(args, Batch(args))


def student_reports(out, sid):
    """The student's pages; batch_report.py says something only when it fails (the progress line
    counts the students)."""
    script = os.path.join(ROOT, "scripts", "batch_report.py")
    if os.path.exists(script):
        r = subprocess.run([sys.executable, script, out, "--student", sid],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            say(r.stdout.rstrip("\n"), file=sys.stderr)


def class_reports(out):
    script = os.path.join(ROOT, "scripts", "batch_report.py")
    if os.path.exists(script):
        r = subprocess.run([sys.executable, script, out],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.stdout.strip():
            say(r.stdout.rstrip("\n"), file=sys.stderr if r.returncode else sys.stdout)
        if r.returncode != 0:
            say("batch: the class report failed (exit %d)" % r.returncode, file=sys.stderr)


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
    p.add_argument("--allow-uncounted", action="store_true",
                   help="grade even where the GPU's performance counters cannot be read (the "
                   "technique checks with an execution signature are then not verified and earn "
                   "nothing; by default the batch stops)")
    p.add_argument("--sandbox", default="auto", choices=["auto", "on", "off"],
                   help="the grade command's sandbox (default auto)")
    p.add_argument("--data-dir", default=os.environ.get("CUDALAB_DATA_DIR", os.path.join(ROOT, "data")),
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
