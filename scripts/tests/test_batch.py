#!/usr/bin/env python3
"""Unit tests of scripts/batch.py without a build: which files of a submission are taken, unsafe
archives, the students' ids, the worker-to-GPU mapping and bad options (exit code 2)."""

import io
import os
import sys
import tarfile
import tempfile
import unittest
import zipfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
import batch  # noqa: E402

KNOWN = ["labs/01-conv1d-basic/conv1d_basic.cu", "labs/02-conv1d-tiled/conv1d_tiled.cu"]


class MatchMembers(unittest.TestCase):
    def test_repository_layout_and_prefixes(self):
        taken, ignored = batch.match_members(
            ["alice/labs/01-conv1d-basic/conv1d_basic.cu", "alice/notes.txt"], KNOWN)
        self.assertEqual(taken, {KNOWN[0]: "alice/labs/01-conv1d-basic/conv1d_basic.cu"})
        self.assertEqual(ignored, ["alice/notes.txt"])

    def test_flat_upload_by_file_name(self):
        taken, ignored = batch.match_members(["conv1d_tiled.cu", "conv1d_basic.cu"], KNOWN)
        self.assertEqual(taken, {KNOWN[0]: "conv1d_basic.cu", KNOWN[1]: "conv1d_tiled.cu"})
        self.assertEqual(ignored, [])

    def test_the_repository_path_wins_over_a_file_name(self):
        names = ["old/conv1d_basic.cu", "labs/01-conv1d-basic/conv1d_basic.cu"]
        taken, ignored = batch.match_members(names, KNOWN)
        self.assertEqual(taken[KNOWN[0]], "labs/01-conv1d-basic/conv1d_basic.cu")
        self.assertEqual(ignored, ["old/conv1d_basic.cu"])

    def test_several_copies_the_shortest_path_is_taken(self):
        taken, ignored = batch.match_members(["a/b/conv1d_basic.cu", "a/conv1d_basic.cu"], KNOWN)
        self.assertEqual(taken[KNOWN[0]], "a/conv1d_basic.cu")
        self.assertEqual(ignored, ["a/b/conv1d_basic.cu"])


class CleanMember(unittest.TestCase):
    def test_paths(self):
        self.assertEqual(batch.clean_member("./a//b/./c.cu"), "a/b/c.cu")
        self.assertEqual(batch.clean_member("a\\b.cu"), "a/b.cu")
        for bad in ("/etc/passwd", "../x.cu", "a/../../x.cu", "", "."):
            self.assertIsNone(batch.clean_member(bad), bad)


class ReadSubmission(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def path(self, name):
        return os.path.join(self.dir, name)

    def test_zip_with_unsafe_members(self):
        p = self.path("s.zip")
        with zipfile.ZipFile(p, "w") as z:
            z.writestr("../evil.cu", "x")
            z.writestr("/abs/conv1d_tiled.cu", "x")
            z.writestr("conv1d_basic.cu", "good")
            link = zipfile.ZipInfo("conv1d_tiled.cu")
            link.external_attr = 0o120777 << 16  # a symbolic link
            z.writestr(link, "/etc/passwd")
        files, ignored, error = batch.read_submission(p, KNOWN)
        self.assertIsNone(error)
        self.assertEqual(files, {KNOWN[0]: b"good"})
        self.assertEqual(len(ignored), 3)

    def test_tar_link_and_big_file(self):
        p = self.path("s.tar.gz")
        with tarfile.open(p, "w:gz") as t:
            big = b"x" * (batch.MAX_FILE_BYTES + 1)
            info = tarfile.TarInfo(KNOWN[0])
            info.size = len(big)
            t.addfile(info, io.BytesIO(big))
            link = tarfile.TarInfo(KNOWN[1])
            link.type = tarfile.SYMTYPE
            link.linkname = "/etc/shadow"
            t.addfile(link)
        files, ignored, error = batch.read_submission(p, KNOWN)
        self.assertIsNone(error)
        self.assertEqual(files, {})
        self.assertTrue(any("larger than 1 MiB" in i for i in ignored))
        self.assertTrue(any("link" in i for i in ignored))

    def test_garbage_archive_is_an_error_of_that_student(self):
        p = self.path("s.zip")
        with open(p, "wb") as f:
            f.write(b"not a zip at all")
        files, ignored, error = batch.read_submission(p, KNOWN)
        self.assertEqual(files, {})
        self.assertIn("cannot read the submission", error)

    def test_folder_skips_links(self):
        d = self.path("alice")
        os.makedirs(os.path.join(d, "labs", "01-conv1d-basic"))
        with open(os.path.join(d, KNOWN[0]), "w") as f:
            f.write("ok")
        os.symlink("/etc/passwd", os.path.join(d, "conv1d_tiled.cu"))
        files, ignored, error = batch.read_submission(d, KNOWN)
        self.assertEqual(files, {KNOWN[0]: b"ok"})
        self.assertEqual(ignored, ["conv1d_tiled.cu (not a regular file)"])


class ListSubmissions(unittest.TestCase):
    def test_ids_and_collisions(self):
        d = tempfile.mkdtemp()
        os.makedirs(os.path.join(d, "alice"))
        open(os.path.join(d, "bob smith.zip"), "w").close()
        open(os.path.join(d, "export.csv"), "w").close()
        self.assertEqual([sid for sid, _ in batch.list_submissions(d)], ["alice", "bob_smith"])
        open(os.path.join(d, "alice.tar.gz"), "w").close()
        with self.assertRaises(batch.UsageError):
            batch.list_submissions(d)

    def test_empty_or_missing(self):
        with self.assertRaises(batch.UsageError):
            batch.list_submissions(tempfile.mkdtemp())
        with self.assertRaises(batch.UsageError):
            batch.list_submissions("/nonexistent/folder")


class WorkerGpus(unittest.TestCase):
    def test_one_worker_per_gpu(self):
        self.assertEqual(batch.worker_gpus(None, ["H100", "H100"]), ["0", "1"])
        self.assertEqual(batch.worker_gpus("1", ["H100", "H100"]), ["1"])
        self.assertEqual(batch.worker_gpus("0,1", ["H200", "H200"]), ["0", "1"])

    def test_no_gpu_one_worker_without_one(self):
        self.assertEqual(batch.worker_gpus(None, []), [None])

    def test_never_two_workers_on_one_gpu(self):
        for bad in ("0,0", "", "x", "0,2"):
            with self.assertRaises(batch.UsageError, msg=bad):
                batch.worker_gpus(bad, ["H100", "H100"])


class Options(unittest.TestCase):
    def test_bad_options(self):
        for argv in (["s", "--timeout", "0"], ["s", "--force", "--failed"],
                     ["s", "--jobs", "-1"]):
            with self.assertRaises(batch.UsageError, msg=argv):
                batch.parse(argv)

    def test_main_says_one_line_and_exits_2(self):
        stderr = sys.stderr
        sys.stderr = io.StringIO()
        try:
            code = batch.main(["/nonexistent/submissions"])
            text = sys.stderr.getvalue()
        finally:
            sys.stderr = stderr
        self.assertEqual(code, 2)
        self.assertEqual(text.count("\n"), 1)
        self.assertIn("not a folder of submissions", text)


if __name__ == "__main__":
    unittest.main()
