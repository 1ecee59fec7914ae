"""Synthetic batch output folders (what ./cudalab batch writes) for the reports
(grader/classroom/reports.py).

    python3 grader/tests/batch_fixtures.py OUT [N]    # a class of N students (default 20)

The reports follow cudalab-grade-report/1 with the real labs' checks, points, tags, message
formats (the timing line, the case header with its seeds, "not graded: ... does not compile")
and thresholds; the values are made up.
"""
import hashlib
import json
import os
import random
import sys

SEED = 7431985526105329123  # the batch's secret seed in these fixtures
DEVICE = "NVIDIA H100 80GB HBM3"

# lab: (name, student file, r_full, r_zero, [(check, tags, points)], sanitizer tools, points each),
# from batch_fixtures_labs.tsv (the real labs' checks).
def read_labs(path=os.path.join(os.path.dirname(os.path.abspath(__file__)), "batch_fixtures_labs.tsv")):
    labs, current = {}, None
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            if fields[0]:
                lab, name, file, r_full, r_zero, tools, points = fields
                current = (name, file, float(r_full), float(r_zero), [], tools.split(","), int(points))
                labs[lab] = current
            else:
                current[4].append((fields[1], fields[2], int(fields[3])))
    return labs


LABS = read_labs()


def student_path(lab):
    name, file = LABS[lab][0], LABS[lab][1]
    return f"labs/{lab}-{name}/{file}"


def sha(text):
    return hashlib.sha256(text.encode()).hexdigest()


def skeleton_hashes():
    return {student_path(lab): sha(f"skeleton of lab {lab}") for lab in LABS}


def derive_seed(base, case_id):
    """common/src/random.cpp's derive_seed (splitmix64): the per-case seed in the messages."""
    mask = (1 << 64) - 1
    z = (base + 0x9E3779B97F4A7C15 * (case_id + 1)) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)


def credit(r, r_full, r_zero):
    return 1.0 if r <= r_full else 0.0 if r >= r_zero else (r_zero - r) / (r_zero - r_full)


def perf_check(lab, name, points, ratio, device=DEVICE):
    _, _, r_full, r_zero, *_ = LABS[lab]
    ref_ms = 0.132
    c = credit(ratio, r_full, r_zero)
    message = (f"width 2^26, mask 9 on {device}: candidate {ref_ms * ratio:.4f} ms, reference "
               f"{ref_ms:.4f} ms, r = {ratio:.3f} (full credit at r <= {r_full:.2f}, none at "
               f"r >= {r_zero:.2f})\ncandidate {4074 / ratio:.0f} GB/s = {100 / ratio:.0f}% of the "
               "measured copy bandwidth (4074 GB/s)")
    if c <= 0:
        message += f"\ntoo slow: r = {ratio:.3f} is at or above r_zero = {r_zero:.2f}"
    status = "passed" if c >= 1 else "partial" if c > 0 else "failed"
    return {"points": points * c, "status": status, "message": message,
            "measurements": {"ratio": ratio, "candidate_ms": ref_ms * ratio, "reference_ms": ref_ms,
                             "candidate_rse": 0.004, "samples": 20, "copy_gbs": 4074.0,
                             "candidate_gbs": 4074 / ratio, "candidate_pct_copy": 100 / ratio}}


def make_report(labs=None, seed=SEED, device=DEVICE, outcome=None, seconds=1.5):
    """A report of the given labs (default: all ten). outcome(lab, check, tags, points) returns
    None (passed, full points) or a dict overriding the check's fields (points, status, message,
    measurements); a perf check passes at r = 2.0 unless overridden."""
    out_labs = []
    for lab in labs or sorted(LABS):
        name, _, _, _, checks, tools, tool_points = LABS[lab]
        rows = [(c, f"[lab{lab}][{t}]", p) for c, t, p in checks]
        rows += [(f"compute-sanitizer {t}", f"[lab{lab}][sanitize]", tool_points) for t in tools]
        lab_checks = []
        for check, tags, points in rows:
            c = {"check": check, "tags": tags, "points": points, "max": points, "status": "passed",
                 "message": "no hazards reported" if "sanitize" in tags else "",
                 "seconds": seconds, "measurements": {}}
            if "[perf]" in tags:
                c.update(perf_check(lab, check, points, 2.0, device or "no GPU"))
            change = outcome(lab, check, tags, points) if outcome else None
            if change:
                c.update(change)
            lab_checks.append(c)
        out_labs.append({"lab": lab, "name": name, "points": sum(c["points"] for c in lab_checks),
                         "max_points": sum(c["max"] for c in lab_checks),
                         "seconds": seconds * len(lab_checks), "checks": lab_checks})
    report = {"schema": "cudalab-grade-report/1", "generated_at": "2026-11-26T10:15:00Z",
              "target": "student", "seed": seed,
              "device": {"name": device} if device else None}
    if not device:
        report["no_device_reason"] = "no CUDA device (CUDA driver version is insufficient)"
    report.update({"sandbox": "bubblewrap: no network, own PID namespace, read-only files, "
                              "private /tmp (1024 MiB), 8 NVIDIA device node(s)",
                   "seconds": 60.0, "untimed_jobs": 8,
                   "points": sum(x["points"] for x in out_labs),
                   "max_points": sum(x["max_points"] for x in out_labs),
                   "failed": any(c["status"] == "failed" and c["max"] > 0
                                 for x in out_labs for c in x["checks"]),
                   "labs": out_labs})
    return report


def wrong_output(lab, check, seed=SEED, case=3):
    """The message of a failed correctness check, with the case header's two seeds."""
    return (f"case '{check} {case}' (seed {derive_seed(seed, case)} from CUDALAB_SEED={seed}, "
            f"width 1234, mask 7): output y is wrong: 3 of 1234 elements differ; index 5: "
            "expected 22, got 0")


def not_compiled(lab, check, tags, points):
    return {"points": 0, "status": "failed", "measurements": {},
            "message": f"not graded: build/default/grader/lab{lab}-student-grader was not built; "
                       "the lab's .cu file does not compile (see the build output)"}


def skeleton_outcome(lab, check, tags, points):
    if "technique" in tags:
        return {"points": 0, "status": "failed",
                "message": "no shared-memory tile in the kernel: its PTX has 0 st.shared, "
                           "0 ld.shared and 0 barrier instruction(s)"}
    if "correctness" in tags:
        if points == 0 and "CPU reference" in check:
            return None
        return {"points": 0, "status": "failed",
                "message": wrong_output(lab, check).replace("expected 22, got 0",
                                                            "expected 22, got nan (never written?)")}
    return {"points": 0, "status": "failed", "measurements": {},
            "message": "not run: the correctness checks must pass first"}


def write_student(out, sid, report=None, meta=None, raw_report=None):
    folder = os.path.join(out, "students", sid)
    os.makedirs(folder, exist_ok=True)
    if report is not None:
        with open(os.path.join(folder, "report.json"), "w") as f:
            json.dump(report, f, indent=2)
    if raw_report is not None:
        with open(os.path.join(folder, "report.json"), "w") as f:
            f.write(raw_report)
    if meta is not None:
        with open(os.path.join(folder, "meta.json"), "w") as f:
            f.write(meta if isinstance(meta, str) else json.dumps(meta, indent=2))


def meta_of(sid, files, labs=None, error=None, compiled=None, ignored=(), build=12.0, grade=45.0):
    labs = labs or sorted(LABS)
    return {"student": sid, "files": files, "ignored": list(ignored), "error": error, "gpu": "0",
            "worker": 0, "build_seconds": build, "grade_seconds": grade,
            "compiled": compiled if compiled is not None else {lab: True for lab in labs}}


def own_files(sid, labs=None):
    return {student_path(lab): sha(f"{sid}'s lab {lab}") for lab in labs or sorted(LABS)}


def write_batch(out, total, finished=True, device=DEVICE, seed=SEED, labs=None):
    os.makedirs(os.path.join(out, "students"), exist_ok=True)
    with open(os.path.join(out, "batch.json"), "w") as f:
        json.dump({"schema": "cudalab-batch/1", "started_at": "2026-11-26T09:02:11Z",
                   "finished_at": "2026-11-26T10:41:53Z" if finished else None, "gpus": ["0"],
                   "device": device, "total": total, "seed_file": "seed",
                   "labs": labs or sorted(LABS)}, f, indent=2)
    with open(os.path.join(out, "skeleton.json"), "w") as f:
        json.dump(skeleton_hashes(), f, indent=2)
    with open(os.path.join(out, "seed"), "w") as f:
        f.write(f"{seed}\n")


def make_class(out, n=20, rng_seed=2026):
    """A class of n students: mostly working submissions of mixed quality, and every kind of
    trouble once: the skeleton, a lab that does not compile, a missing report, a copied file, a
    malformed report, a ratio far below the reference's."""
    rng = random.Random(rng_seed)
    write_batch(out, n)
    names = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy",
             "mallory", "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "uma", "victor",
             "walter", "xena", "yusuf", "zoe"]
    names += [f"student{i:03d}" for i in range(len(names), n)]
    names = names[:n]
    specials = {"bob": "skeleton", "carol": "no-compile", "dave": "no-report",
                "erin": "copy-of-alice", "frank": "malformed", "grace": "fast"}
    for sid in names:
        kind = specials.get(sid, "regular")
        skill = 1.0 if sid == "alice" else rng.uniform(0.55, 1.0)
        done = sorted(LABS) if skill > 0.7 else sorted(LABS)[:rng.randint(5, 9)]
        base = {lab: 1.0 + 2.5 * rng.random() ** 1.5 for lab in LABS}

        def outcome(lab, check, tags, points, skill=skill, done=done, base=base):
            if lab not in done:
                return skeleton_outcome(lab, check, tags, points)
            if "[perf]" in tags:
                if skill == 1.0:  # alice: full marks
                    return perf_check(lab, check, points, round(rng.uniform(1.2, 2.4), 3))
                ratio = base[lab] * rng.lognormvariate(0, 0.25) / (0.6 + 0.4 * skill)
                if rng.random() < 0.08:
                    ratio *= rng.uniform(2.5, 6)
                return perf_check(lab, check, points, round(ratio, 3))
            if rng.random() > skill ** 0.35 and points > 0:
                msg = (wrong_output(lab, check, case=rng.randint(0, 11)) if "correctness" in tags
                       else "compute-sanitizer racecheck reported hazards:\n========= Race "
                       "reported between Write access at conv1d_tiled_kernel+0x2d0" if "sanitize"
                       in tags else "the kernel has 0 ld.shared in its PTX")
                return {"points": 0, "status": "failed", "message": msg}
            return None

        files = own_files(sid)
        for lab in LABS:
            if lab not in done:  # handed in the skeleton, or (one in three) nothing
                if rng.random() < 0.33:
                    del files[student_path(lab)]
                else:
                    files[student_path(lab)] = skeleton_hashes()[student_path(lab)]
        meta = meta_of(sid, files, build=rng.uniform(9, 16), grade=rng.uniform(40, 70))
        if kind == "regular" or sid == "alice":
            write_student(out, sid, make_report(outcome=outcome), meta)
        elif kind == "skeleton":
            write_student(out, sid, make_report(outcome=skeleton_outcome),
                          meta_of(sid, skeleton_hashes()))
        elif kind == "no-compile":
            def nc(lab, check, tags, points):
                return not_compiled(lab, check, tags, points) if lab == "02" else outcome(
                    lab, check, tags, points)
            meta["compiled"]["02"] = False
            write_student(out, sid, make_report(outcome=nc), meta)
        elif kind == "no-report":
            write_student(out, sid, None, meta_of(sid, {}, error="unreadable archive: "
                                                  "dave.zip: not a zip file", compiled={}))
        elif kind == "copy-of-alice":
            files[student_path("04")] = own_files("alice")[student_path("04")]
            meta = meta_of(sid, files, ignored=["notes.txt", "build/a.out"])
            write_student(out, sid, make_report(outcome=outcome), meta)
        elif kind == "malformed":
            write_student(out, sid, None, meta, raw_report='{"schema": "cudalab-grade-report/1", '
                          '"seed": %d, "labs": [{"lab": "01", "checks": [' % SEED)
        elif kind == "fast":
            def fast(lab, check, tags, points):
                if lab == "01" and "[perf]" in tags:
                    return perf_check(lab, check, points, 0.21)
                return outcome(lab, check, tags, points)
            write_student(out, sid, make_report(outcome=fast), meta)
    return names


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        print("usage: batch_fixtures.py OUT [N]", file=sys.stderr)
        sys.exit(2)
    made = make_class(sys.argv[1], int(sys.argv[2]) if len(sys.argv) == 3 else 20)
    print(f"wrote a batch of {len(made)} students into {sys.argv[1]}")
