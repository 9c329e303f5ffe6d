"""The conformance suites and their Bazel shard counts: conformance/BUILD binds each to every
candidate, and the suite bundle (conformance/bundle) passes the same lists to its runner."""

# Every suite (tcts_suite in conformance/BUILD), with its shard count under bazel test.
SUITES = {
    "dtypes": 1,
    "promotion": 2,
    "casting": 2,
    "strided": 2,
    "arithmetic": 2,
    "devices": 1,
    "asarray": 1,
    "dlpack": 1,
}

# The suites whose tensors can live anywhere, run with the reference's tensors on `cuda`
# (<suite>_reference_cuda) and on the emulated device (<suite>_reference_emulated), and what
# the runner's --device runs: promotion, casting, strided and arithmetic make every tensor
# through factories that follow the default device. dtypes makes no tensors; devices, asarray
# and dlpack test device placement itself (their rows name cpu and meta).
DEVICE_SUITES = {
    "promotion": 2,
    "casting": 2,
    "strided": 2,
    "arithmetic": 2,
}
