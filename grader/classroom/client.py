#!/usr/bin/env python3
"""The student's client of the course's grading service (./cudalab login, submit, submissions,
leaderboard).

    ./cudalab login --server URL --token T     check the token and keep it
    ./cudalab submit [--lab NN[,MM]] [--no-wait]
                                               hand in lab files, wait for the verdict
    ./cudalab submissions                      the submissions handed in, newest first
    ./cudalab leaderboard [--opt-in | --opt-out] [--lab NN]
                                               show your name on the leaderboards or not (default
                                               not), or a lab's leaderboard

Run from the repository root (the student's checkout or their release): ./cudalab sets
PYTHONPATH and the folder. Only the standard library, so that students install nothing.

The credentials live in $CUDALAB_CONFIG_DIR/service.json (default ~/.config/cudalab/), mode
0600: {"server": URL, "token": T}. What is handed in is a gzip'ed tar of the labs' student files
at their repository paths (each lab's one .cu file, as ./cudalab batch finds them, and its
report.md when there is one), nothing else; by default the labs whose file differs from the
committed skeleton. The service grades it as ./cudalab grade would (its table, its exit code).

Exit codes: what the grade exited with once the verdict is in (0: no check failed), 0 for
--no-wait, login and submissions; 2 bad usage or a request the service refused (its reason, one
line); 3 the service cannot be reached or answered something it should not. Every failure is one
line on stderr, never a traceback.
"""

import argparse
import datetime
import gzip
import http.client
import io
import json
import os
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.parse
import urllib.request

from grader.classroom import base, submissions

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIG_NAME = "service.json"
REPORT_NAME = "report.md"  # labs/NN-name/report.md: handed in beside the lab file when present
REQUEST_TIMEOUT = 30  # seconds for one request
POLL_SECONDS = 1.0  # how often a waiting client asks
# While it waits, a client that loses the service (it restarts, the network drops) asks again for
# this long before it gives up: the submission is kept on the server either way.
RECONNECT_SECONDS = 180
LOGIN_HINT = "./cudalab login --server URL --token T"


class UsageError(Exception):
    """Bad usage or a refusal: one line on stderr, exit code 2."""


class Unreachable(Exception):
    """The service cannot be reached, or answered what it should not: one line, exit code 3."""


class Refused(UsageError):
    """The service answered with a 4xx: its error text (status: the HTTP status)."""

    def __init__(self, status, text):
        super().__init__(text)
        self.status = status


# ---- Which files -----------------------------------------------------------------------------


def lab_files(root):
    """{lab id: repo-relative path of its .cu file}: submissions.student_files, the one list of
    the labs' student files (from CMakeLists.txt), shared with the batch and the service."""
    try:
        return submissions.student_files(root)
    except OSError as e:
        raise UsageError("cannot read %s (%s): run it from the repository's root" %
                         (os.path.join(root, "CMakeLists.txt"), e.strerror))
    except base.UsageError as e:
        raise UsageError(str(e))


def parse_labs(text, known):
    """The lab ids --lab names ("01,02"; NN, NN-name or name, as ./cudalab grade takes them)."""
    chosen = []
    for want in [w.strip() for w in text.split(",")]:
        if not want:
            continue
        match = [lab for lab, rel in known.items()
                 if want in (lab, rel.split("/")[1], rel.split("/")[1][3:])]
        if not match:
            raise UsageError("unknown lab '%s' (labs: %s)" % (want, ", ".join(sorted(known))))
        if match[0] not in chosen:
            chosen.append(match[0])
    if not chosen:
        raise UsageError("--lab: no lab named")
    return sorted(chosen)


def is_git_checkout(root):
    """True when ROOT is the top of a git checkout with a commit (a release unpacked from an
    archive, or a copy, is not: there every lab is handed in)."""
    try:
        r = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel", "HEAD"],
                           capture_output=True, text=True)
    except OSError:  # no git at all
        return False
    if r.returncode != 0:
        return False
    top = r.stdout.splitlines()[0]
    return os.path.realpath(top) == os.path.realpath(root)


def changed_labs(root, known):
    """The labs whose file differs from the committed skeleton; every lab outside a checkout."""
    if not is_git_checkout(root):
        return sorted(known)
    changed = []
    for lab, rel in sorted(known.items()):
        # 0: the same as HEAD; 1: differs; anything else (git cannot tell): handed in.
        r = subprocess.run(["git", "-C", root, "diff", "--quiet", "HEAD", "--", rel],
                           capture_output=True)
        if r.returncode != 0:
            changed.append(lab)
    return changed


def submission_files(root, labs, known):
    """[repo-relative paths] handed in for LABS: each lab's file, and its report.md if there."""
    files = []
    for lab in labs:
        rel = known[lab]
        if not os.path.isfile(os.path.join(root, rel)):
            raise UsageError("%s: no such file (lab %s)" % (rel, lab))
        files.append(rel)
        report = os.path.dirname(rel) + "/" + REPORT_NAME
        if os.path.isfile(os.path.join(root, report)):
            files.append(report)
    return files


def make_archive(root, files):
    """The gzip'ed tar of FILES (repo-relative) at their repository paths, nothing else: regular
    file members only, no owner, the same bytes for the same files (mtime 0), so that the
    service can tell an identical hand-in."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for rel in files:
            with open(os.path.join(root, rel), "rb") as f:
                data = f.read()
            info = tarfile.TarInfo(rel)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue(), mtime=0)


# ---- The credentials -------------------------------------------------------------------------


def config_path():
    folder = os.environ.get("CUDALAB_CONFIG_DIR") or os.path.join(
        os.path.expanduser("~"), ".config", "cudalab")
    return os.path.join(folder, CONFIG_NAME)


def save_config(server, token):
    """Writes the credentials, mode 0600 from the start (the token is a password), the folder
    0700 when it is made."""
    path = config_path()
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    tmp = path + ".partial"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # an older file of another mode keeps its mode through O_CREAT
    with os.fdopen(fd, "w") as f:
        json.dump({"server": server, "token": token}, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)
    return path


def load_config():
    """(server, token); a UsageError when there is no login yet."""
    path = config_path()
    try:
        with open(path) as f:
            config = json.load(f)
        return config["server"], config["token"]
    except FileNotFoundError:
        raise UsageError("not logged in: run " + LOGIN_HINT)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise UsageError("%s is unreadable (%s): run %s again" % (path, e, LOGIN_HINT))


def check_server(url):
    """The service's base URL, without a trailing slash."""
    url = url.strip().rstrip("/")
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UsageError("--server %s: not a URL of the service (http://host:port or https://...)"
                         % url)
    return url


# ---- HTTP ------------------------------------------------------------------------------------


def request(server, token, method, path, body=None, content_type=None):
    """The JSON the service answers to METHOD PATH; Refused for a 4xx (with its error text),
    Unreachable when it cannot be reached or answers something else."""
    req = urllib.request.Request(server + path, data=body, method=method)
    if token is not None:
        req.add_header("Authorization", "Bearer " + token)
    if content_type:
        req.add_header("Content-Type", content_type)
    req.add_header("Accept", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=REQUEST_TIMEOUT) as r:
            data = r.read()
    except urllib.error.HTTPError as e:
        try:
            text = json.loads(e.read().decode()).get("error")
        except (OSError, ValueError, AttributeError):
            text = None
        text = " ".join(str(text or e.reason or "no reason given").split())  # one line
        if 400 <= e.code < 500:
            raise Refused(e.code, text)
        raise Unreachable("%s answered %d: %s" % (server, e.code, text))
    except urllib.error.URLError as e:
        raise Unreachable("cannot reach %s: %s" % (server, getattr(e.reason, "strerror", None)
                                                  or e.reason))
    except (OSError, ValueError, http.client.HTTPException) as e:  # a reset, a timeout, a cut
        raise Unreachable("cannot reach %s: %s" % (server, getattr(e, "strerror", None) or e))
    try:
        answer = json.loads(data.decode())
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        raise Unreachable("%s answered %s %s with something else than a JSON object: is it the "
                          "course's grading service?" % (server, method, path.split("?")[0]))
    return answer


def refused_text(e):
    if e.status == 401:
        return "%s (log in again: %s)" % (e, LOGIN_HINT)
    return str(e)


# ---- Wording ---------------------------------------------------------------------------------


def ordinal(n):
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 22nd, 101st, 111th."""
    if n % 100 in (11, 12, 13):
        return "%dth" % n
    return "%d%s" % (n, {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th"))


def duration(seconds):
    seconds = max(0, int(round(seconds)))
    if seconds < 120:
        return "%d s" % seconds
    if seconds < 7200:
        return "%d min" % round(seconds / 60)
    return "%.1f h" % (seconds / 3600)


def status_line(sub, running_for=None):
    """One line of what a submission waits for: "submission 12: 2nd in the queue, about 30 s",
    "submission 12: grading (15 s so far)"."""
    head = "submission %s: " % sub.get("id")
    if sub.get("state") == "running":
        return head + "grading (%s so far)" % duration(running_for or 0)
    position, eta = sub.get("position"), sub.get("eta_s")
    if isinstance(position, int) and position > 0:
        text = head + "%s in the queue" % ordinal(position)
    else:
        text = head + "queued"
    if isinstance(eta, (int, float)):
        text += ", about %s" % duration(eta)
    return text


def points_text(value):
    return "?" if value is None else "%g" % value


def labs_text(labs):
    return ",".join(labs) if isinstance(labs, list) else str(labs or "")


def parse_time(value):
    """A time the service gave, in seconds since the epoch: a number already, or an ISO 8601 text
    ("2026-11-28T10:00:00Z", UTC when it names no offset); None if neither."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, str):
        return None
    try:
        t = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (t if t.tzinfo else t.replace(tzinfo=datetime.timezone.utc)).timestamp()


def when_text(value):
    """A time the service gave, as the student's local time ("2026-11-28 10:00")."""
    t = parse_time(value)
    if t is None:
        return str(value or "")
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t))


class StatusLine:
    """Prints the status lines: on a terminal one line, rewritten in place; otherwise a line each
    time the state or the place in the queue changes (not for each second that passes)."""

    def __init__(self, out):
        self.out = out
        self.tty = out.isatty()
        self.shown = ""  # the line on the terminal now
        self.key = None

    def show(self, line, key):
        if self.tty:
            if line != self.shown:
                self.out.write("\r\033[K" + line)
                self.out.flush()
                self.shown = line
        elif key != self.key:
            self.out.write(line + "\n")
            self.out.flush()
        self.key = key

    def clear(self):
        if self.tty and self.shown:
            self.out.write("\r\033[K")
            self.out.flush()
            self.shown = ""


# ---- Commands --------------------------------------------------------------------------------


def cmd_login(args):
    server = check_server(args.server)
    token = args.token.strip()
    if not token:
        raise UsageError("--token: empty")
    try:
        me = request(server, token, "GET", "/api/me")
    except Refused as e:
        if e.status == 401:
            raise UsageError("%s refused the token: %s" % (server, e))
        raise
    save_config(server, token)
    print("logged in to %s as %s (%s)" % (server, me.get("student"), me.get("name")))
    return 0


def cmd_submit(args, root=ROOT, out=None):
    out = out or sys.stdout
    known = lab_files(root)
    if args.lab is not None:
        labs = parse_labs(args.lab, known)
    else:
        labs = changed_labs(root, known)
        if not labs:
            raise UsageError("nothing to hand in: no lab file differs from the committed "
                             "skeleton (name labs with --lab 01,02)")
    server, token = load_config()
    body = make_archive(root, submission_files(root, labs, known))
    try:
        sub = request(server, token, "POST", "/api/submissions?labs=" + ",".join(labs), body,
                      "application/gzip")
    except Refused as e:
        raise UsageError(refused_text(e))
    if not isinstance(sub.get("id"), int):
        raise Unreachable("%s answered the submission without its id" % server)
    page = server + sub.get("url", "/submissions/%s" % sub.get("id"))
    if args.no_wait:
        print("%s; its page: %s" % (status_line(sub), page), file=out)
        return 0
    return wait(server, token, sub, page, out)


def wait(server, token, sub, page, out):
    """Shows the submission's place in the queue, then its grading, until it is done; prints its
    table and points; returns the grade's exit code."""
    status = StatusLine(out)
    seen_running = None  # when this client first saw it running (its own clock)
    lost_since = None
    while sub.get("state") != "done":
        if sub.get("state") == "running":
            now = time.time()
            if seen_running is None:
                seen_running = now
            started = parse_time(sub.get("started_at"))
            elapsed = now - seen_running
            if started is not None:  # the service's clock: right even when it started earlier
                since = now - started
                if elapsed <= since < 86400:
                    elapsed = since
            status.show(status_line(sub, elapsed), ("running",))
        else:
            status.show(status_line(sub), ("queued", sub.get("position")))
        time.sleep(POLL_SECONDS)
        try:
            sub = request(server, token, "GET", "/api/submissions/%s" % sub["id"])
            lost_since = None
        except Refused as e:
            status.clear()
            raise UsageError(refused_text(e))
        except Unreachable as e:
            # A restart of the service, a network hiccup: the submission is kept there.
            lost_since = lost_since or time.time()
            if time.time() - lost_since > RECONNECT_SECONDS:
                status.clear()
                raise Unreachable("%s (submission %s is kept: ./cudalab submissions shows it)" %
                                  (e, sub["id"]))
    status.clear()
    console = sub.get("console") or ""
    out.write(console if console.endswith("\n") or not console else console + "\n")
    if sub.get("error"):
        out.write("submission %s: %s\n" % (sub["id"], " ".join(str(sub["error"]).split())))
    late = after_deadline_labs(sub)
    if late:
        out.write("submission %s: lab(s) %s handed in after the deadline: graded, but it does not "
                  "count for the grade\n" % (sub["id"], ", ".join(late)))
    out.write("submission %s: %s/%s points; its page: %s\n" % (
        sub["id"], points_text(sub.get("points")), points_text(sub.get("max_points")), page))
    out.flush()
    code = sub.get("exit_code")
    return code if isinstance(code, int) and 0 <= code < 256 else 1


def after_deadline_labs(sub):
    """The labs the service says SUB was handed in after the deadline of."""
    late = sub.get("after_deadline")
    if not isinstance(late, dict):
        return []
    return sorted(str(lab) for lab, after in late.items() if after is True)


def cmd_leaderboard(args, root=ROOT, out=None):
    out = out or sys.stdout
    lab = None
    if args.lab is not None:
        labs = parse_labs(args.lab, lab_files(root))
        if len(labs) != 1:
            raise UsageError("--lab: name one lab")
        lab = labs[0]
    server, token = load_config()
    try:
        if args.opt_in or args.opt_out:
            answer = request(server, token, "POST", "/api/me/leaderboard",
                             json.dumps({"opt_in": bool(args.opt_in)}).encode(),
                             "application/json")
            if answer.get("opt_in") is True:
                print("your name is shown on the leaderboards (./cudalab leaderboard --opt-out "
                      "hides it)", file=out)
            else:
                print("your name is not shown on the leaderboards: others see your rows as "
                      "anonymous", file=out)
        elif lab is None:
            me = request(server, token, "GET", "/api/me")
            print("your name is %sshown on the leaderboards (--opt-in, --opt-out; --lab NN shows "
                  "a lab's; its page: %s/leaderboard)" % ("" if me.get("leaderboard") else "not ",
                                                         server), file=out)
        if lab is not None:
            board = request(server, token, "GET", "/api/leaderboard/%s" % lab)
            show_board(board, server, out)
    except Refused as e:
        raise UsageError(refused_text(e))
    return 0


def show_board(board, server, out):
    rows = board.get("rows") or []
    head = "lab %s leaderboard" % board.get("lab")
    if board.get("deadline"):
        head += " (deadline %s)" % when_text(board["deadline"])
    print(head + ": %s/leaderboard/%s" % (server, board.get("lab")), file=out)
    if not rows:
        print("no submission of this lab has passed every check yet", file=out)
        return
    table = [("rank", "r", "student")]
    for r in rows:
        ratio = r.get("r")
        table.append((str(r.get("rank")), "%.3f" % ratio if isinstance(ratio, (int, float))
                      else "?", str(r.get("name"))))
    widths = [max(len(t[i]) for t in table) for i in range(2)]
    for t in table:
        print("  ".join([t[0].rjust(widths[0]), t[1].rjust(widths[1]), t[2]]), file=out)


def cmd_submissions(args, out=None):
    out = out or sys.stdout
    server, token = load_config()
    try:
        subs = request(server, token, "GET", "/api/submissions").get("submissions", [])
    except Refused as e:
        raise UsageError(refused_text(e))
    if not subs:
        print("no submissions yet (./cudalab submit hands in the labs you changed)", file=out)
        return 0
    subs = sorted(subs, key=lambda s: s.get("id") or 0, reverse=True)
    rows = [("id", "labs", "state", "points", "when", "page")]
    for s in subs:
        points = ("%s/%s" % (points_text(s.get("points")), points_text(s.get("max_points")))
                  if s.get("state") == "done" else "")
        rows.append((str(s.get("id")), labs_text(s.get("labs")), str(s.get("state")), points,
                     when_text(s.get("created_at")),
                     server + (s.get("url") or "/submissions/%s" % s.get("id"))))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1], file=out)
    return 0


# ---- Options ---------------------------------------------------------------------------------


class Parser(argparse.ArgumentParser):
    """argparse, with a usage error as one line (argparse prints its usage, then the error)."""

    def error(self, message):
        raise UsageError(message)


def parse(argv):
    p = Parser(prog="cudalab", description="the course's grading service, for students")
    sub = p.add_subparsers(dest="command", metavar="{login,submit,submissions,leaderboard}",
                           parser_class=Parser)
    login = sub.add_parser("login", prog="cudalab login",
                           help="check the token the instructor gave you and keep it")
    login.add_argument("--server", required=True, help="the service's URL, e.g. https://host")
    login.add_argument("--token", required=True, help="your token")
    submit = sub.add_parser("submit", prog="cudalab submit",
                            help="hand in lab files and wait for the verdict")
    submit.add_argument("--lab", help="the labs to hand in, e.g. 01,02 (default: those whose "
                        "file differs from the committed skeleton; every lab outside a git "
                        "checkout)")
    submit.add_argument("--no-wait", action="store_true",
                        help="only hand in; ./cudalab submissions shows the verdict later")
    sub.add_parser("submissions", prog="cudalab submissions",
                   help="your submissions, newest first")
    board = sub.add_parser("leaderboard", prog="cudalab leaderboard",
                           help="show your name on the leaderboards or not, or see one")
    choice = board.add_mutually_exclusive_group()
    choice.add_argument("--opt-in", action="store_true",
                        help="show your name on your rows of the leaderboards")
    choice.add_argument("--opt-out", action="store_true",
                        help="show your rows as anonymous (the default)")
    board.add_argument("--lab", help="show this lab's leaderboard, e.g. 01")
    # A token may begin with "-" (secrets.token_urlsafe's alphabet has it), which argparse would
    # take for an option: the value after --token (or --server) is joined to it.
    joined, rest = [], list(argv)
    while rest:
        arg = rest.pop(0)
        if arg in ("--token", "--server") and rest:
            arg += "=" + rest.pop(0)
        joined.append(arg)
    args = p.parse_args(joined)
    if args.command is None:
        raise UsageError("no command (login, submit, submissions, leaderboard)")
    return args


def main(argv):
    command = argv[0] if argv and not argv[0].startswith("-") else None
    prog = "cudalab" + (" " + command if command in ("login", "submit", "submissions",
                                                      "leaderboard") else "")
    try:
        args = parse(argv)
        if args.command == "login":
            return cmd_login(args)
        if args.command == "submit":
            return cmd_submit(args)
        if args.command == "leaderboard":
            return cmd_leaderboard(args)
        return cmd_submissions(args)
    except UsageError as e:
        print("%s: error: %s" % (prog, e), file=sys.stderr)
        return 2
    except Unreachable as e:
        print("%s: error: %s" % (prog, e), file=sys.stderr)
        return 3
    except OSError as e:  # a file it cannot read or write: one line, not a traceback
        where = ": %s" % e.filename if e.filename else ""
        print("%s: error: %s%s" % (prog, e.strerror or e, where), file=sys.stderr)
        return 2
    except Exception as e:  # a bug here or an answer of a shape not foreseen: still one line
        print("%s: error: %s: %s" % (prog, type(e).__name__, e), file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        print("\n%s: interrupted (a submission handed in is kept: ./cudalab submissions)" % prog,
              file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
