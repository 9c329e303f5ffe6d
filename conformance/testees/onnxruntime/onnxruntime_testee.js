'use strict';
/**
 * ONNX Runtime as a tensor-cts testee (conformance/protocol/PROTOCOL.md), over onnxruntime-node
 * 1.30.0 and its CPU execution provider (package.json here pins it; .ci/setup installs it with
 * `npm ci --ignore-scripts`: the CPU binary ships inside the package, and the postinstall,
 * which fetches CUDA files from outside the registry, is not run):
 *
 *   bazel run --local_cpu_resources=1 //conformance:run -- --candidate=onnxruntime
 *
 * ONNX Runtime runs models, not operations: each operation is a one-node ONNX model
 * (onnx_model.js writes its protobuf) of the default domain at opset 26, IR version 13 (the
 * newest onnxruntime-node 1.30.0 supports), whose inputs have the operands' element types and no
 * shape; one InferenceSession per operator and input types, created on first use and kept (a
 * model ORT refuses is remembered with its error). The graph output has no declared type: its
 * type is what ORT infers from the operator. Every answer is ORT's own, through its public API
 * (ort.Tensor, ort.InferenceSession.create, session.run); this file only translates:
 *
 *   dtypes     ort.Tensor's numeric types that the suite names: float32, float64, float16,
 *              int8, int16, int32, int64, uint8, bool (onnxruntime-common tensor.d.ts
 *              Tensor.DataTypeMap; uint16/32/64, int4/uint4 and string are ORT's too, the
 *              suite has no such dtype). ORT has no complex and no bfloat16 tensor type (the
 *              map has neither), no dtype parser, no dtype attributes, no finfo, no promotion
 *              or casting query, no default dtype: those features are undeclared.
 *   tensors    make_tensor: new ort.Tensor(type, typedArray, dims) when every value is exactly
 *              an element of the type's typed array (booleans for bool, integers in range for
 *              the integer types, float32-exact numbers for float32, numbers for float64);
 *              otherwise (and always for float16, whose typed array holds raw bits) a tensor of
 *              the values' own kind (float64 if any is a float, else int64 if any is an integer,
 *              else bool; a Python bool in a numeric list as 0/1) converted by ORT's Cast
 *              (to = the dtype): "converted as a cast would" is ORT's cast. A complex value
 *              answers NotSupported (no complex type). meta: tensor.type, tensor.dims; strides
 *              are dims' row-major strides and storage_offset 0, because an ort.Tensor is its
 *              dims and one dense data array in row-major order (TensorProto's layout,
 *              onnx.proto; ort.Tensor has no strides or offset: for an empty tensor these are
 *              the testee's, see the expectations); device 'cpu' for
 *              tensor.location 'cpu' (the only location of the CPU execution provider). values:
 *              tensor.data (float16 bits decoded exactly, integers as BigInt, bool as booleans).
 *   binary     ONNX Add / Sub / Mul / Div on the two tensors (multidirectional broadcasting
 *              is the operators'). ONNX Add and Sub have no alpha: an alpha other than the
 *              integer 1 answers NotSupported. ORT's operators take tensors only: a Python
 *              number operand answers NotSupported (no ONNX form of a typeless scalar).
 *              Operand dtypes are passed as they are, no Cast inserted: two different element
 *              types are what ORT says of them (a type error at model load).
 * Undeclared, because ORT has no such API: promote_types, result_type, can_cast and the dtype
 * queries; binary_inplace (no in-place operation); binary_out (not offered: session.run can
 * write into a preallocated output of the exact type and shape, but the session thread works on
 * copies of the main thread's tensors, so ORT's write would not reach `out`; onnxruntime-node
 * refuses a typed array over a SharedArrayBuffer, "Invalid argument"); views, memory_formats,
 * format_copies, storage (no strides, offsets or views); devices, default_device,
 * device_factories; asarray; dlpack; autograd; legacy_constructor.
 *
 * ORT's session API is asynchronous (Promises) and the kit answers synchronously, so the sessions
 * live in a worker thread of this file: the main thread posts it a request and waits
 * (Atomics.wait) for the signal the thread raises once it has posted the answer, then takes the
 * answer (receiveMessageOnPort), which can reach the port a moment after the signal: it polls
 * until the answer with its request's number is there; the main thread also
 * remembers each model ORT refused to load, and answers its error again without asking. Sessions
 * run with one intra-op and one inter-op thread (execution settings only).
 *
 * --faulty: a deliberately wrong translation (sub runs ONNX Mul), to show the suites' checks
 * fail on it. --late-answers: the session thread posts each answer 2 ms after raising the signal
 * (//conformance:arithmetic_onnxruntime_late_answers: the same outcomes as without).
 */
const path = require('path');
const {Worker, MessageChannel, isMainThread, workerData, receiveMessageOnPort} = require('worker_threads');
const {oneNodeModel, ELEM_TYPES} = require('./onnx_model.js');

const FAULTY = process.argv.includes('--faulty');  // a deliberately wrong translation (mul for sub): the check can fail
const LATE = process.argv.includes('--late-answers');  // the session thread answers after its signal (main thread only)

if (isMainThread) main(); else worker();

// ------------------------------------------------------------------ worker: ORT's sessions
function worker() {
  const ort = require('onnxruntime-node');
  const {port, signal, late} = workerData;
  const sessions = new Map();  // key -> Promise of an InferenceSession
  const options = {intraOpNumThreads: 1, interOpNumThreads: 1, executionProviders: ['cpu']};
  // The main thread's tensors are onnxruntime-common's: the same class, or nothing is answered.
  const common = require(require.resolve('onnxruntime-common', {paths: [path.dirname(require.resolve('onnxruntime-node/package.json'))]}));
  port.on('message', async ({id, op, types, attrs, feeds}) => {
    let answer;
    try {
      if (ort.Tensor !== common.Tensor) throw new Error("onnxruntime-node's Tensor is not its onnxruntime-common's Tensor");
      const k = JSON.stringify([op, types, attrs]);
      if (!sessions.has(k)) sessions.set(k, ort.InferenceSession.create(oneNodeModel(op, types, attrs), options));
      let session;
      try {
        session = await sessions.get(k);
      } catch (e) {
        e.atLoad = true;
        throw e;
      }
      const inputs = {};
      feeds.forEach((f, i) => { inputs[String.fromCharCode(97 + i)] = new ort.Tensor(f.type, f.data, f.dims); });
      const out = (await session.run(inputs)).y;
      answer = {ok: {type: out.type, data: out.data, dims: [...out.dims]}};
    } catch (e) {
      answer = {error: {message: e && e.message !== undefined ? e.message : String(e), atLoad: Boolean(e && e.atLoad)}};
    }
    if (late) {
      // --late-answers: the answer reaches the port well after the signal (what the main thread
      // must wait out; without polling, each answer would go to the request after it).
      Atomics.store(signal, 0, 1);
      Atomics.notify(signal, 0);
      setTimeout(() => port.postMessage({id, ...answer}), 2);
      return;
    }
    port.postMessage({id, ...answer});
    Atomics.store(signal, 0, 1);
    Atomics.notify(signal, 0);
  });
}

// ------------------------------------------------------------------ main: the testee
function main() {
  const tcts = require(path.join(__dirname, '..', '..', 'protocol', 'js', 'tcts_testee.js'));
  tcts.protectStdout();
  for (const arg of process.argv.slice(2)) {
    if (arg !== '--faulty' && arg !== '--late-answers') {
      process.stderr.write(`onnxruntime_testee.js: unknown argument ${JSON.stringify(arg)} (usage: onnxruntime_testee.js [--faulty] [--late-answers])\n`);
      process.exit(2);
    }
  }
  // ort.Tensor is onnxruntime-common's Tensor, which onnxruntime-node re-exports: the main
  // thread loads only that (pure JavaScript), from onnxruntime-node's own dependency; the native
  // runtime loads in the session thread, started at the first operation.
  const nodeDir = path.dirname(require.resolve('onnxruntime-node/package.json'));
  const ort = {Tensor: require(require.resolve('onnxruntime-common', {paths: [nodeDir]})).Tensor};
  const VERSION = require('onnxruntime-node/package.json').version;

  // The session thread, and a synchronous call into it.
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const pause = new Int32Array(new SharedArrayBuffer(4));  // never notified: Atomics.wait on it sleeps
  let port1 = null;
  let sequence = 0;  // the number of the request in flight
  const refused = new Map();  // the models ORT refused to load: their key -> ORT's message
  function run(op, inputs, attrs = {}) {
    const types = inputs.map((t) => t.type);
    const key = JSON.stringify([op, types, attrs]);
    if (refused.has(key)) throw new Error(refused.get(key));  // the same model, the same answer
    if (port1 === null) {
      const channel = new MessageChannel();
      port1 = channel.port1;
      const thread = new Worker(__filename, {workerData: {port: channel.port2, signal, late: LATE}, transferList: [channel.port2]});
      thread.unref();
      port1.unref();
    }
    const id = ++sequence;
    Atomics.store(signal, 0, 0);
    port1.postMessage({id, op, types, attrs,
      feeds: inputs.map((t) => ({type: t.type, data: t.data, dims: [...t.dims]}))});
    // The thread raises the signal after posting its answer, which may reach port1 a moment
    // later: wait for the signal, then take messages until this request's answer is there (an
    // older one is the late answer of a request that timed out here, and is dropped).
    const deadline = Date.now() + 120000;
    let message;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) throw new tcts.TesteeError('Internal', `the ORT session thread did not answer ${op} in 120 s`);
      if (Atomics.load(signal, 0) === 0) {
        Atomics.wait(signal, 0, 0, left);
        continue;
      }
      const received = receiveMessageOnPort(port1);
      if (received === undefined) {
        Atomics.wait(pause, 0, 0, 1);
      } else if (received.message.id === id) {
        message = received.message;
        break;
      }
    }
    if (message.error) {
      if (message.error.atLoad) refused.set(key, message.error.message);
      throw new Error(message.error.message);
    }
    return new ort.Tensor(message.ok.type, message.ok.data, message.ok.dims);
  }

  const DTYPES = ['float32', 'float64', 'float16', 'int8', 'int16', 'int32', 'int64', 'uint8', 'bool'];
  const INT_RANGES = {int8: 8, int16: 16, int32: 32, int64: 64, uint8: -8};
  const ARRAYS = {float32: Float32Array, float64: Float64Array, int8: Int8Array, int16: Int16Array,
    int32: Int32Array, int64: BigInt64Array, uint8: Uint8Array, bool: Uint8Array};
  const OPS = {add: 'Add', sub: 'Sub', mul: 'Mul', div: 'Div'};
  if (FAULTY) OPS.sub = 'Mul';

  function dtype(name) {
    if (!DTYPES.includes(name)) {
      throw new tcts.NotSupported(`onnxruntime ${VERSION}'s Tensor has no type ${JSON.stringify(name)} ` +
        `(onnxruntime-common Tensor.DataTypeMap: ${Object.keys(ELEM_TYPES).join(', ')}, uint4, int4)`);
    }
    return name;
  }

  function intFits(name, v) {
    if (typeof v !== 'bigint') return false;
    const bits = INT_RANGES[name];
    return bits < 0 ? v >= 0n && v < 1n << BigInt(-bits) : v >= -(1n << BigInt(bits - 1)) && v < 1n << BigInt(bits - 1);
  }

  /** The typed array of `values` as dtype `name` when each is exactly one of its elements, else null. */
  function exactly(name, values) {
    let ok;
    if (name === 'bool') ok = values.every((v) => typeof v === 'boolean');
    else if (name in INT_RANGES) ok = values.every((v) => intFits(name, v));
    else if (name === 'float64') ok = values.every((v) => typeof v === 'number');
    else if (name === 'float32') ok = values.every((v) => typeof v === 'number' && (Number.isNaN(v) || Math.fround(v) === v));
    else ok = false;  // float16: its typed array holds bits
    if (!ok) return null;
    if (name === 'bool') return Uint8Array.from(values, (v) => (v ? 1 : 0));
    if (name === 'int64' || !(name in INT_RANGES)) return ARRAYS[name].from(values);
    return ARRAYS[name].from(values, Number);  // exact: each fits the type
  }

  /** The values as a tensor of their own kind (float64, int64 or bool), for ORT's Cast. */
  function ownKind(values, dims) {
    if (values.some((v) => typeof v === 'number')) {
      const big = values.find((v) => typeof v === 'bigint' && BigInt(Number(v)) !== v);
      if (big !== undefined) throw new tcts.NotSupported(`the integer ${big} is no float64 and floats are among the values: no ORT tensor holds both exactly`);
      return new ort.Tensor('float64', Float64Array.from(values, Number), dims);
    }
    if (values.some((v) => typeof v === 'bigint')) {
      const wide = values.find((v) => typeof v === 'bigint' && !intFits('int64', v));
      if (wide !== undefined) throw new tcts.NotSupported(`the integer ${wide} is outside int64, ORT's widest signed integer type`);
      return new ort.Tensor('int64', BigInt64Array.from(values, (v) => BigInt(v)), dims);
    }
    return new ort.Tensor('bool', Uint8Array.from(values, (v) => (v ? 1 : 0)), dims);
  }

  function halfToDouble(h) {  // IEEE binary16 bits -> its value (every one is a double)
    const e = (h >> 10) & 0x1f;
    const m = h & 0x3ff;
    const s = h & 0x8000 ? -1 : 1;
    if (e === 0x1f) return m ? NaN : s * Infinity;
    return e === 0 ? s * m * 2 ** -24 : s * (1024 + m) * 2 ** (e - 25);
  }

  class OnnxruntimeTestee extends tcts.Testee {
    constructor() {
      super();
      this.name = 'onnxruntime';
      this.dtypes = DTYPES;
      this.version = VERSION;
      this.build = `Node.js ${process.version}, onnxruntime-node ${VERSION} (CPU execution provider), ` +
        `one-node models of ai.onnx opset 26, IR version 13${FAULTY ? ', FAULTY: sub runs Mul' : ''}`;
    }

    release(t) {
      if (t instanceof ort.Tensor) t.dispose();
    }

    make_tensor({sizes, dtype: name, values}) {
      const d = dtype(name);
      const dims = sizes.map(Number);
      const complex = values.find((v) => v instanceof tcts.Complex);
      if (complex !== undefined) throw new tcts.NotSupported(`onnxruntime ${VERSION} has no complex tensor type (a value ${complex.re}+${complex.im}j)`);
      const data = exactly(d, values);
      if (data !== null) return new ort.Tensor(d, data, dims);
      return run('Cast', [ownKind(values, dims)], {to: ELEM_TYPES[d]});
    }

    meta({t}) {
      const strides = [];
      let step = 1;
      for (let k = t.dims.length - 1; k >= 0; k--) {
        strides[k] = step;
        step *= t.dims[k];
      }
      if (t.location !== 'cpu') throw new tcts.NotSupported(`an ort.Tensor at location '${t.location}'`);
      return {dtype: t.type, sizes: [...t.dims], strides, storage_offset: 0, device: 'cpu'};
    }

    values({t}) {
      if (t.type === 'float16') return Array.from(t.data, halfToDouble);
      if (t.type === 'bool') return Array.from(t.data, (x) => x !== 0);
      if (t.type === 'int64') return Array.from(t.data);
      if (t.type in INT_RANGES) return Array.from(t.data, (x) => BigInt(x));
      if (t.type === 'float32' || t.type === 'float64') return Array.from(t.data);
      throw new tcts.NotSupported(`an ort.Tensor of type ${t.type}`);
    }

    binary({op, a, b, alpha}) {
      if (!(op in OPS)) throw new tcts.NotSupported(`no binary op ${JSON.stringify(op)}`);
      for (const x of [a, b]) {
        if (!(x instanceof ort.Tensor)) {
          throw new tcts.NotSupported(`ONNX ${OPS[op]} takes tensors only: ORT has no form of the Python number ${x instanceof tcts.Complex ? `${x.re}+${x.im}j` : String(x)}`);
        }
      }
      if ((op === 'add' || op === 'sub') && alpha !== 1n) {
        throw new tcts.NotSupported(`ONNX ${OPS[op]} has no alpha (asked for alpha=${String(alpha)})`);
      }
      return run(OPS[op], [a, b]);
    }
  }

  tcts.serve(new OnnxruntimeTestee());
  process.exit(0);
}
