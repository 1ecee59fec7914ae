#!/usr/bin/env python3
"""Unit tests of ./cudalab batch (grader/classroom/batch.py and the modules below it) without a
build: which files of a submission are taken, unsafe archives, the report.md files taken beside
the lab files, the students' ids, the worker-to-GPU mapping, the worker folders, the Slurm
scripts, manifest and collector, bad options and bad input (one line, exit code 2: not a git
checkout, an unreadable folder, a full disk), and the progress line.

    python3 grader/tests/test_classroom_batch.py [-v]
"""

import contextlib
import fcntl
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import types
import unittest
import zipfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from grader.classroom import base, batch, grading, slurm, submissions, workers  # noqa: E402

KNOWN = ["labs/01-conv1d-basic/conv1d_basic.cu", "labs/02-conv1d-tiled/conv1d_tiled.cu"]


class MatchMembers(unittest.TestCase):
    def test_repository_layout_and_prefixes(self):
        taken, ignored = submissions.match_members(
            ["alice/labs/01-conv1d-basic/conv1d_basic.cu", "alice/notes.txt"], KNOWN)
        self.assertEqual(taken, {KNOWN[0]: "alice/labs/01-conv1d-basic/conv1d_basic.cu"})
        self.assertEqual(ignored, ["alice/notes.txt"])

    def test_flat_upload_by_file_name(self):
        taken, ignored = submissions.match_members(["conv1d_tiled.cu", "conv1d_basic.cu"], KNOWN)
        self.assertEqual(taken, {KNOWN[0]: "conv1d_basic.cu", KNOWN[1]: "conv1d_tiled.cu"})
        self.assertEqual(ignored, [])

    def test_the_repository_path_wins_over_a_file_name(self):
        names = ["old/conv1d_basic.cu", "labs/01-conv1d-basic/conv1d_basic.cu"]
        taken, ignored = submissions.match_members(names, KNOWN)
        self.assertEqual(taken[KNOWN[0]], "labs/01-conv1d-basic/conv1d_basic.cu")
        self.assertEqual(ignored, ["old/conv1d_basic.cu"])

    def test_several_copies_the_shortest_path_is_taken(self):
        taken, ignored = submissions.match_members(["a/b/conv1d_basic.cu", "a/conv1d_basic.cu"], KNOWN)
        self.assertEqual(taken[KNOWN[0]], "a/conv1d_basic.cu")
        self.assertEqual(ignored, ["a/b/conv1d_basic.cu"])


class CleanMember(unittest.TestCase):
    def test_paths(self):
        self.assertEqual(submissions.clean_member("./a//b/./c.cu"), "a/b/c.cu")
        self.assertEqual(submissions.clean_member("a\\b.cu"), "a/b.cu")
        for bad in ("/etc/passwd", "../x.cu", "a/../../x.cu", "", "."):
            self.assertIsNone(submissions.clean_member(bad), bad)


class ReadSubmission(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def path(self, name):
        return os.path.join(self.dir, name)

    def test_zip_with_unsafe_members(self):
        p = self.path("s.zip")
        with zipfile.ZipFile(p, "w") as z:
            z.writestr("../evil.cu", "x")
            z.writestr("/abs/conv1d_tiled.cu", "x")
            z.writestr("conv1d_basic.cu", "good")
            link = zipfile.ZipInfo("conv1d_tiled.cu")
            link.external_attr = 0o120777 << 16  # a symbolic link
            z.writestr(link, "/etc/passwd")
        files, ignored, error = submissions.read_submission(p, KNOWN)
        self.assertIsNone(error)
        self.assertEqual(files, {KNOWN[0]: b"good"})
        self.assertEqual(len(ignored), 3)

    def test_tar_link_and_big_file(self):
        p = self.path("s.tar.gz")
        with tarfile.open(p, "w:gz") as t:
            big = b"x" * (base.MAX_FILE_BYTES + 1)
            info = tarfile.TarInfo(KNOWN[0])
            info.size = len(big)
            t.addfile(info, io.BytesIO(big))
            link = tarfile.TarInfo(KNOWN[1])
            link.type = tarfile.SYMTYPE
            link.linkname = "/etc/shadow"
            t.addfile(link)
        files, ignored, error = submissions.read_submission(p, KNOWN)
        self.assertIsNone(error)
        self.assertEqual(files, {})
        self.assertTrue(any("larger than 1 MiB" in i for i in ignored))
        self.assertTrue(any("link" in i for i in ignored))

    def test_garbage_archive_is_an_error_of_that_student(self):
        p = self.path("s.zip")
        with open(p, "wb") as f:
            f.write(b"not a zip at all")
        files, ignored, error = submissions.read_submission(p, KNOWN)
        self.assertEqual(files, {})
        self.assertIn("cannot read the submission", error)

    def test_folder_skips_links(self):
        d = self.path("alice")
        os.makedirs(os.path.join(d, "labs", "01-conv1d-basic"))
        with open(os.path.join(d, KNOWN[0]), "w") as f:
            f.write("ok")
        os.symlink("/etc/passwd", os.path.join(d, "conv1d_tiled.cu"))
        files, ignored, error = submissions.read_submission(d, KNOWN)
        self.assertEqual(files, {KNOWN[0]: b"ok"})
        self.assertEqual(ignored, ["conv1d_tiled.cu (not a regular file)"])


class ListSubmissions(unittest.TestCase):
    def test_ids_and_collisions(self):
        d = tempfile.mkdtemp()
        os.makedirs(os.path.join(d, "alice"))
        open(os.path.join(d, "bob smith.zip"), "w").close()
        open(os.path.join(d, "export.csv"), "w").close()
        self.assertEqual([sid for sid, _ in submissions.list_submissions(d)], ["alice", "bob_smith"])
        open(os.path.join(d, "alice.tar.gz"), "w").close()
        with self.assertRaises(batch.UsageError):
            submissions.list_submissions(d)

    def test_empty_or_missing(self):
        with self.assertRaises(batch.UsageError):
            submissions.list_submissions(tempfile.mkdtemp())
        with self.assertRaises(batch.UsageError):
            submissions.list_submissions("/nonexistent/folder")


class StudentBuilds(unittest.TestCase):
    """Before each submission a worker removes what earlier students' files made, of every lab:
    a submission of one lab can read the build folder while it is graded."""

    def test_every_lab_and_only_what_a_student_file_made(self):
        with tempfile.TemporaryDirectory() as build:
            made = os.path.join(build, "CMakeFiles")
            os.makedirs(made)

            def touch(*parts):
                path = os.path.join(build, *parts)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                open(path, "w").close()
                return path

            student = [
                touch("lab01-grader-student"), touch("lab01-student-link-check"),
                touch("lab01-conv1d-basic"), touch("liblab01-candidate-student.so"),
                touch("lab01-student-compile.txt"),
                touch("CMakeFiles", "lab01_student.dir", "labs", "conv1d_basic.cu.o"),
                touch("CMakeFiles", "lab01-candidate-student.dir", "cmake_device_link.o"),
                touch("CMakeFiles", "lab01-conv1d-basic.dir", "cmake_device_link.o"),
                touch("lab05-grader-student"), touch("liblab05-candidate-student.so"),
                touch("CMakeFiles", "lab05_student.dir", "labs", "conv_texture.cu.o"),
                touch("CMakeFiles", "lab05_student_ptx_90.dir", "labs", "conv_texture.ptx"),
                touch("CMakeFiles", "lab05-grader-student.dir", "lab05_student_candidate.cpp.o"),
                touch("lab05_student_candidate.cpp"),  # the student's PTX, embedded
            ]
            kept = [
                touch("lab01-grader-solution"), touch("liblab01-candidate-solution.so"),
                touch("lab01_student_candidate.cpp"),  # CMake's, no PTX: no rule would remake it
                touch("lab01_student_remote.cpp"), touch("lab05_student_remote.cpp"),
                touch("CMakeFiles", "lab01_checks.dir", "checks.cpp.o"),
                touch("CMakeFiles", "lab05_solution_ptx_90.dir", "labs", "conv_texture.ptx"),
                touch("CMakeFiles", "lab05_variant_answer.dir", "answer.cu.o"),
                touch("lab05-grader-variant-answer"), touch("cudalab-labs.tsv"),
            ]
            row = lambda lab, short, obj: [lab, short] + [""] * 8 + [obj]
            manifest = {
                "01": row("01", "conv1d-basic", student[5]),
                "05": row("05", "conv-texture", student[10]),
            }
            workers.remove_student_builds(build, manifest)
            for path in student:
                self.assertFalse(os.path.exists(path), path)
            for path in kept:
                self.assertTrue(os.path.exists(path), path)
            # Nothing left to remove the second time; a build folder without CMakeFiles is fine.
            workers.remove_student_builds(build, manifest)
            workers.remove_student_builds(os.path.join(build, "none"), manifest)


class BuildLimits(unittest.TestCase):
    """A student's build runs under limits: one line (#include "/dev/zero") would otherwise make
    the compiler ask for the machine's memory."""

    def test_the_build_gets_the_limits(self):
        prefix = workers.build_limits()
        if not prefix:
            self.skipTest("prlimit (util-linux) is not installed")
        probe = ("import resource; print(resource.getrlimit(resource.RLIMIT_AS)[0], "
                 "resource.getrlimit(resource.RLIMIT_FSIZE)[0])")
        out = subprocess.run(prefix + [sys.executable, "-c", probe], capture_output=True,
                             text=True, check=True).stdout.split()
        self.assertEqual([int(v) for v in out],
                         [workers.BUILD_MEMORY_BYTES, workers.BUILD_FILE_BYTES])

    def test_a_preprocessor_reading_forever_stops(self):
        prefix = workers.build_limits()
        cc = shutil.which("cpp")
        if not prefix or cc is None:
            self.skipTest("prlimit or cpp is not installed")
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "zero.c")
            with open(src, "w") as f:
                f.write('#include "/dev/zero"\n')
            start = time.time()
            r = subprocess.run(prefix + [cc, src, "-o", os.devnull], capture_output=True,
                               text=True, timeout=120)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("memory", r.stderr)
        self.assertLess(time.time() - start, 60)


class WorkerGpus(unittest.TestCase):
    def test_one_worker_per_gpu(self):
        self.assertEqual(workers.worker_gpus(None, ["H100", "H100"]), ["0", "1"])
        self.assertEqual(workers.worker_gpus("1", ["H100", "H100"]), ["1"])
        self.assertEqual(workers.worker_gpus("0,1", ["H200", "H200"]), ["0", "1"])

    def test_cuda_visible_devices_is_the_default(self):
        self.assertEqual(workers.worker_gpus(None, ["H100"] * 4, "2,3"), ["2", "3"])
        self.assertEqual(workers.worker_gpus("0", ["H100"] * 4, "2,3"), ["0"])  # --gpus wins
        self.assertEqual(workers.worker_gpus(None, ["H100"] * 2, ""), [None])
        with self.assertRaises(batch.UsageError):
            workers.worker_gpus(None, ["H100"] * 2, "1,1")

    def test_no_gpu_one_worker_without_one(self):
        self.assertEqual(workers.worker_gpus(None, []), [None])

    def test_a_gpu_is_named_once(self):
        for bad in ("0,0", "", "x", "0,2"):
            with self.assertRaises(batch.UsageError, msg=bad):
                workers.worker_gpus(bad, ["H100", "H100"])


class WorkersPerGpu(unittest.TestCase):
    """--per-gpu N: N workers on each GPU, sharing its lock (the grade command's --gpu-lock)."""

    def test_the_plan_rounds_the_gpus_first_and_shares_a_lock_per_gpu(self):
        self.assertEqual(workers.worker_plan(["0", "1"], 2, "/w"),
                         [("0", "/w/gpu-0.lock"), ("1", "/w/gpu-1.lock"),
                          ("0", "/w/gpu-0.lock"), ("1", "/w/gpu-1.lock")])
        self.assertEqual(workers.worker_plan(["0", "1"], 1, "/w"), [("0", None), ("1", None)])
        self.assertEqual(workers.worker_plan([None], 2, "/w"), [(None, None), (None, None)])
        self.assertEqual(workers.worker_plan(["MIG-1/2"], 2, "/w")[0][1], "/w/gpu-MIG-1_2.lock")

    def test_the_grade_command_names_the_lock(self):
        args = types.SimpleNamespace(preset="default", timeout=60, sandbox="auto", jobs=0)
        with tempfile.TemporaryDirectory() as d:
            shared = workers.Worker(d, "0", args, ["01"], os.path.join(d, "gpu-0.lock"))
            alone = workers.Worker(d, "0", args, ["01"])
            cmd = shared.grade_command(d)
            self.assertEqual(cmd[cmd.index("--gpu-lock") + 1], os.path.join(d, "gpu-0.lock"))
            self.assertNotIn("--gpu-lock", alone.grade_command(d))

    def test_a_build_waits_while_another_worker_times_its_checks(self):
        with tempfile.TemporaryDirectory() as d:
            lock = os.path.join(d, "gpu-0.lock")
            with workers.gpu_shared(lock), workers.gpu_shared(lock):
                pass  # two builds (or a build and untimed checks) side by side
            timed = open(lock, "a")
            fcntl.flock(timed, fcntl.LOCK_EX)  # a grade's timed checks (gpu_lock.cpp)
            entered = []

            def build():
                with workers.gpu_shared(lock):
                    entered.append(time.time())

            t = threading.Thread(target=build)
            t.start()
            time.sleep(0.5)
            self.assertEqual(entered, [])
            released = time.time()
            timed.close()
            t.join(5)
            self.assertEqual(len(entered), 1)
            self.assertGreaterEqual(entered[0], released)

    def test_bad_counts(self):
        for bad in ("0", "17", "x"):
            with self.assertRaises((batch.UsageError, SystemExit), msg=bad), \
                    contextlib.redirect_stderr(io.StringIO()):
                batch.parse(["s", "--per-gpu", bad])
        self.assertEqual(batch.parse(["s", "--per-gpu", "2"]).per_gpu, 2)


class GpuArchitecture(unittest.TestCase):
    """A worker builds for its GPU by name (nvidia-smi's compute capability), not by a detection
    that a sandboxed re-configure cannot make."""

    def fake_smi(self, script):
        d = tempfile.mkdtemp()
        path = os.path.join(d, "nvidia-smi")
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + script + "\n")
        os.chmod(path, 0o755)
        old = os.environ["PATH"]
        os.environ["PATH"] = d + os.pathsep + old
        self.addCleanup(os.environ.__setitem__, "PATH", old)

    def test_compute_capability_of_the_workers_gpu(self):
        self.fake_smi('[ "$3" = "-i" ] && [ "$4" = "1" ] && echo "9.0" || echo "8.6"')
        self.assertEqual(workers.gpu_architecture("1"), "90")
        self.assertEqual(workers.gpu_architecture("0"), "86")

    def test_none_without_a_gpu_or_an_answer(self):
        self.assertIsNone(workers.gpu_architecture(None))
        self.fake_smi("echo 'No devices were found'; exit 6")
        self.assertIsNone(workers.gpu_architecture("0"))
        self.fake_smi("echo '[N/A]'")
        self.assertIsNone(workers.gpu_architecture("0"))


class BuildSandbox(unittest.TestCase):
    """The cheat the build sandbox stops: a file whose compile error quotes a file outside the
    worker's copy (another submission, the batch's seed) into its build log."""

    def test_sees_the_tree_not_the_rest(self):
        tree, outside = tempfile.mkdtemp(), tempfile.mkdtemp()
        secret = os.path.join(outside, "seed")
        with open(secret, "w") as f:
            f.write("1234\n")
        with open(os.path.join(tree, "lab.cu"), "w") as f:
            f.write("ok\n")
        sandbox = workers.build_sandbox(tree, workers.answer_placeholder(outside))
        if not sandbox:
            self.skipTest("bubblewrap does not work here")
        seen = subprocess.run(sandbox + ["cat", os.path.join(tree, "lab.cu")],
                              capture_output=True, text=True)
        self.assertEqual((seen.returncode, seen.stdout), (0, "ok\n"))
        hidden = subprocess.run(sandbox + ["cat", secret], capture_output=True, text=True)
        self.assertNotEqual(hidden.returncode, 0)
        self.assertNotIn("1234", hidden.stdout + hidden.stderr)
        # Around it: through another process's root, the sandbox's own /proc shows nothing else.
        via_proc = subprocess.run(sandbox + ["cat", "/proc/1/root" + secret], capture_output=True,
                                  text=True)
        self.assertNotIn("1234", via_proc.stdout)
        home = subprocess.run(sandbox + ["ls", os.path.expanduser("~")], capture_output=True)
        self.assertNotEqual(home.returncode, 0)

    def test_the_answers_are_empty_and_old(self):
        """A file that includes a solution (or a plain answer, or a page) compiles against an
        empty file, so its compile errors quote nothing of the answer; the placeholders are older
        than the build, so Ninja keeps the reference built from the real files."""
        tree, outside = tempfile.mkdtemp(), tempfile.mkdtemp()
        answers = ["solutions/09-nbody/nbody.cu", "grader/labs/09-nbody/variants/answer.cu",
                   "grader/labs/09-nbody/variants/no-softening.patch", "docs/labs/09-nbody.md",
                   ".git/HEAD"]
        for rel in answers + ["labs/09-nbody/nbody.cu", "grader/labs/09-nbody/grade_nbody.cpp"]:
            os.makedirs(os.path.dirname(os.path.join(tree, rel)), exist_ok=True)
            with open(os.path.join(tree, rel), "w") as f:
                f.write("the text of %s\n" % rel)
        self.assertEqual(workers.answer_key_files(tree),
                         sorted(os.path.join(tree, rel) for rel in answers))
        sandbox = workers.build_sandbox(tree, workers.answer_placeholder(outside))
        if not sandbox:
            self.skipTest("bubblewrap does not work here")
        for rel in answers:
            seen = subprocess.run(sandbox + ["stat", "-c", "%s %Y", rel],
                                  capture_output=True, text=True)
            self.assertEqual(seen.stdout, "0 %d\n" % workers.PLACEHOLDER_TIME, rel)
            forged = subprocess.run(sandbox + ["sh", "-c", "echo x > " + rel], capture_output=True)
            self.assertNotEqual(forged.returncode, 0, rel)
        for rel in ("labs/09-nbody/nbody.cu", "grader/labs/09-nbody/grade_nbody.cpp"):
            seen = subprocess.run(sandbox + ["cat", rel], capture_output=True, text=True)
            self.assertEqual(seen.stdout, "the text of %s\n" % rel)
        # The student's own file stays writable; outside the sandbox every answer is whole.
        wrote = subprocess.run(sandbox + ["sh", "-c", "echo x > labs/09-nbody/nbody.cu"])
        self.assertEqual(wrote.returncode, 0)
        for rel in answers:
            with open(os.path.join(tree, rel)) as f:
                self.assertEqual(f.read(), "the text of %s\n" % rel)


class Options(unittest.TestCase):
    def test_bad_options(self):
        for argv in (["s", "--timeout", "0"], ["s", "--force", "--failed"],
                     ["s", "--jobs", "-1"]):
            with self.assertRaises(batch.UsageError, msg=argv):
                batch.parse(argv)

    def test_main_says_one_line_and_exits_2(self):
        stderr = sys.stderr
        sys.stderr = io.StringIO()
        try:
            code = batch.main(["/nonexistent/submissions"])
            text = sys.stderr.getvalue()
        finally:
            sys.stderr = stderr
        self.assertEqual(code, 2)
        self.assertEqual(text.count("\n"), 1)
        self.assertIn("not a folder of submissions", text)


class WorkerFolders(unittest.TestCase):
    def test_first_free_folder_of_this_host(self):
        work = os.path.join(tempfile.mkdtemp(), "work")
        first, lock1 = workers.claim_worker_folder(work)
        second, lock2 = workers.claim_worker_folder(work)  # the first one is held
        self.assertTrue(first.endswith("-0") and second.endswith("-1"), (first, second))
        self.assertEqual(os.path.dirname(first), work)
        lock1.close()  # its batch or task ended
        again, lock3 = workers.claim_worker_folder(work)
        self.assertEqual(again, first)
        lock2.close()
        lock3.close()


def slurm_args(*extra):
    args = batch.parse(["subs", "--slurm", "--lab", "01,02", "--timeout", "5"] + list(extra))
    b = types.SimpleNamespace(submissions_dir="/class/subs", out="/class/out",
                              work="/class/out/work", labs=["01", "02"])
    return args, b


class Slurm(unittest.TestCase):
    def test_max_array_size(self):
        config = "MailProg        = /bin/mail\nMaxArraySize    = 4\nMaxJobCount     = 9\n"
        self.assertEqual(slurm.max_array_size(config), 4)
        self.assertEqual(slurm.max_array_size(""), 1001)  # Slurm's default

    def test_arrays_below_max_array_size(self):
        self.assertEqual(slurm.split_arrays(6, 4), [(0, 4), (4, 2)])
        self.assertEqual(slurm.split_arrays(1001, 1001), [(0, 1001)])
        self.assertEqual(slurm.split_arrays(2003, 1001), [(0, 1001), (1001, 1001), (2002, 1)])
        with self.assertRaises(batch.UsageError):
            slurm.split_arrays(3, 0)

    def test_time_limit(self):
        self.assertEqual(slurm.task_minutes(slurm_args()[0]), 45 + 30)  # 900 s + 1800 s, + 30
        self.assertEqual(slurm.task_minutes(slurm_args("--time", "7")[0]), 7)

    def test_manifest(self):
        path = os.path.join(tempfile.mkdtemp(), "manifest.tsv")
        slurm.write_manifest(path, [("alice", "alice"), ("bob", "bob smith.zip")])
        self.assertEqual(slurm.read_manifest(path), {0: ("alice", "alice"),
                                                     1: ("bob", "bob smith.zip")})
        with open(path, "a") as f:
            f.write("2\tcarol\n")
        with self.assertRaises(batch.UsageError):
            slurm.read_manifest(path)
        with self.assertRaises(batch.UsageError):
            slurm.read_manifest(path + ".missing")

    def test_array_script(self):
        args, b = slurm_args("--max-parallel", "2", "--partition", "gpu-a100", "--time", "20")
        script = slurm.array_script(args, b, 2, 4, 3, previous="11")
        for line in ("#SBATCH --array=0-2%2", "#SBATCH --gres=gpu:1", "#SBATCH --time=20",
                     "#SBATCH --partition=gpu-a100", "#SBATCH --dependency=afterany:11",
                     "#SBATCH --output=/class/out/slurm/logs/%A_%a.out"):
            self.assertIn(line + "\n", script)
        command = script.splitlines()[-1]
        self.assertTrue(command.startswith("exec " + sys.executable), command)
        for part in ("/class/subs --out /class/out --work /class/out/work --lab 01,02",
                     "--timeout 5 ", '--task-index "$((4 + SLURM_ARRAY_TASK_ID))"'):
            self.assertIn(part, command)
        self.assertEqual(subprocess.run(["bash", "-n"], input=script, text=True).returncode, 0)

    def test_without_a_limit_the_arrays_do_not_wait(self):
        args, b = slurm_args()
        script = slurm.array_script(args, b, 2, 4, 3, previous="11")
        self.assertIn("#SBATCH --array=0-2\n", script)
        self.assertNotIn("--dependency", script)
        self.assertNotIn("--partition", script)

    def test_collector_script(self):
        args, b = slurm_args()
        script = slurm.collector_script(args, b, ["11", "12"])
        self.assertIn("#SBATCH --dependency=afterany:11:12\n", script)
        self.assertNotIn("--gres", script)  # it needs no GPU
        self.assertTrue(script.rstrip().endswith("/class/subs --out /class/out --collect"))


class BadInput(unittest.TestCase):
    """Every bad input the batch can meet: one line on stderr, exit code 2, no traceback."""

    def main(self, argv):
        with contextlib.redirect_stderr(io.StringIO()) as err, \
                contextlib.redirect_stdout(io.StringIO()):
            code = batch.main(argv)
        return code, err.getvalue()

    def test_not_a_git_checkout(self):
        copy = tempfile.mkdtemp()  # a downloaded archive of the repository: no .git
        with self.assertRaisesRegex(batch.UsageError, "is not a git checkout"):
            workers.tracked_files(copy)
        submissions = tempfile.mkdtemp()
        os.makedirs(os.path.join(submissions, "alice"))
        real = base.ROOT
        base.ROOT = copy
        try:
            code, text = self.main([submissions, "--out", os.path.join(tempfile.mkdtemp(), "o")])
        finally:
            base.ROOT = real
        self.assertEqual(code, 2)
        self.assertEqual(text.count("\n"), 1, text)
        self.assertIn("is not a git checkout", text)

    def test_an_unreadable_folder_of_submissions(self):
        real = os.listdir
        def refuse(path):
            raise PermissionError(13, "Permission denied", path)
        os.listdir = refuse
        try:
            with self.assertRaisesRegex(batch.UsageError, "cannot read the folder of submissions"):
                submissions.list_submissions(tempfile.mkdtemp())
        finally:
            os.listdir = real

    def test_a_full_disk(self):
        real = batch.run
        def full(args):
            raise OSError(28, "No space left on device", "/out/students/alice/meta.json")
        batch.run = full
        try:
            code, text = self.main([tempfile.mkdtemp()])
        finally:
            batch.run = real
        self.assertEqual(code, 2)
        self.assertEqual(text.count("\n"), 1, text)
        self.assertIn("No space left on device: /out/students/alice/meta.json", text)
        self.assertNotIn("Traceback", text)

    def test_a_student_folder_with_no_lab_file(self):
        out = tempfile.mkdtemp()
        b = types.SimpleNamespace(out=out, seed=1,
                                  student_dir=lambda sid: os.path.join(out, "students", sid))
        worker = types.SimpleNamespace(gpu=None, name="vm-0", grade=None)  # never called
        real = grading.student_reports
        grading.student_reports = lambda out, sid: None
        try:
            meta = grading.grade_submission(worker, b, ("alice", "alice", {}, ["notes.txt"], None, {}))
        finally:
            grading.student_reports = real
        self.assertEqual(meta["error"], "no lab file found in the submission")
        self.assertFalse(os.path.exists(os.path.join(out, "students", "alice", "report.json")))


class ProgressLine(unittest.TestCase):
    def test_messages_clear_the_progress_line_and_the_counts_agree(self):
        progress = batch.Progress(3)
        progress.tty = True
        with contextlib.redirect_stderr(io.StringIO()) as err, \
                contextlib.redirect_stdout(io.StringIO()) as out:
            progress.finished(0, 0)  # graded, no failure
            line = base.PROGRESS_LINE[0]
            base.say("batch-report: wrote the files of alice")
            progress.finished(1, 1)  # not graded (no lab file)
            progress.finished(1, 0)  # graded, a check failed
        self.assertTrue(line.startswith("1/3 done: 1 graded (0 with failures), 0 not graded"))
        # The message went out with the progress line cleared first, and the line came back.
        self.assertTrue(err.getvalue().startswith("\r\033[K" + line + "\r\033[K" + line))
        self.assertEqual(out.getvalue(), "batch-report: wrote the files of alice\n")
        self.assertTrue(err.getvalue().endswith(
            "\r\033[K3/3 done: 2 graded (1 with failures), 1 not graded\n"))
        self.assertEqual(base.PROGRESS_LINE[0], "")


class Collect(unittest.TestCase):
    def test_unfinished_and_never_run_tasks(self):
        out = tempfile.mkdtemp()
        os.makedirs(os.path.join(out, "slurm"))
        slurm.write_manifest(os.path.join(out, "slurm", "manifest.tsv"),
                             [("alice", "alice"), ("bob", "bob.zip"), ("carol", "carol")])
        metas = {"alice": {"student": "alice", "state": "done", "error": None, "gpu": "1",
                           "device": "NVIDIA H100", "slurm": {"host": "node7"}},
                 "bob": {"student": "bob", "state": "started", "error": slurm.KILLED},
                 "carol": {"student": "carol", "state": "queued", "error": slurm.NOT_RUN}}
        for sid, meta in metas.items():
            os.makedirs(os.path.join(out, "students", sid))
            base.write_json(os.path.join(out, "students", sid, "meta.json"), meta)
        # bob's task was killed while the grade command wrote its report.
        open(os.path.join(out, "students", "bob", "report.json"), "w").close()
        base.write_json(os.path.join(out, "batch.json"), {"schema": "cudalab-batch/1",
                                                           "finished_at": None})
        b = types.SimpleNamespace(out=out,
                                  student_dir=lambda sid: os.path.join(out, "students", sid))
        made = []
        real = slurm.class_reports
        slurm.class_reports = made.append
        try:
            with contextlib.redirect_stdout(io.StringIO()) as said:
                slurm.collect(None, b)
        finally:
            slurm.class_reports = real
        self.assertEqual(made, [out])
        self.assertIn("1 graded, 1 ended before grading finished, 1 never ran", said.getvalue())
        bob = grading.read_meta(os.path.join(out, "students", "bob"))
        self.assertEqual((bob["state"], bob["error"]), ("unfinished", slurm.KILLED))
        self.assertFalse(os.path.exists(os.path.join(out, "students", "bob", "report.json")))
        self.assertEqual(grading.read_meta(os.path.join(out, "students", "carol"))["error"],
                         slurm.NOT_RUN)
        with open(os.path.join(out, "batch.json")) as f:
            info = json.load(f)
        self.assertEqual((info["gpus"], info["device"]), (["node7:1"], "NVIDIA H100"))
        self.assertIsNotNone(info["finished_at"])


class LiveJobs(unittest.TestCase):
    def test_no_second_run_while_the_jobs_run(self):
        out = tempfile.mkdtemp()
        bin_dir = tempfile.mkdtemp()
        with open(os.path.join(bin_dir, "squeue"), "w") as f:
            f.write("#!/bin/sh\necho 700\necho 812\n")  # a job of someone else, and ours
        os.chmod(os.path.join(bin_dir, "squeue"), 0o755)
        slurm.check_no_live_jobs(out)  # never submitted: nothing to wait for
        os.makedirs(os.path.join(out, "slurm"))
        base.write_json(os.path.join(out, "slurm", "jobs.json"),
                         {"arrays": ["811", "812"], "collector": "813"})
        path = os.environ["PATH"]
        os.environ["PATH"] = bin_dir + os.pathsep + path
        try:
            with self.assertRaisesRegex(batch.UsageError, r"still queued or running \(812\)"):
                slurm.check_no_live_jobs(out)
        finally:
            os.environ["PATH"] = path


class SlurmCommandLine(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.subs = os.path.join(self.dir, "subs")
        os.makedirs(os.path.join(self.subs, "alice"))
        with open(os.path.join(self.subs, "alice", "conv1d_basic.cu"), "w") as f:
            f.write("// alice's\n")
        self.out = os.path.join(self.dir, "out")

    def main(self, *argv):
        with contextlib.redirect_stdout(io.StringIO()) as out, \
                contextlib.redirect_stderr(io.StringIO()) as err:
            code = batch.main(list(argv))
        return code, out.getvalue(), err.getvalue()

    def test_dry_run_prints_and_writes_nothing(self):
        code, out, err = self.main(self.subs, "--out", self.out, "--slurm", "--dry-run",
                                   "--max-parallel", "3")
        self.assertEqual((code, err), (0, ""))
        self.assertIn("# 0\talice\talice\n", out)
        self.assertIn("#SBATCH --array=0-0%3\n", out)
        self.assertIn("#SBATCH --dependency=afterany:<job id of array 1>\n", out)
        self.assertFalse(os.path.exists(self.out))

    def test_a_task_without_a_manifest(self):
        code, out, err = self.main(self.subs, "--out", self.out, "--task-index", "0")
        self.assertEqual(code, 2)
        self.assertEqual(err.count("\n"), 1)
        self.assertIn("cannot read the manifest", err)

    def test_bad_slurm_options(self):
        for argv in (["s", "--dry-run"], ["s", "--partition", "p"], ["s", "--max-parallel", "2"],
                     ["s", "--slurm", "--gpus", "0"], ["s", "--slurm", "--max-parallel", "0"],
                     ["s", "--slurm", "--time", "0"], ["s", "--slurm", "--task-index", "1"],
                     ["s", "--collect", "--force"], ["s", "--task-index", "-1"]):
            with self.assertRaises(batch.UsageError, msg=argv):
                batch.parse(argv)


class Reports(unittest.TestCase):
    """Each lab's report.md is taken with the lab file, kept in OUT, never compiled."""
    KNOWN_LABS = {"01": KNOWN[0], "02": KNOWN[1]}
    REPORTS = ["labs/01-conv1d-basic/report.md", "labs/02-conv1d-tiled/report.md"]

    def test_each_lab_has_its_report_beside_the_lab_file(self):
        self.assertEqual(submissions.report_files(self.KNOWN_LABS), self.REPORTS)

    def test_a_report_is_taken_by_its_path_not_by_its_name(self):
        d = tempfile.mkdtemp()
        with zipfile.ZipFile(os.path.join(d, "s.zip"), "w") as z:
            z.writestr("alice/labs/01-conv1d-basic/conv1d_basic.cu", "code")
            z.writestr("alice/labs/01-conv1d-basic/report.md", "# my analysis <script>")
            z.writestr("report.md", "which lab?")  # ten labs have one: ambiguous
        files, ignored, error = submissions.read_submission(os.path.join(d, "s.zip"),
                                                      KNOWN + self.REPORTS)
        self.assertIsNone(error)
        self.assertEqual(files, {KNOWN[0]: b"code", self.REPORTS[0]: b"# my analysis <script>"})
        self.assertEqual(ignored, ["report.md (not a lab file)"])

    def grade(self, files):
        """grade_submission with a worker that records what it was given."""
        out = tempfile.mkdtemp()
        given = {}

        class Worker:
            gpu, name = None, "w0"

            def grade(self, sid, files, student_dir, seed):
                given.update(files)
                with open(os.path.join(student_dir, "report.json"), "w") as f:
                    f.write("{}")
                return 1.0, 2.0, {"01": True}

        b = types.SimpleNamespace(out=out, seed=1,
                                  student_dir=lambda sid: os.path.join(out, "students", sid))
        saved, grading.student_reports = grading.student_reports, lambda out, sid: None
        try:
            item = ("alice", "alice.zip", files, [], None, {})
            meta = grading.grade_submission(Worker(), b, item)
        finally:
            grading.student_reports = saved
        return meta, given, b.student_dir("alice")

    def test_the_report_is_kept_and_not_compiled(self):
        meta, given, folder = self.grade({KNOWN[0]: b"code", self.REPORTS[0]: b"r = 2.5"})
        self.assertEqual(given, {KNOWN[0]: b"code"})
        self.assertEqual(meta["reports"], ["analysis/01-conv1d-basic.md"])
        self.assertIsNone(meta["error"])
        with open(os.path.join(folder, "analysis", "01-conv1d-basic.md"), "rb") as f:
            self.assertEqual(f.read(), b"r = 2.5")

    def test_a_report_alone_is_no_lab_file(self):
        meta, given, folder = self.grade({self.REPORTS[1]: b"only words"})
        self.assertEqual(meta["error"], "no lab file found in the submission")
        self.assertEqual(given, {})
        self.assertEqual(meta["reports"], ["analysis/02-conv1d-tiled.md"])

    def test_an_earlier_report_does_not_stay(self):
        _, _, folder = self.grade({KNOWN[0]: b"code", self.REPORTS[0]: b"old"})
        os.makedirs(os.path.join(folder, "analysis"), exist_ok=True)
        grading.clear_outputs(folder)
        self.assertFalse(os.path.exists(os.path.join(folder, "analysis")))


class UncountedCounters(unittest.TestCase):
    """A grade whose technique checks could not read the GPU's performance counters stops the
    batch (unless --allow-uncounted): such a check is not verified, and a class graded so would
    lose those points for the machine's sake, not the students'."""

    def report(self, messages):
        folder = tempfile.mkdtemp()
        path = os.path.join(folder, "report.json")
        with open(path, "w") as f:
            json.dump({"labs": [{"lab": "02", "checks": [
                {"check": "c%d" % i, "message": m} for i, m in enumerate(messages)]}]}, f)
        return path

    def test_the_reason_is_found(self):
        path = self.report([None, "conv1d_tiled_kernel passes in the PTX of your file, but what "
                            "it executed could not be counted, so the technique is not verified: "
                            "the driver reserves the GPU's performance counters to administrators"
                            "\nmore"])
        self.assertEqual(grading.uncounted_reason(path),
                         "the driver reserves the GPU's performance counters to administrators")

    def test_none_without_it(self):
        self.assertIsNone(grading.uncounted_reason(self.report(
            ["... was not verified (no CUDA device)", "launched: k"])))
        self.assertIsNone(grading.uncounted_reason("/nonexistent/report.json"))
        bad = self.report([])
        with open(bad, "w") as f:
            f.write("{not json")
        self.assertIsNone(grading.uncounted_reason(bad))

    def test_the_option(self):
        self.assertFalse(batch.parse(["subs"]).allow_uncounted)
        self.assertTrue(batch.parse(["subs", "--allow-uncounted"]).allow_uncounted)


if __name__ == "__main__":
    unittest.main()
