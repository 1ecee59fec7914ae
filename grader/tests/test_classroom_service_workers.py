"""Unit tests of the service's worker slots (grader/classroom/service.py, worker_slots and the
Supervisor's worker command): --per-gpu N workers on each GPU, those of a GPU sharing its lock
file, which the worker hands to the grade command (--gpu-lock). Skipped where FastAPI is missing
(service.py imports it), as under a pyenv python3.

    /usr/bin/python3 -m unittest grader/tests/test_classroom_service_workers.py   (from the root)
"""

import contextlib
import importlib.util
import io
import os
import sys
import types
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

HAVE_FASTAPI = importlib.util.find_spec("fastapi") is not None


def args(**kw):
    a = dict(gpus=None, workers=None, per_gpu=1, work=None, preset="default", lab_timeout=120,
             lease=30, allow_uncounted=False)
    a.update(kw)
    return types.SimpleNamespace(**a)


@unittest.skipUnless(HAVE_FASTAPI, "FastAPI is not installed for this python3")
class ServiceWorkers(unittest.TestCase):
    def setUp(self):
        from grader.classroom import service
        self.service = service

    def test_workers_per_gpu_share_its_lock(self):
        slots = self.service.worker_slots(args(gpus="GPU-aa,GPU-bb", per_gpu=2), "/data")
        self.assertEqual(slots, [("GPU-aa", "/data/work/gpu-GPU-aa.lock"),
                                 ("GPU-bb", "/data/work/gpu-GPU-bb.lock"),
                                 ("GPU-aa", "/data/work/gpu-GPU-aa.lock"),
                                 ("GPU-bb", "/data/work/gpu-GPU-bb.lock")])
        self.assertEqual(self.service.worker_slots(args(gpus="GPU-aa"), "/data"),
                         [("GPU-aa", None)])

    def test_workers_takes_the_first_n_and_no_more_than_the_plan(self):
        a = args(gpus="GPU-aa,GPU-bb", per_gpu=2, workers=3, work="/w")
        self.assertEqual([g for g, _ in self.service.worker_slots(a, "/data")],
                         ["GPU-aa", "GPU-bb", "GPU-aa"])
        with self.assertRaises(self.service.UsageError):
            self.service.worker_slots(args(gpus="GPU-aa", per_gpu=2, workers=3), "/data")

    def test_the_worker_command_names_the_lock(self):
        sup = self.service.Supervisor("/data", args(), [("GPU-aa", "/data/work/gpu-GPU-aa.lock")])
        cmd = sup.command("GPU-aa", "/data/work/gpu-GPU-aa.lock")
        self.assertEqual(cmd[cmd.index("--gpu-lock") + 1], "/data/work/gpu-GPU-aa.lock")
        self.assertNotIn("--gpu-lock", sup.command("GPU-aa"))

    def test_bad_counts(self):
        for bad in ("0", "17"):
            with self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
                self.service.parse(["--data", "/tmp/x", "--per-gpu", bad])


if __name__ == "__main__":
    unittest.main()
