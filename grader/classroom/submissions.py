"""The labs' student files and the submissions: which files of a folder or an archive are a
student's lab files, read in memory without extracting anything (./cudalab batch, the service's
workers and the students' ./cudalab submit take the same files).

The standard library only: the students' client imports it.
"""

import os
import re
import shutil
import stat
import tarfile
import zipfile

from grader.classroom.base import (MAX_FILE_BYTES, MAX_MEMBERS, REPORT_NAME, REPORTS_DIR, SAFE_ID,
                                   UsageError, read_file)

ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".zip")


def student_files(root):
    """{lab id: repo-relative path of the student's file}, from each lab's CMake registration."""
    files = {}
    with open(os.path.join(root, "CMakeLists.txt")) as f:
        text = f.read()
    for name, source in re.findall(r"cudalab_add_lab\(\s*(\d\d-[a-z0-9-]+)\s+SOURCE\s+(\S+)", text):
        files[name[:2]] = "labs/%s/%s" % (name, source)
    if not files:
        raise UsageError("no labs found in %s/CMakeLists.txt" % root)
    return files


def report_files(known):
    """[repo-relative path of each lab's report.md]: the student's analysis (the exercises' numbers,
    the answers to the questions), handed in beside the lab file, kept in OUT, never compiled."""
    return [os.path.dirname(rel) + "/" + REPORT_NAME for rel in known.values()]


def is_report(rel):
    return rel.endswith("/" + REPORT_NAME)


def save_reports(student_dir, files):
    """Writes the submission's report.md files to OUT/students/<id>/analysis/NN-name.md (the
    earlier ones go); returns their names there."""
    folder = os.path.join(student_dir, REPORTS_DIR)
    shutil.rmtree(folder, ignore_errors=True)
    saved = []
    for rel, data in sorted(files.items()):
        if is_report(rel):
            os.makedirs(folder, exist_ok=True)
            name = os.path.basename(os.path.dirname(rel)) + ".md"
            with open(os.path.join(folder, name), "wb") as f:
                f.write(data)
            saved.append(REPORTS_DIR + "/" + name)
    return saved


def match_members(names, known):
    """Which member of a submission is which known file: ({known path: member}, [ignored]).

    A member matches a known path when it is that path or ends with it ("alice/labs/01-.../x.cu"),
    or, when no member does, when its file name is the known file's (Gradescope-style flat
    uploads). Several candidates for one file: the shortest path is taken, the others ignored."""
    taken, ignored = {}, []
    by_base = {}
    for path in known:
        by_base.setdefault(os.path.basename(path), []).append(path)
    for path in known:
        exact = [n for n in names if n == path or n.endswith("/" + path)]
        if not exact and len(by_base[os.path.basename(path)]) == 1:
            exact = [n for n in names if os.path.basename(n) == os.path.basename(path)]
        if exact:
            exact.sort(key=lambda n: (n.count("/"), n))
            taken[path] = exact[0]
    used = set(taken.values())
    for n in names:
        if n not in used:
            ignored.append(n)
    return taken, sorted(ignored)


def clean_member(name):
    """A member's path, normalised; None when it could escape (absolute, '..')."""
    name = name.replace("\\", "/")
    while name.startswith("./"):
        name = name[2:]
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if not parts or name.startswith("/") or ".." in parts:
        return None
    return "/".join(parts)


def read_submission(entry, known):
    """(files {known path: bytes}, ignored [paths with why], error or None) of one submission.

    Nothing is extracted to disk: members are read in memory, regular files only (no links), at
    most MAX_FILE_BYTES each."""
    members = {}  # clean name -> reader
    ignored = []
    try:
        if os.path.isdir(entry):
            for dirpath, dirnames, filenames in os.walk(entry, followlinks=False):
                for fn in filenames:
                    full = os.path.join(dirpath, fn)
                    rel = os.path.relpath(full, entry).replace(os.sep, "/")
                    if os.path.islink(full) or not os.path.isfile(full):
                        ignored.append(rel + " (not a regular file)")
                        continue
                    members[rel] = (os.path.getsize(full), lambda p=full: read_file(p))
                    if len(members) > MAX_MEMBERS:
                        return {}, [], "more than %d files" % MAX_MEMBERS
        elif entry.endswith(".zip"):
            archive = zipfile.ZipFile(entry)
            for info in archive.infolist()[: MAX_MEMBERS + 1]:
                if info.is_dir():
                    continue
                name = clean_member(info.filename)
                mode = (info.external_attr >> 16) & 0o170000
                if name is None or mode == stat.S_IFLNK:
                    ignored.append(info.filename + " (unsafe path or link)")
                    continue
                members[name] = (info.file_size, lambda i=info: archive.read(i))
            if len(archive.infolist()) > MAX_MEMBERS:
                return {}, [], "more than %d files" % MAX_MEMBERS
        else:
            archive = tarfile.open(entry, "r:*")
            count = 0
            for info in archive:
                count += 1
                if count > MAX_MEMBERS:
                    return {}, [], "more than %d files" % MAX_MEMBERS
                if info.isdir():
                    continue
                name = clean_member(info.name)
                if name is None or not info.isreg():
                    ignored.append(info.name + " (unsafe path, link or special file)")
                    continue
                members[name] = (info.size, lambda i=info: archive.extractfile(i).read())
    except (OSError, zipfile.BadZipFile, tarfile.TarError, EOFError, ValueError) as e:
        return {}, [], "cannot read the submission: %s" % e
    taken, rest = match_members(sorted(members), known)
    files = {}
    for path, member in taken.items():
        size, read = members[member]
        if size > MAX_FILE_BYTES:
            ignored.append(member + " (larger than 1 MiB)")
            continue
        try:
            files[path] = read()
        except (OSError, zipfile.BadZipFile, tarfile.TarError, EOFError, ValueError) as e:
            return {}, [], "cannot read %s: %s" % (member, e)
    ignored += [n + " (not a lab file)" for n in rest]
    return files, sorted(ignored), None


def list_submissions(folder):
    """[(student id, entry path)], sorted; an id two entries share is a UsageError."""
    if not os.path.isdir(folder):
        raise UsageError("%s: not a folder of submissions" % folder)
    try:
        names = sorted(os.listdir(folder))
    except OSError as e:
        raise UsageError("%s: cannot read the folder of submissions: %s" % (folder, e.strerror))
    found = {}
    for name in names:
        if name.startswith("."):
            continue
        path = os.path.join(folder, name)
        if os.path.isdir(path):
            sid = name
        else:
            suffix = next((s for s in ARCHIVE_SUFFIXES if name.endswith(s)), None)
            if suffix is None:
                continue  # not a submission (a README, a CSV of the LMS)
            sid = name[: -len(suffix)]
        sid = SAFE_ID.sub("_", sid) or "_"
        if sid in found:
            raise UsageError("two submissions for student '%s': %s and %s" % (sid, found[sid], path))
        found[sid] = path
    if not found:
        raise UsageError("%s holds no submissions (folders or .zip/.tar.gz/.tgz/.tar archives)" % folder)
    return sorted(found.items())


