#!/usr/bin/env python3
"""Unit tests of the grading service's client (grader/classroom/client.py), without a network or
a service: which files a submission takes (the labs changed against the committed skeleton in a
git checkout, every lab outside one, --lab), the archive it sends (only the lab files and
report.md, at their repository paths), the status line's wording (1st, 2nd, 3rd, 11th, 21st ...),
the wait for a verdict against a scripted service, the credentials' mode (0600), and bad usage
(one line on stderr, exit code 2; an unreachable service: exit code 3).

Run from the repository root: python3 -m unittest grader/tests/test_classroom_client.py"""

import contextlib
import gzip
import io
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tarfile
import tempfile
import time
import types
import unittest
from unittest import mock

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
from grader.classroom import client  # noqa: E402

LAB01 = "labs/01-conv1d-basic/conv1d_basic.cu"
LAB02 = "labs/02-conv1d-tiled/conv1d_tiled.cu"
REPORT01 = "labs/01-conv1d-basic/report.md"
CMAKE = """cudalab_add_lab(01-conv1d-basic
  SOURCE conv1d_basic.cu
  TAGS correctness perf)
cudalab_add_lab(02-conv1d-tiled
  SOURCE conv1d_tiled.cu
  PTX)
"""


def make_root(folder, git=False):
    """A repository of two labs: CMakeLists.txt, the skeletons, each lab's header, and files that
    are never handed in; with GIT, a checkout with them committed."""
    files = {"CMakeLists.txt": CMAKE, LAB01: "// skeleton 01\n", LAB02: "// skeleton 02\n",
             "labs/01-conv1d-basic/conv1d_basic.h": "// interface\n",
             "labs/01-conv1d-basic/notes.txt": "mine\n", "README.md": "readme\n"}
    for rel, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(folder, rel)) or folder, exist_ok=True)
        with open(os.path.join(folder, rel), "w") as f:
            f.write(text)
    if git:
        g = ["git", "-C", folder, "-c", "user.name=t", "-c", "user.email=t@example.org"]
        subprocess.run(g + ["init", "-q"], check=True)
        subprocess.run(g + ["add", "-A"], check=True)
        subprocess.run(g + ["commit", "-q", "-m", "skeletons"], check=True)


def write(folder, rel, text):
    with open(os.path.join(folder, rel), "w") as f:
        f.write(text)


def members(body):
    """{name: (is a regular file, bytes)} of a gzip'ed tar."""
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(body)), mode="r:") as t:
        return {m.name: (m.isreg(), t.extractfile(m).read() if m.isreg() else None) for m in t}


class TempRoot(unittest.TestCase):
    git = False

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.root = os.path.join(self.tmp, "repo")
        os.makedirs(self.root)
        make_root(self.root, git=self.git)
        self.known = client.lab_files(self.root)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


class FileSelection(TempRoot):
    git = True

    def test_the_labs_files_from_cmake(self):
        self.assertEqual(self.known, {"01": LAB01, "02": LAB02})

    def test_a_fresh_checkout_has_nothing_to_hand_in(self):
        self.assertTrue(client.is_git_checkout(self.root))
        self.assertEqual(client.changed_labs(self.root, self.known), [])

    def test_only_the_changed_labs(self):
        write(self.root, LAB02, "// my kernel\n")
        self.assertEqual(client.changed_labs(self.root, self.known), ["02"])
        write(self.root, LAB01, "// mine too\n")
        self.assertEqual(client.changed_labs(self.root, self.known), ["01", "02"])

    def test_a_change_committed_by_the_student_is_not_a_difference(self):
        # Against HEAD: a student who commits their work hands in with --lab.
        write(self.root, LAB01, "// committed\n")
        subprocess.run(["git", "-C", self.root, "-c", "user.name=t", "-c",
                        "user.email=t@example.org", "commit", "-qam", "mine"], check=True)
        self.assertEqual(client.changed_labs(self.root, self.known), [])

    def test_a_folder_inside_another_checkout_is_not_one(self):
        inner = os.path.join(self.root, "copy")
        os.makedirs(inner)
        make_root(inner)
        self.assertFalse(client.is_git_checkout(inner))
        self.assertEqual(client.changed_labs(inner, client.lab_files(inner)), ["01", "02"])

    def test_lab_option(self):
        self.assertEqual(client.parse_labs("02,01", self.known), ["01", "02"])
        self.assertEqual(client.parse_labs("01-conv1d-basic", self.known), ["01"])
        self.assertEqual(client.parse_labs("conv1d-tiled,02", self.known), ["02"])
        for bad in ("99", "1", "01,3", ",", "conv2d"):
            with self.assertRaises(client.UsageError, msg=bad):
                client.parse_labs(bad, self.known)
        with self.assertRaisesRegex(client.UsageError, r"unknown lab '99' \(labs: 01, 02\)"):
            client.parse_labs("99", self.known)

    def test_report_md_beside_the_lab_file_when_present(self):
        self.assertEqual(client.submission_files(self.root, ["01", "02"], self.known),
                         [LAB01, LAB02])
        write(self.root, REPORT01, "# my report\n")
        self.assertEqual(client.submission_files(self.root, ["01", "02"], self.known),
                         [LAB01, REPORT01, LAB02])

    def test_a_missing_lab_file(self):
        os.remove(os.path.join(self.root, LAB02))
        with self.assertRaisesRegex(client.UsageError, "no such file"):
            client.submission_files(self.root, ["02"], self.known)


class NotACheckout(TempRoot):
    def test_every_lab_outside_a_checkout(self):
        self.assertFalse(client.is_git_checkout(self.root))
        self.assertEqual(client.changed_labs(self.root, self.known), ["01", "02"])

    def test_no_cmake_lists(self):
        os.remove(os.path.join(self.root, "CMakeLists.txt"))
        with self.assertRaisesRegex(client.UsageError, "repository's root"):
            client.lab_files(self.root)


class Archive(TempRoot):
    def test_only_the_files_at_their_repository_paths(self):
        write(self.root, REPORT01, "# report\n")
        write(self.root, LAB01, "// answer\n")
        files = client.submission_files(self.root, ["01"], self.known)
        got = members(client.make_archive(self.root, files))
        self.assertEqual(got, {LAB01: (True, b"// answer\n"), REPORT01: (True, b"# report\n")})

    def test_the_same_files_make_the_same_bytes(self):
        files = client.submission_files(self.root, ["01", "02"], self.known)
        first = client.make_archive(self.root, files)
        os.utime(os.path.join(self.root, LAB01), (1, 1))
        self.assertEqual(client.make_archive(self.root, files), first)
        self.assertEqual(sorted(members(first)), [LAB01, LAB02])


class Wording(unittest.TestCase):
    def test_ordinals(self):
        want = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 10: "10th", 11: "11th", 12: "12th",
                13: "13th", 21: "21st", 22: "22nd", 23: "23rd", 24: "24th", 101: "101st",
                111: "111th", 112: "112th", 113: "113th", 121: "121st"}
        for n, text in want.items():
            self.assertEqual(client.ordinal(n), text)

    def test_status_lines(self):
        self.assertEqual(client.status_line({"id": 12, "state": "queued", "position": 2,
                                             "eta_s": 30}),
                         "submission 12: 2nd in the queue, about 30 s")
        self.assertEqual(client.status_line({"id": 12, "state": "queued", "position": 21,
                                             "eta_s": 600}),
                         "submission 12: 21st in the queue, about 10 min")
        self.assertEqual(client.status_line({"id": 12, "state": "queued", "position": None,
                                             "eta_s": None}),
                         "submission 12: queued")
        self.assertEqual(client.status_line({"id": 12, "state": "running"}, 15.4),
                         "submission 12: grading (15 s so far)")

    def test_off_a_terminal_one_line_per_change(self):
        out = io.StringIO()
        line = client.StatusLine(out)
        line.show("submission 1: 2nd in the queue, about 30 s", ("queued", 2))
        line.show("submission 1: 2nd in the queue, about 29 s", ("queued", 2))
        line.show("submission 1: 1st in the queue, about 15 s", ("queued", 1))
        line.show("submission 1: grading (0 s so far)", ("running",))
        line.show("submission 1: grading (1 s so far)", ("running",))
        line.clear()
        self.assertEqual(out.getvalue().splitlines(),
                         ["submission 1: 2nd in the queue, about 30 s",
                          "submission 1: 1st in the queue, about 15 s",
                          "submission 1: grading (0 s so far)"])

    def test_on_a_terminal_one_line_rewritten(self):
        out = io.StringIO()
        out.isatty = lambda: True
        line = client.StatusLine(out)
        line.show("submission 1: grading (0 s so far)", ("running",))
        line.show("submission 1: grading (1 s so far)", ("running",))
        line.clear()
        self.assertNotIn("\n", out.getvalue())
        self.assertEqual(out.getvalue(), "\r\033[Ksubmission 1: grading (0 s so far)"
                         "\r\033[Ksubmission 1: grading (1 s so far)\r\033[K")


class FakeService:
    """client.request, scripted: records each call, answers the next answer of the list."""

    def __init__(self, answers):
        self.answers, self.calls = list(answers), []

    def __call__(self, server, token, method, path, body=None, content_type=None):
        self.calls.append((method, path, body, content_type, token))
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


class Config(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.env = mock.patch.dict(os.environ, {"CUDALAB_CONFIG_DIR": os.path.join(self.tmp, "c")})
        self.env.start()

    def tearDown(self):
        self.env.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_the_credentials_are_0600(self):
        path = client.save_config("http://h:1", "secret")
        self.assertEqual(path, os.path.join(self.tmp, "c", "service.json"))
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600)
        self.assertEqual(client.load_config(), ("http://h:1", "secret"))
        os.chmod(path, 0o644)  # an older file made readable: saving again makes it 0600
        client.save_config("http://h:2", "other")
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600)
        with open(path) as f:
            self.assertEqual(json.load(f), {"server": "http://h:2", "token": "other"})

    def test_not_logged_in(self):
        with self.assertRaisesRegex(client.UsageError, r"^not logged in: run \./cudalab login "
                                    r"--server URL --token T$"):
            client.load_config()

    def test_login_checks_the_token_before_keeping_it(self):
        args = types.SimpleNamespace(server="http://h:1/", token="t0k")
        fake = FakeService([client.Refused(401, "unknown token")])
        with mock.patch.object(client, "request", fake):
            with self.assertRaisesRegex(client.UsageError, "refused the token: unknown token"):
                client.cmd_login(args)
        self.assertFalse(os.path.exists(client.config_path()))
        fake = FakeService([{"student": "s01", "name": "Ada L", "instructor": False}])
        out = io.StringIO()
        with mock.patch.object(client, "request", fake), contextlib.redirect_stdout(out):
            self.assertEqual(client.cmd_login(args), 0)
        self.assertEqual(out.getvalue(), "logged in to http://h:1 as s01 (Ada L)\n")
        self.assertEqual(fake.calls, [("GET", "/api/me", None, None, "t0k")])
        self.assertEqual(client.load_config(), ("http://h:1", "t0k"))


class Submit(TempRoot):
    def setUp(self):
        super().setUp()
        self.env = mock.patch.dict(os.environ, {"CUDALAB_CONFIG_DIR": os.path.join(self.tmp, "c")})
        self.env.start()
        client.save_config("http://h:1", "t0k")
        self.sleep = mock.patch.object(client.time, "sleep", lambda s: None)
        self.sleep.start()

    def tearDown(self):
        self.sleep.stop()
        self.env.stop()
        super().tearDown()

    def test_hand_in_and_wait_for_the_verdict(self):
        write(self.root, REPORT01, "# r\n")
        console = "Lab 01 conv1d-basic\n  check  points  status\n"
        fake = FakeService([
            {"id": 12, "state": "queued", "position": 2, "eta_s": 30, "url": "/submissions/12"},
            {"id": 12, "state": "queued", "position": 2, "eta_s": 28},
            {"id": 12, "state": "queued", "position": 1, "eta_s": 14},
            client.Unreachable("cannot reach http://h:1: Connection refused"),  # a restart
            {"id": 12, "state": "running", "started_at": None},
            {"id": 12, "state": "running", "started_at": None},
            {"id": 12, "state": "done", "points": 37, "max_points": 100, "exit_code": 1,
             "console": console, "error": None}])
        out = io.StringIO()
        args = types.SimpleNamespace(lab="01", no_wait=False)
        with mock.patch.object(client, "request", fake):
            self.assertEqual(client.cmd_submit(args, root=self.root, out=out), 1)
        method, path, body, content_type, token = fake.calls[0]
        self.assertEqual((method, path, content_type, token),
                         ("POST", "/api/submissions?labs=01", "application/gzip", "t0k"))
        self.assertEqual(sorted(members(body)), [LAB01, REPORT01])
        self.assertEqual([c[1] for c in fake.calls[1:]], ["/api/submissions/12"] * 6)
        self.assertEqual(out.getvalue(),
                         "submission 12: 2nd in the queue, about 30 s\n"
                         "submission 12: 1st in the queue, about 14 s\n"
                         "submission 12: grading (0 s so far)\n" + console +
                         "submission 12: 37/100 points; its page: http://h:1/submissions/12\n")

    def test_no_wait(self):
        fake = FakeService([{"id": 3, "state": "queued", "position": 11, "eta_s": 100,
                             "url": "/submissions/3"}])
        out = io.StringIO()
        with mock.patch.object(client, "request", fake):
            self.assertEqual(client.cmd_submit(types.SimpleNamespace(lab=None, no_wait=True),
                                               root=self.root, out=out), 0)
        # Not a checkout: every lab.
        self.assertEqual(fake.calls[0][1], "/api/submissions?labs=01,02")
        self.assertEqual(sorted(members(fake.calls[0][2])), [LAB01, LAB02])
        self.assertEqual(out.getvalue(), "submission 3: 11th in the queue, about 100 s; "
                         "its page: http://h:1/submissions/3\n")

    def test_a_refusal_is_its_error_text(self):
        fake = FakeService([client.Refused(429, "at most 100 submissions an hour")])
        with mock.patch.object(client, "request", fake):
            with self.assertRaisesRegex(client.UsageError, "^at most 100 submissions an hour$"):
                client.cmd_submit(types.SimpleNamespace(lab="02", no_wait=False), root=self.root)

    def test_submissions_newest_first(self):
        fake = FakeService([{"submissions": [
            {"id": 1, "labs": "01", "state": "done", "points": 10, "max_points": 100,
             "created_at": 1795860000, "url": "/submissions/1"},
            {"id": 4, "labs": ["01", "02"], "state": "queued", "points": None,
             "max_points": None, "created_at": "2026-11-28T11:00:00Z", "url": "/submissions/4"}]}])
        out = io.StringIO()
        with mock.patch.object(client, "request", fake):
            self.assertEqual(client.cmd_submissions(None, out=out), 0)
        lines = out.getvalue().splitlines()
        when = [time.strftime("%Y-%m-%d %H:%M", time.localtime(t)).split()
                for t in (1795860000, 1795863600)]  # 2026-11-28 10:00 and 11:00 UTC
        self.assertEqual(lines[0].split(), ["id", "labs", "state", "points", "when", "page"])
        self.assertEqual(lines[1].split(), ["4", "01,02", "queued"] + when[1] +
                         ["http://h:1/submissions/4"])
        self.assertEqual(lines[2].split(), ["1", "01", "done", "10/100"] + when[0] +
                         ["http://h:1/submissions/1"])

    def test_a_submission_after_the_deadline_says_it_does_not_count(self):
        fake = FakeService([
            {"id": 7, "state": "queued", "position": 1, "eta_s": 3, "url": "/submissions/7"},
            {"id": 7, "state": "done", "points": 90, "max_points": 200, "exit_code": 1,
             "console": "table\n", "error": None, "counts": {"01": False, "02": True},
             "after_deadline": {"01": True, "02": False}}])
        out = io.StringIO()
        with mock.patch.object(client, "request", fake):
            client.cmd_submit(types.SimpleNamespace(lab="01,02", no_wait=False), root=self.root,
                              out=out)
        self.assertIn("submission 7: lab(s) 01 handed in after the deadline: graded, but it does "
                      "not count for the grade\n", out.getvalue())

    def test_leaderboard_opt_in_and_out(self):
        for flags, answer, said in (((True, False), True, "your name is shown"),
                                    ((False, True), False, "your name is not shown")):
            fake = FakeService([{"student": "s01", "opt_in": answer}])
            out = io.StringIO()
            args = types.SimpleNamespace(opt_in=flags[0], opt_out=flags[1], lab=None)
            with mock.patch.object(client, "request", fake):
                self.assertEqual(client.cmd_leaderboard(args, root=self.root, out=out), 0)
            method, path, body, content_type, token = fake.calls[0]
            self.assertEqual((method, path, content_type, token),
                             ("POST", "/api/me/leaderboard", "application/json", "t0k"))
            self.assertEqual(json.loads(body), {"opt_in": flags[0]})
            self.assertTrue(out.getvalue().startswith(said), out.getvalue())

    def test_leaderboard_of_a_lab(self):
        fake = FakeService([{"lab": "01", "deadline": None, "rows": [
            {"rank": 1, "r": 0.5, "name": "Ada L", "you": False},
            {"rank": 2, "r": 0.81234, "name": "you", "you": True},
            {"rank": 3, "r": 1.5, "name": "anonymous", "you": False}]}])
        out = io.StringIO()
        args = types.SimpleNamespace(opt_in=False, opt_out=False, lab="conv1d-basic")
        with mock.patch.object(client, "request", fake):
            self.assertEqual(client.cmd_leaderboard(args, root=self.root, out=out), 0)
        self.assertEqual(fake.calls[0][:2], ("GET", "/api/leaderboard/01"))
        self.assertEqual(out.getvalue().splitlines(), [
            "lab 01 leaderboard: http://h:1/leaderboard/01",
            "rank      r  student",
            "   1  0.500  Ada L",
            "   2  0.812  you",
            "   3  1.500  anonymous"])
        fake = FakeService([{"lab": "01", "rows": []}])
        out = io.StringIO()
        with mock.patch.object(client, "request", fake):
            client.cmd_leaderboard(args, root=self.root, out=out)
        self.assertIn("no submission of this lab has passed every check yet", out.getvalue())

    def test_times_as_numbers_or_iso_text(self):
        self.assertEqual(client.parse_time(1795860000), 1795860000.0)
        self.assertEqual(client.parse_time("2026-11-28T10:00:00Z"), 1795860000.0)
        self.assertEqual(client.parse_time("2026-11-28T11:00:00+01:00"), 1795860000.0)
        self.assertIsNone(client.parse_time("yesterday"))
        self.assertIsNone(client.parse_time(None))


class CommandLine(unittest.TestCase):
    """python3 -m grader.classroom.client as ./cudalab runs it: every failure one line."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.env = dict(os.environ, CUDALAB_CONFIG_DIR=os.path.join(self.tmp, "c"),
                        PYTHONPATH=ROOT)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_client(self, *argv):
        return subprocess.run([sys.executable, "-m", "grader.classroom.client"] + list(argv),
                              cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=60)

    def one_line(self, r, code, text):
        self.assertEqual(r.returncode, code, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertEqual(r.stderr.count("\n"), 1, r.stderr)
        self.assertIn(text, r.stderr)

    def test_bad_usage_is_one_line_and_exit_2(self):
        for argv, text in ((["bogus"], "invalid choice"),
                           ([], "no command"),
                           (["login", "--server", "http://h:1"], "--token"),
                           (["login", "--server", "ftp://h", "--token", "t"], "not a URL"),
                           (["submit", "--lab", "99"], "unknown lab '99'"),
                           (["submit", "--bogus"], "unrecognized arguments"),
                           (["submit", "--lab"], "expected one argument"),
                           (["submissions", "extra"], "unrecognized arguments"),
                           (["leaderboard", "--opt-in", "--opt-out"], "not allowed with"),
                           (["leaderboard", "--lab", "99"], "unknown lab '99'")):
            with self.subTest(argv=argv):
                self.one_line(self.run_client(*argv), 2, text)

    def test_not_logged_in(self):
        for argv in (["submit", "--lab", "01"], ["submissions"], ["leaderboard", "--opt-in"]):
            self.one_line(self.run_client(*argv), 2,
                          "not logged in: run ./cudalab login --server URL --token T")

    def test_an_unreachable_service_is_one_line_and_exit_3(self):
        with socket.socket() as s:  # a port nothing listens on
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        url = "http://127.0.0.1:%d" % port
        self.one_line(self.run_client("login", "--server", url, "--token", "t"), 3,
                      "cannot reach %s: " % url)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "c", "service.json")))

    def test_a_token_that_begins_with_a_dash(self):
        # token_urlsafe makes such tokens: they are the value of --token, not an option.
        args = client.parse(["login", "--server", "http://h:1", "--token", "-Abc_9"])
        self.assertEqual((args.server, args.token), ("http://h:1", "-Abc_9"))
        args = client.parse(["login", "--token", "--x", "--server=http://h:1"])
        self.assertEqual(args.token, "--x")

    def test_help(self):
        r = self.run_client("submit", "--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("--no-wait", r.stdout)


if __name__ == "__main__":
    unittest.main()
