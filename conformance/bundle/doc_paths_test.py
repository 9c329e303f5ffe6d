"""doc_paths: a path a bundle document names must be in the bundle, or said to be in the
tensor-cts repository (pure Python, over a tree laid out as make_bundle.sh lays the bundle)."""

import os
import tempfile
import unittest

import doc_paths


def tree(root: str, files: dict) -> None:
    for rel, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(root, rel)) or root, exist_ok=True)
        with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
            f.write(text)


class DocPaths(unittest.TestCase):
    def test_named_paths_skip_what_is_said_to_be_elsewhere(self):
        text = "Run `conformance/runner/run.py`.\n\nThe spec, `spec/arithmetic.toml`, is in the tensor-cts repository.\n"
        self.assertEqual(doc_paths.named_paths(text), [(1, "conformance/runner/run.py")])

    def test_a_missing_path_is_named_with_its_document_and_line(self):
        with tempfile.TemporaryDirectory() as root:
            tree(root, {d: "" for d in doc_paths.DOCUMENTS})
            tree(root, {"README.md": "x\nuse `reports/compare.py` and `conformance/runner/run.py`\n",
                        "conformance/runner/run.py": ""})
            self.assertEqual(doc_paths.missing(root), [
                "README.md:2: names reports/compare.py, which is not in the bundle (ship it, or say it is in the "
                "tensor-cts repository)"])

    def test_the_repository_documents_name_only_what_the_bundle_ships(self):
        # The bundle's layout from the repository: make_bundle.sh packs each input at its repository path
        # (README.md at the top); conformance/bundle/BUILD's srcs are all repository files or filegroups of
        # them, so a path the documents name that the repository lacks cannot be in the bundle either.
        repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        with tempfile.TemporaryDirectory() as root:
            os.symlink(os.path.join(repo, "conformance"), os.path.join(root, "conformance"))
            for d in ("spec", "reports"):
                os.symlink(os.path.join(repo, d), os.path.join(root, d))
            os.symlink(os.path.join(repo, "conformance/bundle/README.md"), os.path.join(root, "README.md"))
            self.assertEqual(doc_paths.missing(root), [])


if __name__ == "__main__":
    unittest.main()
