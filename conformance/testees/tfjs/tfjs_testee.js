'use strict';
/**
 * TensorFlow.js as a tensor-cts testee (conformance/protocol/PROTOCOL.md, protocol v1), over
 * @tensorflow/tfjs-core 4.22.0 and one backend (package.json here pins them; .ci/setup installs
 * them with `npm ci`):
 *
 *   bazel run --local_cpu_resources=1 //conformance:run -- \
 *     --testee='node conformance/testees/tfjs/tfjs_testee.js' --candidate=tfjs_cpu \
 *     --expectations=conformance/expectations/tfjs_cpu.txt
 *
 * --backend=cpu (default: @tensorflow/tfjs-backend-cpu) or --backend=wasm
 * (@tensorflow/tfjs-backend-wasm; its .wasm binaries ship inside the package).
 *
 * Every answer is tfjs's own, through its public API (tf.*); this file only translates:
 *
 *   dtypes         tfjs's DataType is 'float32' | 'int32' | 'bool' | 'complex64' | 'string'
 *                  (tfjs-core/dist/types.d.ts), checked with tf.util.isValidDtype; a spec dtype
 *                  outside it (int64, float64, uint8, ...) answers NotSupported, naming it.
 *                  tfjs has no dtype parser, no dtype attributes (is_floating_point, ...), no
 *                  finfo, no can_cast, no default dtype: those features are undeclared.
 *  promote_types   tf.upcastType(a, b) (exported by tfjs-core's base.d.ts; the rule its binary
 *                  ops apply through makeTypesMatch).
 *   tensors        make_tensor: tf.tensor(values, sizes, dtype) for real dtypes; complex64 (and
 *                  complex values for a real dtype) through tf.complex(real, imag) and, for a
 *                  real dtype, tf.cast. JS numbers are tfjs's only numeric input: an integer
 *                  value is passed as Number(v) (exact up to 2^53, rounded beyond: what a JS
 *                  literal is). meta: tensor.dtype, tensor.shape; strides are tensor.strides
 *                  (tfjs's row-major strides, which leave out the last dimension's implicit 1:
 *                  util_base.js computeStrides) with that 1 appended; storage_offset 0 and
 *                  device 'cpu': a tfjs tensor owns its whole dense data (no views, no offsets)
 *                  and both backends keep it in host memory. values: tensor.dataSync()
 *                  (int32 -> integers, float32 -> floats, bool -> booleans, complex64 ->
 *                  interleaved real/imag pairs -> complex).
 *   binary         tf.add / tf.sub / tf.mul / tf.div. tfjs has no alpha: add/sub with an alpha
 *                  other than the integer 1 answer NotSupported. A scalar operand is passed as
 *                  a JS number or boolean (tfjs's convertToTensor infers its dtype: float32 for
 *                  any number, bool for a boolean); a complex scalar as tf.complex(re, im).
 * Undeclared, because tfjs has no such API: binary_out / binary_inplace (tensors are immutable,
 * no out=), views (no as_strided, no storage), memory_formats, format_copies, storage, devices,
 * default_device, device_factories, asarray (no array-interface or buffer sharing), dlpack,
 * legacy_constructor, result_type.
 */
const path = require('path');
const tcts = require(path.join(__dirname, '..', '..', 'protocol', 'js', 'tcts_testee.js'));

tcts.protectStdout();  // before tfjs loads: it prints a banner on stdout in Node

const BACKENDS = {cpu: '@tensorflow/tfjs-backend-cpu', wasm: '@tensorflow/tfjs-backend-wasm'};
let backend = 'cpu';
for (const arg of process.argv.slice(2)) {
  const m = /^--backend=(.*)$/.exec(arg);
  if (!m || !(m[1] in BACKENDS)) {
    process.stderr.write(`tfjs_testee.js: unknown argument ${JSON.stringify(arg)} (usage: tfjs_testee.js [--backend=cpu|wasm])\n`);
    process.exit(2);
  }
  backend = m[1];
}

const tf = require('@tensorflow/tfjs-core');
require(BACKENDS[backend]);

const OPS = {add: tf.add, sub: tf.sub, mul: tf.mul, div: tf.div};

function dtype(name) {
  if (!tf.util.isValidDtype(name) || name === 'string') {
    throw new tcts.NotSupported(`tfjs ${tf.version_core} has no dtype ${JSON.stringify(name)} (its numeric DataTypes: ` +
      'float32, int32, bool, complex64; tf.util.isValidDtype)');
  }
  return name;
}

function number(v) {  // a decoded scalar as tfjs takes it
  return typeof v === 'bigint' ? Number(v) : v;
}

function operand(v) {
  if (v instanceof tcts.Complex) return tf.complex(v.re, v.im);
  if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean') return number(v);
  return v;  // a tensor
}

class TfjsTestee extends tcts.Testee {
  constructor() {
    super();
    this.name = `tfjs (${backend} backend)`;
    // tfjs's DataType (tfjs-core/dist/types.d.ts): 'float32' | 'int32' | 'bool' | 'complex64' |
    // 'string'; the suite's other dtypes have no tfjs equivalent.
    this.dtypes = ['float32', 'int32', 'bool', 'complex64'];
    this.version = tf.version_core;
    this.build = `Node.js ${process.version}, @tensorflow/tfjs-core ${tf.version_core}, ${BACKENDS[backend]} ` +
      `${require(`${BACKENDS[backend]}/package.json`).version}, tf.getBackend() = '${tf.getBackend()}'`;
  }

  release(t) {
    if (t instanceof tf.Tensor) t.dispose();
  }

  promote_types({a, b}) {
    return tf.upcastType(dtype(a), dtype(b));
  }

  make_tensor({sizes, dtype: name, values}) {
    const d = dtype(name);
    const shape = sizes.map(Number);
    if (d === 'complex64' || values.some((v) => v instanceof tcts.Complex)) {
      const re = values.map((v) => (v instanceof tcts.Complex ? v.re : number(v)));
      const im = values.map((v) => (v instanceof tcts.Complex ? v.im : 0));
      const z = tf.complex(tf.tensor(re, shape, 'float32'), tf.tensor(im, shape, 'float32'));
      return d === 'complex64' ? z : tf.cast(z, d);
    }
    return tf.tensor(values.map(number), shape, d);
  }

  meta({t}) {
    return {dtype: t.dtype, sizes: t.shape, strides: t.rank === 0 ? [] : [...t.strides, 1], storage_offset: 0,
      device: 'cpu'};
  }

  values({t}) {
    const data = t.dataSync();
    if (t.dtype === 'complex64') {
      const out = [];
      for (let k = 0; k < data.length; k += 2) out.push(new tcts.Complex(data[k], data[k + 1]));
      return out;
    }
    if (t.dtype === 'bool') return Array.from(data, (x) => x !== 0);
    if (t.dtype === 'int32') return Array.from(data, (x) => BigInt(x));
    return Array.from(data);
  }

  binary({op, a, b, alpha}) {
    if ((op === 'add' || op === 'sub') && alpha !== 1n) {
      throw new tcts.NotSupported(`tfjs's tf.${op} has no alpha (asked for alpha=${String(alpha)})`);
    }
    if (!(op in OPS)) throw new tcts.NotSupported(`no binary op ${JSON.stringify(op)}`);
    return OPS[op](operand(a), operand(b));
  }
}

(async () => {
  await tf.setBackend(backend);
  await tf.ready();
  tcts.serve(new TfjsTestee());
})().catch((e) => {
  process.stderr.write(`tfjs_testee.js: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
