"""Per-lab deadlines of the class service, and which submission counts.

    ./cudalab serve --data DIR --deadlines deadlines.csv

deadlines.csv: one row per lab, `lab,deadline`, the deadline in ISO 8601 with a timezone (Z or an
offset): `01,2026-12-05T23:59:00Z`, `02,2026-12-12T23:59:00+01:00`. A header row `lab,deadline`,
blank lines and lines starting with # are allowed; a lab is its number (01) or its folder's name
(01-conv1d-basic). A malformed file is one line (DeadlineError), naming the file and the line.

The submission that counts, for a student and a lab: their last submission containing that lab
created before the lab's deadline (strictly), among those graded (state done). A submission made
after the deadline is graded and shown to the student as any other, marked "after the deadline:
does not count". A lab without a deadline: the last graded submission counts.

Only the standard library: the service, the export and the tests (any python3) use it.
"""

import csv
import datetime
import os
import sys
import threading


class DeadlineError(Exception):
    """A malformed deadlines file: one line (the service and the export exit 2 with it)."""


def parse_time(text):
    """Seconds since the epoch of an ISO 8601 time with a timezone ("...Z" or "...+01:00");
    ValueError otherwise (no timezone, not a time)."""
    text = text.strip()
    if text[-1:] in ("Z", "z"):
        text = text[:-1] + "+00:00"
    try:
        t = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise ValueError("not an ISO 8601 time (e.g. 2026-12-05T23:59:00Z)")
    if t.tzinfo is None or t.utcoffset() is None:
        raise ValueError("has no timezone: add Z (UTC) or an offset such as +01:00")
    return t.timestamp()


def iso(t):
    """The UTC ISO 8601 text of T (seconds since the epoch), as the service writes its times."""
    if t is None:
        return None
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")


def lab_id(text, known):
    """The lab id TEXT names: "01" or the lab's folder name ("01-conv1d-basic"); None if none.
    KNOWN: {lab id: repo-relative path of its file}, or None to take any two digits."""
    text = text.strip()
    if known is None:
        return text if len(text) == 2 and text.isdigit() else None
    if text in known:
        return text
    for lab, rel in known.items():
        parts = rel.split("/")
        if len(parts) > 1 and text == parts[1]:
            return lab
    return None


def parse_deadlines(text, where="deadlines", known=None):
    """{lab id: deadline (seconds since the epoch)} of the CSV TEXT; DeadlineError (one line,
    naming WHERE and the line) for a malformed one."""
    deadlines, seen, first = {}, {}, True
    try:
        rows = list(csv.reader(text.splitlines()))
    except csv.Error as e:
        raise DeadlineError("%s: not CSV: %s" % (where, e))
    for number, row in enumerate(rows, start=1):
        cells = [c.strip() for c in row]
        while cells and not cells[-1]:
            cells.pop()
        if not cells or cells[0].startswith("#"):
            continue
        header, first = first and [c.lower() for c in cells] == ["lab", "deadline"], False
        if header:
            continue
        if len(cells) != 2:
            raise DeadlineError("%s line %d: expected lab,deadline (e.g. 01,2026-12-05T23:59:00Z), "
                                "got %d field(s)" % (where, number, len(cells)))
        lab = lab_id(cells[0], known)
        if lab is None:
            raise DeadlineError("%s line %d: unknown lab '%s'%s" % (
                where, number, cells[0][:40],
                " (labs: %s)" % ", ".join(sorted(known)) if known else ""))
        if lab in seen:
            raise DeadlineError("%s line %d: lab %s has a deadline on line %d too" %
                                (where, number, lab, seen[lab]))
        try:
            deadlines[lab] = parse_time(cells[1])
        except ValueError as e:
            raise DeadlineError("%s line %d: deadline '%s' %s" % (where, number, cells[1][:60], e))
        seen[lab] = number
    return deadlines


def read_deadlines(path, known=None):
    """{lab id: deadline} of the file at PATH; DeadlineError when it cannot be read or is
    malformed."""
    try:
        with open(path, encoding="utf-8-sig") as f:
            text = f.read(1 << 20)
    except OSError as e:
        raise DeadlineError("cannot read the deadlines file %s: %s" % (path, e.strerror or e))
    except UnicodeDecodeError:
        raise DeadlineError("%s: not UTF-8 text" % path)
    return parse_deadlines(text, path, known)


class Deadlines:
    """The deadlines of a file (or none: PATH None), read again whenever the file changes (its
    size, time or inode). A file that becomes unreadable or malformed while the service runs
    leaves the deadlines read before it in force, and says so once (on stderr)."""

    def __init__(self, path, known=None, warn=None):
        self.path = os.path.abspath(path) if path else None
        self.known = known
        self.warn = warn or (lambda text: print(text, file=sys.stderr, flush=True))
        self.lock = threading.Lock()
        self.stamp = None
        self.value = {}
        self.bad_stamp = None
        if self.path:
            self.value = read_deadlines(self.path, known)  # a DeadlineError at start
            self.stamp = self.file_stamp()

    def file_stamp(self):
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def get(self):
        """{lab id: deadline}, as the file says now."""
        if not self.path:
            return {}
        with self.lock:
            stamp = self.file_stamp()
            if stamp != self.stamp:
                try:
                    self.value = read_deadlines(self.path, self.known)
                    self.stamp, self.bad_stamp = stamp, None
                except DeadlineError as e:
                    if stamp != self.bad_stamp:
                        self.bad_stamp = stamp
                        self.warn("serve: warning: %s; the deadlines read before stay" % e)
            return dict(self.value)


# ---- Which submission counts -------------------------------------------------------------------


def labs_of(row):
    return [lab for lab in row["labs"].split(",") if lab]


def after_deadline(row, lab, deadlines):
    """True when ROW was made at or after LAB's deadline (it does not count for it)."""
    deadline = deadlines.get(lab)
    return deadline is not None and row["created_at"] >= deadline


def counting(rows, deadlines):
    """{student: {lab: the row of the submission that counts}} of ROWS (submissions of any
    state, any order): per student and lab, the last one (by creation time, then id) that is
    done and was made before the lab's deadline."""
    found = {}
    for row in sorted(rows, key=lambda r: (r["created_at"], r["id"])):
        if row["state"] != "done":
            continue
        for lab in labs_of(row):
            if not after_deadline(row, lab, deadlines):
                found.setdefault(row["student"], {})[lab] = row
    return found


def lab_status(row, lab, deadlines, counted):
    """What a submission is for one of its labs: {"counts": bool, "deadline": ISO or None,
    "after_deadline": bool, "counting_id": id of the submission that counts for it or None}.
    COUNTED: {lab: row} of the student's counting submissions (counting()[student])."""
    current = counted.get(lab)
    return {"counts": current is not None and current["id"] == row["id"],
            "deadline": iso(deadlines.get(lab)),
            "after_deadline": after_deadline(row, lab, deadlines),
            "counting_id": current["id"] if current is not None else None}
