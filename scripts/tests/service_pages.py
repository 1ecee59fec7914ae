#!/usr/bin/python3
"""The grading service's pages in a real browser: headless Chromium driven by selenium (Debian's
python3-selenium and chromium-driver), logged in through the login form as a person would. A
student's list of submissions and one submission's page, then the instructor's class page: each
is checked for what it must show (and a student's page for another student's submission must
not show it), and a screenshot of each is saved. CI runs it after scripts/tests/service_e2e.py,
on the data folder that test leaves; the screenshots in docs/instructors.md come from it.

usage: service_pages.py DATA [--shots DIR]

DATA: a service data folder (DATA/service.sqlite, DATA/instructor-token, DATA/tokens-*.csv) with
at least one graded submission. --shots: where the screenshots go (default: a temporary folder).
"""

import argparse
import csv
import glob
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SYSTEM_PYTHON = "/usr/bin/python3"  # the one Debian's python3-fastapi and python3-selenium serve


def fail(text):
    print("service_pages: FAIL: " + text, file=sys.stderr)
    sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def api(base, path, token):
    req = urllib.request.Request(base + path, headers={"Authorization": "Bearer " + token})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)


def tokens_of(data):
    """{student id: token} from the roster imports' token files (the latest wins)."""
    tokens = {}
    for path in sorted(glob.glob(os.path.join(data, "tokens-*.csv"))):
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                tokens[row["id"]] = row["token"]
    return tokens


def start_service(data, port):
    env = dict(os.environ, PYTHONPATH=ROOT)
    proc = subprocess.Popen([SYSTEM_PYTHON, "-m", "grader.classroom.service", "--data", data,
                             "--port", str(port), "--workers", "0"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base = "http://127.0.0.1:%d" % port
    for _ in range(100):
        try:
            with urllib.request.urlopen(base + "/api/health", timeout=2):
                return proc, base
        except OSError:
            if proc.poll() is not None:
                fail("the service did not start: " + proc.stderr.read()[-2000:])
            time.sleep(0.2)
    proc.kill()
    fail("the service did not answer /api/health within 20 s")


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1200,1000"):
        options.add_argument(arg)
    if os.path.exists("/usr/bin/chromium"):
        options.binary_location = "/usr/bin/chromium"
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def log_in(driver, base, token):
    from selenium.webdriver.common.by import By

    driver.delete_all_cookies()
    driver.get(base + "/login")
    field = driver.find_element(By.NAME, "token")
    field.send_keys(token)
    field.submit()
    for _ in range(50):
        if not driver.current_url.endswith("/login"):
            return
        time.sleep(0.1)
    fail("logging in with a token left the browser on " + driver.current_url)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("data")
    p.add_argument("--shots", default="")
    args = p.parse_args(argv)
    data = os.path.abspath(args.data)
    if not os.path.isfile(os.path.join(data, "service.sqlite")):
        print("service_pages: error: %s is not a service data folder" % data, file=sys.stderr)
        return 2
    shots = os.path.abspath(args.shots or tempfile.mkdtemp(prefix="service-pages-"))
    os.makedirs(shots, exist_ok=True)
    with open(os.path.join(data, "instructor-token")) as f:
        instructor = f.read().strip()
    tokens = tokens_of(data)
    start = time.time()
    proc, base = start_service(data, free_port())
    driver = None
    try:
        # A student with a graded submission, and another student's submission.
        cls = api(base, "/api/class", instructor)
        graded = [s for s in cls["students"] if s["id"] in tokens and not s.get("revoked") and
                  any(x.get("state") == "done" for x in (s.get("latest") or {}).values())]
        if len(graded) < 2:
            fail("fewer than two students with a graded submission in %s" % data)
        student, other = graded[0], graded[1]
        mine = api(base, "/api/submissions", tokens[student["id"]])["submissions"]
        done = [s for s in mine if s["state"] == "done"]
        theirs = api(base, "/api/submissions", tokens[other["id"]])["submissions"][0]["id"]

        from selenium.webdriver.common.by import By

        driver = browser()
        log_in(driver, base, tokens[student["id"]])
        body = driver.find_element(By.TAG_NAME, "body").text
        if "Your submissions" not in body or str(done[0]["id"]) not in body:
            fail("the student's page does not list submission %s:\n%s" % (done[0]["id"], body))
        driver.save_screenshot(os.path.join(shots, "service-student-list.png"))
        driver.find_element(By.LINK_TEXT, str(done[0]["id"])).click()
        body = driver.find_element(By.TAG_NAME, "body").text
        console = driver.find_elements(By.CSS_SELECTOR, "pre.console")
        if "Submission %s" % done[0]["id"] not in body or not console or \
                "total" not in console[0].text:
            fail("the submission's page does not show the grade's table:\n" + body[:2000])
        driver.save_screenshot(os.path.join(shots, "service-student.png"))
        driver.get(base + "/submissions/%s" % theirs)
        body = driver.find_element(By.TAG_NAME, "body").text
        if "no submission %s" % theirs not in body or "The grade's output" in body:
            fail("another student's submission %s was shown, or not refused plainly:\n%s" %
                 (theirs, body[:1000]))

        log_in(driver, base, instructor)
        driver.get(base + "/class")
        body = driver.find_element(By.TAG_NAME, "body").text
        for s in (student, other):
            if s["id"] not in body:
                fail("the class page does not list %s:\n%s" % (s["id"], body[:2000]))
        driver.save_screenshot(os.path.join(shots, "service-class.png"))
    finally:
        if driver is not None:
            driver.quit()
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    print("service_pages: the student's pages and the class page rendered in headless Chromium "
          "and showed what they must (%.1f s); screenshots in %s" % (time.time() - start, shots))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
