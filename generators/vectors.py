"""Test vectors of the testee protocol, generated from the interface description (being written)."""


def emit(iface) -> str:
    raise NotImplementedError("generators/vectors.py: the test vectors are not written yet")
