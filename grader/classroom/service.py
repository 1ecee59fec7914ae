"""The class grading service: `./cudalab serve --data DIR` (docs/instructors.md).

    python3 -m grader.classroom.service --data DIR [--port 8408] [--host 127.0.0.1]
        [--workers N | --gpus 0,1 | --slurm [--partition P] [--max-jobs K] [--time MIN]]
        [--lab-timeout S] [--preset ci|default] [--work DIR]
        [--max-upload-bytes B] [--per-hour N] [--gpu-seconds-per-day S] [--deadlines FILE]

Students without a GPU submit their lab files (a .tar.gz of them at their repository paths) over
HTTP and get the instructor's verdict: the same grading as ./cudalab batch (batch.py: the
sandbox, the secret seed in DIR/seed, the reports), made by worker processes
(grader/classroom/worker.py), one per GPU, which this process starts, restarts when one dies and
stops with it; or, with --slurm, made by Slurm jobs, one per submission, which this process
submits and watches (grader/classroom/service_slurm.py). The state is in DIR/service.sqlite
(grader/classroom/store.py; or in PostgreSQL, whose URL DIR/database.conf holds): a restart of the service or a killed worker loses no submission,
and each submission gets exactly one verdict.

The API (JSON; every error is {"error": "<one line>"} with a 4xx status): GET /api/health,
GET /api/me, POST /api/me/leaderboard {"opt_in": bool}, POST /api/submissions?labs=01,02,
GET /api/submissions, GET /api/submissions/{id}, GET /api/class, GET /api/leaderboard/{lab},
POST /api/students/{id}/revoke; auth with `Authorization: Bearer <token>`. The pages (Jinja2
templates, autoescaped): /login, / (a student's submissions, or the class for the instructor),
/submissions/{id}, /class, /leaderboard/{lab}; auth with the cookie cudalab_token that /login
sets. Tokens: python3 -m grader.classroom.roster (students), DIR/instructor-token (the instructor).

Deadlines (--deadlines FILE, grader/classroom/deadlines.py; read again when the file changes):
the submission that counts for a student and a lab is their last graded one made before the
lab's deadline; a submission's page and GET /api/submissions/{id} say, per lab, whether it counts
("counts", "deadline", "after_deadline"); the class page shows the counting one. The file's path
is recorded in DIR for the export (python3 -m grader.classroom.export). The leaderboards:
grader/classroom/leaderboard.py.
"""

import argparse
import hashlib
import importlib.util
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid

SYSTEM_PYTHON = "/usr/bin/python3"  # where Debian's python3-fastapi is

if importlib.util.find_spec("fastapi") is None:
    # Run by a python3 that lacks Debian's packages (pyenv, a venv): the system's one, if it has
    # them, runs it instead.
    if __name__ == "__main__":
        if (os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON) and
                subprocess.run([SYSTEM_PYTHON, "-c", "import fastapi, uvicorn, jinja2"],
                               capture_output=True).returncode == 0):
            sys.stdout.flush()
            os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON, "-m", "grader.classroom.service"] + sys.argv[1:])
        print("serve: error: python3-fastapi, python3-uvicorn and python3-jinja2 are missing "
              "(scripts/setup service installs them)", file=sys.stderr)
        sys.exit(2)

import json

import jinja2
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from grader.classroom import deadlines as deadline_rules
from grader.classroom import leaderboard, roster, service_slurm, store, submissions, worker, workers
from grader.classroom.base import UsageError

ROOT = worker.ROOT
HERE = os.path.dirname(os.path.abspath(__file__))
COOKIE = "cudalab_token"
COOKIE_MAX_AGE = 120 * 86400  # a term
MAX_REQUEST_BYTES = 64 * 1024  # any request body but an upload (a login form, a revoke)
MAX_CONSOLE_BYTES = 512 * 1024  # of a grade's console shown
DEFAULTS = {"max_upload_bytes": 1 << 20, "per_hour": 20, "gpu_seconds_per_day": 1800,
            "deadlines": None}
DEADLINES_SETTING = "deadlines_file"  # store's settings: the file the export reads too
MAX_CACHED_ENTRIES = 4096  # the leaderboard's lab entries of done submissions' reports
UNKNOWN_TOKEN = "unknown or revoked token"
SUBMISSION_ID = re.compile(r"\d{1,15}")


class ApiError(Exception):
    """An answer other than 2xx: {"error": message} with STATUS."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status, self.message = status, message


class PageAuthError(Exception):
    """A page asked for with a cookie whose token is unknown or revoked."""


def iso(t):
    return None if t is None else time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def num(x):
    """A number of the database as the report had it (100, not 100.0)."""
    if isinstance(x, float) and x.is_integer():
        return int(x)
    return x


def one_line(text):
    text = str(text).strip()
    return text.splitlines()[0] if text else text


def option(options, name):
    """An option of make_app: an attribute or key of OPTIONS, else DEFAULTS'."""
    if isinstance(options, dict):
        value = options.get(name)
    else:
        value = getattr(options, name, None)
    return DEFAULTS[name] if value is None else value


class Database:
    """One connection per thread (FastAPI runs the endpoints in a pool of threads)."""

    def __init__(self, path):
        self.path = path
        self.local = threading.local()

    def __call__(self):
        conn = getattr(self.local, "conn", None)
        if conn is None:
            conn = self.local.conn = store.connect(self.path)
        return conn


class BodyLimit:
    """Refuses, before it is read, a request body whose Content-Length is over MAX_REQUEST_BYTES
    (an upload: over --max-upload-bytes, said by its endpoint once the caller is known). The
    endpoints that read a body read it through read_capped, which stops at the limit whatever the
    Content-Length said (or when there was none: a chunked body)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and not (scope["path"] == "/api/submissions" and
                                            scope["method"] == "POST"):
            length = dict(scope["headers"]).get(b"content-length", b"").decode("latin-1")
            if length.isdigit() and int(length) > MAX_REQUEST_BYTES:
                response = JSONResponse({"error": "a request body of %s bytes is over the limit of "
                                                  "%d bytes" % (length, MAX_REQUEST_BYTES)},
                                        status_code=413, headers={"Connection": "close"})
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


async def read_capped(request, limit, too_large):
    """The request's body, read as it comes; ApiError 413 (too_large(bytes read)) past LIMIT."""
    chunks, total = [], 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > limit:
            raise ApiError(413, too_large(total))
        chunks.append(chunk)
    return b"".join(chunks)


def upload_key(files, labs, known):
    """What makes two submissions grade the same: the graded labs' files (path and sha256; not
    report.md, which is never compiled) and the labs."""
    h = hashlib.sha256()
    for rel in sorted(known[lab] for lab in labs if known[lab] in files):
        h.update(("%s %s\n" % (rel, hashlib.sha256(files[rel]).hexdigest())).encode())
    h.update(("labs %s\n" % ",".join(labs)).encode())
    return h.hexdigest()


def make_app(data_dir, options=None):
    """The service's app on DIR (made when missing, with its database, seed and instructor
    token). OPTIONS (an object or a dict; missing ones take DEFAULTS): max_upload_bytes,
    per_hour, gpu_seconds_per_day, deadlines (a deadlines file's path; a DeadlineError when it
    is malformed)."""
    data = os.path.abspath(data_dir)
    worker.prepare_data_dir(data)
    worker.ensure_seed(data)
    db = Database(worker.db_path(data))
    roster.ensure_instructor_token(db(), data)
    max_upload = int(option(options, "max_upload_bytes"))
    per_hour = int(option(options, "per_hour"))
    gpu_per_day = float(option(options, "gpu_seconds_per_day"))
    known = submissions.student_files(ROOT)
    labs_all = sorted(known)
    lab_names = {lab: rel.split("/")[1][3:] for lab, rel in known.items()}  # "conv1d-basic"
    member_paths = list(known.values()) + submissions.report_files(known)
    rules = deadline_rules.Deadlines(option(options, "deadlines"), known)
    # The export reads the same file (a service started without one has none).
    store.set_setting(db(), DEADLINES_SETTING, rules.path)
    entries = {}  # (submission id, lab) -> the lab's entry of its report.json (done: it stays)
    templates = jinja2.Environment(loader=jinja2.FileSystemLoader(os.path.join(HERE, "templates")),
                                   autoescape=True, undefined=jinja2.StrictUndefined)
    templates.filters["num"] = lambda x: "-" if x is None else num(x)

    app = FastAPI(title="CUDA Labs grading service", docs_url=None, redoc_url=None,
                  openapi_url=None)
    app.add_middleware(BodyLimit)
    app.state.data = data
    app.state.db = db

    # ---- errors: always {"error": one line} ----

    @app.exception_handler(ApiError)
    async def api_error(request, exc):
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request, exc):
        return JSONResponse({"error": one_line(exc.detail).lower()}, status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request, exc):
        errors = exc.errors()
        what = "; ".join("%s: %s" % (".".join(str(p) for p in e.get("loc", ())), e.get("msg", ""))
                         for e in errors[:3])
        return JSONResponse({"error": one_line("invalid request: " + what)}, status_code=422)

    @app.exception_handler(PageAuthError)
    async def page_auth_error(request, exc):
        if wants_html(request):
            return page("login.html", {"who": None, "error": "Your token is unknown or was "
                                                             "revoked: sign in again."}, status=401)
        return JSONResponse({"error": UNKNOWN_TOKEN}, status_code=401)

    @app.exception_handler(Exception)
    async def internal_error(request, exc):
        return JSONResponse({"error": "internal error"}, status_code=500)

    # ---- auth ----

    def api_caller(request):
        header = request.headers.get("authorization", "")
        m = re.match(r"(?i)bearer\s+(\S+)\s*$", header)
        who = store.authenticate(db(), m.group(1)) if m else None
        if who is None:
            raise ApiError(401, UNKNOWN_TOKEN)
        return who

    def instructor_only(who):
        if not who["instructor"]:
            raise ApiError(403, "only the instructor's token may do this")

    def page_caller(request):
        """The caller of a page, None when there is no cookie (the page sends them to /login)."""
        token = request.cookies.get(COOKIE)
        if not token:
            return None
        who = store.authenticate(db(), token)
        if who is None:
            raise PageAuthError()
        return who

    def wants_html(request):
        return "text/html" in request.headers.get("accept", "")

    def page(name, context, status=200):
        return HTMLResponse(templates.get_template(name).render(**context), status_code=status)

    # ---- views ----

    def submission_row(sub_id, who):
        """The submission, when the caller may see it; the same 404 for another's and none."""
        row = None
        if SUBMISSION_ID.fullmatch(sub_id):
            row = store.get_submission(db(), int(sub_id))
        if row is None or (not who["instructor"] and row["student"] != who["student"]):
            raise ApiError(404, "no submission %s" % one_line(sub_id)[:40])
        return row

    def counted_for(student, rules_now):
        """{lab: row} of the student's submissions that count."""
        rows = store.list_submissions(db(), student)
        return deadline_rules.counting(rows, rules_now).get(student, {})

    def per_lab(row, rules_now, counted):
        """[{lab, counts, deadline, after_deadline, counting_id, points, max_points}] of ROW."""
        lab_points = store.decode(row, "lab_points") or {}
        view = []
        for lab in row["labs"].split(","):
            status = deadline_rules.lab_status(row, lab, rules_now, counted)
            points, max_points = (lab_points.get(lab) or [None, None])[:2]
            view.append(dict(status, lab=lab, points=num(points), max_points=num(max_points)))
        return view

    def brief(row, with_student, rules_now, counted):
        """COUNTED: {lab: row} of the submission's student's counting submissions."""
        labs = per_lab(row, rules_now, counted)
        view = {"id": row["id"], "labs": row["labs"].split(","), "state": row["state"],
                "created_at": iso(row["created_at"]), "finished_at": iso(row["finished_at"]),
                "points": num(row["points"]), "max_points": num(row["max_points"]),
                "url": "/submissions/%d" % row["id"],
                "counts": {l["lab"]: l["counts"] for l in labs},
                "after_deadline": {l["lab"]: l["after_deadline"] for l in labs}}
        if with_student:
            view["student"] = row["student"]
        return view

    def briefs(rows, who):
        rules_now = rules.get()
        if who["instructor"]:
            counted = deadline_rules.counting(store.done_submissions(db()), rules_now)
        else:
            counted = {who["student"]: counted_for(who["student"], rules_now)}
        return [brief(r, who["instructor"], rules_now, counted.get(r["student"], {}))
                for r in rows]

    def console_of(row):
        if row["state"] != "done":
            return None
        folder = worker.result_dir(data, row)
        for name in ("console.log", "grade.log"):
            try:
                with open(os.path.join(folder, name), "rb") as f:
                    text = f.read(MAX_CONSOLE_BYTES).decode("utf-8", errors="replace")
                if name == "grade.log":  # a result of before console.log: at least no seed
                    text = worker.redact(text, worker.ensure_seed(data))
                return text
            except OSError:
                continue
        return ""

    def detail(row):
        conn = db()
        rules_now = rules.get()
        labs = per_lab(row, rules_now, counted_for(row["student"], rules_now))
        return {"id": row["id"], "student": row["student"], "labs": row["labs"].split(","),
                # Per lab: whether this submission is the one that counts, the lab's deadline
                # (ISO 8601, UTC; null: none) and whether it was made after it.
                "counts": {l["lab"]: l["counts"] for l in labs},
                "deadline": {l["lab"]: l["deadline"] for l in labs},
                "after_deadline": {l["lab"]: l["after_deadline"] for l in labs},
                "per_lab": labs,
                "state": row["state"], "position": store.position(conn, row),
                "eta_s": store.eta_seconds(conn, row), "created_at": iso(row["created_at"]),
                "started_at": iso(row["started_at"]), "finished_at": iso(row["finished_at"]),
                "points": num(row["points"]), "max_points": num(row["max_points"]),
                "failed_checks": store.decode(row, "failed_checks"), "exit_code": row["exit_code"],
                "console": console_of(row), "error": row["error"],
                "reused_from": row["reused_from"]}

    def lab_cell(row, lab, rules_now):
        lab_points = store.decode(row, "lab_points") or {}
        points, max_points = (lab_points.get(lab) or [None, None])[:2]
        return {"id": row["id"], "points": num(points), "max_points": num(max_points),
                "state": row["state"], "created_at": iso(row["created_at"]),
                "after_deadline": deadline_rules.after_deadline(row, lab, rules_now)}

    def class_view():
        """Per student and lab: "counting", the submission that counts (the last graded one
        before the lab's deadline), and "latest", their latest submission of the lab (any state,
        after the deadline too)."""
        conn = db()
        rules_now = rules.get()
        latest = store.latest_per_lab(conn)
        counting = deadline_rules.counting(store.done_submissions(conn), rules_now)
        counted = store.submission_counts(conn)
        students = []
        for s in store.list_students(conn):
            mine = {lab: lab_cell(row, lab, rules_now)
                    for lab, row in sorted(latest.get(s["id"], {}).items())}
            counts = {lab: lab_cell(row, lab, rules_now)
                      for lab, row in sorted(counting.get(s["id"], {}).items())}
            students.append({"id": s["id"], "name": s["name"], "revoked": bool(s["revoked"]),
                             "submissions": counted.get(s["id"], 0), "latest": mine,
                             "counting": counts})
        queue = [{"id": r["id"], "student": r["student"], "labs": r["labs"].split(","),
                  "state": r["state"]} for r in store.queue(conn)]
        return {"students": students, "queue": queue,
                "deadlines": {lab: deadline_rules.iso(rules_now.get(lab)) for lab in labs_all}}

    def lab_entry_of(row, lab):
        """The lab's entry of a done submission's report.json (cached: it does not change)."""
        key = (row["id"], lab)
        entry = entries.get(key, entries)  # (the dict itself: not there)
        if entry is entries:
            try:
                with open(os.path.join(worker.result_dir(data, row), "report.json")) as f:
                    entry = leaderboard.lab_entry(json.load(f), lab)
            except (OSError, ValueError):
                return None  # not cached: a folder being renamed
            if len(entries) >= MAX_CACHED_ENTRIES:
                entries.clear()
            entries[key] = entry
        return entry

    def board(lab, who):
        """The leaderboard of LAB as WHO sees it."""
        if lab not in known:
            raise ApiError(404, "no lab %s (labs: %s)" % (one_line(lab)[:20], ", ".join(labs_all)))
        conn = db()
        rules_now = rules.get()
        counting = deadline_rules.counting(store.done_submissions(conn), rules_now)
        students = {s["id"]: s for s in store.list_students(conn)}
        found = []
        for sid, mine in counting.items():
            row = mine.get(lab)
            if row is None or sid not in students or students[sid]["revoked"]:
                continue
            points, max_points = ((store.decode(row, "lab_points") or {}).get(lab) or
                                  [None, None])[:2]
            if row["error"] or points is None or not max_points or points != max_points:
                continue  # not every point: no need to read its report
            found.append({"student": sid, "name": students[sid]["name"],
                          "entry": lab_entry_of(row, lab), "created_at": row["created_at"],
                          "submission": row["id"]})
        rows = leaderboard.standings(found, store.leaderboard_names(conn), who["student"])
        view = {"lab": lab, "name": lab_names[lab], "deadline": iso(rules_now.get(lab)),
                "rows": rows, "you": next((r for r in rows if r["you"]), None)}
        if not who["instructor"]:
            view["opted_in"] = store.opted_in(conn, who["student"])
        return view

    def health():
        conn = db()
        c = store.counts(conn)
        return {"ok": True, "workers": store.alive_workers(conn), "queued": c["queued"],
                "running": c["running"]}

    # ---- the API ----

    @app.get("/api/health")
    def api_health():
        return health()

    @app.get("/api/me")
    def api_me(request: Request):
        who = api_caller(request)
        if who["instructor"]:
            return who
        return dict(who, leaderboard=store.opted_in(db(), who["student"]))

    async def read_json_body(request):
        body = await read_capped(request, MAX_REQUEST_BYTES, lambda n: "a request body of %d "
                                 "bytes is over the limit of %d bytes" % (n, MAX_REQUEST_BYTES))
        try:
            return json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise ApiError(400, "the body is not JSON")

    def set_opt_in(who, opt_in):
        if who["instructor"]:
            raise ApiError(403, "only a student opts in or out of the leaderboards")
        store.set_leaderboard(db(), who["student"], opt_in)
        return {"student": who["student"], "opt_in": opt_in}

    @app.post("/api/me/leaderboard")
    async def api_leaderboard_opt(request: Request):
        who = await run_in_threadpool(api_caller, request)
        body = await read_json_body(request)
        if not isinstance(body, dict) or not isinstance(body.get("opt_in"), bool):
            raise ApiError(400, 'the body must be {"opt_in": true} or {"opt_in": false}')
        return await run_in_threadpool(set_opt_in, who, body["opt_in"])

    @app.get("/api/leaderboard/{lab}")
    def api_leaderboard(lab: str, request: Request):
        return board(lab, api_caller(request))

    @app.post("/api/submissions")
    async def api_submit(request: Request, labs: str = None):
        who = await run_in_threadpool(api_caller, request)
        if who["instructor"]:
            raise ApiError(403, "the instructor's token cannot submit: use a student's")
        wanted = None
        if labs is not None and labs.strip():
            wanted = sorted({l.strip() for l in labs.split(",") if l.strip()})
            for lab in wanted:
                if lab not in known:
                    raise ApiError(400, "unknown lab '%s' (labs: %s)" %
                                   (one_line(lab)[:20], ", ".join(labs_all)))

        def too_large(n):
            return "upload of %d bytes is over the limit of %d bytes" % (n, max_upload)

        length = request.headers.get("content-length", "")
        if length.isdigit() and int(length) > max_upload:
            raise ApiError(413, too_large(int(length)))
        try:
            # db() in the pool's thread: each thread has its own connection.
            await run_in_threadpool(lambda: store.check_limits(db(), who["student"], per_hour,
                                                               gpu_per_day))
        except store.Limited as e:
            raise ApiError(429, str(e))
        body = await read_capped(request, max_upload, too_large)
        return JSONResponse(await run_in_threadpool(accept_upload, who, body, wanted),
                            status_code=201)

    def accept_upload(who, body, wanted):
        """Saves the upload (fsync'ed before the row, see store.add_submission), checks it with
        submissions.read_submission and queues it."""
        uploads = os.path.join(data, "uploads")
        stage = os.path.join(uploads, "incoming-%s.tar.gz" % uuid.uuid4().hex)
        with open(stage, "wb") as f:
            f.write(body)
            f.flush()
            os.fsync(f.fileno())
        try:
            files, ignored, error = submissions.read_submission(stage, member_paths)
            if error is not None:
                # (tarfile's own text may end in a colon where its detail was on a next line)
                raise ApiError(400, "the upload is not a readable .tar.gz of your lab files (%s)" %
                               one_line(error).rstrip(" :"))
            chosen = wanted or sorted(lab for lab in known if known[lab] in files)
            if not any(known[lab] in files for lab in chosen):
                raise ApiError(400, "no lab file of lab(s) %s in the upload (e.g. %s, at its path "
                               "in the repository)" % (", ".join(wanted) if wanted else "01 to %s"
                                                       % labs_all[-1],
                                                       known[(wanted or labs_all)[0]]))
            key = upload_key(files, chosen, known)

            def place(sub_id):
                final = os.path.join(uploads, "%d.tar.gz" % sub_id)
                os.replace(stage, final)
                fd = os.open(uploads, os.O_RDONLY)  # the rename on disk before the row
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
                return "uploads/%d.tar.gz" % sub_id

            conn = db()
            try:
                sub_id = store.add_submission(conn, who["student"], chosen, key, place, per_hour,
                                              gpu_per_day)
            except store.Limited as e:
                raise ApiError(429, str(e))
        finally:
            if os.path.exists(stage):
                os.remove(stage)
        row = store.get_submission(conn, sub_id)
        return {"id": sub_id, "state": "queued", "position": store.position(conn, row),
                "eta_s": store.eta_seconds(conn, row), "url": "/submissions/%d" % sub_id}

    @app.get("/api/submissions")
    def api_submissions(request: Request):
        who = api_caller(request)
        rows = store.list_submissions(db(), None if who["instructor"] else who["student"])
        return {"submissions": briefs(rows, who)}

    @app.get("/api/submissions/{sub_id}")
    def api_submission(sub_id: str, request: Request):
        who = api_caller(request)
        return detail(submission_row(sub_id, who))

    @app.get("/api/class")
    def api_class(request: Request):
        instructor_only(api_caller(request))
        return class_view()

    @app.post("/api/students/{sid}/revoke")
    def api_revoke(sid: str, request: Request):
        instructor_only(api_caller(request))
        if not store.revoke_student(db(), sid):
            raise ApiError(404, "no student %s" % one_line(sid)[:70])
        return {"student": sid, "revoked": True}

    # ---- the pages ----

    @app.get("/login", response_class=HTMLResponse)
    def login_page():
        return page("login.html", {"who": None, "error": None})

    @app.post("/login")
    async def login(request: Request):
        body = await read_capped(request, MAX_REQUEST_BYTES, lambda n: "a login form of %d bytes "
                                 "is over the limit of %d bytes" % (n, MAX_REQUEST_BYTES))
        form = urllib.parse.parse_qs(body.decode("utf-8", errors="replace"))
        token = (form.get("token") or [""])[0].strip()
        who = await run_in_threadpool(lambda: store.authenticate(db(), token)) if token else None
        if who is None:
            if wants_html(request):
                return page("login.html", {"who": None,
                                           "error": "That token is unknown or was revoked."},
                            status=401)
            raise ApiError(401, UNKNOWN_TOKEN)
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(COOKIE, token, max_age=COOKIE_MAX_AGE, path="/", httponly=True,
                            samesite="strict")
        return response

    @app.post("/logout")
    def logout():
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(COOKIE, path="/")
        return response

    def common(who):
        return {"who": who, "labs": labs_all}

    def class_page(who):
        view = class_view()
        conn = db()
        return page("class.html", dict(common(who), students=view["students"],
                                       queue=view["queue"], health=health(),
                                       deadlines=view["deadlines"],
                                       workers=store.list_workers(conn)))

    @app.get("/")
    def home(request: Request):
        who = page_caller(request)
        if who is None:
            return RedirectResponse("/login", status_code=303)
        if who["instructor"]:
            return class_page(who)
        rows = store.list_submissions(db(), who["student"])
        return page("student.html", dict(common(who), submissions=briefs(rows, who),
                                         submission=None))

    @app.get("/submissions/{sub_id}")
    def submission_page(sub_id: str, request: Request):
        who = page_caller(request)
        if who is None:
            return RedirectResponse("/login", status_code=303)
        return page("student.html", dict(common(who), submissions=None,
                                         submission=detail(submission_row(sub_id, who))))

    @app.get("/class")
    def class_route(request: Request):
        who = page_caller(request)
        if who is None:
            return RedirectResponse("/login", status_code=303)
        instructor_only(who)
        return class_page(who)

    @app.get("/leaderboard")
    def leaderboard_index(request: Request):
        who = page_caller(request)
        if who is None:
            return RedirectResponse("/login", status_code=303)
        return RedirectResponse("/leaderboard/%s" % labs_all[0], status_code=303)

    @app.get("/leaderboard/{lab}")
    def leaderboard_page(lab: str, request: Request):
        who = page_caller(request)
        if who is None:
            return RedirectResponse("/login", status_code=303)
        return page("leaderboard.html", dict(common(who), board=board(lab, who),
                                             lab_names=lab_names))

    @app.post("/leaderboard/opt")
    async def leaderboard_opt_form(request: Request):
        """The page's button: the form's opt_in (1 or 0), then back to the form's lab."""
        who = await run_in_threadpool(page_caller, request)
        if who is None:
            return RedirectResponse("/login", status_code=303)
        body = await read_capped(request, MAX_REQUEST_BYTES, lambda n: "a form of %d bytes is "
                                 "over the limit of %d bytes" % (n, MAX_REQUEST_BYTES))
        form = urllib.parse.parse_qs(body.decode("utf-8", errors="replace"))
        choice = (form.get("opt_in") or [""])[0]
        lab = (form.get("lab") or [""])[0]
        if choice not in ("0", "1"):
            raise ApiError(400, "opt_in must be 1 or 0")
        await run_in_threadpool(set_opt_in, who, choice == "1")
        return RedirectResponse("/leaderboard/%s" % (lab if lab in known else labs_all[0]),
                                status_code=303)

    @app.get("/static/style.css")
    def style():
        with open(os.path.join(HERE, "static", "style.css"), "rb") as f:
            return Response(f.read(), media_type="text/css")

    return app


# ---- The workers ------------------------------------------------------------------------------


class Supervisor:
    """Starts one worker process per slot (a GPU, or None), restarts one that dies (at once the
    first time, then waiting longer while it keeps dying early) and stops them."""

    def __init__(self, data, args, slots):
        self.data, self.args = data, args
        # slots: (gpu, lock) pairs (workers.worker_plan): the lock shared by the workers of a GPU
        self.slots = [{"gpu": g, "gpu_lock": lock, "proc": None, "started": 0.0, "failures": 0,
                       "next": 0.0} for g, lock in slots]
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.host = socket.gethostname().split(".")[0]

    def say(self, text):
        print("serve: %s" % text, file=sys.stderr, flush=True)

    def command(self, gpu, gpu_lock=None):
        cmd = [sys.executable, "-m", "grader.classroom.worker", "--data", self.data,
               "--preset", self.args.preset, "--timeout", str(self.args.lab_timeout),
               "--lease", str(self.args.lease)]
        if self.args.allow_uncounted:
            cmd.append("--allow-uncounted")
        if self.args.work:
            cmd += ["--work", os.path.abspath(self.args.work)]
        if gpu is not None:
            cmd += ["--gpu", gpu]
        if gpu_lock is not None:
            cmd += ["--gpu-lock", gpu_lock]
        return cmd

    def spawn(self, slot):
        env = dict(os.environ)
        if slot["gpu"] is not None:
            env["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"
            env["CUDA_VISIBLE_DEVICES"] = slot["gpu"]
        env["CUDALAB_SERVICE_PID"] = str(os.getpid())  # the worker stops when this one is gone
        env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        # A session of its own: what it leaves running when it dies (a build, a grade's checks)
        # is in its process group, which reap() kills.
        slot["proc"] = subprocess.Popen(self.command(slot["gpu"], slot["gpu_lock"]), cwd=ROOT,
                                        env=env, start_new_session=True)
        slot["started"] = time.time()
        self.say("worker %d started%s" % (slot["proc"].pid, "" if slot["gpu"] is None else
                                          " on GPU " + slot["gpu"]))

    def reap(self, slot):
        proc = slot["proc"]
        slot["proc"] = None
        worker.kill_session(proc.pid)  # the builds and grades it left running
        try:
            conn = store.connect(worker.db_path(self.data))
            store.worker_gone(conn, "%s:%d" % (self.host, proc.pid))
            conn.close()
        except Exception:
            pass
        # A worker that ran a while is restarted at once; one that keeps dying early (its build
        # fails, the database cannot be opened) waits longer each time, up to 5 minutes.
        if time.time() - slot["started"] > 120:
            slot["failures"] = 0
        slot["failures"] += 1
        delay = 0 if slot["failures"] == 1 else min(300, 2 ** slot["failures"])
        slot["next"] = time.time() + delay
        self.say("worker %d ended (exit code %s); restarting it%s" % (
            proc.pid, proc.returncode, " in %d s" % delay if delay else ""))

    def loop(self):
        while not self.stopping.is_set():
            for slot in self.slots:
                proc = slot["proc"]
                if proc is not None and proc.poll() is not None:
                    self.reap(slot)
                if slot["proc"] is None and time.time() >= slot["next"] and not self.stopping.is_set():
                    try:
                        self.spawn(slot)
                    except OSError as e:
                        self.say("cannot start a worker: %s" % e)
                        slot["next"] = time.time() + 30
            self.stopping.wait(1.0)

    def start(self):
        self.thread.start()

    def stop(self, grace=20):
        """SIGTERM to each worker (it gives its job back to the queue), SIGKILL to what is left
        after GRACE seconds."""
        self.stopping.set()
        self.thread.join()
        procs = [s["proc"] for s in self.slots if s["proc"] is not None]
        for p in procs:
            try:
                os.kill(p.pid, signal.SIGTERM)
            except OSError:
                pass
        end = time.time() + grace
        for p in procs:
            try:
                p.wait(max(0.1, end - time.time()))
            except subprocess.TimeoutExpired:
                pass
            worker.kill_session(p.pid)
            p.poll()


def worker_slots(args, data):
    """(gpu, lock) of each worker to start: --gpus, else one per GPU (CUDA_VISIBLE_DEVICES's,
    else nvidia-smi's), else one without a GPU; --per-gpu N puts N on each GPU, sharing its lock
    (workers.worker_plan); --workers N takes the first N (without a GPU, N)."""
    gpus = workers.worker_gpus(args.gpus, workers.detect_gpus(), os.environ.get("CUDA_VISIBLE_DEVICES"))
    work = os.path.abspath(args.work) if args.work else os.path.join(data, "work")
    plan = workers.worker_plan(gpus, args.per_gpu, work)
    if args.workers is None:
        return plan
    if gpus == [None]:
        return [(None, None)] * args.workers
    if args.workers > len(plan):
        raise UsageError("--workers %d: this machine has %d GPU(s), and %d worker(s) share one "
                         "(--per-gpu)" % (args.workers, len(gpus), args.per_gpu))
    return plan[: args.workers]


def parse(argv):
    p = argparse.ArgumentParser(prog="cudalab serve", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True, help="the service's folder: database, uploads, "
                   "results, seed, tokens (made when missing; keep it private)")
    p.add_argument("--port", type=int, default=8408, help="default 8408 (0: any free port)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    w = p.add_mutually_exclusive_group()
    w.add_argument("--workers", type=int, help="worker processes (default one per GPU, one "
                   "without a GPU; 0: none, grade with python3 -m grader.classroom.worker)")
    w.add_argument("--gpus", help="the GPUs to grade on, one worker each, e.g. 0,1")
    p.add_argument("--per-gpu", type=int, default=1, metavar="N",
                   help="workers per GPU (default 1): their untimed checks and builds side by "
                   "side, each one's timed checks with nothing else on the GPU (a lock file per "
                   "GPU in the workers' folder)")
    w.add_argument("--slurm", action="store_true", help="grade on a Slurm cluster: each "
                   "submission a job of one GPU, running the worker on a node that sees DIR and "
                   "this repository at the same paths (no worker here)")
    p.add_argument("--partition", help="--slurm: the jobs' partition (default: the cluster's)")
    p.add_argument("--max-jobs", type=int, default=0, help="--slurm: at most K jobs queued or "
                   "running at once (default 0: one per queued submission)")
    p.add_argument("--time", type=int, help="--slurm: each job's time limit in minutes "
                   "(default 75: the worker's build and grade limits, and a first build of the "
                   "framework on a node)")
    p.add_argument("--slurm-retries", type=int, default=1, help="--slurm: how many times a "
                   "submission whose job ended without a verdict (scancel, time limit, node "
                   "failure) is submitted again before that is its verdict (default 1)")
    p.add_argument("--lab-timeout", type=int, default=120, help="seconds per check (default 120)")
    p.add_argument("--allow-uncounted", action="store_true",
                   help="grade even where the GPU's performance counters cannot be read (the "
                   "technique checks are then not verified; by default such a grade is no "
                   "verdict: the submission gets an error naming the cause)")
    p.add_argument("--preset", default=os.environ.get("CUDALAB_PRESET", "default"),
                   help="CMake preset of the workers' builds (default: CUDALAB_PRESET or default)")
    p.add_argument("--work", help="where the workers' folders are (default DIR/work)")
    p.add_argument("--max-upload-bytes", type=int, default=DEFAULTS["max_upload_bytes"],
                   help="largest upload (default 1 MiB)")
    p.add_argument("--per-hour", type=int, default=DEFAULTS["per_hour"],
                   help="submissions per student per hour (default 20)")
    p.add_argument("--gpu-seconds-per-day", type=int, default=DEFAULTS["gpu_seconds_per_day"],
                   help="build and grade seconds per student in 24 h (default 1800)")
    p.add_argument("--lease", type=int, default=store.LEASE_S,
                   help="seconds before a killed worker's submission is graded again "
                        "(default %d)" % store.LEASE_S)
    p.add_argument("--deadlines", help="CSV lab,deadline (ISO 8601 with a timezone, e.g. "
                   "01,2026-12-05T23:59:00Z): the submission that counts is the last one before "
                   "its lab's deadline (read again when the file changes)")
    args = p.parse_args(argv)
    for name in ("lab_timeout", "max_upload_bytes", "per_hour", "gpu_seconds_per_day", "lease"):
        if getattr(args, name) < 1:
            p.error("--%s must be at least 1" % name.replace("_", "-"))
    if not 1 <= args.per_gpu <= 16:
        p.error("--per-gpu must be from 1 to 16")
    if args.workers is not None and args.workers < 0:
        p.error("--workers must be at least 0")
    if not args.slurm:
        for name in ("partition", "time"):
            if getattr(args, name) is not None:
                p.error("--%s goes with --slurm" % name)
        if args.max_jobs or args.slurm_retries != 1:
            p.error("--max-jobs and --slurm-retries go with --slurm")
    if args.max_jobs < 0 or args.slurm_retries < 0:
        p.error("--max-jobs and --slurm-retries must be at least 0")
    if args.time is not None and args.time < 1:
        p.error("--time must be at least 1 (minutes)")
    if not 0 <= args.port <= 65535:
        p.error("--port must be 0 to 65535")
    return args


def main(argv):
    args = parse(argv)
    data = os.path.abspath(args.data)
    try:
        if args.slurm:
            service_slurm.check_cluster(args.partition)
        else:
            slots = worker_slots(args, data)
        if args.deadlines:
            args.deadlines = os.path.abspath(args.deadlines)
            deadline_rules.read_deadlines(args.deadlines, submissions.student_files(ROOT))
    except (UsageError, deadline_rules.DeadlineError) as e:
        print("serve: error: %s" % e, file=sys.stderr)
        return 2
    # The socket first: a port in use is one line, before any worker starts.
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as e:
        print("serve: error: cannot listen on %s:%d: %s" % (args.host, args.port, e.strerror),
              file=sys.stderr)
        return 2
    sock.listen(128)
    sock.set_inheritable(False)
    app = make_app(data, args)
    port = sock.getsockname()[1]
    print("serve: http://%s:%d/ (data %s; the instructor's token is in %s)" % (
        args.host if family == socket.AF_INET else "[%s]" % args.host, port, data,
        os.path.join(data, "instructor-token")), file=sys.stderr, flush=True)
    supervisor = dispatcher = None
    if args.slurm:
        try:
            dispatcher = service_slurm.Dispatcher(data, args)
        except UsageError as e:
            print("serve: error: %s" % e, file=sys.stderr)
            return 2
        print("serve: grading on Slurm: a job of one GPU per submission%s%s (the jobs' logs: %s)"
              % (" in partition " + args.partition if args.partition else "",
                 ", at most %d at once" % args.max_jobs if args.max_jobs else "",
                 dispatcher.logs), file=sys.stderr, flush=True)
        dispatcher.start()
    elif args.workers != 0:
        supervisor = Supervisor(data, args, slots)
        print("serve: %d worker(s)%s" % (len(slots), "" if slots[0] is not None else
                                         " (no GPU: GPU checks are reported as skipped)"),
              file=sys.stderr, flush=True)
        supervisor.start()
    import uvicorn
    config = uvicorn.Config(app, log_level="info", access_log=True, timeout_keep_alive=5)
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])  # until SIGINT or SIGTERM
    finally:
        if supervisor is not None:
            print("serve: stopping the workers", file=sys.stderr, flush=True)
            supervisor.stop()
        if dispatcher is not None:
            left = dispatcher.stop()
            if left:
                print("serve: %d Slurm job(s) left queued or running: they grade on, and the "
                      "next start collects them" % left, file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
