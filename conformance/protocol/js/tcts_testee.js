'use strict';
/**
 * The Node.js testee kit: validate a JavaScript tensor library with tensor-cts, protocol v1
 * (conformance/protocol/PROTOCOL.md). Node's standard library only: copy this file.
 *
 *     const tcts = require('./tcts_testee.js');
 *     class MyTestee extends tcts.Testee {
 *       constructor() { super(); this.name = 'mylib'; this.version = mylib.version; }
 *       promote_types({a, b}) { return mylib.promote(a, b); }   // dtype names in and out
 *       ...
 *     }
 *     tcts.serve(new MyTestee());
 *
 * What the kit does (what the Python kit, ../python/tcts_testee.py, does):
 *   - the protocol loop over stdin/stdout JSON lines, the hello handshake and the handle table
 *     (methods take and return the library's own tensor objects);
 *   - declarations: a feature is declared exactly when every operation of it is a method of the
 *     testee (FEATURE_OPS, the Python kit's table); the answer-only features (sparse_layout,
 *     device_forms, device_repr, cuda_tensors) through `alsoSupports`, withdrawn by
 *     `notSupported`. Any other op answers NotSupported;
 *   - errors: throw the library's own error; classify() maps it onto the protocol's kinds
 *     (a JS RangeError is an IndexError, TypeError a TypeError, any other Error a
 *     RuntimeError); throw tcts.NotSupported for a call the library has no equivalent of;
 *   - exact values: integers beyond +-2^53 are read and written as BigInt (readJson /
 *     writeJson: JSON.parse would round them), floats as C99 hex strings (hexToDouble /
 *     doubleToHex, exact through the IEEE bits, -0.0 and subnormals included). Scalars reach a
 *     method as boolean, BigInt (an integer), number (a float) or tcts.Complex, and a method's
 *     scalars are encoded the same way (so an integer answer must be a BigInt);
 *   - release: when the suite releases a handle the kit forgets it and calls the testee's
 *     release(obj), if it has one (a library that frees memory explicitly: tensor.dispose());
 *   - host memory, as far as it goes: each method gets the server as its second argument, and
 *     server.lend(src, field) turns a request's lent region ({"region": {"id", "bytes"}}) into
 *     a Uint8Array that the kit syncs both ways around every request. asarray's source arrives
 *     as sent (the testee calls lend for its kinds "array", "array_scalar" and "buffer"); the
 *     kit has no DLPack (JavaScript has no DLManagedTensor) and answers data_ptr as given;
 *   - stdout is the protocol's: serve() sends console.log/info/debug/warn and
 *     process.stdout.write to stderr.
 * A library's semantics are its own: translate only.
 */
const fs = require('fs');

const PROTOCOL = 1;

// Each feature and the operations it covers: the Python kit's FEATURE_OPS (candidate.h's Feature).
const FEATURE_OPS = {
  dtype_from_name: ['dtype_from_name'],
  dtype_info: ['dtype_info'],
  finfo: ['finfo'],
  legacy_constructor: ['legacy_constructor'],
  promote_types: ['promote_types'],
  result_type: ['result_type'],
  can_cast: ['can_cast'],
  default_dtype: ['default_dtype', 'set_default_dtype'],
  tensors: ['make_tensor', 'meta', 'values'],
  binary: ['binary'],
  binary_out: ['binary_out'],
  binary_inplace: ['binary_inplace'],
  memory_formats: ['empty', 'empty_strided', 'is_contiguous'],
  sparse_layout: [],
  views: ['as_strided', 't', 'transpose', 'permute', 'narrow', 'select', 'slice', 'expand', 'unsqueeze',
    'squeeze', 'view', 'reshape'],
  format_copies: ['contiguous', 'clone', 'empty_like'],
  storage: ['storage', 'storage_values', 'write_storage', 'write_element', 'data_ptr'],
  devices: ['device', 'compare_devices'],
  device_forms: [],
  device_repr: [],
  default_device: ['default_device', 'set_default_device', 'enter_device', 'exit_device'],
  device_factories: ['empty_on'],
  cuda_tensors: [],
  asarray: ['asarray'],
  dlpack: ['to_dlpack', 'from_dlpack'],
};
const ANSWER_FEATURES = new Set(['sparse_layout', 'device_forms', 'device_repr', 'cuda_tensors']);
const ALL_OPS = new Set(Object.values(FEATURE_OPS).flat());
const ERROR_KINDS = ['RuntimeError', 'TypeError', 'ValueError', 'IndexError', 'NotImplementedError',
  'NotSupported', 'Internal'];

class NotSupported extends Error {}

/** An error of an explicit protocol kind (one of ERROR_KINDS). */
class TesteeError extends Error {
  constructor(kind, message) {
    super(message);
    if (!ERROR_KINDS.includes(kind)) throw new Error(`unknown error kind ${kind}; one of ${ERROR_KINDS}`);
    this.kind = kind;
  }
}

/** A request this kit cannot read: names the field. */
class ProtocolError extends Error {}

class Complex {
  constructor(re, im) { this.re = re; this.im = im; }
}

// ---------------------------------------------------------------- exact JSON
/** A JSON number written with a fraction or an exponent (a float, as Python's json reads it). */
class JsonFloat {
  constructor(value) { this.value = value; }
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

/**
 * JSON text -> value, exactly: an integer is a number when it is a safe integer (|n| <= 2^53 - 1)
 * and a BigInt otherwise; a number with a fraction or exponent is a JsonFloat. Throws
 * ProtocolError naming the offset on anything that is not JSON.
 */
function readJson(text) {
  let pos = 0;
  const fail = (what) => { throw new ProtocolError(`not JSON at offset ${pos}: ${what}`); };
  const ws = () => { while (pos < text.length && ' \t\n\r'.includes(text[pos])) pos++; };
  const value = (depth) => {
    if (depth > 512) fail('nested too deeply');
    ws();
    const c = text[pos];
    if (c === '{') {
      pos++;
      const obj = {};
      ws();
      if (text[pos] === '}') { pos++; return obj; }
      for (;;) {
        ws();
        if (text[pos] !== '"') fail('expected a string key');
        const key = string();
        ws();
        if (text[pos++] !== ':') fail("expected ':'");
        Object.defineProperty(obj, key, {value: value(depth + 1), enumerable: true, writable: true,
          configurable: true});
        ws();
        if (text[pos] === ',') { pos++; continue; }
        if (text[pos] === '}') { pos++; return obj; }
        fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      pos++;
      const arr = [];
      ws();
      if (text[pos] === ']') { pos++; return arr; }
      for (;;) {
        arr.push(value(depth + 1));
        ws();
        if (text[pos] === ',') { pos++; continue; }
        if (text[pos] === ']') { pos++; return arr; }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return string();
    for (const [word, v] of [['true', true], ['false', false], ['null', null]]) {
      if (text.startsWith(word, pos)) { pos += word.length; return v; }
    }
    NUMBER.lastIndex = pos;
    const m = NUMBER.exec(text);
    if (!m) fail('unexpected character');
    pos = NUMBER.lastIndex;
    if (m[1] !== undefined || m[2] !== undefined) return new JsonFloat(Number(m[0]));
    const n = Number(m[0]);
    return Number.isSafeInteger(n) ? n : BigInt(m[0]);
  };
  const string = () => {
    STRING.lastIndex = pos;
    const m = STRING.exec(text);
    if (!m) fail('bad string');
    pos = STRING.lastIndex;
    return JSON.parse(m[0]);
  };
  const v = value(0);
  ws();
  if (pos !== text.length) fail('text after the value');
  return v;
}

/** value -> JSON text: BigInt as its digits; a number must be an integer (floats travel as
 * {"float": hex}: encodeScalar). */
function writeJson(v) {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'boolean': return v ? 'true' : 'false';
    case 'bigint': return v.toString();
    case 'string': return JSON.stringify(v);
    case 'number':
      if (!Number.isInteger(v)) throw new TypeError(`writeJson: ${v} is not an integer (encode floats with encodeScalar)`);
      return Object.is(v, -0) ? '0' : String(v).includes('e') ? BigInt(v).toString() : String(v);
    default:
      if (Array.isArray(v)) return '[' + v.map(writeJson).join(',') + ']';
      if (v instanceof JsonFloat) throw new TypeError('writeJson: a JsonFloat (encode floats with encodeScalar)');
      return '{' + Object.keys(v).filter((k) => v[k] !== undefined)
        .map((k) => JSON.stringify(k) + ':' + writeJson(v[k])).join(',') + '}';
  }
}

// ---------------------------------------------------------------- exact floats
const HEX = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?[0-9]+)$/;

/** A C99 hex float ("0x1.8p+1", "-0x0p+0", "inf", "-inf", "nan") -> the nearest double (ties to
 * even), exactly; null when the text is no hex float. */
function hexToDouble(text) {
  if (typeof text !== 'string') return null;
  const named = {'inf': Infinity, '+inf': Infinity, '-inf': -Infinity, 'nan': NaN, '-nan': NaN, '+nan': NaN}[text];
  if (named !== undefined) return named;
  const m = HEX.exec(text);
  if (!m || (m[2] === '' && !m[3])) return null;
  const sign = m[1] === '-' ? -1 : 1;
  const frac = m[3] || '';
  let mant = BigInt('0x' + ((m[2] + frac) || '0'));
  if (mant === 0n) return sign * 0;
  let e2 = Number(m[4]) - 4 * frac.length;  // value = mant * 2^e2
  const bits = mant.toString(2).length;
  const top = bits - 1 + e2;  // the exponent of the leading bit
  if (top > 1023) return sign * Infinity;
  const lsb = Math.max(top - 52, -1074);  // the exponent of the result's last bit
  if (lsb > e2) {  // round mant to a multiple of 2^(lsb - e2), ties to even
    const shift = BigInt(lsb - e2);
    const q = mant >> shift;
    const rest = mant - (q << shift);
    const half = 1n << (shift - 1n);
    mant = rest > half || (rest === half && (q & 1n)) ? q + 1n : q;
    e2 = lsb;
  }
  // mant < 2^54 now (and < 2^53 unless rounding carried): exact as a number; times a power of 2.
  return sign * scale(Number(mant), e2);
}

function scale(x, e) {  // x * 2^e without an intermediate overflow or underflow
  while (e > 1000) { x *= 2 ** 1000; e -= 1000; }
  while (e < -1000) { x *= 2 ** -1000; e += 1000; }
  return x * 2 ** e;
}

/** A double -> Python's float.hex() text ("0x1.8000000000000p+1"), "inf", "-inf" or "nan". */
function doubleToHex(x) {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const sign = hi >>> 31 ? '-' : '';
  const exp = (hi >>> 20) & 0x7ff;
  const mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(view.getUint32(4));
  const digits = mant.toString(16).padStart(13, '0');
  if (exp === 0) return mant === 0n ? `${sign}0x0.0p+0` : `${sign}0x0.${digits}p-1022`;
  const e = exp - 1023;
  return `${sign}0x1.${digits}p${e < 0 ? '-' : '+'}${Math.abs(e)}`;
}

// ---------------------------------------------------------------- scalars
function encodeScalar(v) {
  if (typeof v === 'boolean' || typeof v === 'bigint') return v;
  if (typeof v === 'number') return {float: doubleToHex(v)};
  if (v instanceof Complex) return {complex: [doubleToHex(v.re), doubleToHex(v.im)]};
  throw new TypeError(`not a scalar: ${String(v)} (${typeof v}); integers are BigInt`);
}

function decodeFloat(v, field) {
  if (v instanceof JsonFloat) return v.value;
  if (typeof v === 'number' || typeof v === 'bigint') return Number(v);
  const x = v !== null && typeof v === 'object' ? hexToDouble(v.float) : null;
  if (x === null) throw new ProtocolError(`${field}: expected a float, got ${safeText(v)}`);
  return x;
}

/** boolean -> boolean, an integer -> BigInt, a float -> number, a complex -> Complex. */
function decodeScalar(v, field = 'scalar') {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return BigInt(v);
  if (typeof v === 'bigint') return v;
  if (v instanceof JsonFloat) return v.value;
  if (v !== null && typeof v === 'object' && 'float' in v) return decodeFloat(v, field);
  if (v !== null && typeof v === 'object' && Array.isArray(v.complex) && v.complex.length === 2) {
    return new Complex(decodeFloat({float: v.complex[0]}, field), decodeFloat({float: v.complex[1]}, field));
  }
  throw new ProtocolError(`${field}: expected a scalar, got ${safeText(v)}`);
}

function safeText(v) {
  try { return writeJson(v); } catch (e) { return String(v); }
}

// ---------------------------------------------------------------- the testee
/** Extend and add a method per operation the library has; each takes the request's arguments
 * as one object ({a, b}, {t, dim0, dim1}, ...: PROTOCOL.md's names; `self` is `target` and
 * `from` is `from_`, as in the Python kit) and returns the library's answer. */
class Testee {
  constructor() {
    this.name = 'unnamed';
    this.version = '';
    this.build = '';
    this.alsoSupports = new Set();
    this.notSupported = new Set();
    // The dtypes the library has, by canonical name ('float32'); null: every dtype the suite
    // names (hello's "dtypes"). A case that needs a dtype left out is NOT_SUPPORTED, naming it;
    // a declared dtype that answers NotSupported FAILs (as the Python kit's `dtypes`).
    this.dtypes = null;
  }

  /** The protocol's error kind of something the library threw. */
  classify(e) {
    if (e instanceof NotSupported) return 'NotSupported';
    if (e instanceof TesteeError) return e.kind;
    if (e instanceof RangeError) return 'IndexError';
    if (e instanceof TypeError) return 'TypeError';
    if (e instanceof Error) return 'RuntimeError';
    return 'Internal';
  }

  features() {
    const declared = new Set();
    for (const [feature, ops] of Object.entries(FEATURE_OPS)) {
      if (ANSWER_FEATURES.has(feature)) {
        if (this.alsoSupports.has(feature)) declared.add(feature);
      } else if (ops.every((op) => typeof this[op] === 'function')) {
        declared.add(feature);
      }
    }
    for (const f of this.notSupported) declared.delete(f);
    return declared;
  }
}

const TENSOR_RESULT = new Set(['make_tensor', 'binary', 'empty', 'empty_strided', 'as_strided', 't', 'transpose',
  'permute', 'narrow', 'select', 'slice', 'expand', 'unsqueeze', 'squeeze', 'view', 'reshape', 'contiguous',
  'clone', 'empty_like', 'empty_on', 'asarray', 'from_dlpack']);
const NONE_RESULT = new Set(['set_default_dtype', 'binary_out', 'binary_inplace', 'write_storage', 'write_element',
  'set_default_device', 'enter_device', 'exit_device']);
const int = (x, field) => {
  if (typeof x === 'bigint') return x;
  if (Number.isInteger(x)) return BigInt(x);
  throw new TesteeError('Internal', `testee kit: ${field} must be an integer, got ${String(x)}`);
};
const ENCODERS = {
  meta: (m) => ({dtype: m.dtype, sizes: m.sizes.map((s) => int(s, 'sizes')), strides: m.strides.map((s) => int(s, 'strides')),
    storage_offset: int(m.storage_offset, 'storage_offset'), device: m.device, layout: m.layout || 'strided'}),
  values: (v) => Array.from(v, encodeScalar),
  storage_values: (v) => Array.from(v, encodeScalar),
  finfo: (f) => ({bits: int(f.bits, 'bits'), eps: encodeScalar(f.eps), max: encodeScalar(f.max),
    min: encodeScalar(f.min), tiny: encodeScalar(f.tiny)}),
  dtype_info: (d) => ({itemsize: int(d.itemsize, 'itemsize'), is_floating_point: !!d.is_floating_point,
    is_complex: !!d.is_complex, is_signed: !!d.is_signed}),
  storage: (s) => ({id: int(s.id, 'id'), numel: int(s.numel, 'numel')}),
  is_contiguous: Boolean,
  can_cast: Boolean,
};
const CONTROL_FIELDS = new Set(['id', 'op', 'release', 'release_regions', 'sync']);

class Region {
  constructor(id, bytes) { this.id = id; this.bytes = bytes; this.seen = Buffer.from(bytes); }
}

class Server {
  constructor(testee) {
    this.testee = testee;
    this.handles = new Map();
    this.nextHandle = 1;
    this.regions = new Map();
    this.features = testee.features();
  }

  tensor(h, field) {
    if (typeof h !== 'number' || !this.handles.has(h)) throw new ProtocolError(`${field}: no tensor with handle ${safeText(h)}`);
    return this.handles.get(h);
  }

  operand(v, field) {
    if (v !== null && typeof v === 'object' && 'tensor' in v) return this.tensor(v.tensor, field);
    if (v !== null && typeof v === 'object' && 'scalar' in v) return decodeScalar(v.scalar, field);
    throw new ProtocolError(`${field}: expected {"tensor": h} or {"scalar": s}, got ${safeText(v)}`);
  }

  /** A lent region's bytes (the suite's copy), as a Uint8Array the suite's and the library's
   * writes reach across requests. */
  lend(src, field) {
    const reg = src && src.region;
    if (reg === null || typeof reg !== 'object' || typeof reg.id !== 'number') {
      throw new ProtocolError(`${field}.region: expected {"id", "bytes"}, got ${safeText(reg)}`);
    }
    const bytes = new Uint8Array(base64(reg.bytes || '', `${field}.region.bytes`));
    this.regions.set(reg.id, new Region(reg.id, bytes));
    return bytes;
  }

  handle(req) {
    for (const h of req.release || []) {
      if (this.handles.has(h) && typeof this.testee.release === 'function') this.testee.release(this.handles.get(h));
      this.handles.delete(h);
    }
    for (const r of req.release_regions || []) this.regions.delete(r);
    for (const s of req.sync || []) {
      const r = this.regions.get(s.id);
      if (r === undefined) continue;
      const data = base64(s.bytes || '', 'sync.bytes');
      if (data.length !== r.bytes.length) throw new ProtocolError(`sync: region ${s.id} holds ${r.bytes.length} bytes, got ${data.length}`);
      r.bytes.set(data);
      r.seen = Buffer.from(data);
    }
    const op = req.op;
    if (op === 'release') return null;
    if (op === 'hello') {
      const known = new Set(req.features || Object.keys(FEATURE_OPS));
      const unknown = [...this.features].filter((f) => !known.has(f));
      if (unknown.length) throw new ProtocolError(`features: the suite does not know ${unknown.sort()}`);
      const answer = {name: this.testee.name, version: this.testee.version, build: this.testee.build,
        protocol: PROTOCOL, features: [...this.features].sort()};
      // A suite that names no dtypes (before declared dtypes) takes no declaration.
      if (this.testee.dtypes !== null && Array.isArray(req.dtypes)) {
        const knownDtypes = new Set(req.dtypes);
        const unknownDtypes = [...this.testee.dtypes].filter((d) => !knownDtypes.has(d));
        if (unknownDtypes.length) throw new ProtocolError(`dtypes: the suite does not know ${unknownDtypes.sort()}`);
        answer.dtypes = [...new Set(this.testee.dtypes)].sort();
      }
      return answer;
    }
    if (typeof op !== 'string' || !ALL_OPS.has(op) || typeof this.testee[op] !== 'function') {
      throw new NotSupported(`unknown request ${safeText(op)}`);
    }
    const args = {};
    for (const [k, v] of Object.entries(req)) if (!CONTROL_FIELDS.has(k)) args[k] = v;
    for (const k of ['t', 'self', 'out']) if (k in args) args[k] = this.tensor(args[k], k);
    if (['result_type', 'binary', 'binary_out', 'binary_inplace'].includes(op)) {
      for (const k of ['a', 'b', 'other']) if (k in args) args[k] = this.operand(args[k], k);
    }
    if ('binary_op' in args) { args.op = args.binary_op; delete args.binary_op; }
    if ('self' in args) { args.target = args.self; delete args.self; }
    if ('from' in args) { args.from_ = args.from; delete args.from; }
    for (const k of ['alpha', 'value']) if (k in args) args[k] = decodeScalar(args[k], k);
    if (op === 'make_tensor') {
      if (!Array.isArray(args.values)) throw new ProtocolError(`values: expected a list, got ${safeText(args.values)}`);
      args.values = args.values.map((v) => decodeScalar(v, 'values'));
    }
    const result = this.testee[op].call(this.testee, args, this);
    if (TENSOR_RESULT.has(op)) {
      const h = this.nextHandle++;
      this.handles.set(h, result);
      return h;
    }
    if (NONE_RESULT.has(op)) return null;
    return op in ENCODERS ? ENCODERS[op](result) : result;
  }

  extras(answer) {
    const sync = [];
    for (const r of this.regions.values()) {
      if (!Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.length).equals(r.seen)) {
        r.seen = Buffer.from(r.bytes);
        sync.push({id: r.id, bytes: r.seen.toString('base64')});
      }
    }
    if (sync.length) answer.sync = sync;
  }

  /** One request line -> one answer line (without its newline). */
  answer(line) {
    let id = null;
    let answer;
    try {
      const req = readJson(line);
      if (req === null || typeof req !== 'object' || Array.isArray(req)) throw new ProtocolError('the request is not a JSON object');
      id = req.id === undefined ? null : req.id;
      answer = {id, ok: this.handle(req)};
    } catch (e) {
      if (e instanceof ProtocolError) {
        answer = {id, error: {kind: 'Internal', message: `testee kit: bad request: ${e.message}`}};
      } else {
        const kind = this.testee.classify(e);
        const text = e instanceof Error ? e.message : String(e);
        if (kind === 'Internal') process.stderr.write(`${e && e.stack ? e.stack : text}\n`);
        answer = {id, error: {kind, message: kind === 'Internal' && e instanceof Error ? `${e.name}: ${text}` : text}};
      }
    }
    this.extras(answer);
    try {
      return writeJson(answer);
    } catch (e) {  // a method answered something the protocol cannot carry
      process.stderr.write(`${e.stack}\n`);
      return writeJson({id, error: {kind: 'Internal', message: `testee kit: cannot encode the answer: ${e.message}`}});
    }
  }
}

function base64(text, field) {
  if (typeof text !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4) {
    throw new ProtocolError(`${field}: not base64`);
  }
  return Buffer.from(text, 'base64');
}

/** Send the library's prints to stderr: stdout carries the protocol alone. */
function protectStdout() {
  const err = (...a) => process.stderr.write(require('util').format(...a) + '\n');
  console.log = console.info = console.debug = console.warn = err;
  process.stdout.write = (chunk, encoding, cb) => process.stderr.write(chunk, encoding, cb);
}

/** Answers the suite's requests (stdin, fd 0) on stdout (fd 1) until stdin ends. */
function serve(testee, input = 0, output = 1) {
  if (output === 1) protectStdout();
  const server = new Server(testee);
  const chunk = Buffer.alloc(1 << 16);
  let pending = Buffer.alloc(0);
  for (;;) {
    let n;
    try {
      n = fs.readSync(input, chunk, 0, chunk.length, null);
    } catch (e) {
      if (e.code === 'EAGAIN') { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1); continue; }
      if (e.code === 'EOF') break;
      throw e;
    }
    if (n === 0) break;
    pending = Buffer.concat([pending, chunk.subarray(0, n)]);
    let nl;
    while ((nl = pending.indexOf(10)) >= 0) {
      const line = pending.subarray(0, nl).toString('utf8');
      pending = pending.subarray(nl + 1);
      if (line.trim() === '') continue;
      fs.writeSync(output, server.answer(line) + '\n');
    }
  }
}

module.exports = {
  PROTOCOL, FEATURE_OPS, ERROR_KINDS, Testee, NotSupported, TesteeError, ProtocolError, Complex, JsonFloat,
  readJson, writeJson, hexToDouble, doubleToHex, encodeScalar, decodeScalar, Server, serve, protectStdout,
};
