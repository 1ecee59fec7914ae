#!/usr/bin/env python3
"""End-to-end test of ./cudalab batch on seven synthetic submissions (labs 01 and 02 only, to keep
it short): a correct one, the skeleton, one that does not compile, one that hangs, an archive
with extra and unsafe files, one that cheats, and one whose compile would take the machine's
memory; three hand in a report.md, kept and shown. Run by CI (.ci/run) after the test suite; on a
machine without a GPU the GPU checks are skipped and what is checked is what the CPU decides
(compile errors, hangs, the audit, which files are taken, the reports).

On a GPU the verdicts are real, and it checks them too: alice, carol's lab 02 and erin full marks,
bob's skeletons far from them. There a check needs more than the CPU's 5 s: set
CUDALAB_E2E_TIMEOUT (seconds per check; dave's hang costs that long).

usage: batch_e2e.py [WORKDIR]   (default: a fresh temporary folder)
"""

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile

from expectations import Expectations  # the tests' sibling module

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# ./cudalab batch: grader.classroom's batch, run with env() (the repository on PYTHONPATH).
BATCH = [sys.executable, "-m", "grader.classroom.batch"]
LAB01 = "labs/01-conv1d-basic/conv1d_basic.cu"
LAB02 = "labs/02-conv1d-tiled/conv1d_tiled.cu"
REPORT01 = "labs/01-conv1d-basic/report.md"
REPORT02 = "labs/02-conv1d-tiled/report.md"
# Three students hand in a report.md: the batch keeps it, the class page shows it, escaped.
ALICE_REPORT = "# Lab 01 report\n\nPredicted 37.7 M load requests; measured 37.7 M.\n"
CAROL_REPORT = "# Lab 02 report\n\n1. The halo is 2r elements.\n"
ERIN_REPORT = "# Lab 02 <b>report</b> & notes\n"


def env():
    """This environment (as it is now) with the repository on PYTHONPATH, for BATCH."""
    return dict(os.environ, PYTHONPATH=ROOT)


def read(rel):
    with open(os.path.join(ROOT, rel)) as f:
        return f.read()


def answer(lab_dir):
    return read("grader/labs/%s/variants/answer.cu" % lab_dir)


def write_tree(folder, files):
    for rel, text in files.items():
        path = os.path.join(folder, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)


def make_submissions(subs):
    a01, a02 = answer("01-conv1d-basic"), answer("02-conv1d-tiled")
    # alice: a folder laid out as the repository, both labs right.
    write_tree(os.path.join(subs, "alice"), {LAB01: a01, LAB02: a02, REPORT01: ALICE_REPORT})
    # bob: hands in the skeletons unchanged.
    write_tree(os.path.join(subs, "bob"), {LAB01: read(LAB01), LAB02: read(LAB02)})
    # carol: a zip of flat files (as an LMS export gives them); lab 01 does not compile.
    with zipfile.ZipFile(os.path.join(subs, "carol.zip"), "w") as z:
        z.writestr("conv1d_basic.cu", a01 + "\nthis is not C++;\n")
        z.writestr("conv1d_tiled.cu", a02)
        z.writestr("carol/" + REPORT02, CAROL_REPORT)
    # dave: lab 01's file hangs as it is loaded (a static initializer that never returns).
    hang = a01 + ("\nnamespace lab01 {\nnamespace CUDALAB_IMPL {\nint hang() {\n"
                  "  for (volatile int i = 0;; i = i + 0) {\n  }\n  return 0;\n}\n"
                  "const int hung = hang();\n}  // namespace CUDALAB_IMPL\n}  // namespace lab01\n")
    with tarfile.open(os.path.join(subs, "dave.tar.gz"), "w:gz") as t:
        data = hang.encode()
        info = tarfile.TarInfo("dave/" + LAB01)
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    # erin: an archive with extra files, a path that climbs out, a link and lab 02 only.
    with tarfile.open(os.path.join(subs, "erin.tgz"), "w:gz") as t:
        for name, text in (("erin/README.md", "my notes\n"), ("erin/build/junk.o", "junk"),
                           ("../escape.cu", "int x;\n"), ("erin/" + LAB02, a02),
                           ("erin/" + REPORT02, ERIN_REPORT)):
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("erin/" + LAB01)
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        t.addfile(link)
    # frank: lab 01 includes the reference solution instead of writing a kernel, with a macro
    # that breaks the solution's lines using kBlockSize: their compile errors would quote them
    # (the solution's text in frank's build log and report) if the build could read the solution.
    write_tree(os.path.join(subs, "frank"),
               {LAB01: '#define kBlockSize !\n'
                       '#include "../../solutions/01-conv1d-basic/conv1d_basic.cu"\n'})
    # hana: lab 01's file makes the preprocessor read /dev/zero (memory without end, but for the
    # build's limits).
    write_tree(os.path.join(subs, "hana"), {LAB01: '#include "/dev/zero"\n', LAB02: a02})
    # Not a submission: the LMS's CSV beside them is ignored.
    with open(os.path.join(subs, "grades-export.csv"), "w") as f:
        f.write("student,grade\n")


def checks(out, sid, lab):
    with open(os.path.join(out, "students", sid, "report.json")) as f:
        report = json.load(f)
    for l in report["labs"]:
        if l["lab"] == lab:
            return l["checks"]
    raise AssertionError("%s: no lab %s in the report" % (sid, lab))


def main(argv):
    work = argv[0] if argv else tempfile.mkdtemp(prefix="cudalab-batch-e2e-")
    subs, out = os.path.join(work, "submissions"), os.path.join(work, "out")
    shutil.rmtree(subs, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(subs)
    make_submissions(subs)
    preset = os.environ.get("CUDALAB_PRESET", "default")
    cmd = BATCH + [subs, "--out", out, "--lab", "01,02",
                   "--timeout", os.environ.get("CUDALAB_E2E_TIMEOUT", "5"), "--preset", preset]
    start = time.time()
    r = subprocess.run(cmd, env=env())
    first = time.time() - start
    expect = Expectations()
    failures = expect.failures

    expect(r.returncode == 0, "the batch ends with exit code 0 (exit %d)" % r.returncode)
    students = sorted(os.listdir(os.path.join(out, "students")))
    expect(students == ["alice", "bob", "carol", "dave", "erin", "frank", "hana"],
           "seven students graded, the CSV export ignored: %s" % students)
    seed = open(os.path.join(out, "seed")).read().strip()
    expect(oct(os.stat(os.path.join(out, "seed")).st_mode & 0o777) == "0o600", "the seed is 0600")

    alice01, alice02 = checks(out, "alice", "01"), checks(out, "alice", "02")
    expect(not any(c["status"] == "failed" for c in alice01 + alice02),
           "alice: no check failed")
    carol01 = checks(out, "carol", "01")
    expect(all(c["status"] == "failed" and "does not compile" in c["message"] for c in carol01),
           "carol: every lab 01 check fails as not compiling")
    expect(not any(c["status"] == "failed" for c in checks(out, "carol", "02")),
           "carol: lab 02 is graded normally")
    # The hang is in the candidate's own process, which the grader starts for a GPU check only:
    # there it does not start (its library's constructor never returns); without a GPU the GPU
    # checks are skipped. The grader itself never runs the file's code, so it never hangs.
    dave01 = [c for c in checks(out, "dave", "01")
              if "[correctness]" in c["tags"] and "[host]" not in c["tags"]]
    expect(dave01 and all(c["status"] == "skipped" or
                          (c["status"] == "failed" and ("did not start" in c["message"] or
                                                        "timed out" in c["message"]))
                          for c in dave01),
           "dave: lab 01's GPU checks fail as the candidate process does not start (skipped "
           "without a GPU); the grader does not hang")
    erin_meta = json.load(open(os.path.join(out, "students", "erin", "meta.json")))
    ignored = " ".join(erin_meta["ignored"])
    expect(sorted(erin_meta["files"]) == [LAB02, REPORT02],
           "erin: only the lab 02 file and its report.md are taken")
    for sid, lab, text in (("alice", "01-conv1d-basic", ALICE_REPORT),
                           ("carol", "02-conv1d-tiled", CAROL_REPORT),
                           ("erin", "02-conv1d-tiled", ERIN_REPORT)):
        path = os.path.join(out, "students", sid, "analysis", lab + ".md")
        kept = os.path.exists(path) and open(path).read() == text
        expect(kept, "%s: the report.md handed in is kept in %s" % (sid, os.path.relpath(path, out)))
    page = open(os.path.join(out, "class", "index.html")).read()
    expect("Lab 02 &lt;b&gt;report&lt;/b&gt; &amp; notes" in page and "<b>report</b>" not in page
           and "Predicted 37.7 M load requests" in page and "The halo is 2r elements" in page,
           "the class page shows the three report.md files, escaped")
    expect(os.path.exists(os.path.join(out, "students", "erin", "analysis.html")) and
           not os.path.exists(os.path.join(out, "students", "bob", "analysis.html")),
           "each student who handed in a report.md has an analysis.html, the others none")
    expect("README.md" in ignored and "escape.cu" in ignored and "conv1d_basic.cu" in ignored,
           "erin: the README, the climbing path and the link are ignored and listed")
    hana01 = checks(out, "hana", "01")
    expect(all(c["status"] == "failed" and "does not compile" in c["message"] for c in hana01),
           "hana: lab 01 (#include \"/dev/zero\") does not compile, within the build's limits")
    expect(not any(c["status"] == "failed" for c in checks(out, "hana", "02")),
           "hana: lab 02 is graded normally")
    frank01 = checks(out, "frank", "01")
    expect(all(c["status"] == "failed" and "banned" in c["message"] for c in frank01),
           "frank: lab 01 is banned by the audit")
    frank_dir = os.path.join(out, "students", "frank")
    leaked = [name for name in sorted(os.listdir(frank_dir))
              if os.path.isfile(os.path.join(frank_dir, name)) and
              "! = 256" in open(os.path.join(frank_dir, name), errors="replace").read()]
    expect(not leaked, "frank: no line of the solution in his build log or reports (the build "
           "reads the answers as empty files)%s" % (": found in " + ", ".join(leaked)
                                                   if leaked else ""))
    with open(os.path.join(out, "students", "alice", "report.json")) as f:
        on_gpu = json.load(f).get("device") is not None
    if on_gpu:  # real verdicts
        def points(sid, lab):
            cs = checks(out, sid, lab)
            return sum(c["points"] for c in cs), sum(c["max"] for c in cs)
        for sid, lab in (("alice", "01"), ("alice", "02"), ("carol", "02"), ("erin", "02")):
            got, most = points(sid, lab)
            expect(got == most, "GPU: %s earns full marks on lab %s (%g/%g)" % (sid, lab, got, most))
        for lab in ("01", "02"):
            got, most = points("bob", lab)
            expect(got < most / 2,
                   "GPU: bob's skeleton earns under half of lab %s (%g/%g)" % (lab, got, most))
    else:
        print("(no GPU: the GPU checks are skipped, and only what the CPU decides is checked)")
    bob_meta = json.load(open(os.path.join(out, "students", "bob", "meta.json")))
    skeleton = json.load(open(os.path.join(out, "skeleton.json")))
    expect(all(skeleton[k] == v for k, v in bob_meta["files"].items()),
           "bob: his files are the skeletons (the class report flags them)")
    for sid in students:
        d = os.path.join(out, "students", sid)
        for name in ("student-report.json", "results.json", "junit.xml"):
            path = os.path.join(d, name)
            if os.path.exists(path):
                expect(seed not in open(path).read(), "%s/%s does not hold the seed" % (sid, name))
            else:
                expect(False, "%s/%s written" % (sid, name))
    grades = os.path.join(out, "class", "grades.csv")
    expect(os.path.exists(grades) and os.path.exists(os.path.join(out, "class", "index.html")),
           "the class CSV and HTML page are written")
    if os.path.exists(grades):
        rows = list(csv.reader(open(grades)))
        expect(len(rows) == 8, "grades.csv: a header and seven rows (%d rows)" % len(rows))

    # Resumable: a second run grades nothing; --only re-grades one.
    start = time.time()
    again = subprocess.run(cmd, env=env(), capture_output=True, text=True)
    expect(again.returncode == 0 and "0 to grade now" in again.stdout,
           "a re-run grades nothing (%.1f s)" % (time.time() - start))
    bad = subprocess.run(cmd + ["--only", "nobody"], env=env(), capture_output=True, text=True)
    expect(bad.returncode == 2 and bad.stderr.count("\n") == 1,
           "--only with an unknown student: one line, exit code 2")
    print("batch of 7 submissions (labs 01, 02): %.0f s, worker build included" % first)
    for sid in students:
        meta = json.load(open(os.path.join(out, "students", sid, "meta.json")))
        print("  %-6s build %5.1f s, grade %5.1f s, GPU %s" % (
            sid, meta.get("build_seconds") or 0, meta.get("grade_seconds") or 0, meta.get("gpu")))
    if failures:
        print("%d expectation(s) failed" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
