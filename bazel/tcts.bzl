"""Macros that turn spec tables into conformance test targets.

    tcts_suite(name = "promotion", properties = True)
        generates promotion_gtest.cc from //spec:tables and wraps it, with the suite's
        properties (//conformance/properties:promotion_properties), in the cc_library
        `promotion_suite`.

    tcts_properties(name = "promotion", deps = [...])   (in conformance/properties/BUILD)
        the cc_library `promotion_properties`: the checked-in property bodies
        promotion_properties.cc with their spec-derived tables promotion_properties.inc,
        generated from //spec:tables by generators/emit_rapidcheck.py.

    candidate_binary(candidate = "libtorch", suites = [...])
        `libtorch_bin`: every suite linked with the candidate's adapter, in one binary.

    conformance_test(suite = "promotion", candidate = "libtorch", shard_count = 2)
        the test `promotion_libtorch`: conformance/runner/run.py running libtorch_bin on the
        promotion suite, isolated, applying conformance/expectations/libtorch.txt, with
        libtorch's library versions (@tcts_versions//:libtorch.txt, bazel/versions.bzl) as an
        input recorded in the report — the main job's runner, so `bazel test` and `bazel run //conformance:run` give the same verdicts.

Generated sources are build outputs only; nothing generated is checked in.
"""

load("//bazel:copts.bzl", "TCTS_COPTS")
load("@libtorch//:defs.bzl", "HAVE_LIBTORCH", "LIBTORCH_MESSAGE")
load("//bazel:versions.bzl", "LIBRARIES")

_GEN = "//generators:%s"
_TOOLS = ["//generators:emitters"]

def spec_genrule(name, emitter, out, suite = None):
    """Runs a generators/ emitter over the spec tables: `python3 EMITTER [--suite S] --out OUT`.

    Args:
      name: the genrule's name.
      emitter: the emitter script in generators/, e.g. "emit_gtest.py".
      out: the generated file (a build output; never checked in).
      suite: the emitter's --suite, when it has one.
    """
    native.genrule(
        name = name,
        srcs = ["//spec:tables"],
        outs = [out],
        tools = _TOOLS + [_GEN % emitter],
        cmd = "python3 $(location %s) %s--out $@ $(locations //spec:tables)" % (
            _GEN % emitter,
            ("--suite %s " % suite) if suite else "",
        ),
    )

def tcts_properties(name, deps = []):
    """A suite's RapidCheck properties as the cc_library `<name>_properties`.

    The bodies are the checked-in `<name>_properties.cc`; only the tables they include,
    `<name>_properties.inc` (the properties' rows and the spec's values they use), are
    generated (generators/emit_rapidcheck.py --suite <name>).

    Args:
      name: the suite.
      deps: the helpers and checks the bodies use.
    """
    spec_genrule(name + "_properties_inc_gen", "emit_rapidcheck.py", name + "_properties.inc", suite = name)
    native.cc_library(
        name = name + "_properties",
        copts = TCTS_COPTS,
        testonly = True,
        srcs = [
            name + "_properties.cc",
            name + "_properties.inc",
        ],
        deps = [
            "//bazel:gtest",
            "//bazel:rapidcheck",
        ] + deps,
        alwayslink = True,
    )

def tcts_suite(name, properties = False, deps = []):
    """A generated conformance suite as a cc_library named `<name>_suite`.

    Args:
      name: the suite (generators/emit_gtest.py --suite).
      properties: also link the suite's properties (//conformance/properties:<name>_properties).
      deps: what the suite's checks need beyond the harness (e.g. a peer candidate).
    """
    spec_genrule(name + "_gtest_gen", "emit_gtest.py", name + "_gtest.cc", suite = name)
    native.cc_library(
        name = name + "_suite",
        copts = TCTS_COPTS,
        testonly = True,
        srcs = [name + "_gtest.cc"],
        deps = [
            "//bazel:gtest",
            "//conformance/checks:" + name,
        ] + (["//conformance/properties:%s_properties" % name] if properties else []) + deps,
        alwayslink = True,
    )

def candidate_available(candidate):
    """Whether a candidate's library was found at configure time."""
    return candidate != "libtorch" or HAVE_LIBTORCH

def candidate_binary(candidate, suites, name = "", deps = []):
    """One binary holding every suite in `suites`, linked with the candidate's adapter:
    `<candidate>_bin` (or `name`). Each test registers its suite (TCTS_SUITE_SOURCE), so the
    runner reports every case under its suite and `--tcts_suites=A,B` narrows a run; one
    binary per candidate means a library is loaded once per runner process, not once per suite.

    Args:
      candidate: an adapter in //conformance/adapters.
      suites: tcts_suite names in this package.
      name: the binary's name instead of `<candidate>_bin`.
      deps: more libraries to link (a device backend).
    """
    name = name or candidate + "_bin"
    if not candidate_available(candidate):
        native.sh_binary(
            name = name,
            testonly = True,
            srcs = ["//conformance/runner:skipped_candidate.sh"],
        )
        return
    native.cc_binary(
        name = name,
        copts = TCTS_COPTS,
        testonly = True,
        deps = [":%s_suite" % s for s in suites] + [
            "//conformance/harness:runner_main",
            "//conformance/adapters:%s" % candidate,
        ] + deps,
    )

def library_version_file(candidate):
    """The file recording candidate's library versions (bazel/versions.bzl): a data input of
    its tests, so a change of version re-runs exactly them."""
    return "@tcts_versions//:%s.txt" % candidate

def known_library_version_args(candidates):
    """The main job's runner arguments naming every candidate's version file."""
    return ["--known-library-version=%s=$(rootpath %s)" % (c, library_version_file(c)) for c in candidates]

def conformance_test(suite, candidate, shard_count = 1, tags = [], device = "", name = "", binary = "", testee = "", data = [], launcher = "", launcher_args = [], missing = "", timeout = None, case_timeout = None):
    """Binds suite `suite` to candidate `candidate`: the test `<suite>_<candidate>`.

    The test is an sh_test running conformance/runner/run.py on the candidate's binary
    (candidate_binary: every suite, narrowed to this one), which reports raw outcomes,
    under Debian's /usr/bin/python3 (for python3-jsonschema): crash and hang isolation, the
    candidate's expectations, a report in the test's undeclared outputs, and a JUnit test.xml
    with one test case per case. It honours Bazel's sharding and --test_filter (GoogleTest
    names, as the rerun commands print them); it fails when the candidate does not conform
    (any FAIL, XPASS, CRASH or TIMEOUT) and passes when it conforms partially (required
    features answered NotSupported: skipped test cases that say so). Stale expectations are
    the lint's (//conformance:expectations_<candidate>_test): one suite cannot tell them.

    Args:
      suite: a tcts_suite name in this package.
      candidate: an adapter in //conformance/adapters with an expectations file
        //conformance/expectations:<candidate>.txt.
      shard_count: Bazel shards (each runs its share of the cases, dealt by work: stream.h Selection).
      tags: extra test tags.
      device: run with every tensor the suite makes on this device (`<suite>_<candidate>_<device>`);
        without a usable one every case is NOT_SUPPORTED (skipped), saying why.
      name: the test's name instead of the default.
      binary: the candidate_binary to run (default `:<candidate>_bin`).
      testee: a testee command line (conformance/protocol/PROTOCOL.md): the suite runs against
        it through `:testee_bin`; `candidate` then only names it and its expectations.
      data: what the testee needs at run time (its program, the kit).
      launcher: a script that runs instead of system_python.sh, with launcher_args before the
        runner's arguments (a testee whose runtime may be absent: it skips, saying why, or
        execs system_python.sh's interpreter on the rest).
      launcher_args: the launcher's own arguments.
      missing: when not empty, why the candidate's library is absent here: the test is a
        placeholder that passes and reports itself skipped with this reason.
      timeout: the test's Bazel timeout (default: Bazel's for its size).
      case_timeout: seconds a case may run before it is a TIMEOUT (default: the runner's).
    """
    name = name or "%s_%s" % (suite, candidate) + ("_" + device.replace(":", "_") if device else "")
    binary = binary or (":testee_bin" if testee else ":%s_bin" % candidate)
    expectations = "//conformance/expectations:%s.txt" % candidate
    if candidate not in LIBRARIES:
        fail("candidate %s has no library identity: add it to LIBRARIES in bazel/versions.bzl" % candidate)
    versions = library_version_file(candidate)
    if missing or not candidate_available(candidate):
        # Clearly labelled placeholder: passes, and reports itself skipped with the reason.
        native.sh_test(
            name = name,
            srcs = ["//conformance/runner:skipped_candidate.sh"],
            args = [name, "'%s'" % (missing or LIBTORCH_MESSAGE)],
            tags = tags + ["candidate-missing"],
        )
        return
    native.sh_test(
        name = name,
        srcs = [launcher or "//conformance/runner:system_python.sh"],
        args = launcher_args + [
            "conformance/runner/run.py",
            "--suites=" + suite,
            "--candidate=" + candidate,
            "--binary=$(rootpath %s)" % binary,
            "--target=//%s:%s" % (native.package_name(), name),
            "--expectations=$(rootpath %s)" % expectations,
            "--library-version-file=$(rootpath %s)" % versions,
            "--partial-ok",
            "--no-stale-check",
        ] + (["--device=" + device] if device else []) + (["--testee='%s'" % testee] if testee else []) +
               (["--case-timeout=%d" % case_timeout] if case_timeout else []),
        data = [
            binary,
            expectations,
            versions,  # a change of the library's version re-runs the test
            "//conformance/expectations:all",  # the files it includes
            "//conformance/runner:runner_py",
        ] + data,
        shard_count = shard_count,
        tags = tags + ["conformance", "candidate-" + candidate],
        timeout = timeout,
    )
