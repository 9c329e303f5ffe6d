"""What the TensorFlow testees share (tensorflow_testee.py: tf.experimental.numpy with NumPy behaviour;
tensorflow_ops_testee.py: TensorFlow's own ops): the spec's dtype names TensorFlow has, devices by
name, and element values read back. Imports nothing of tf.experimental.numpy, whose NumPy behaviour
is process-wide state the ops testee must not have."""

import numpy as np
import tensorflow as tf

import tcts_testee

# The spec's dtype names TensorFlow has (tf.as_dtype accepts each); complex32 it has not.
NAMES = ("bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float16", "bfloat16",
         "float32", "float64", "complex64", "complex128")


def tdtype(name):
    if name not in NAMES:
        raise tcts_testee.NotSupported(f"TensorFlow {tf.__version__} has no dtype {name!r}")
    return tf.as_dtype(name)


def name_of(d):
    return tf.as_dtype(d).name


def device_of(name):
    if name != "cpu":
        raise tcts_testee.NotSupported(f"this TensorFlow (the CPU wheel) has no device {name!r}")
    return "/CPU:0"


def device_name(t):
    spec = tf.DeviceSpec.from_string(t.device)
    return "cpu" if spec.device_type == "CPU" else f"{spec.device_type.lower()}:{spec.device_index}"


def meta(t):
    """A tensor's metadata: no strides and no offset in TensorFlow (PROTOCOL.md "Strides")."""
    return {"dtype": name_of(t.dtype), "sizes": list(t.shape), "strides": [], "storage_offset": 0,
            "device": device_name(t)}


def values(t):
    host = t.numpy()
    if t.dtype == tf.bfloat16:  # ml_dtypes' scalars are no Python floats; float32 holds every bfloat16
        host = host.astype(np.float32)
    return np.asarray(host).ravel().tolist()
