#!/usr/bin/python3
"""Runs docs/notebooks/cuda-labs.ipynb headless (nbclient), as a student's notebook would, on a
folder of the labs already here (CI: the student release it just made and tested, so nothing is
built twice). Without a GPU the grade's GPU checks are skipped; the notebook must still run to its
end: every cell, with the grade's exit code 0 or 1. CI runs it after the release's tests
(.ci/run); it needs python3-nbclient and python3-ipykernel (scripts/setup notebook).

usage: notebook_run.py LABS_FOLDER [--server URL --token T]
"""

import argparse
import os
import sys
import time

import nbclient
import nbformat

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NOTEBOOK = os.path.join(ROOT, "docs", "notebooks", "cuda-labs.ipynb")


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("labs", help="a folder of the labs (the release, or the repository)")
    p.add_argument("--server", default="")
    p.add_argument("--token", default="")
    args = p.parse_args(argv)
    if not os.path.isfile(os.path.join(args.labs, "cudalab")):
        print("notebook_run: error: %s is not a folder of the labs (no ./cudalab)" % args.labs,
              file=sys.stderr)
        return 2
    os.environ["CUDALAB_NOTEBOOK_REPO"] = os.path.abspath(args.labs)
    os.environ["CUDALAB_NOTEBOOK_SERVER"] = args.server
    os.environ["CUDALAB_NOTEBOOK_TOKEN"] = args.token
    nb = nbformat.read(NOTEBOOK, as_version=4)
    start = time.time()
    client = nbclient.NotebookClient(nb, timeout=1200, kernel_name="python3",
                                     resources={"metadata": {"path": args.labs}})
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as e:
        print("notebook_run: a cell failed:\n%s" % e, file=sys.stderr)
        return 1
    outputs = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            outputs.append(out.get("text", "") or str(out.get("data", {}).get("text/plain", "")))
    text = "".join(outputs)
    ran = sum(1 for c in nb.cells if c.cell_type == "code")
    if "exit code" not in text or "labs in" not in text:
        print("notebook_run: the notebook ran but did not grade:\n" + text[-2000:], file=sys.stderr)
        return 1
    print("notebook_run: %d code cells ran in %.0f s; the last lines:" % (ran, time.time() - start))
    print("\n".join(text.strip().splitlines()[-6:]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
