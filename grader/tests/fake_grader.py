"""A stand-in for a lab's grader, for grader/tests/test_grouped_checks.py.

It speaks the record channel as grader/framework/grader_main.cpp does (CUDALAB_CHANNEL names the
descriptor holding the key and the one taking the records), lists its checks under
CUDALAB_LIST_CHECKS=1, and otherwise runs the checks its test spec names, as the file `mode` in
FAKE_GRADER_DIR says: "plain" (every check passes), "fail-in-group" (beta and delta fail when they
share the process with other checks, pass alone), "fails-alone-too" (beta always fails), "crash-in-group"
(the process kills itself after its first record when it runs several checks), "forged" (a line
without the key among its records), "nonzero" (every check passes, the process exits 3), "snoop"
(each check reads every process's environment and command line in /proc for the seed and the
checks' names, as a student's code could, and passes only if they are nowhere and the seed came
through the channel). Each run
is logged to calls.log there: "list", "group:<names>" or "one:<name>" (and to times.log, with the
time it started and FAKE_LAB, the lab it stands for; ends.log, with the time its checks were
done).
"""
import os
import signal
import sys
import time

CHECKS = [
    ("alpha", "[lab99][correctness]", 10),
    ("beta", "[lab99][correctness]", 10),
    ("gamma", "[lab99][correctness]", 10),
    ("delta", "[lab99][perf]", 20),
    ("epsilon", "[lab99][selfcheck]", 0),
]


def main():
    here = os.environ["FAKE_GRADER_DIR"]
    lab = os.environ.get("FAKE_LAB", "99")
    with open(os.path.join(here, "mode")) as f:
        mode = f.read().strip()
    key_fd, record_fd = (int(x) for x in os.environ["CUDALAB_CHANNEL"].split(","))
    # The key, then the settings (NAME=VALUE lines) to the end of the pipe.
    with os.fdopen(key_fd, "rb") as pipe:
        message = pipe.read()
    key = message[:32].decode()
    for line in message[32:].decode().splitlines():
        name, _, value = line.partition("=")
        if name.startswith("CUDALAB_"):
            os.environ[name] = value
    # The arguments come in the channel (CUDALAB_ARGS, separated by \x1f), as grader_main.cpp
    # takes them; a command line that names a check is a failure of the grade command.
    args = os.environ["CUDALAB_ARGS"].split("\x1f") if "CUDALAB_ARGS" in os.environ else []
    if len(sys.argv) > 1:
        raise SystemExit("the check named on the command line: %s" % " ".join(sys.argv[1:]))
    spec = args[0] if args else ""
    names = [n for n in spec.split(",") if n and not n.startswith("~")]
    chosen = [c for c in CHECKS if not names or c[0] in names]

    def log(text):
        if mode == "snoop":  # in the sandbox, where its folder is read-only
            return
        with open(os.path.join(here, "calls.log"), "a") as f:
            f.write(text + "\n")
        with open(os.path.join(here, "times.log"), "a") as f:
            f.write("%.3f %s %s\n" % (time.time(), lab, text))

    def record(name, tags, points, status, message=""):
        earned = points if status == "passed" else 0
        line = "%s\tcheck\t%s\t%s\t%d\t%d\t%s\t%s\t\n" % (key, name, tags, points, earned, status,
                                                        message)
        os.write(record_fd, line.encode())

    if os.environ.get("CUDALAB_LIST_CHECKS") == "1":
        log("list")
        for name, tags, points in chosen:
            record(name, tags, points, "listed")
        return 0
    if mode == "snoop":
        return snoop(chosen, record)
    group = len(chosen) > 1
    entry = ("group:" if group else "one:") + ",".join(c[0] for c in chosen)
    log(entry)
    time.sleep(0.1)  # long enough for runs at once to overlap
    with open(os.path.join(here, "ends.log"), "a") as f:
        f.write("%.3f %s %s\n" % (time.time(), lab, entry))
    failed = 0
    for i, (name, tags, points) in enumerate(chosen):
        status, message = "passed", ""
        if name == "beta" and (mode == "fails-alone-too" or (mode == "fail-in-group" and group)):
            status, message = "failed", "beta failed " + ("in a group" if group else "alone")
        if name == "delta" and mode == "fail-in-group" and group:
            status, message = "failed", "delta failed in a group"
        failed += status == "failed"
        record(name, tags, points, status, message)
        if group and mode == "crash-in-group" and i == 0:
            os.kill(os.getpid(), signal.SIGKILL)
    if group and mode == "forged":
        os.write(record_fd, b"check\talpha\t[lab99][correctness]\t10\t10\tpassed\t\t\n")
    if group and mode == "nonzero":
        return 3
    return min(failed, 255)


def snoop(chosen, record):
    """As a student's code would: every process of the check it can read in /proc, searched for
    the seed (the file `seed` in FAKE_GRADER_DIR says which) and the grader's settings. Each check
    passes only if nothing is found and the seed came through the channel (CUDALAB_SEED set here
    by it)."""
    with open(os.path.join(os.environ["FAKE_GRADER_DIR"], "seed")) as f:
        seed = f.read().strip()
    found = []
    for pid in sorted(p for p in os.listdir("/proc") if p.isdigit()):
        for part in ("environ", "cmdline"):
            try:
                with open("/proc/%s/%s" % (pid, part), "rb") as f:
                    text = f.read().decode(errors="replace")
            except OSError:
                continue
            named = any(name in text for name, _, _ in chosen)  # which checks run
            if pid != str(os.getpid()) and (seed in text or "CUDALAB_SEED" in text or named):
                found.append("/proc/%s/%s" % (pid, part))
    got = os.environ.get("CUDALAB_SEED")
    for name, tags, points in chosen:
        if found:
            record(name, tags, points, "failed",
                   "the seed or the check's name is in " + " ".join(found))
        elif got != seed:
            record(name, tags, points, "failed", "no seed from the channel (%s)" % got)
        else:
            record(name, tags, points, "passed")
    return 1 if found or got != seed else 0


if __name__ == "__main__":
    sys.exit(main())
