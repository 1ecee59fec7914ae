"""The opt-in leaderboard of a lab: GET /leaderboard/NN (page) and /api/leaderboard/NN (JSON).

Who is on it: the students whose counting submission of the lab (deadlines.counting) has every
check of the lab passed: its points equal to its max_points, no check failed or skipped (without
a GPU every GPU check is skipped, so no one is). They are ranked by r, the geometric mean of the
ratios of the lab's performance checks (those tagged [perf]; the report's measurements.ratio, the
candidate's time over the reference's: lower is faster); a fully correct submission without a
measured ratio is not ranked. Equal r share a rank (1, 1, 3), the earlier submission listed first.

Each row shows the rank and the r, and the student's name only when they opted in
(./cudalab leaderboard --opt-in; default out), else "anonymous"; the caller sees "you" on their
own row. No row carries a student's id.

Only the standard library (the store's tests run with any python3).
"""

import math

ANONYMOUS = "anonymous"
YOU = "you"


def is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def is_perf(check):
    return "[perf]" in (check.get("tags") or "")


def ratio_of(check):
    """The performance check's measured r (measurements.ratio), or None."""
    r = (check.get("measurements") or {}).get("ratio")
    return float(r) if is_number(r) and r > 0 else None


def lab_entry(report, lab):
    """The lab's object in a grade report (report.json), or None."""
    if not isinstance(report, dict):
        return None
    for entry in report.get("labs") or []:
        if isinstance(entry, dict) and entry.get("lab") == lab:
            return entry
    return None


def fully_correct(entry):
    """Every check of the lab passed: points == max_points (> 0), none failed or skipped."""
    if not isinstance(entry, dict):
        return False
    checks = entry.get("checks")
    points, max_points = entry.get("points"), entry.get("max_points")
    if not isinstance(checks, list) or not checks:
        return False
    if not (is_number(points) and is_number(max_points)) or max_points <= 0:
        return False
    if abs(points - max_points) > 1e-9:
        return False
    return all(isinstance(c, dict) and c.get("status") not in ("failed", "skipped")
               for c in checks)


def geometric_mean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def lab_score(entry):
    """(fully correct, r) of a lab's report entry: r is the geometric mean of its performance
    checks' ratios, None when none was measured."""
    ratios = [ratio_of(c) for c in (entry or {}).get("checks") or [] if isinstance(c, dict)
              and is_perf(c)]
    ratios = [r for r in ratios if r is not None]
    return fully_correct(entry), geometric_mean(ratios)


def standings(entries, opted_in, caller=None):
    """The board's rows, best first. ENTRIES: [{"student", "name", "entry" (the lab's object of
    the counting submission's report), "created_at", "submission"}]; OPTED_IN: the ids of the
    students who show their name; CALLER: the student id asking (None: the instructor).
    Each row: {"rank", "r", "name", "you"}."""
    ranked = []
    for e in entries:
        correct, r = lab_score(e.get("entry"))
        if correct and r is not None:
            ranked.append((r, e.get("created_at") or 0, e.get("submission") or 0, e))
    ranked.sort(key=lambda x: (x[0], x[1], x[2]))
    rows, rank, previous = [], 0, None
    for i, (r, _, _, e) in enumerate(ranked, start=1):
        if r != previous:
            rank, previous = i, r
        you = caller is not None and e["student"] == caller
        name = YOU if you else (e.get("name") or e["student"]) if e["student"] in opted_in \
            else ANONYMOUS
        rows.append({"rank": rank, "r": round(r, 4), "name": name, "you": you})
    return rows
