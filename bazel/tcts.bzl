"""Macros that turn spec tables into conformance test targets.

    tcts_suite(name = "promotion", properties = True)
        generates promotion_gtest.cc from //spec:tables and wraps it, with the suite's
        properties (//conformance/properties:promotion_properties), in the cc_library
        `promotion_suite`.

    tcts_properties(name = "promotion", deps = [...])   (in conformance/properties/BUILD)
        the cc_library `promotion_properties`: the checked-in property bodies
        promotion_properties.cc with their spec-derived tables promotion_properties.inc,
        generated from //spec:tables by generators/emit_rapidcheck.py.

    conformance_test(suite = "promotion", candidate = "libtorch", shard_count = 2)
        the cc_test `promotion_libtorch`: the suite linked with the candidate's adapter and
        the runner, reading conformance/expectations/libtorch.txt.

Generated sources are build outputs only; nothing generated is checked in.
"""

load("//bazel:copts.bzl", "TCTS_COPTS")
load("@libtorch//:defs.bzl", "HAVE_LIBTORCH", "LIBTORCH_MESSAGE")

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

def conformance_test(suite, candidate, shard_count = 1, tags = [], device = "", name = "", deps = []):
    """Binds suite `suite` to candidate `candidate`: the test `<suite>_<candidate>`.

    Args:
      suite: a tcts_suite name in this package.
      candidate: an adapter in //conformance/adapters with an expectations file
        //conformance/expectations:<candidate>.txt.
      shard_count: GoogleTest shards (Bazel runs them in parallel).
      tags: extra test tags.
      device: run with every tensor the suite makes on this device (`<suite>_<candidate>_<device>`);
        without a usable one the test skips every case, saying why.
      name: the test's name instead of the default.
      deps: more libraries to link (a device backend).
    """
    name = name or "%s_%s" % (suite, candidate) + ("_" + device.replace(":", "_") if device else "")
    expectations = "//conformance/expectations:%s.txt" % candidate
    if not candidate_available(candidate):
        # Clearly labelled placeholder: passes, and reports itself skipped with the reason.
        native.sh_test(
            name = name,
            srcs = ["//conformance/runner:skipped_candidate.sh"],
            args = [name, "'%s'" % LIBTORCH_MESSAGE],
            tags = tags + ["candidate-missing"],
        )
        return
    native.cc_test(
        name = name,
        copts = TCTS_COPTS,
        deps = [
            ":%s_suite" % suite,
            "//conformance/harness:runner_main",
            "//conformance/adapters:%s" % candidate,
        ] + deps,
        args = [
            "--candidate=" + candidate,
            "--expectations=$(location %s)" % expectations,
            "--target=//%s:%s" % (native.package_name(), name),
        ] + (["--device=" + device] if device else []),
        data = [expectations],
        shard_count = shard_count,
        tags = tags + ["conformance", "candidate-" + candidate],
    )
