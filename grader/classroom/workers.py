"""The batch's workers: one per GPU (or one without a GPU), each a folder with a copy of the
repository and one build of the framework, made once and kept between runs, in which one
submission at a time is built (in a bubblewrap sandbox) and graded.
"""

import contextlib
import fcntl
import glob
import os
import re
import shutil
import socket
import subprocess
import time

from grader.classroom import base
from grader.classroom.base import SAFE_ID, UsageError, say
from grader.classroom.submissions import is_report, student_files


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


def worker_gpus(requested, detected, visible=None):
    """The GPU of each worker: one worker per GPU asked for (--gpus 0,1), else per GPU that
    CUDA_VISIBLE_DEVICES (`visible`) lets through, else per GPU found; one worker without a GPU
    when there is none. A GPU is named once: workers that share one (--per-gpu) share its lock
    (worker_plan), so that timings never share it."""
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


def worker_plan(gpus, per_gpu, work):
    """[(gpu, lock)]: `per_gpu` workers on each of `gpus`. Workers that share a GPU share its lock
    file, WORK/gpu-<gpu>.lock, which the grade command takes (--gpu-lock: their untimed checks side
    by side, each grade's timed checks alone, grader/grade/gpu_lock.h); a worker alone on its GPU,
    or without one, takes none."""
    plan = []
    for _ in range(per_gpu):  # round the GPUs first: a short batch's workers spread over them
        for gpu in gpus:
            lock = None
            if gpu is not None and per_gpu > 1:
                lock = os.path.join(work, "gpu-%s.lock" % SAFE_ID.sub("_", gpu))
            plan.append((gpu, lock))
    return plan


@contextlib.contextmanager
def gpu_shared(lock):
    """Holds the GPU lock file `lock` shared while the block runs, as the grade command's untimed
    processes do (grader/grade/gpu_lock.h: through LOCK.turnstile, so that a timed phase waiting
    goes first): a worker's build must not load the CPUs while another worker on its GPU times
    its checks. No lock (None): nothing to hold."""
    if lock is None:
        yield
        return
    os.makedirs(os.path.dirname(lock) or ".", exist_ok=True)
    with open(lock + ".turnstile", "a") as turnstile:
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        held = open(lock, "a")
        fcntl.flock(held, fcntl.LOCK_SH)
    try:
        yield
    finally:
        held.close()


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


def gpu_architecture(gpu):
    """The CUDA architecture of GPU `gpu` (an index or UUID, as nvidia-smi -i takes it) for
    CMake, e.g. "90" for compute capability 9.0; None when nvidia-smi cannot say. A worker builds
    for the GPU it grades on, named outright: the students' files are built in a sandbox without
    the GPU's devices, where a CMake re-run's own detection would find none."""
    if gpu is None:
        return None
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader",
                              "-i", str(gpu)], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.fullmatch(r"\s*(\d+)\.(\d+)\s*", out.stdout) if out.returncode == 0 else None
    return m.group(1) + m.group(2) if m else None


# The globs of the folders that hold the course's answers, from a tree's root: one list for the
# grade command's sandbox (grader/grade/process.h, answer_key, which compiles it in) and this.
ANSWER_KEY_LIST = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                               "answer-key.txt")


def answer_key_globs():
    """The globs of ANSWER_KEY_LIST (its lines but comments and blank ones)."""
    with open(ANSWER_KEY_LIST, encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def answer_key_files(tree):
    """The files of TREE that hold the course's answers, as the grade command's sandbox hides
    them (grader/grade/process.h, answer_key): those of the folders ANSWER_KEY_LIST names (the
    solutions, the variants with each lab's plain answer, the pages before the release takes
    their answers out, the history)."""
    roots = []
    for pattern in answer_key_globs():
        roots += [p for p in sorted(glob.glob(os.path.join(tree, pattern))) if os.path.isdir(p)]
    found = []
    for root in roots:
        for folder, _, names in os.walk(root):
            found += [os.path.join(folder, n) for n in names
                      if not os.path.islink(os.path.join(folder, n))]
    return sorted(found)


# The answers' stand-in in a student's build: empty, and older than anything the build made, so
# that Ninja finds the reference (built from the real files before) up to date, and CMake the
# variants it depends on unchanged.
PLACEHOLDER_TIME = 946684800  # 2000-01-01


def answer_placeholder(folder):
    """An empty file in FOLDER (outside the tree) dated PLACEHOLDER_TIME; its path."""
    path = os.path.join(folder, "answer-placeholder")
    with open(path, "w"):
        pass
    os.utime(path, (PLACEHOLDER_TIME, PLACEHOLDER_TIME))
    return path


def build_sandbox(tree, placeholder):
    """bubblewrap for building untrusted files: the system read-only, the worker's tree writable
    but its answers (answer_key_files) each the empty PLACEHOLDER, read-only, nothing else (no
    submissions, no batch output, no home), no network. [] without bwrap. A compile error quotes
    the lines of what a file includes: a student's file that included a solution would otherwise
    read the answer in its build log, which the student gets."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return []
    p = [bwrap, "--die-with-parent", "--unshare-all", "--cap-drop", "ALL"]
    for d in ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc", "/opt"):
        if os.path.islink(d):
            p += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            p += ["--ro-bind", d, d]
    p += ["--tmpfs", "/tmp", "--bind", tree, tree]
    for path in answer_key_files(tree):
        p += ["--ro-bind", placeholder, path]
    p += ["--proc", "/proc", "--dev", "/dev", "--chdir", tree, "--"]
    try:
        ok = subprocess.run(p + ["true"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    return p if ok else []


def student_builds(build, manifest):
    """The files and folders in BUILD made from the students' files, for every lab of MANIFEST
    (the build's cudalab-labs.tsv rows by lab): the graders, link checks, runners and candidate
    libraries that link them, the compiler's messages, and CMake's object, PTX and device-link
    folders of those targets (the student's object is one of them)."""
    targets = os.path.join(build, "CMakeFiles")
    try:
        names = os.listdir(targets)
    except FileNotFoundError:
        names = []
    paths = []
    for lab, fields in sorted(manifest.items()):
        short = fields[1]
        paths += [os.path.join(build, name) for name in (
            "lab%s-grader-student" % lab, "lab%s-student-link-check" % lab,
            "lab%s-%s" % (lab, short), "liblab%s-candidate-student.so" % lab,
            "lab%s-student-compile.txt" % lab)]
        for name in names:
            if (name.startswith("lab%s_student" % lab) or name in (
                    "lab%s-candidate-student.dir" % lab, "lab%s-grader-student.dir" % lab,
                    "lab%s-student-link-check.dir" % lab, "lab%s-%s.dir" % (lab, short))):
                paths.append(os.path.join(targets, name))
        # A lab with technique checks embeds the student's PTX in a source the build writes
        # (cmake/EmbedPtx.cmake; made again when missing); in the others that source is CMake's,
        # written at configure time, and holds no student's code.
        if any(name.startswith("lab%s_student_ptx_" % lab) for name in names):
            paths.append(os.path.join(build, "lab%s_student_candidate.cpp" % lab))
        paths += [obj for obj in fields[10].split(";") if obj]
    return paths


def remove_student_builds(build, manifest):
    """Removes student_builds(BUILD, MANIFEST); Ninja makes again what a grade needs."""
    for path in student_builds(build, manifest):
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            try:
                os.remove(path)
            except FileNotFoundError:
                pass


# Each process of a student's build may map at most BUILD_MEMORY_BYTES and write files of at most
# BUILD_FILE_BYTES: one line of a file (#include "/dev/zero") makes the compiler's preprocessor
# ask for ever more memory, up to the machine's (the other workers' builds and grades with it).
# The labs' largest compile, lab 10's, peaks at 214 MB (2026-11-28, CUDA 13.0, one architecture).
BUILD_MEMORY_BYTES = 4 << 30
BUILD_FILE_BYTES = 1 << 30


def build_limits():
    """The command prefix that runs a build under those limits (prlimit, util-linux); [] when
    prlimit is missing."""
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        return []
    return [prlimit, "--as=%d" % BUILD_MEMORY_BYTES, "--fsize=%d" % BUILD_FILE_BYTES, "--"]


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

    def __init__(self, folder, gpu, args, labs, gpu_lock=None):
        self.gpu, self.args, self.labs = gpu, args, labs
        self.gpu_lock = gpu_lock  # shared with the other workers on this GPU (worker_plan)
        self.dir = folder
        self.name = os.path.basename(folder)
        self.tree = os.path.join(self.dir, "tree")
        self.build = os.path.join(self.tree, "build", args.preset)
        self.known = student_files(base.ROOT)  # the tree is a copy: the same labs and files
        self.sandbox = []

    def log(self, text):
        say("[worker %s%s] %s" % (self.name, "" if self.gpu is None else ", GPU " + self.gpu, text))

    def prepare(self):
        """Copies the tracked files of the repository (those changed since, in a folder used
        before) and builds the framework (only what changed, in a folder used before)."""
        files = tracked_files(base.ROOT)
        built = os.path.isdir(self.build)
        for rel in files:
            if not rel:
                continue
            src, dst = os.path.join(base.ROOT, rel), os.path.join(self.tree, rel)
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
        # The caller's environment as it is: CMAKE_CXX_COMPILER_LAUNCHER=ccache (and CUDA's) with
        # its CCACHE_* settings, when set, makes the build use ccache (from the folder's first
        # configure on: CMake keeps the launcher in its cache).
        env = dict(os.environ)
        with open(os.path.join(self.dir, "framework-build.log"), "w") as log:
            arch = os.environ.get("CUDALAB_CUDA_ARCHITECTURES") or gpu_architecture(self.gpu)
            # No CTest test of the student's graders: listing their checks would run the
            # student's code at build time.
            cfg = subprocess.run(["cmake", "--preset", self.args.preset,
                                  "-DCUDALAB_STUDENT_TESTS=OFF"] +
                                 (["-DCUDALAB_CUDA_ARCHITECTURES=" + arch] if arch else []),
                                 cwd=self.tree, env=env, stdout=log, stderr=subprocess.STDOUT)
            if cfg.returncode != 0:
                raise RuntimeError("worker %s: configure failed (see %s)" % (self.name, log.name))
            targets = ["cudalab-grade"] + ["lab%s-grader-solution" % i for i in self.labs]
            with gpu_shared(self.gpu_lock):
                b = subprocess.run(["cmake", "--build", "--preset", self.args.preset, "-j",
                                    str(cpus()), "--target"] + targets,
                                   cwd=self.tree, env=env, stdout=log, stderr=subprocess.STDOUT)
            if b.returncode != 0:
                raise RuntimeError("worker %s: the framework does not build (see %s)" %
                                   (self.name, log.name))
        self.sandbox = build_sandbox(self.tree, answer_placeholder(self.dir))
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

    def grade_command(self, student_dir):
        """The grade command for one submission, its report in `student_dir`."""
        cmd = [os.path.join(self.build, "grader", "cudalab-grade"), "--lab", ",".join(self.labs),
               "--json", os.path.join(student_dir, "report.json"), "--timeout",
               str(self.args.timeout), "--color", "never", "--sandbox", self.args.sandbox]
        if self.gpu_lock is not None:
            cmd += ["--gpu-lock", self.gpu_lock]
        if self.args.jobs:
            cmd += ["--jobs", str(self.args.jobs)]
        elif cpus() < (os.cpu_count() or 1):  # a Slurm task's CPUs, not the node's
            cmd += ["--jobs", str(min(cpus(), 8))]
        return cmd

    def grade(self, sid, files, student_dir, seed):
        """Builds and grades one submission; returns (build seconds, grade seconds, compiled)."""
        # The skeletons back, then the student's files.
        for rel in self.known.values():
            shutil.copy2(os.path.join(base.ROOT, rel), os.path.join(self.tree, rel))
        for rel, data in files.items():
            if is_report(rel):  # read by the instructor, not compiled
                continue
            with open(os.path.join(self.tree, rel), "wb") as f:
                f.write(data)
        # Nothing of an earlier submission may be graded or read, of any lab (a submission of
        # lab 01 graded here can read the build folder, where an earlier student's lab 05 was
        # built): every file made from a student's file goes.
        remove_student_builds(self.build, self.manifest())
        targets = []
        for lab in self.labs:
            targets += ["lab%s-grader-student" % lab, "lab%s-student-link-check" % lab]
        # The framework's build uses ccache when the environment sets it as the compiler launcher
        # (prepare); a student's build leaves the cache alone: what it compiles is the student's,
        # and the sandbox hides the cache's folder anyway.
        build_env = dict(os.environ, CCACHE_DISABLE="1")
        start = time.time()
        with open(os.path.join(student_dir, "build.log"), "w") as log:
            cmd = ["cmake", "--build", "--preset", self.args.preset, "-j",
                   str(cpus()), "--target"] + targets + ["--", "-k", "0"]
            try:
                with gpu_shared(self.gpu_lock):
                    subprocess.run(self.sandbox + build_limits() + cmd, cwd=self.tree,
                                   env=build_env, stdout=log, stderr=subprocess.STDOUT,
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
        cmd = self.grade_command(student_dir)
        start = time.time()
        with open(os.path.join(student_dir, "grade.log"), "w") as log:
            try:
                subprocess.run(cmd, cwd=self.tree, env=env, stdout=log, stderr=subprocess.STDOUT,
                               timeout=self.args.submission_timeout)
            except subprocess.TimeoutExpired:
                log.write("\nbatch: grading took more than %d s and was stopped\n" %
                          self.args.submission_timeout)
        return build_seconds, time.time() - start, compiled
