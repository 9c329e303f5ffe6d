"""bazel/remote_cache.sh keeps its cache to the user who starts it (issue 52): started on a free
loopback port, every request needs a token (401 without one); the reader's token GETs and
cannot PUT, the writer's does both; every file under the cache's folder is the user's alone
(no group or other permission bits), and another user of the machine (nobody, when this test
runs as root: setpriv) can read neither a token nor a cached file, nor write there. Needs nginx
with WebDAV (.ci/setup installs it); stdlib only."""

import base64
import os
import shlex
import shutil
import socket
import stat
import subprocess
import tempfile
import unittest
import urllib.error
import urllib.request

SCRIPT = os.path.join(os.getcwd(), "bazel", "remote_cache.sh")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RemoteCache(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # A world-traversable parent: only the cache folder's own mode keeps others out.
        cls.parent = tempfile.mkdtemp(prefix="tcts-cache-test-", dir="/tmp")
        os.chmod(cls.parent, 0o755)
        cls.dir = os.path.join(cls.parent, "cache")
        cls.url = f"http://127.0.0.1:{free_port()}"
        p = subprocess.run(["bash", SCRIPT, "start", cls.url.removeprefix("http://"), cls.dir],
                           capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            raise AssertionError(f"start: {p.stdout}{p.stderr}")

    @classmethod
    def tearDownClass(cls):
        subprocess.run(["bash", SCRIPT, "stop", cls.dir], capture_output=True, timeout=60)
        shutil.rmtree(cls.parent, ignore_errors=True)

    def token(self, role):
        with open(os.path.join(self.dir, f"{role}.token"), encoding="ascii") as f:
            return f.read().strip()

    def status(self, method, path, role=None, data=None):
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if role:
            req.add_header("Authorization", "Basic " + base64.b64encode(f"{role}:{self.token(role)}".encode()).decode())
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, b""

    def test_every_request_needs_a_token_and_only_the_writer_writes(self):
        self.assertEqual(self.status("PUT", "/ac/" + "a" * 64, data=b"forged")[0], 401)
        self.assertEqual(self.status("GET", "/ac/" + "a" * 64)[0], 401)
        self.assertEqual(self.status("PUT", "/ac/" + "b" * 64, "reader", b"forged")[0], 401)
        self.assertIn(self.status("PUT", "/cas/" + "c" * 64, "writer", b"blob")[0], (201, 204))
        self.assertEqual(self.status("GET", "/cas/" + "c" * 64, "reader"), (200, b"blob"))
        self.assertEqual(self.status("GET", "/cas/" + "c" * 64, "writer"), (200, b"blob"))
        self.assertFalse(os.path.exists(os.path.join(self.dir, "data", "ac", "b" * 64)), "the reader wrote")

    def test_the_folder_is_the_users_alone(self):
        self.status("PUT", "/cas/" + "d" * 64, "writer", b"blob")
        for root, dirs, files in os.walk(self.dir):
            for name in dirs + files:
                mode = os.lstat(os.path.join(root, name)).st_mode
                self.assertEqual(stat.S_IMODE(mode) & 0o077, 0, os.path.join(root, name))
        self.assertEqual(stat.S_IMODE(os.stat(self.dir).st_mode), 0o700)
        with open(os.path.join(self.dir, "bazelrc"), encoding="ascii") as f:
            rc = f.read()
        self.assertIn(f"--remote_cache={self.url}", rc)
        # Bazel splits a bazelrc line at spaces, honouring quotes (as shlex does): the header is
        # one option, its value the whole "Basic <token>".
        lines = [shlex.split(line) for line in rc.splitlines() if line and not line.startswith("#")]
        self.assertIn(["build", "--remote_header=Authorization=Basic "
                       + base64.b64encode(f"writer:{self.token('writer')}".encode()).decode()], lines)
        self.assertTrue(all(len(words) == 2 for words in lines), lines)

    def test_another_user_reads_and_writes_nothing(self):
        as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
        if os.geteuid() != 0 or not shutil.which("setpriv") or subprocess.run(as_nobody + ["true"]).returncode != 0:
            self.skipTest("needs root and setpriv able to become nobody (not inside a user namespace)")
        self.status("PUT", "/cas/" + "e" * 64, "writer", b"blob")
        for argv in (["cat", os.path.join(self.dir, "writer.token")],
                     ["cat", os.path.join(self.dir, "data", "cas", "e" * 64)],
                     ["ls", self.dir],
                     ["touch", os.path.join(self.dir, "data", "ac", "f" * 64)]):
            p = subprocess.run(as_nobody + argv, capture_output=True, text=True, timeout=30)
            self.assertNotEqual(p.returncode, 0, (argv, p.stdout))
            self.assertIn("Permission denied", p.stderr, argv)


if __name__ == "__main__":
    unittest.main(verbosity=2)
