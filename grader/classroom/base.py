"""What every module of the class tools uses: the repository's root, the limits on what a
submission may hold, the error of bad input, the batch's JSON files and its output lines.

The modules import one way: base (this) <- submissions <- workers <- grading <- slurm <- batch
(the ./cudalab batch command); reports.py (the batch's reports, run as its own process) takes only
this one; the service (worker.py, export.py, service.py) and the students' client (client.py,
base and submissions only) take what they need from below.
"""

import datetime
import hashlib
import json
import os
import re
import sys
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE = "grader.classroom"
MAX_FILE_BYTES = 1 << 20  # a lab file larger than 1 MiB is not a lab file
MAX_MEMBERS = 10000  # entries looked at in one submission
SAFE_ID = re.compile(r"[^A-Za-z0-9@._+-]")
REPORT_NAME = "report.md"  # labs/NN-name/report.md: the student's analysis of the lab
REPORTS_DIR = "analysis"  # OUT/students/<id>/analysis/NN-name.md: the report.md files handed in


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


def read_file(path):
    with open(path, "rb") as f:
        return f.read()


def module_command(name):
    """The command line that runs grader/classroom/NAME.py with this interpreter (python3 -m), with
    module_env()'s environment or ROOT on PYTHONPATH."""
    return [sys.executable, "-m", "%s.%s" % (PACKAGE, name)]


def module_env():
    """This environment with ROOT first on PYTHONPATH: the package importable from anywhere."""
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


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
