#!/usr/bin/python3
"""Screenshots for the docs (docs/img/), taken in headless Chromium (Debian's python3-selenium and
chromium-driver, python3-markdown; `scripts/setup shots` installs them): what a student reads in
the release and what an instructor sees of a class's report.md files. A maintainers' tool: run it
by hand after a change to the pages or the class report, look at the PNGs, and commit them.

usage: page_shots.py pages RELEASE [--labs 02,08] [--shots DIR]
       page_shots.py batch [--work DIR] [--shots DIR]

pages: RELEASE is a student release (./cudalab release RELEASE): each lab's stripped page,
RELEASE/docs/labs/NN-name.md, is made into HTML (python3-markdown, the hints' <details> collapsed
as on GitHub) and two shots are taken of it at 1000 px wide: its top (release-NN-top.png: Goal,
Done when, Background) and its profiling exercise (release-NN-exercise.png, from "Profile it
yourself" on), 1600 px tall at most each. The page must show its Done when and no answer block.

batch: three synthetic submissions of labs 01 and 02 (the plain answers; scripts/tests/batch_e2e.py
makes them the same way), each with a different labs/02-conv1d-tiled/report.md: ana's filled in
with the figures of her grade and her profile quoted, ben's half filled in, cy's not handed in.
They go through the real ./cudalab batch (--lab 01,02; the preset of CUDALAB_PRESET, else
default; without a GPU the GPU checks are skipped), into WORK (default: a temporary folder; a
WORK used before keeps its workers' build). Shots: the class page (batch-class-reports.png) and
ana's analysis.html (batch-analysis.png).

--shots: where the PNGs go (default docs/img/ of this repository). Exit 1 if a page does not show
what it must, 2 on bad arguments.
"""

import argparse
import html
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SYSTEM_PYTHON = "/usr/bin/python3"  # the one Debian's python3-selenium and python3-markdown serve
WIDTH, HEIGHT = 1000, 1600  # px: a readable column, and the most of a page one shot shows

# A plain page in the manner of GitHub's rendering of markdown (its fonts, tables and code).
CSS = """
body { font-family: -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif;
       font-size: 16px; line-height: 1.5; color: #1f2328; margin: 0; background: #fff; }
main { max-width: 920px; margin: 0 auto; padding: 24px 32px; }
h1, h2 { border-bottom: 1px solid #d1d9e0; padding-bottom: .3em; }
h1 { font-size: 2em; } h2 { font-size: 1.5em; margin-top: 1.5em; } h3 { font-size: 1.25em; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, monospace; font-size: 85%; }
code { background: #eff1f3; border-radius: 6px; padding: .2em .4em; }
pre { background: #f6f8fa; border-radius: 6px; padding: 16px; overflow: auto; line-height: 1.45; }
pre code { background: none; padding: 0; font-size: 100%; }
table { border-collapse: collapse; margin: 0 0 16px; display: block; overflow: auto; }
th, td { border: 1px solid #d1d9e0; padding: 6px 13px; }
tr:nth-child(2n) { background: #f6f8fa; }
blockquote { margin: 0; padding: 0 1em; color: #59636e; border-left: .25em solid #d1d9e0; }
details { margin: 0 0 8px; } summary { cursor: pointer; color: #0969da; }
img { max-width: 100%; }
"""


def fail(text):
    print("page_shots: FAIL: " + text, file=sys.stderr)
    sys.exit(1)


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--hide-scrollbars", "--window-size=%d,%d" % (WIDTH, HEIGHT)):
        options.add_argument(arg)
    if os.path.exists("/usr/bin/chromium"):
        options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    # The viewport exactly WIDTH px wide, whatever the window's frame takes.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1,
                            "mobile": False})
    return driver


def shoot(driver, path, top=0, height=HEIGHT):
    """A PNG of the page from `top` (px), `height` px tall at most (the page's end first)."""
    import base64

    total = driver.execute_script("return document.documentElement.scrollHeight")
    height = max(1, min(height, total - top))
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": top, "width": WIDTH, "height": height, "scale": 1}})
    with open(path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    print("page_shots: %s (%d x %d px, %d KB)" % (path, WIDTH, height,
                                                 os.path.getsize(path) // 1024))


def page_html(markdown_text, title, base):
    """The page as HTML: python3-markdown with GitHub's table and fenced-code syntax; the markdown
    inside <details> rendered too (md_in_html), as GitHub does."""
    import markdown

    text = re.sub(r"<details>", '<details markdown="1">', markdown_text)
    body = markdown.markdown(text, extensions=["tables", "fenced_code", "md_in_html", "sane_lists"])
    return ('<!doctype html><html><head><meta charset="utf-8"><base href="%s"><title>%s</title>'
            "<style>%s</style></head><body><main>%s</main></body></html>"
            % (html.escape(base, quote=True), html.escape(title), CSS, body))


def pages(args, shots):
    release = os.path.abspath(args.release)
    folder = os.path.join(release, "docs", "labs")
    if not os.path.isdir(folder) or os.path.isdir(os.path.join(release, "solutions")):
        print("page_shots: error: %s is not a student release (./cudalab release DIR)" % release,
              file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp(prefix="page-shots-")
    driver = browser()
    from selenium.webdriver.common.by import By

    try:
        for lab in args.labs.split(","):
            found = [n for n in sorted(os.listdir(folder)) if n.startswith(lab + "-") and
                     n.endswith(".md")]
            if len(found) != 1:
                fail("no page of lab %s in %s" % (lab, folder))
            with open(os.path.join(folder, found[0])) as f:
                text = f.read()
            if "<!-- answer -->" in text:
                fail("%s keeps an answer block: not a stripped page" % found[0])
            out = os.path.join(tmp, found[0][:-3] + ".html")
            with open(out, "w") as f:
                f.write(page_html(text, found[0], "file://" + folder + "/"))
            driver.get("file://" + out)
            body = driver.find_element(By.TAG_NAME, "body").text
            if "Done when" not in body:
                fail("%s does not show its Done when" % found[0])
            shoot(driver, os.path.join(shots, "release-%s-top.png" % lab))
            heads = [h for h in driver.find_elements(By.TAG_NAME, "h2")
                     if h.text.startswith("Profile it yourself")]
            if not heads:
                fail("%s has no 'Profile it yourself' section" % found[0])
            top = driver.execute_script(
                "return arguments[0].getBoundingClientRect().top + window.scrollY - 8", heads[0])
            shoot(driver, os.path.join(shots, "release-%s-exercise.png" % lab), int(top))
    finally:
        driver.quit()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


LAB01 = "labs/01-conv1d-basic/conv1d_basic.cu"
LAB02 = "labs/02-conv1d-tiled/conv1d_tiled.cu"
REPORT02 = "labs/02-conv1d-tiled/report.md"


def filled_report(fields, prediction, rows, gap, answers):
    """labs/02-conv1d-tiled/report.md with its blanks filled in, in order: the header's fields,
    the prediction, the table's rows, the gap, then one answer per question ("" leaves it)."""
    with open(os.path.join(ROOT, REPORT02)) as f:
        text = f.read()
    for name, value in fields.items():
        text = re.sub(r"^(- %s[^\n]*?)____" % re.escape(name), lambda m: m.group(1) + value, text,
                      count=1, flags=re.M)
    table = "| metric | predicted | measured |\n| --- | --- | --- |\n"
    text = re.sub(r"\| metric \| predicted \| measured \|\n(\|[^\n]*\n)+",
                  lambda m: table + "".join("| %s | %s | %s |\n" % r for r in rows) if rows
                  else m.group(0), text, count=1)
    blanks = [prediction, gap] + answers
    parts = re.split(r"^____$", text, flags=re.M)
    out = parts[0]
    for i, part in enumerate(parts[1:]):
        out += (blanks[i] if i < len(blanks) and blanks[i] else "____") + part
    return out


def submissions(subs):
    """Three students' lab 01 and 02 files, each with a different report.md for lab 02."""
    def answer(lab):
        with open(os.path.join(ROOT, "grader", "labs", lab, "variants", "answer.cu")) as f:
            return f.read()

    a01, a02 = answer("01-conv1d-basic"), answer("02-conv1d-tiled")

    def own(text, name):  # each student's own copy: not flagged as identical to another's
        return "// %s\n%s" % (name, text)

    # ana: all of it, her grade and profile quoted (an H200, the figures of the page's own run).
    ana = filled_report(
        {"Name": "Ana Example", "GPU": "NVIDIA H200", "Date": "2026-11-27",
         "Grade": "100", "Performance": "2.78"},
        "Lab 01 issued ~10 loads per output (9 mask taps and x); the tile loads x once per "
        "block, so global load requests fall to about a third. Every tap becomes a shared load, "
        "so shared wavefronts rise from 0, DRAM bytes stay (L1 already served the reuse), and warp "
        "instructions barely move.",
        [("Global load requests", "~13 M (37.7 M / 3)", "21.2 M"),
         ("Shared load wavefronts", "~19 M", "19.5 M"),
         ("DRAM read", "268 MB (same)", "268.4 MB"),
         ("Warp instructions executed", "~270 M", "262 M")],
        "I forgot the mask: it still comes from global memory, 9 loads per warp step, so requests "
        "fell to 21.2 M, not 13 M. The kernel is no faster than lab 01's (440 us against 392 us): "
        "L1 already served the reuse, and the shared loads and the barrier cost instructions.",
        ["256 + 8 = 264 inputs; lab 01 issued 256 x 9 = 2304 loads of x for the same outputs.",
         "8 threads (the first mask_width - 1) load a second input; one warp diverges.",
         "A thread reads entries other threads wrote: without the barrier it may read an entry "
         "before its owner has stored it.",
         "L1 keeps the neighbours' inputs, so lab 01's repeated loads hit in cache. Shared memory "
         "adds a store per input, a barrier and a shared load per tap.",
         "Several outputs per thread from registers, and the mask in constant memory."])
    # ben: the header and the prediction, one question; the measurement and the rest left blank.
    ben = filled_report(
        {"Name": "Ben Sample", "GPU": "NVIDIA GeForce RTX 4070 (laptop)", "Date": "2026-11-27"},
        "Fewer global loads (each input once per block), more shared loads, same DRAM bytes.",
        [], "", ["264 inputs per block.", "", "", "", ""])
    folder = os.path.join(subs, "ana")
    for rel, text in ((LAB01, own(a01, "ana")), (LAB02, own(a02, "ana")), (REPORT02, ana)):
        os.makedirs(os.path.dirname(os.path.join(folder, rel)), exist_ok=True)
        with open(os.path.join(folder, rel), "w") as f:
            f.write(text)
    with zipfile.ZipFile(os.path.join(subs, "ben.zip"), "w") as z:
        for rel, text in ((LAB01, own(a01, "ben")), (LAB02, own(a02, "ben")), (REPORT02, ben)):
            z.writestr(rel, text)
    with tarfile.open(os.path.join(subs, "cy.tar.gz"), "w:gz") as t:
        for rel, text in ((LAB01, own(a01, "cy")), (LAB02, own(a02, "cy"))):  # no report.md
            data = text.encode()
            info = tarfile.TarInfo("cy/" + rel)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))


def batch(args, shots):
    work = os.path.abspath(args.work or tempfile.mkdtemp(prefix="page-shots-batch-"))
    subs, out = os.path.join(work, "submissions"), os.path.join(work, "out")
    shutil.rmtree(subs, ignore_errors=True)
    os.makedirs(subs)
    submissions(subs)
    # A WORK used before: its workers' folders (their build) kept, the rest made again.
    if os.path.isdir(out):
        for name in os.listdir(out):
            if name != "work":
                p = os.path.join(out, name)
                shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
    cmd = [os.path.join(ROOT, "cudalab"), "batch", subs, "--out", out, "--lab", "01,02",
           "--timeout", "5"]
    print("page_shots: " + " ".join(cmd), flush=True)
    start = time.time()
    r = subprocess.run(cmd, cwd=ROOT)
    if r.returncode != 0:
        fail("./cudalab batch ended with exit code %d" % r.returncode)
    print("page_shots: the batch took %.0f s" % (time.time() - start))
    index = os.path.join(out, "class", "index.html")
    analysis = os.path.join(out, "students", "ana", "analysis.html")
    for path in (index, analysis):
        if not os.path.isfile(path):
            fail("the batch wrote no " + os.path.relpath(path, work))
    if os.path.exists(os.path.join(out, "students", "cy", "analysis.html")):
        fail("cy handed in no report.md, yet has an analysis.html")
    from selenium.webdriver.common.by import By

    driver = browser()
    try:
        driver.get("file://" + index)
        # The reports are collapsed, a <details> per student: opened, as an instructor would.
        driver.execute_script("document.querySelectorAll('details').forEach(e => e.open = true)")
        body = driver.find_element(By.TAG_NAME, "body").text
        for what in ("Ana Example", "Ben Sample", "cy"):
            if what not in body:
                fail("the class page does not show %r" % what)
        # From the table of students to the reports (the page's top, its summary and plots, is
        # docs/img/batch-report.png).
        top = driver.execute_script("return document.getElementById('students')"
                                    ".getBoundingClientRect().top + window.scrollY - 8")
        shoot(driver, os.path.join(shots, "batch-class-reports.png"), int(top), 1800)
        driver.get("file://" + analysis)
        body = driver.find_element(By.TAG_NAME, "body").text
        if "Ana Example" not in body or "21.2 M" not in body:
            fail("ana's analysis page does not show her report.md")
        shoot(driver, os.path.join(shots, "batch-analysis.png"))
    finally:
        driver.quit()
    print("page_shots: the batch's pages in %s" % out)
    return 0


def main(argv):
    p = argparse.ArgumentParser(prog="page_shots.py", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="what", required=True)
    pp = sub.add_parser("pages", help="a release's stripped lab pages")
    pp.add_argument("release")
    pp.add_argument("--labs", default="02,08")
    pb = sub.add_parser("batch", help="a batch of three submissions with report.md files")
    pb.add_argument("--work")
    for q in (pp, pb):
        q.add_argument("--shots", default=os.path.join(ROOT, "docs", "img"))
    args = p.parse_args(argv)
    if not all(re.fullmatch(r"[0-9][0-9]", lab) for lab in getattr(args, "labs", "01").split(",")):
        print("page_shots: error: --labs takes lab numbers, e.g. 02,08", file=sys.stderr)
        return 2
    shots = os.path.abspath(args.shots)
    os.makedirs(shots, exist_ok=True)
    return pages(args, shots) if args.what == "pages" else batch(args, shots)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
