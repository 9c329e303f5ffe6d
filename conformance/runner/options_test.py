"""The runner's options: flags and the environment read once (options.py is the only module of
the runner that reads os.environ), the bundle's flags in place of Bazel's variables, and the
rerun command a run prints, which writes beside the run's report, never over it (issue 36).

Runs under /usr/bin/python3 from the repository root (or the runfiles tree).
"""

import ast
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
from . import options

SUITES = ["--suites=dtypes"]


def parse(argv, **environ):
    return options.parse_args(SUITES + argv, environ=environ, argv0="/nonexistent/run.py")


class Environment(unittest.TestCase):
    def test_bazel_run(self):
        o = parse([], BUILD_WORKING_DIRECTORY="/home/u/lib", BUILD_WORKSPACE_DIRECTORY="/home/u/tcts",
                  PATH="/bin", TCTS_BAZEL="bazelisk", PYTHONPATH="/p")
        self.assertEqual((o.cwd, o.workspace, o.bazel, o.pythonpath), ("/home/u/lib", "/home/u/tcts", "bazelisk", "/p"))
        self.assertEqual(o.user_path("x.txt"), "/home/u/lib/x.txt")
        self.assertFalse(o.in_test)
        self.assertEqual(o.child_environ["PATH"], "/bin")
        self.assertEqual(options.run_command(o), "bazel run //conformance:run --")

    def test_bazel_test(self):
        o = parse([], TEST_TARGET="//conformance:dtypes_reference", TEST_TOTAL_SHARDS="3", TEST_SHARD_INDEX="1",
                  TESTBRIDGE_TEST_ONLY="A.*", XML_OUTPUT_FILE="/x.xml", TEST_UNDECLARED_OUTPUTS_DIR="/u",
                  TEST_SHARD_STATUS_FILE="/s", GTEST_OUTPUT="xml:/g", RC_PARAMS="max_success=3")
        self.assertTrue(o.in_test)
        self.assertEqual((o.shard, o.test_filter, o.xml_output, o.test_outputs, o.shard_status_file),
                         ((1, 3), "A.*", "/x.xml", "/u", "/s"))
        self.assertEqual(o.jobs, 1)
        self.assertFalse(o.stale_check)
        # A suite process neither writes the enclosing test's XML nor shards itself.
        for k in ("TEST_TARGET", "TEST_TOTAL_SHARDS", "XML_OUTPUT_FILE", "GTEST_OUTPUT", "TESTBRIDGE_TEST_ONLY"):
            self.assertNotIn(k, o.child_environ)
        self.assertEqual(o.child_environ["RC_PARAMS"], "max_success=3")
        # A library's on-disk cache goes into the test's temporary folder, not the read-only home;
        # one the caller set is kept, and outside a test nothing is set.
        self.assertEqual(parse([], TEST_TMPDIR="/t").child_environ["XDG_CACHE_HOME"], "/t/xdg_cache")
        self.assertEqual(parse([], TEST_TMPDIR="/t", XDG_CACHE_HOME="/c").child_environ["XDG_CACHE_HOME"], "/c")
        self.assertNotIn("XDG_CACHE_HOME", parse([], PATH="/bin").child_environ)
        self.assertEqual(options.bazel_command(o),
                         "bazel test //conformance:dtypes_reference --test_filter='A.*' (shard 2 of 3)")

    def test_bad_shards(self):
        with self.assertRaises(options.UsageError):
            parse([], TEST_TOTAL_SHARDS="2", TEST_SHARD_INDEX="2")
        with self.assertRaises(options.UsageError):
            parse([], TEST_TOTAL_SHARDS="x")

    def test_the_bundle_passes_flags_not_bazel_variables(self):
        with tempfile.TemporaryDirectory() as here:
            o = parse([f"--cwd={here}", "--run-command=/b/tcts", "--suite-commit=abc123"])
            self.assertEqual((o.cwd, o.workspace, o.run_command, o.suite_commit), (here, "", "/b/tcts", "abc123"))
            self.assertEqual(options.run_command(o), "/b/tcts")
        self.assertIsNone(parse(["--suite-commit="]).suite_commit)  # an unstamped bundle: the checkout's HEAD
        self.assertTrue(all(a.startswith(options.BUILD_ARGS) for a in ("--cwd=x", "--run-command=y", "--suite-commit=z")))

    def test_no_other_runner_module_reads_the_environment(self):
        readers = []
        for name in sorted(os.listdir(HERE)):
            if not name.endswith(".py") or name.endswith("_test.py") or name == "options.py":
                continue
            with open(os.path.join(HERE, name), encoding="utf-8") as f:
                tree = ast.parse(f.read())
            for node in ast.walk(tree):
                if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "putenv") and \
                        isinstance(node.value, ast.Name) and node.value.id == "os":
                    readers.append(f"{name}:{node.lineno}")
        # (The programs of their own, repro and the expectations writer's and lint's, are in
        # conformance/tools: no exemption here.)
        self.assertEqual(readers, [])


class CandidateOptions(unittest.TestCase):
    def test_the_runners_own_candidate_options_are_refused_and_written_by_it(self):
        from . import binaries
        # What the runner writes for a testee with a trace: the keys --candidate-option refuses.
        o = parse(["--testee=python3 t.py", "--cwd=/w", "--candidate-option=faults=x"])
        written = [a.removeprefix("--candidate_option=").partition("=")[0]
                   for a in binaries.candidate_options(o) + binaries.trace_option("/t")]
        self.assertEqual(written, ["testee_argv", "testee_cwd", "faults", "trace_dir"])
        self.assertEqual(set(written) - {"faults"}, set(options.RUNNER_CANDIDATE_OPTIONS))
        for key in written:
            with self.subTest(key=key):
                if key == "faults":
                    continue
                with self.assertRaisesRegex(options.UsageError, f"--candidate-option='{key}=v': {key} is the runner's"):
                    parse([f"--candidate-option={key}=v"])
        parse(["--candidate-option=testees=v"])  # a key that only begins like one is the candidate's


class TesteeCommand(unittest.TestCase):
    """Issue 51 item 5: the testee's command line is split once (shlex) and reaches the suite
    binary as an argv; what only a shell would do is refused, naming the word."""

    def test_the_words_reach_the_binary_as_a_json_array(self):
        from . import binaries
        import json
        o = parse(["--testee=python3 'my dir/t.py' --x=\"1 2\" a\\;b", "--cwd=/w"])
        self.assertEqual(o.testee_argv, ["python3", "my dir/t.py", "--x=1 2", "a;b"])
        first = binaries.candidate_options(o)[0]
        self.assertEqual(json.loads(first.removeprefix("--candidate_option=testee_argv=")), o.testee_argv)

    def test_a_known_testee_is_split_too(self):
        o = parse(["--candidate=np", "--known-testee=np=/usr/bin/python3 numpy_testee.py --promotion=weak"])
        self.assertEqual(o.testee_argv, ["/usr/bin/python3", "numpy_testee.py", "--promotion=weak"])

    def test_what_only_a_shell_does_is_refused_by_name(self):
        for command, named in [("a && b", "'&&' is shell syntax"), ("t.py; rm x", "';' is shell syntax"),
                               ("t 2>/dev/null", "'>' is shell syntax"), ("t | tee x", "'|' is shell"),
                               ("A=1 node t.js", "'A=1' sets a variable, which only a shell does; write env A=1 "
                                                 "node t.js"),
                               ("python3 ~/t.py", "'~/t.py': only a shell expands '~'"),
                               ("python3 'open", "No closing quotation"), ("   ", "no program to run")]:
            with self.subTest(command=command):
                with self.assertRaises(options.UsageError) as e:
                    parse([f"--testee={command}"])
                self.assertIn(f"--testee={command!r}: ", str(e.exception))
                self.assertIn(named, str(e.exception))

    def test_shell_syntax_quoted_or_escaped_is_an_argument(self):
        o = parse(["--testee=sh -c 'cd lib && exec python3 t.py 2>/dev/null' x\\>y --f='a;b'"])
        self.assertEqual(o.testee_argv, ["sh", "-c", "cd lib && exec python3 t.py 2>/dev/null", "x>y", "--f=a;b"])


class LibraryVersions(unittest.TestCase):
    """The candidate's library-version file (bazel/versions.bzl), recorded in the report."""

    KNOWN = ["--known-library-version=numpy=external/tcts_versions/numpy.txt",
             "--known-library-version=reference=external/tcts_versions/reference.txt",
             "--known-testee=numpy=/usr/bin/python3 numpy_testee.py"]

    def test_a_test_names_its_file(self):
        o = parse(["--candidate=numpy", "--library-version-file=external/tcts_versions/numpy.txt"],
                  RUNFILES_DIR="/nonexistent")
        self.assertTrue(o.library_version_file.endswith("/external/tcts_versions/numpy.txt"), o.library_version_file)

    def test_the_main_job_picks_the_candidates_file(self):
        self.assertEqual(parse(self.KNOWN + ["--candidate=numpy"]).library_version_file,
                         "external/tcts_versions/numpy.txt")
        self.assertEqual(parse(self.KNOWN).library_version_file, "external/tcts_versions/reference.txt")
        self.assertEqual(parse(self.KNOWN + ["--candidate=eigen"]).library_version_file, "")
        # A testee given by another command is not the library the name's file describes.
        self.assertEqual(parse(self.KNOWN + ["--candidate=numpy", "--testee=python3 mine.py"]).library_version_file, "")
        self.assertTrue("--known-library-version=a=b".startswith(options.BUILD_ARGS))
        with self.assertRaises(options.UsageError):
            parse(["--known-library-version=numpy"])

    def test_the_file_read_into_the_report(self):
        from . import reporting
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "tcts_versions", "numpy.txt")
            os.makedirs(os.path.dirname(path))
            with open(path, "w", encoding="utf-8") as f:
                f.write("# comment\ndpkg:python3-numpy=1:1.24.2-1\npython=Python 3.11.2\n")
            identity = reporting.library_identity(path)
            self.assertEqual(identity["file"], "@tcts_versions//:numpy.txt")
            self.assertEqual(identity["libraries"], {"dpkg:python3-numpy": "1:1.24.2-1", "python": "Python 3.11.2"})
            self.assertEqual(len(identity["sha256"]), 64)
            self.assertIsNone(reporting.library_identity(""))
            with open(path, "a", encoding="utf-8") as f:
                f.write("no equals sign\n")
            with self.assertRaises(reporting.IdentityError):
                reporting.library_identity(path)
            with self.assertRaises(reporting.IdentityError):
                reporting.library_identity(os.path.join(d, "missing.txt"))


class Rerun(unittest.TestCase):
    def test_a_testee_case_reruns_into_out_rerun(self):
        o = parse(["--testee=python3 t.py", "--candidate=mine"], BUILD_WORKING_DIRECTORY="/w")
        o.out = "/w/out/mine"
        base = options.rerun_base(o, "exp.txt")
        self.assertIn("--out='/w/out/mine/rerun'", base)
        self.assertTrue(base.startswith("bazel run //conformance:run -- --testee='python3 t.py' --candidate='mine' "
                                        "--expectations='exp.txt'"), base)
        o.out = "/w/out/mine/rerun"  # the rerun's own rerun command is the same command
        self.assertEqual(options.rerun_base(o, "exp.txt"), base)

    def test_a_device_and_a_replay_rerun_into_out_rerun(self):
        o = parse(["--device=cuda", "--candidate=libtorch"])
        o.out = "/o/libtorch-cuda"
        self.assertIn("--out='/o/libtorch-cuda/rerun'", options.rerun_base(o, ""))
        o = parse(["--replay=r.json", "--candidate=libtorch"])
        o.out = "/o/replay-libtorch"
        self.assertTrue(options.rerun_base(o, "").startswith("bazel run //conformance:replay -- 'r.json'"))
        self.assertIn("--out='/o/replay-libtorch/rerun'", options.rerun_base(o, ""))

    def test_a_suite_target_needs_no_rerun_command(self):
        self.assertEqual(options.rerun_base(parse(["--candidate=libtorch"]), ""), "")
        o = parse(["--testee=t", "--target=//conformance:dtypes_t"])
        self.assertEqual(options.rerun_base(o, ""), "")


class Suites(unittest.TestCase):
    """--suites narrows the suites the target passes (--all-suites): a run of one suite is not
    judged on the other suites' expectations (stale entries), and names only suites there are."""

    ALL = ["--all-suites=dtypes,promotion,casting", "--device-suites=promotion,casting"]

    def run_args(self, argv):
        return options.parse_args(self.ALL + argv, environ={}, argv0="/nonexistent/run.py")

    def test_every_suite_by_default_with_the_stale_check(self):
        o = self.run_args([])
        self.assertEqual((o.suites, o.stale_check), (["dtypes", "promotion", "casting"], True))
        self.assertTrue(self.run_args(["--suites=casting,dtypes,promotion"]).stale_check)

    def test_fewer_suites_run_without_the_stale_check(self):
        o = self.run_args(["--suites=casting"])
        self.assertEqual((o.suites, o.stale_check), (["casting"], False))
        with self.assertRaisesRegex(options.UsageError, "--stale-check needs every case of every suite"):
            self.run_args(["--suites=casting", "--stale-check"])

    def test_a_suite_not_there_is_named(self):
        with self.assertRaisesRegex(options.UsageError, r"--suites=casting,strides: no suite 'strides' here "
                                                        r"\(the suites are dtypes, promotion, casting\)"):
            self.run_args(["--suites=casting,strides"])

    def test_a_device_runs_its_suites_narrowed_the_same_way(self):
        self.assertEqual(self.run_args(["--device=cuda"]).suites, ["promotion", "casting"])
        self.assertEqual(self.run_args(["--device=cuda", "--suites=casting"]).suites, ["casting"])
        with self.assertRaisesRegex(options.UsageError, r"no suite 'dtypes' here \(--device runs promotion, casting\)"):
            self.run_args(["--device=cuda", "--suites=dtypes"])

    def test_the_report_shows_the_users_suites_not_the_targets(self):
        self.assertTrue("--all-suites=a,b".startswith(options.BUILD_ARGS))
        self.assertFalse("--suites=a".startswith(options.BUILD_ARGS))

    def test_without_all_suites_the_suites_given_are_every_suite(self):
        o = options.parse_args(["--suites=casting"], environ={}, argv0="/nonexistent/run.py")
        self.assertEqual((o.suites, o.stale_check), (["casting"], True))


if __name__ == "__main__":
    unittest.main(verbosity=2)
