"""The testees kept in this repository (conformance/testees/), by candidate name: conformance/BUILD
binds each to every suite, and the main job (//conformance:run) and the replay
(//conformance/replay) take each by its name (--candidate=NAME runs it as --testee=CMD would).
Each name's expectations are conformance/expectations/<name>.txt."""

# Libraries judged through a Python testee.
TESTEES = {
    "torch_python": "/usr/bin/python3 conformance/testees/torch/torch_testee.py",
    "numpy": "/usr/bin/python3 conformance/testees/numpy/numpy_testee.py",
    "numpy_weak": "/usr/bin/python3 conformance/testees/numpy/numpy_testee.py --promotion=weak",
}

# Libraries judged through a Node.js testee (conformance/protocol/js); their suite tests go
# through a launcher that skips, saying why, when node or the testee's pinned packages
# (installed by .ci/setup) are absent.
NODE_TESTEES = {
    "tfjs_cpu": "node conformance/testees/tfjs/tfjs_testee.js --backend=cpu",
    "tfjs_wasm": "node conformance/testees/tfjs/tfjs_testee.js --backend=wasm",
}

# The runner's arguments naming every testee kept here (run.py --known-testee).
KNOWN_TESTEE_ARGS = ["'--known-testee=%s=%s'" % (name, command) for name, command in TESTEES.items() + NODE_TESTEES.items()]

# What those testees need at run time: their programs and the kits.
KNOWN_TESTEE_DATA = [
    "//conformance/protocol:python_kit",
    "//conformance/testees",
    "//conformance/testees:tfjs",
]
