#!/usr/bin/env python3
"""A synthetic class for ./cudalab batch on a GPU: N students, each lab's file one of the lab's
plain answer (grader/labs/NN-name/variants/answer.cu), one of its variants or cheats (the sources
the build makes from their patches, build/<preset>/variants/NN-name/*.cu) or the skeleton, chosen
from the student's number so that the class is the same every time. Half the students hand in
folders, the others zip or tar.gz archives. Every verdict is the one the variant's header states.

usage: make_class.py BUILD_DIR OUT_DIR [N]   (N: 20 by default; OUT_DIR must not exist)
"""

import io
import os
import random
import re
import sys
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def lab_files():
    """[(lab folder, student file path)] from the labs' CMake registration."""
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        text = f.read()
    return [(name, "labs/%s/%s" % (name, source)) for name, source in
            re.findall(r"cudalab_add_lab\(\s*(\d\d-[a-z0-9-]+)\s+SOURCE\s+(\S+)", text)]


def choices(build, lab):
    """The files a student may hand in for `lab`: (what, text)."""
    out = [("answer", open(os.path.join(ROOT, "grader", "labs", lab, "variants", "answer.cu")).read())]
    folder = os.path.join(build, "variants", lab)
    if not os.path.isdir(folder):
        print("make_class.py: warning: no %s (the build makes the variants' sources): lab %s's "
              "students hand in answers and skeletons only" % (folder, lab), file=sys.stderr)
    else:
        for name in sorted(os.listdir(folder)):
            if name.endswith(".cu"):
                out.append((name[:-3], open(os.path.join(folder, name)).read()))
    return out


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    build, out = argv[0], argv[1]
    count = int(argv[2]) if len(argv) == 3 else 20
    if os.path.exists(out):
        print("make_class.py: error: %s exists" % out, file=sys.stderr)
        return 2
    os.makedirs(out)
    labs = lab_files()
    menu = {lab: choices(build, lab) for lab, _ in labs}
    plan = []
    for i in range(count):
        rng = random.Random(1000 + i)
        sid = "student%02d" % (i + 1)
        files, picked = {}, []
        for lab, path in labs:
            roll = rng.random()
            if roll < 0.6:
                what, text = menu[lab][0]  # the plain answer
            elif roll < 0.9 and len(menu[lab]) > 1:
                what, text = rng.choice(menu[lab][1:])
            else:
                what, text = "skeleton", open(os.path.join(ROOT, path)).read()
            files[path] = text
            picked.append("%s:%s" % (lab[:2], what))
        plan.append("%s\t%s" % (sid, " ".join(picked)))
        if i % 2 == 0:
            for path, text in files.items():
                dst = os.path.join(out, sid, path)
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                with open(dst, "w") as f:
                    f.write(text)
        elif i % 4 == 1:
            with zipfile.ZipFile(os.path.join(out, sid + ".zip"), "w") as z:
                for path, text in files.items():
                    z.writestr(os.path.basename(path), text)  # flat, as an LMS exports
        else:
            with tarfile.open(os.path.join(out, sid + ".tar.gz"), "w:gz") as t:
                for path, text in files.items():
                    data = text.encode()
                    info = tarfile.TarInfo(sid + "/" + path)
                    info.size = len(data)
                    t.addfile(info, io.BytesIO(data))
    with open(os.path.join(os.path.dirname(os.path.abspath(out)), os.path.basename(out) + "-plan.tsv"), "w") as f:
        f.write("\n".join(plan) + "\n")
    print("make_class.py: %d students in %s (what each handed in: %s-plan.tsv)" % (count, out, out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
