"""A lab's grader takes its settings from the record channel (grader/framework/grader_main.cpp,
take_settings), as the grade command sends them (grade.cpp, run_with_channel): after the key,
NAME=VALUE lines. Here CUDALAB_LIST_CHECKS=1 comes only that way, so the grader must list its
checks (one "listed" record each, led by the key) rather than run them; and then CUDALAB_ARGS
(the grader's arguments) names one check, which must be the only one listed.

usage: test_channel_settings.py GRADER   (a lab's solution grader)
"""
import os
import subprocess
import sys


KEY = "0123456789abcdef0123456789abcdef"


def listed(grader, settings):
    """The records of GRADER run with SETTINGS in its channel, its output and exit code."""
    key = KEY
    key_r, key_w = os.pipe()
    rec_r, rec_w = os.pipe()
    os.write(key_w, (key + settings).encode())
    os.close(key_w)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUDALAB_")}
    env["CUDALAB_CHANNEL"] = "%d,%d" % (key_r, rec_w)
    p = subprocess.Popen([grader], env=env, pass_fds=(key_r, rec_w), stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT)
    os.close(key_r)
    os.close(rec_w)
    with os.fdopen(rec_r, "rb") as pipe:
        records = pipe.read()
    out = p.communicate(timeout=120)[0].decode(errors="replace")
    lines = [l for l in records.decode().splitlines() if l]
    return lines, out, p.returncode


def main(grader):
    failures = []
    lines, out, rc = listed(grader, "CUDALAB_LIST_CHECKS=1\nCUDALAB_SEED=4242\nNOT_OURS=1\n")
    names = [l.split("\t")[2] for l in lines
             if l.startswith(KEY + "\tcheck\t") and "\tlisted\t" in l]
    if not names or len(names) != len(lines) or rc != 0:
        failures.append("expected only listed checks, each led by the key (exit %d); got %d of %d "
                        "lines:\n%s" % (rc, len(names), len(lines), out[-2000:]))
    else:
        print("ok      the grader listed its %d checks: CUDALAB_LIST_CHECKS came through the "
              "channel" % len(names))
        # Which checks: only in the channel too (CUDALAB_ARGS), never on the command line.
        lines, out, rc = listed(grader, "CUDALAB_LIST_CHECKS=1\nCUDALAB_ARGS=%s\n" % names[-1])
        one = [l.split("\t")[2] for l in lines]
        if one != [names[-1]] or rc != 0:
            failures.append("CUDALAB_ARGS naming '%s' listed %s (exit %d):\n%s"
                            % (names[-1], one, rc, out[-2000:]))
        else:
            print("ok      CUDALAB_ARGS in the channel chose one check: %s" % names[-1])
    for f in failures:
        print("FAILED ", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
