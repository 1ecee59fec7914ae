"""The grade command's grouped checks (grader/grade/grade.cpp, run_checks), against a stand-in
grader (fake_grader.py) that it lists and runs as it would a lab's: a lab's untimed checks share
a process, and so do its timed ones (run after every untimed one, each performance check with a
candidate process of its own, which the stand-in does not model); a record of a group counts only
when the process ended as a grader does, and only for a check that did not fail; everything else
is run again alone.

    test_grouped_checks.py CUDALAB_GRADE
"""
import fcntl
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest

GRADE = None
HERE = os.path.dirname(os.path.abspath(__file__))
# The stand-in's Python: the system's where there is one, which the checks' sandbox can see (it
# binds the system folders, not a home folder's Python).
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


class GroupedChecks(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="grouped-checks-")
        self.manifest = self.make_manifest(["99"])

    def make_manifest(self, labs):
        """A lab manifest whose labs' graders are the stand-in, each saying which lab it is."""
        lines = []
        for lab in labs:
            grader = os.path.join(self.dir, "lab%s-grader" % lab)
            with open(grader, "w") as f:
                # Its folder named here: the grade command passes a grader little of its own
                # environment (kGraderEnvironment).
                f.write("#!/bin/sh\nFAKE_LAB=%s FAKE_GRADER_DIR=%s exec %s %s \"$@\"\n" %
                        (lab, self.dir, PYTHON, os.path.join(HERE, "fake_grader.py")))
            os.chmod(grader, 0o755)
            # The manifest's eleven fields (grade.cpp, read_manifest): no sanitizers, no link
            # check (the audit, the only reader of the object, is not run on --solutions).
            lines.append("\t".join([lab, "fake", grader, grader, "", "", "", self.dir, self.dir,
                                    "fake.cu", "fake.o"]))
        path = os.path.join(self.dir, "labs-%s.tsv" % "-".join(labs))
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def grade(self, mode, *options):
        with open(os.path.join(self.dir, "mode"), "w") as f:
            f.write(mode)
        log = os.path.join(self.dir, "calls.log")
        for name in ("calls.log", "times.log", "ends.log"):
            if os.path.exists(os.path.join(self.dir, name)):
                os.remove(os.path.join(self.dir, name))
        report = os.path.join(self.dir, "report.json")
        env = dict(os.environ, FAKE_GRADER_DIR=self.dir)
        env.pop("CUDALAB_SEED", None)
        p = subprocess.run([GRADE, "--manifest", self.manifest, "--solutions", "--sandbox", "off",
                            "--color", "never", "--json", report] + list(options),
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=120)
        with open(log) as f:
            calls = [line.strip() for line in f if line.strip() != "list"]
        with open(report) as f:
            checks = {c["check"]: c for c in json.load(f)["labs"][0]["checks"]}
        return p, calls, checks

    def test_the_seed_is_in_no_process_of_the_check(self):
        """The grader's settings and arguments travel in the record channel, not the environment
        or the command line: in the sandbox, no process a student's code can read in /proc
        (bubblewrap's first process, the grader, compute-sanitizer's) holds the seed, which a
        batch hands the grade command in its environment, or the caller's own variables (a
        token of the instructor's shell, with the seed's digits), or names the check that runs."""
        for name, text in (("mode", "snoop"), ("seed", "7134029")):
            with open(os.path.join(self.dir, name), "w") as f:
                f.write(text)
        report = os.path.join(self.dir, "report.json")
        env = dict(os.environ, FAKE_GRADER_DIR=self.dir, CUDALAB_SEED="7134029",
                   INSTRUCTOR_TOKEN="7134029")  # the caller's own secret, as a shell may hold
        p = subprocess.run([GRADE, "--manifest", self.manifest, "--solutions", "--sandbox", "auto",
                            "--color", "never", "--json", report], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
        if "Sandbox: none" in p.stdout:
            self.skipTest("no sandbox here: " + p.stdout.split("Sandbox: ", 1)[1].split("\n")[0])
        with open(report) as f:
            checks = json.load(f)["labs"][0]["checks"]
        self.assertTrue(checks, p.stdout)
        for c in checks:
            self.assertEqual(c["status"], "passed", "%s: %s\n%s" % (c["check"], c["message"], p.stdout))

    def intervals(self):
        """[(start, end, lab, entry)] of the stand-in's runs but the listings."""
        def read(name):
            with open(os.path.join(self.dir, name)) as f:
                return [line.split(" ", 2) for line in f if not line.rstrip().endswith(" list")]
        starts, ends = read("times.log"), read("ends.log")
        runs = []
        for t, lab, entry in starts:
            end = min(float(e) for e, l2, n2 in ends
                      if (l2, n2.strip()) == (lab, entry.strip()) and float(e) >= float(t))
            runs.append((float(t), end, lab, entry.strip()))
        return runs

    def statuses(self, checks):
        return {name: c["status"] for name, c in checks.items()}

    def test_a_labs_untimed_checks_share_a_process_and_its_timed_ones_another(self):
        p, calls, checks = self.grade("plain", "--jobs", "1")
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertEqual(calls, ["group:alpha,beta,gamma", "group:delta,epsilon"])
        self.assertTrue(all(c["status"] == "passed" for c in checks.values()), checks)
        self.assertEqual(checks["alpha"]["points"], 10)

    def test_a_lab_graded_alone_spreads_its_untimed_checks_over_the_jobs(self):
        _, calls, checks = self.grade("plain", "--jobs", "2")
        self.assertEqual(sorted(calls[:2]), ["group:alpha,beta", "one:gamma"])
        self.assertTrue(all(c["status"] == "passed" for c in checks.values()), checks)

    def test_a_check_that_failed_in_the_group_gets_its_verdict_alone(self):
        p, calls, checks = self.grade("fail-in-group", "--jobs", "1")
        self.assertEqual(p.returncode, 0, p.stdout)
        # delta, a timed check, failed in its group too, and got its verdict alone.
        self.assertEqual(calls, ["group:alpha,beta,gamma", "one:beta", "group:delta,epsilon",
                                 "one:delta"])
        self.assertEqual(checks["beta"]["status"], "passed")
        self.assertEqual(checks["delta"]["status"], "passed")
        self.assertEqual(checks["epsilon"]["status"], "passed")

    def test_a_check_that_fails_alone_too_fails_and_the_timed_checks_wait(self):
        p, calls, checks = self.grade("fails-alone-too", "--jobs", "1")
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertEqual(calls, ["group:alpha,beta,gamma", "one:beta", "one:epsilon"])
        self.assertEqual(checks["beta"]["status"], "failed")
        self.assertEqual(checks["beta"]["message"], "beta failed alone")
        self.assertEqual(checks["alpha"]["status"], "passed")
        self.assertIn("must pass first", checks["delta"]["message"])

    def test_a_group_that_did_not_end_as_a_grader_does_is_run_again_check_by_check(self):
        for mode in ("crash-in-group", "forged", "nonzero"):
            with self.subTest(mode=mode):
                p, calls, checks = self.grade(mode, "--jobs", "1")
                self.assertEqual(p.returncode, 0, p.stdout)
                self.assertEqual(calls, ["group:alpha,beta,gamma", "one:alpha", "one:beta",
                                         "one:gamma", "group:delta,epsilon", "one:delta",
                                         "one:epsilon"])
                self.assertTrue(all(c["status"] == "passed" for c in checks.values()), checks)

    def started(self):
        """{entry: when it started} from the stand-in's times.log."""
        with open(os.path.join(self.dir, "times.log")) as f:
            return {line.split(" ", 2)[2].strip(): float(line.split(" ", 1)[0]) for line in f}

    def grade_while_held(self, how, seconds, until_started=None):
        """Grades with --gpu-lock while another grade on the GPU (this test) holds the lock `how`
        (fcntl.LOCK_SH: its untimed work; LOCK_EX: its timed checks) for `seconds`, or, with
        `until_started`, until the stand-in started that entry (at most 60 s, so that a loaded
        machine cannot fail the test by being slow) and `seconds` more; returns when it let go,
        and the stand-in's start times."""
        path = os.path.join(self.dir, "gpu-0.lock")
        held = open(path, "a")
        fcntl.flock(held, how)
        released = []

        def release():
            deadline = time.time() + 60
            while until_started and time.time() < deadline:
                log = os.path.join(self.dir, "times.log")
                if os.path.exists(log) and " " + until_started + "\n" in open(log).read():
                    break
                time.sleep(0.05)
            time.sleep(seconds)
            released.append(time.time())
            held.close()

        t = threading.Thread(target=release)
        t.start()
        p, calls, checks = self.grade("plain", "--jobs", "1", "--gpu-lock", path)
        t.join()
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertTrue(all(c["status"] == "passed" for c in checks.values()), checks)
        return released[0], self.started()

    def test_a_grade_sharing_the_gpu_waits_while_another_times_its_checks(self):
        released, started = self.grade_while_held(fcntl.LOCK_EX, 1.5)
        self.assertGreaterEqual(started["group:alpha,beta,gamma"], released)

    def test_a_grade_sharing_the_gpu_times_its_checks_once_the_others_untimed_work_ends(self):
        released, started = self.grade_while_held(fcntl.LOCK_SH, 1.0,
                                                  until_started="group:alpha,beta,gamma")
        self.assertLess(started["group:alpha,beta,gamma"], released)  # beside the other's
        self.assertGreaterEqual(started["group:delta,epsilon"], released)

    def test_with_several_labs_a_failure_is_confirmed_with_nothing_else_running(self):
        # Another lab's checks (what their kernels hold of the GPU) must not decide a failure:
        # beta, failed in its lab's group, runs again while no other process of the grade runs.
        self.manifest = self.make_manifest(["98", "99"])
        p, calls, _ = self.grade("fails-alone-too", "--jobs", "2")
        self.assertEqual(p.returncode, 1, p.stdout)
        runs = self.intervals()
        confirms = [r for r in runs if r[3] == "one:beta"]
        self.assertEqual(len(confirms), 2, runs)  # one per lab
        for start, end, lab, _ in confirms:
            others = [r for r in runs if r[2:] != (lab, "one:beta") and
                      r[0] < end and start < r[1]]
            self.assertEqual(others, [], "lab %s's confirming run overlapped: %s" % (lab, runs))

    def test_isolate_runs_every_check_alone(self):
        p, calls, _ = self.grade("plain", "--jobs", "1", "--isolate")
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertEqual(calls, ["one:alpha", "one:beta", "one:gamma", "one:delta", "one:epsilon"])


if __name__ == "__main__":
    GRADE = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
