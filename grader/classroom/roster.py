"""The class list of the grading service, and its tokens.

    python3 -m grader.classroom.roster import roster.csv --data DIR [--reissue]
    python3 -m grader.classroom.roster revoke ID --data DIR

roster.csv has a header row and the columns id,name[,email] (any order, other columns ignored);
an id is 1 to 64 of A-Z a-z 0-9 . _ -. Import gives each new student a token
(secrets.token_urlsafe(24)); the database keeps only its sha256. The tokens made are written once,
to DIR/tokens-YYYYmmdd-HHMMSS.csv (id,name,token; mode 0600), for the instructor to hand out:
they cannot be shown again, only reissued (--reissue: every student of the file gets a new one,
the old stops working). A student already there keeps their token and gets the name and email of
the file. Revoke stops a student's token at once; their submissions stay.

The instructor's token is made on the first import (or the first `./cudalab serve`) when
DIR/instructor-token does not exist: plain text there (mode 0600), hashed in the database.
Delete the file and run either again to replace it.
"""

import argparse
import csv
import os
import re
import sys
import time

from grader.classroom import store, worker

ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


class RosterError(Exception):
    """A bad roster or command line: one line on stderr, exit code 2."""


def valid_id(sid):
    # "." and ".." match the pattern but are folder names of their own.
    return bool(ID.fullmatch(sid)) and sid not in (".", "..")


def ensure_instructor_token(conn, data):
    """DIR/instructor-token, made (0600) when missing, and its hash in the database; returns
    (path, True when it was made now)."""
    path = os.path.join(data, "instructor-token")
    made = False
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        fd = None
    if fd is not None:
        token = store.new_token()
        with os.fdopen(fd, "w") as f:
            f.write(token + "\n")
            f.flush()
            os.fsync(f.fileno())
        made = True
    with open(path) as f:
        token = f.read().strip()
    if not token:
        raise RosterError("%s is empty: delete it to make a new instructor token" % path)
    if not store.is_instructor_token(conn, token):
        store.set_instructor_token(conn, token)
    return path, made


def read_roster(path):
    """[(id, name, email or None)] of the CSV file; a RosterError for a malformed one (nothing
    is imported then)."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            rows = list(csv.reader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise RosterError("cannot read %s: %s" % (path, e))
    if not rows:
        raise RosterError("%s is empty: it needs a header row id,name[,email]" % path)
    header = [h.strip().lower() for h in rows[0]]
    if "id" not in header or "name" not in header:
        raise RosterError("%s: the first row must be the header id,name[,email] (it is %s)" %
                          (path, ",".join(rows[0])))
    col = {name: header.index(name) for name in ("id", "name", "email") if name in header}
    students, seen = [], {}
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        cells = [c.strip() for c in row] + [""] * len(header)
        sid, name = cells[col["id"]], cells[col["name"]]
        email = cells[col["email"]] if "email" in col else ""
        if not valid_id(sid):
            raise RosterError("%s line %d: id %r is not 1 to 64 of A-Z a-z 0-9 . _ -" %
                              (path, number, sid))
        if sid in seen:
            raise RosterError("%s line %d: id %s is on line %d too" % (path, number, sid, seen[sid]))
        if not name:
            raise RosterError("%s line %d: student %s has no name" % (path, number, sid))
        seen[sid] = number
        students.append((sid, name, email or None))
    if not students:
        raise RosterError("%s lists no student" % path)
    return students


def write_tokens(data, rows):
    """DIR/tokens-<time>.csv (0600): id,name,token; returns its path."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = os.path.join(data, "tokens-%s.csv" % stamp)
    n = 1
    while os.path.exists(path):  # two imports in one second
        n += 1
        path = os.path.join(data, "tokens-%s-%d.csv" % (stamp, n))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["id", "name", "token"])
        w.writerows(rows)
    return path


def import_roster(data, path, reissue=False, out=sys.stdout):
    students = read_roster(path)
    worker.prepare_data_dir(data)
    conn = store.connect(worker.db_path(data))
    ensure_instructor_token(conn, data)
    tokens, added, kept, revoked = [], 0, 0, []
    for sid, name, email in students:
        new = store.upsert_student(conn, sid, name, email)
        added += new
        row = store.get_student(conn, sid)
        if new or reissue:
            token = store.new_token()
            store.set_student_token(conn, sid, token)
            tokens.append((sid, name, token))
        elif row["revoked"]:
            revoked.append(sid)
        elif not store.has_token(conn, sid):  # an earlier import stopped half way
            token = store.new_token()
            store.set_student_token(conn, sid, token)
            tokens.append((sid, name, token))
        else:
            kept += 1
    conn.close()
    print("roster: %d student(s): %d new, %d token(s) made, %d kept their token%s" % (
        len(students), added, len(tokens), kept,
        "; revoked (--reissue gives them a new token): %s" % ", ".join(revoked) if revoked else ""),
        file=out)
    if tokens:
        print(write_tokens(data, tokens), file=out)
    else:
        print("roster: no token made: no tokens file written", file=out)
    return 0


def revoke(data, sid, out=sys.stdout):
    if not store.exists(worker.db_path(data)):
        raise RosterError("%s holds no service database" % data)
    conn = store.connect(worker.db_path(data))
    try:
        if not store.revoke_student(conn, sid):
            raise RosterError("no student %s" % sid)
    finally:
        conn.close()
    print("roster: %s revoked: their token no longer works" % sid, file=out)
    return 0


def main(argv):
    p = argparse.ArgumentParser(prog="python3 -m grader.classroom.roster",
                                description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    i = sub.add_parser("import", help="add the students of a CSV file, make their tokens")
    i.add_argument("csv", help="the roster: header row id,name[,email]")
    i.add_argument("--data", required=True, help="the service's folder (DIR)")
    i.add_argument("--reissue", action="store_true",
                   help="new tokens for every student of the file (the old ones stop working)")
    r = sub.add_parser("revoke", help="stop a student's token")
    r.add_argument("id")
    r.add_argument("--data", required=True, help="the service's folder (DIR)")
    args = p.parse_args(argv)
    data = os.path.abspath(args.data)
    try:
        if args.command == "import":
            return import_roster(data, args.csv, args.reissue)
        return revoke(data, args.id)
    except RosterError as e:
        print("roster: error: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
