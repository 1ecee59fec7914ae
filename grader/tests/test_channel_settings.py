"""A lab's grader takes its settings from the record channel (grader/framework/grader_main.cpp,
take_settings), as the grade command sends them (grade.cpp, run_with_channel): after the key,
NAME=VALUE lines. Here CUDALAB_LIST_CHECKS=1 comes only that way, so the grader must list its
checks (one "listed" record each, led by the key) rather than run them.

usage: test_channel_settings.py GRADER   (a lab's solution grader)
"""
import os
import subprocess
import sys


def main(grader):
    key = "0123456789abcdef0123456789abcdef"
    key_r, key_w = os.pipe()
    rec_r, rec_w = os.pipe()
    os.write(key_w, (key + "CUDALAB_LIST_CHECKS=1\nCUDALAB_SEED=4242\nNOT_OURS=1\n").encode())
    os.close(key_w)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CUDALAB_")}
    env["CUDALAB_CHANNEL"] = "%d,%d" % (key_r, rec_w)
    p = subprocess.Popen([grader], env=env, pass_fds=(key_r, rec_w), stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT)
    os.close(key_r)
    os.close(rec_w)
    records = b""
    while True:
        chunk = os.read(rec_r, 65536)
        if not chunk:
            break
        records += chunk
    out = p.communicate(timeout=120)[0].decode(errors="replace")
    lines = [l for l in records.decode().splitlines() if l]
    listed = [l for l in lines if l.startswith(key + "\tcheck\t") and "\tlisted\t" in l]
    failures = []
    if not listed or len(listed) != len(lines):
        failures.append("expected only listed checks, each led by the key; got %d of %d lines:\n%s"
                        % (len(listed), len(lines), out[-2000:]))
    if p.returncode != 0:
        failures.append("the listing exited %d" % p.returncode)
    for f in failures:
        print("FAILED ", f)
    if not failures:
        print("ok      the grader listed its %d checks: CUDALAB_LIST_CHECKS came through the "
              "channel" % len(listed))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
