#!/usr/bin/env python3
"""Grades a class: ./cudalab batch SUBMISSIONS [options] (docs/instructors.md).

SUBMISSIONS holds one entry per student: a folder, or an archive (.zip, .tar.gz, .tgz, .tar)
with that student's lab files. Only the known student files are taken (each lab's one .cu file,
found by its path in the repository or, when that is unique, by its name); anything else is
ignored and listed in the student's meta.json.

Each worker (one per GPU, CUDA_VISIBLE_DEVICES set to it) has a copy of the repository and one
build of the framework, made once. For each submission it puts the skeletons back, copies the
student's files in, rebuilds only what they compile into (in a bubblewrap sandbox that sees the
worker's copy and the system, not the submissions or the batch's output), and runs the grade
command (each check in its own sandbox) with the batch's secret seed. What goes wrong in one
submission (a compile error, a crash, a hang, garbage) fails that submission's labs, never the
batch. A re-run grades only what is not graded yet, or changed since (--only, --failed, --force).

Output (OUT, default batch-out/): seed (the batch's secret seed, mode 0600), batch.json,
skeleton.json, students/<id>/{report.json, meta.json, build.log, grade.log, student-report.json,
results.json, junit.xml} and class/{grades.csv, index.html} (scripts/batch_report.py).
"""

import argparse
import concurrent.futures
import datetime
import hashlib
import json
import os
import queue
import re
import secrets
import shutil
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
    found = {}
    for name in sorted(os.listdir(folder)):
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


def worker_gpus(requested, detected):
    """The GPU of each worker: one worker per GPU asked for (--gpus 0,1), or per GPU found; one
    worker without a GPU when there is none. Two workers never share a GPU: timings never share."""
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


class Worker:
    """A copy of the repository with one build of the framework, graded in one at a time."""

    def __init__(self, index, gpu, out, args, labs):
        self.index, self.gpu, self.args, self.labs = index, gpu, args, labs
        self.dir = os.path.join(out, "work", str(index))
        self.tree = os.path.join(self.dir, "tree")
        self.build = os.path.join(self.tree, "build", args.preset)
        self.sandbox = []

    def log(self, text):
        print("[worker %d%s] %s" % (self.index, "" if self.gpu is None else ", GPU " + self.gpu,
                                    text), flush=True)

    def prepare(self):
        """Copies the tracked files of the repository and builds the framework once."""
        if not os.path.isdir(self.tree):
            files = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], capture_output=True,
                                   check=True).stdout.decode().split("\0")
            for rel in files:
                if not rel:
                    continue
                src, dst = os.path.join(ROOT, rel), os.path.join(self.tree, rel)
                if not os.path.isfile(src):
                    continue
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copy2(src, dst)
        self.log("configuring and building the framework (once)")
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
                raise RuntimeError("worker %d: configure failed (see %s)" % (self.index, log.name))
            targets = ["cudalab-grade"] + ["lab%s-grader-solution" % i for i in self.labs]
            b = subprocess.run(["cmake", "--build", "--preset", self.args.preset, "-j",
                                str(os.cpu_count() or 2), "--target"] + targets,
                               cwd=self.tree, env=env, stdout=log, stderr=subprocess.STDOUT)
            if b.returncode != 0:
                raise RuntimeError("worker %d: the framework does not build (see %s)" %
                                   (self.index, log.name))
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
        known = student_files(self.tree)
        # The skeletons back, then the student's files.
        for lab, rel in known.items():
            shutil.copy2(os.path.join(ROOT, rel), os.path.join(self.tree, rel))
        for rel, data in files.items():
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
                   str(os.cpu_count() or 2), "--target"] + targets + ["--", "-k", "0"]
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
            env["CUDA_VISIBLE_DEVICES"] = self.gpu
        cmd = [os.path.join(self.build, "grader", "cudalab-grade"), "--lab", ",".join(self.labs),
               "--json", os.path.join(student_dir, "report.json"), "--timeout",
               str(self.args.timeout), "--color", "never", "--sandbox", self.args.sandbox]
        if self.args.jobs:
            cmd += ["--jobs", str(self.args.jobs)]
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
    def __init__(self, total):
        self.total, self.done, self.failed = total, 0, 0
        self.start = time.time()
        self.lock = threading.Lock()
        self.tty = sys.stderr.isatty()

    def finished(self, failed, workers):
        with self.lock:
            self.done += 1
            self.failed += failed
            elapsed = time.time() - self.start
            left = (self.total - self.done) * elapsed / self.done
            line = "%d/%d graded, %d with failures, about %.0f s left" % (
                self.done, self.total, self.failed, left)
            if self.tty:
                sys.stderr.write("\r\033[K" + line)
                if self.done == self.total:
                    sys.stderr.write("\n")
            else:
                sys.stderr.write(line + "\n")
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
        files, ignored, error = read_submission(entry, list(known.values()))
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


def run(args):
    submissions_dir = os.path.abspath(args.submissions)
    submissions = list_submissions(submissions_dir)
    out = os.path.abspath(args.out)
    if out == submissions_dir or out.startswith(submissions_dir + os.sep):
        raise UsageError("--out must not be inside the submissions folder")
    os.makedirs(os.path.join(out, "students"), exist_ok=True)
    os.chmod(out, 0o700)  # the seed and every student's report: the instructor's eyes only
    seed_path = os.path.join(out, "seed")
    if not os.path.exists(seed_path):
        fd = os.open(seed_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write("%d\n" % secrets.randbelow(2**62))
    with open(seed_path) as f:
        seed = int(f.read().strip())
    known = student_files(ROOT)
    labs = sorted(known)
    if args.lab:
        wanted = [l.strip() for l in args.lab.split(",") if l.strip()]
        for l in wanted:
            if l not in known:
                raise UsageError("--lab: unknown lab '%s' (labs: %s)" % (l, ", ".join(labs)))
        labs = wanted
    write_json(os.path.join(out, "skeleton.json"),
               {rel: sha256(read_file(os.path.join(ROOT, rel))) for rel in known.values()})
    detected = detect_gpus()
    gpus = worker_gpus(args.gpus, detected)
    chosen = choose(submissions, out, args, known)
    batch = {"schema": "cudalab-batch/1", "started_at": now(), "finished_at": None,
             "gpus": [g for g in gpus if g is not None], "device": detected[0] if detected else None,
             "total": len(submissions), "graded_now": len(chosen), "seed_file": "seed",
             "labs": labs}
    write_json(os.path.join(out, "batch.json"), batch)
    print("batch: %d submission(s), %d to grade now, %d worker(s)%s" % (
        len(submissions), len(chosen), len(gpus),
        "" if gpus != [None] else " (no GPU: GPU checks are reported as skipped)"), flush=True)

    if chosen:
        workers = [Worker(i, g, out, args, labs) for i, g in enumerate(gpus[: len(chosen)])]
        with concurrent.futures.ThreadPoolExecutor(len(workers)) as pool:
            for f in [pool.submit(w.prepare) for w in workers]:
                f.result()
        todo = queue.Queue()
        for item in chosen:
            todo.put(item)
        progress = Progress(len(chosen))

        def work(worker):
            while True:
                try:
                    sid, entry, files, ignored, error, hashes = todo.get_nowait()
                except queue.Empty:
                    return
                student_dir = os.path.join(out, "students", sid)
                os.makedirs(student_dir, exist_ok=True)
                for stale in ("report.json", "student-report.json", "results.json", "junit.xml"):
                    try:
                        os.remove(os.path.join(student_dir, stale))
                    except FileNotFoundError:
                        pass
                meta = {"student": sid, "submission": os.path.basename(entry), "files": hashes,
                        "ignored": ignored, "error": error, "gpu": worker.gpu,
                        "worker": worker.index, "build_seconds": 0.0, "grade_seconds": 0.0,
                        "compiled": {}, "graded_at": now()}
                if error is None and not files:
                    meta["error"] = "no lab file found in the submission"
                if meta["error"] is None:
                    try:
                        b, g, compiled = worker.grade(sid, files, student_dir, seed)
                        meta.update(build_seconds=round(b, 2), grade_seconds=round(g, 2),
                                    compiled=compiled)
                        if not os.path.exists(os.path.join(student_dir, "report.json")):
                            meta["error"] = "the grade command wrote no report (see grade.log)"
                    except Exception as e:  # one submission never stops the batch
                        meta["error"] = "grading error: %s" % e
                write_json(os.path.join(student_dir, "meta.json"), meta)
                student_reports(out, sid)
                progress.finished(1 if meta["error"] or report_failed(student_dir) else 0, len(workers))

        with concurrent.futures.ThreadPoolExecutor(len(workers)) as pool:
            for f in [pool.submit(work, w) for w in workers]:
                f.result()
    batch["finished_at"] = now()
    write_json(os.path.join(out, "batch.json"), batch)
    class_reports(out)
    print("batch: reports in %s (class: %s)" % (out, os.path.join(out, "class", "index.html")))
    return 0


def student_reports(out, sid):
    script = os.path.join(ROOT, "scripts", "batch_report.py")
    if os.path.exists(script):
        subprocess.run([sys.executable, script, out, "--student", sid])


def class_reports(out):
    script = os.path.join(ROOT, "scripts", "batch_report.py")
    if os.path.exists(script):
        r = subprocess.run([sys.executable, script, out])
        if r.returncode != 0:
            print("batch: the class report failed (exit %d)" % r.returncode, file=sys.stderr)


def parse(argv):
    p = argparse.ArgumentParser(prog="cudalab batch", description=__doc__.split("\n\n")[0])
    p.add_argument("submissions", help="folder with one folder or archive per student")
    p.add_argument("--out", default="batch-out", help="output folder (default: batch-out)")
    p.add_argument("--gpus", help="GPUs to use, one worker each, e.g. 0,1 (default: all)")
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
    p.add_argument("--sandbox", default="auto", choices=["auto", "on", "off"],
                   help="the grade command's sandbox (default auto)")
    p.add_argument("--data-dir", default=os.environ.get("CUDALAB_DATA_DIR", os.path.join(ROOT, "data")),
                   help="the datasets (default: data/ of the repository)")
    p.add_argument("--preset", default=os.environ.get("CUDALAB_PRESET", "default"),
                   help="CMake preset of the workers' builds (default: CUDALAB_PRESET or default)")
    args = p.parse_args(argv)
    for name in ("timeout", "submission_timeout", "build_timeout"):
        if getattr(args, name) < 1:
            raise UsageError("--%s must be at least 1" % name.replace("_", "-"))
    if args.jobs < 0:
        raise UsageError("--jobs must be at least 1")
    if args.force and (args.failed or args.only):
        raise UsageError("--force re-grades everything: not with --failed or --only")
    return args


def main(argv):
    try:
        return run(parse(argv))
    except UsageError as e:
        print("cudalab batch: error: %s" % e, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ncudalab batch: interrupted; a re-run grades what is left", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
