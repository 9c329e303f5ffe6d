"""The environment a person without Bazel runs the bundle in, for the bundle's tests: the test's
own environment less Bazel's test variables (a JUnit file above all), and a PATH of the system's
tools less bazel (a directory of links to /usr/bin and /bin, bazel* left out)."""

import os
import shutil

BAZEL_TEST_PREFIXES = ("BUILD_", "RUNFILES", "TEST_", "XML_OUTPUT", "TESTBRIDGE", "PYTHONPATH")


def bazel_free_env(tmp: str) -> dict:
    """os.environ without Bazel's test variables, PATH a directory TMP/bin of links to every tool
    of /usr/bin and /bin but bazel*. Raises AssertionError if bazel is still found on it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(BAZEL_TEST_PREFIXES)}
    tools = os.path.join(tmp, "bin")
    os.makedirs(tools)
    for d in ("/usr/bin", "/bin"):
        for name in os.listdir(d):
            if not name.startswith("bazel") and not os.path.lexists(os.path.join(tools, name)):
                os.symlink(os.path.join(d, name), os.path.join(tools, name))
    env["PATH"] = tools
    if shutil.which("bazel", path=tools):
        raise AssertionError(f"bazel is still on the PATH {tools}")
    return env
