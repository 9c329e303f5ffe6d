'use strict';
/**
 * The Node.js testee kit: validate a JavaScript tensor library with tensor-cts
 * (conformance/protocol/PROTOCOL.md). Node's standard library only: copy this file.
 *
 *     const tcts = require('./tcts_testee.js');
 *     class MyTestee extends tcts.Testee {
 *       constructor() {
 *         super(); this.name = 'mylib'; this.version = mylib.version;
 *         this.dtypes = ['bool', 'int32', 'float32'];   // the dtypes mylib has (default: all)
 *       }
 *       promote_types({a, b}) { return mylib.promote(a, b); }   // dtype names in and out
 *       ...
 *     }
 *     tcts.serve(new MyTestee());
 *
 * What the kit does (what the Python kit, ../python/tcts_testee.py, does):
 *   - the protocol loop over stdin/stdout JSON lines, the hello handshake and the handle table
 *     (methods take and return the library's own tensor objects);
 *   - the interface: the suite sends its description (spec/interface.json, built in the tensor-cts repository) in `hello`; the kit
 *     dispatches, decodes arguments and encodes results from it, and names no operation itself.
 *     A method named as an operation implements it (an operation without one answers
 *     NotSupported); it takes the request's arguments as one object ({a, b}, {t, dim0, dim1},
 *     ...: PROTOCOL.md's names, except `self` as `target`, `from` as `from_` and `binary_op` as
 *     `op`, as in the Python kit) and the server as its second argument. The binary ops (a
 *     `binary_op` value: 'add', ...) and their Python operator symbols ('+') come with it:
 *     `server.iface.binaryOps` maps each name to its symbol; a method throws tcts.NotSupported
 *     for an op it does not translate;
 *   - declarations: the dtypes the library has are `this.dtypes` (canonical names; null, the
 *     default, declares every dtype the suite names: a case needing a dtype left out is
 *     NOT_SUPPORTED, naming it, instead of a FAIL); a feature is declared exactly when every
 *     operation of it (the interface's) is a method of the testee; the interface's answer features (sparse_layout, device_forms,
 *     device_repr, cuda_tensors) through `alsoSupports`, withdrawn by `notSupported`; `strides`
 *     is declared unless `notSupported` has it (a library without strides: its meta answers
 *     strides [] and storage_offset 0, PROTOCOL.md "Strides");
 *   - errors: throw the library's own error; classify() maps it onto the protocol's kinds
 *     (a JS RangeError is an IndexError, TypeError a TypeError, any other Error a
 *     RuntimeError); throw tcts.NotSupported for a call the library has no equivalent of,
 *     tcts.TesteeError(kind, message) for an explicit kind;
 *   - version 3 when the suite offers it: version 2's values, and each new tensor's answer
 *     carries its facts (what the testee's meta and storage answer for it, called right after
 *     the method that made it: PROTOCOL.md "Version 3");
 *   - exact values (versions 2 and 3): every integer past +-(2^53 - 1) travels as a decimal
 *     string and every float as its shortest round-trip decimal text, so JSON.parse reads each
 *     request exactly and the kit uses it; the hello, read before a version is chosen, goes
 *     through the kit's own exact reader (readJson: an integer past 2^53 as a BigInt), and a
 *     C99 hex float text (version 1's form, retired, which readers still accept) is read by
 *     hexToDouble. Scalars reach a method as boolean,
 *     BigInt (an integer), number (a float) or tcts.Complex, and a method's scalars are encoded
 *     the same way (an integer answer must be a BigInt); other integers (sizes, dims, indices)
 *     arrive as numbers, or as BigInt past 2^53, and may be answered as either;
 *   - release: when the suite releases a handle the kit forgets it and calls the testee's
 *     release(obj), if it has one (a library that frees memory explicitly: tensor.dispose());
 *   - host memory, as far as it goes: server.lend(src, field) turns a request's lent region
 *     ({"region": {"id", "bytes"}}) into a Uint8Array that the kit syncs both ways around every
 *     request. asarray's source arrives as {kind, ...}: kinds "sequence" (value decoded: nested
 *     arrays of scalars) and "tensor" (tensor: the object) decoded, the others as sent (the
 *     testee calls lend for "array", "array_scalar" and "buffer"); the kit has no DLPack
 *     (JavaScript has no DLManagedTensor): from_dlpack's source arrives as sent;
 *   - stdout is the protocol's: serve() sends console.log/info/debug/warn and
 *     process.stdout.write to stderr.
 * A library's semantics are its own: translate only.
 */
const fs = require('fs');

// The newest protocol version this kit speaks; it answers the newest version the suite offers.
const PROTOCOL = 3;
const SPOKEN = [2, 3];  // version 1 (hex floats) was retired on 2026-12-05 (spec/interface.toml)
const SAFE = 2n ** 53n - 1n;
// The JavaScript binding: arguments whose names are keywords (as the Python kit's), renamed.
const RENAMES = {self: 'target', from: 'from_', binary_op: 'op'};

class NotSupported extends Error {
  constructor(message) {
    // A stack is never shown for it (it is an answer, not a fault), and capturing one was the
    // kit's largest cost per NotSupported answer (tfjs answers thousands): none is taken.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}

/** An error of an explicit protocol kind (one of the interface's; another is answered as
 * Internal, naming it). */
class TesteeError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

/** A request this kit cannot read: names the field. */
class ProtocolError extends Error {}

/** A method's result the protocol cannot carry. */
class AnswerError extends Error {}

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
      if (Object.is(v, -0)) return '0';
      return Math.abs(v) < 1e21 ? String(v) : BigInt(v).toString();  // String() writes 1e21 and past with an exponent
    default: {
      // Loops, not map/filter/join: this runs once per value of every answer.
      let out;
      if (Array.isArray(v)) {
        out = '[';
        for (let i = 0; i < v.length; i++) out += (i ? ',' : '') + writeJson(v[i]);
        return out + ']';
      }
      if (v instanceof JsonFloat) throw new TypeError('writeJson: a JsonFloat (encode floats with encodeScalar)');
      out = '{';
      for (const k in v) {
        if (!Object.prototype.hasOwnProperty.call(v, k) || v[k] === undefined) continue;
        out += (out.length > 1 ? ',' : '') + JSON.stringify(k) + ':' + writeJson(v[k]);
      }
      return out + '}';
    }
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

// ---------------------------------------------------------------- values
const INT_TEXT = /^-?(?:0|[1-9][0-9]*)$/;
const DECIMAL = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const NAMED = {'inf': Infinity, '+inf': Infinity, '-inf': -Infinity, 'infinity': Infinity, '+infinity': Infinity,
  '-infinity': -Infinity, 'nan': NaN, '+nan': NaN, '-nan': NaN};
const INT_TYPES = new Set(['int', 'int32', 'uint8', 'uint16', 'uint64', 'uintptr', 'address']);
const TEXT_TYPES = new Set(['dtype', 'string', 'layout', 'memory_format', 'binary_op']);

/** A float text -> the double: C99 hex when it contains "0x" (version 1's form, which readers
 * still accept), else decimal ("1.5", "-0.0", "1e+16", "inf", "nan"); null when it is neither. */
function parseFloatText(text) {
  if (typeof text !== 'string') return null;
  if (text.toLowerCase().includes('0x')) return hexToDouble(text);
  const named = NAMED[text.toLowerCase()];
  if (named !== undefined) return named;
  return DECIMAL.test(text) ? Number(text) : null;
}

/** A double's text (versions 2 and 3 alike): the shortest round-trip decimal (String(x):
 * "1.5", "1e+21", "5e-324"; "-0", "inf", "-inf"); NaN is "nan". */
function floatText(x, protocol = PROTOCOL) {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (Object.is(x, -0)) return '-0';
  return String(x);
}

/** An integer (number or BigInt) as the protocol writes it (versions 2 and 3 alike): a JSON
 * number within +-(2^53 - 1), a decimal string past it. */
function encodeInt(v, protocol = PROTOCOL) {
  let n;
  if (typeof v === 'bigint') n = v;
  else if (typeof v === 'number' && Number.isInteger(v)) n = BigInt(v);
  else throw new AnswerError(`expected an integer, got ${safeText(v)} (${typeof v})`);
  return n > SAFE || n < -SAFE ? n.toString() : Number(n);
}

/** A JSON integer or a decimal string -> a number when within +-(2^53 - 1), else a BigInt. */
function decodeInt(v, field = 'int') {
  let n = null;
  if (typeof v === 'bigint') n = v;
  else if (typeof v === 'number' && Number.isInteger(v)) return v;
  else if (typeof v === 'string' && INT_TEXT.test(v)) n = BigInt(v);
  if (n === null) throw new ProtocolError(`${field}: expected an integer (a JSON number or a decimal string), got ${safeText(v)}`);
  return n > SAFE || n < -SAFE ? n : Number(n);
}

function encodeScalar(v, protocol = PROTOCOL) {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'bigint') return encodeInt(v, protocol);
  if (typeof v === 'number') return {float: floatText(v, protocol)};
  if (v instanceof Complex) return {complex: [floatText(v.re, protocol), floatText(v.im, protocol)]};
  throw new AnswerError(`not a scalar: ${safeText(v)} (${typeof v}); integers are BigInt`);
}

function decodeFloat(v, field) {
  if (v instanceof JsonFloat) return v.value;
  if (typeof v === 'number' || typeof v === 'bigint') return Number(v);
  const x = v !== null && typeof v === 'object' ? parseFloatText(v.float) : null;
  if (x === null) throw new ProtocolError(`${field}: expected a float, got ${safeText(v)}`);
  return x;
}

/** boolean -> boolean, an integer (a JSON number or a decimal string) -> BigInt, a float ->
 * number, a complex -> Complex. */
function decodeScalar(v, field = 'scalar') {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (typeof v === 'bigint') return v;
  if (typeof v === 'string' && INT_TEXT.test(v)) return BigInt(v);
  if (v instanceof JsonFloat) return v.value;
  if (v !== null && typeof v === 'object' && 'float' in v) return decodeFloat(v, field);
  if (v !== null && typeof v === 'object' && Array.isArray(v.complex) && v.complex.length === 2) {
    return new Complex(decodeFloat({float: v.complex[0]}, field), decodeFloat({float: v.complex[1]}, field));
  }
  throw new ProtocolError(`${field}: expected a scalar, got ${safeText(v)}`);
}

/** An asarray sequence: a scalar or (nested) arrays of them. */
function decodePythonValue(v, field = 'value') {
  return Array.isArray(v) ? v.map((x) => decodePythonValue(x, field)) : decodeScalar(v, field);
}

function encodePythonValue(v, protocol = PROTOCOL) {
  return Array.isArray(v) ? v.map((x) => encodePythonValue(x, protocol)) : encodeScalar(v, protocol);
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The arguments of one torch.device(...) call: {form: 'string', text}, {form: 'type_index',
 * text, index} or {form: 'ordinal', index}. */
function decodeDeviceArg(v, field) {
  if (!isObject(v) || !['string', 'type_index', 'ordinal'].includes(v.form)) {
    throw new ProtocolError(`${field}: expected a device argument {"form", "text", "index"}, got ${safeText(v)}`);
  }
  const out = {form: v.form};
  if (v.form !== 'ordinal') {
    if (typeof v.text !== 'string') throw new ProtocolError(`${field}.text: expected a string, got ${safeText(v.text)}`);
    out.text = v.text;
  }
  if (v.form !== 'string') out.index = decodeInt(v.index, `${field}.index`);
  return out;
}

function encodeDeviceArg(v, protocol) {
  const out = {form: v.form};
  if (v.form !== 'ordinal') out.text = v.text;
  if (v.form !== 'string') out.index = encodeInt(v.index, protocol);
  return out;
}

/** The interface description the suite sends in `hello` (spec/interface.json). */
class Interface {
  constructor(doc) {
    const need = (cond, what) => { if (!cond) throw new ProtocolError(`interface: ${what}`); };
    need(isObject(doc), 'expected an object');
    for (const key of ['errors', 'features', 'answer_features', 'records', 'ops']) need(key in doc, `missing "${key}"`);
    need(isObject(doc.records), 'records: expected an object');
    need(Array.isArray(doc.ops), 'ops: expected a list');
    const typed = (a) => isObject(a) && typeof a.name === 'string' && typeof a.type === 'string';
    this.errors = [...doc.errors];
    this.features = [...doc.features];
    this.answerFeatures = new Set(doc.answer_features);
    // Answer features a testee has unless notSupported withdraws them (strides).
    this.declaredByDefault = new Set(doc.declared_by_default || []);
    this.records = new Map();
    for (const [name, fields] of Object.entries(doc.records)) {
      need(Array.isArray(fields) && fields.every(typed), `record ${name}: expected a list of {"name", "type"}`);
      this.records.set(name, fields);
    }
    this.ops = new Map();
    this.featureOps = new Map(this.features.map((f) => [f, []]));
    doc.ops.forEach((o, k) => {
      need(isObject(o) && typeof o.name === 'string' && typeof o.feature === 'string' && typeof o.result === 'string' &&
        Array.isArray(o.args) && o.args.every(typed), `ops[${k}]: expected {"name", "feature", "args", "result"}`);
      need(this.featureOps.has(o.feature), `op ${o.name}: feature ${o.feature} is not in features`);
      this.ops.set(o.name, o);
      this.featureOps.get(o.feature).push(o.name);
    });
    // Version 3: the ops whose answer for a new tensor goes with the answer that made it.
    this.factOps = doc.ops.filter((o) => o.fact === true).map((o) => o.name);
    // The binary ops, name -> symbol (spec/promotion.toml [[op]]); null from a suite that sends none.
    this.binaryOps = null;
    if ('binary_ops' in doc) {
      need(Array.isArray(doc.binary_ops) && doc.binary_ops.every((o) => isObject(o) && typeof o.name === 'string' &&
        typeof o.symbol === 'string'), 'binary_ops: expected a list of {"name", "symbol"}');
      this.binaryOps = new Map(doc.binary_ops.map((o) => [o.name, o.symbol]));
      need(this.binaryOps.size === doc.binary_ops.length, 'binary_ops: a name is listed twice');
    }
  }

  /** Wire value `v` of stateless wire type `t` -> the JavaScript value. */
  decode(t, v, field) {
    if (t.endsWith('?')) return v === null || v === undefined ? null : this.decode(t.slice(0, -1), v, field);
    if (INT_TYPES.has(t)) return decodeInt(v, field);
    if (t === 'float') return decodeFloat(v, field);
    if (t === 'bool') {
      if (typeof v !== 'boolean') throw new ProtocolError(`${field}: expected true or false, got ${safeText(v)}`);
      return v;
    }
    if (TEXT_TYPES.has(t)) {
      if (typeof v !== 'string') throw new ProtocolError(`${field}: expected a string, got ${safeText(v)}`);
      if (t === 'binary_op' && this.binaryOps !== null && !this.binaryOps.has(v)) {
        throw new ProtocolError(`${field}: ${safeText(v)} is not a binary op of the interface (${[...this.binaryOps.keys()].join(', ')})`);
      }
      return v;
    }
    if (t === 'ints' || t === 'scalars') {
      if (!Array.isArray(v)) throw new ProtocolError(`${field}: expected a list, got ${safeText(v)}`);
      return v.map((x) => (t === 'ints' ? decodeInt(x, field) : decodeScalar(x, field)));
    }
    if (t === 'scalar') return decodeScalar(v, field);
    if (t === 'python_value') return decodePythonValue(v, field);
    if (t === 'device_arg') return decodeDeviceArg(v, field);
    const fields = this.records.get(t);
    if (fields === undefined) throw new ProtocolError(`${field}: the kit has no decoder for type ${t}`);
    if (!isObject(v)) throw new ProtocolError(`${field}: expected an object {${fields.map((f) => f.name).join(', ')}}, got ${safeText(v)}`);
    const out = {};
    for (const f of fields) {
      if (f.name in v) out[f.name] = this.decode(f.type, v[f.name], `${field}.${f.name}`);
      else if ('default' in f) out[f.name] = f.default;
      else if (f.type.endsWith('?')) out[f.name] = null;
      else throw new ProtocolError(`${field}: missing field "${f.name}"`);
    }
    return out;
  }

  /** JavaScript value `v` of stateless wire type `t` -> its wire form under `protocol`. */
  encode(t, v, protocol, field) {
    try {
      if (t.endsWith('?')) return v === null || v === undefined ? null : this.encode(t.slice(0, -1), v, protocol, field);
      if (INT_TYPES.has(t)) return encodeInt(v, protocol);
      if (t === 'float') return {float: floatText(Number(v), protocol)};
      if (t === 'bool') return Boolean(v);
      if (TEXT_TYPES.has(t)) return String(v);
      if (t === 'ints') return Array.from(v, (x) => encodeInt(x, protocol));
      if (t === 'scalar') return encodeScalar(v, protocol);
      if (t === 'scalars') return Array.from(v, (x) => encodeScalar(x, protocol));
      if (t === 'python_value') return encodePythonValue(v, protocol);
      if (t === 'device_arg') return encodeDeviceArg(v, protocol);
    } catch (e) {
      if (e instanceof AnswerError) throw new AnswerError(`${field}: ${e.message}`);
      throw e;
    }
    const fields = this.records.get(t);
    if (fields === undefined) throw new AnswerError(`${field}: the kit has no encoder for type ${t}`);
    if (v === null || typeof v !== 'object') throw new AnswerError(`${field}: expected a ${t} object, got ${safeText(v)}`);
    const out = {};
    for (const f of fields) {
      if (v[f.name] === undefined) {
        if ('default' in f) { out[f.name] = f.default; continue; }
        if (!f.type.endsWith('?')) throw new AnswerError(`${field}: the ${t} answered lacks field "${f.name}"`);
      }
      out[f.name] = this.encode(f.type, v[f.name], protocol, `${field}.${f.name}`);
    }
    return out;
  }
}

function safeText(v) {
  try { return writeJson(v); } catch (e) { return String(v); }
}

// ---------------------------------------------------------------- the testee
/** Extend and add a method per operation the library has (see the file's comment). */
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

  /** Whether this testee has a method for operation `op`. */
  implements(op) {
    return !(op in Testee.prototype) && typeof this[op] === 'function';
  }

  /** The operations declared, one by one (hello's "ops"): those implemented, less those of the
   * features in notSupported. A case is judged on its ops' declarations. */
  ops(iface) {
    const declared = new Set();
    for (const [feature, ops] of iface.featureOps) {
      if (this.notSupported.has(feature)) continue;
      for (const op of ops) if (this.implements(op)) declared.add(op);
    }
    return declared;
  }

  /** The features declared: those whose every operation is declared (ops), the answer
   * features in alsoSupports and those declared by default (strides); less notSupported. */
  features(iface) {
    const declared = new Set();
    const ops = this.ops(iface);
    for (const [feature, featureOps] of iface.featureOps) {
      if (iface.answerFeatures.has(feature)) {
        if (this.alsoSupports.has(feature) || iface.declaredByDefault.has(feature)) declared.add(feature);
      } else if (featureOps.length && featureOps.every((op) => ops.has(op))) {
        declared.add(feature);
      }
    }
    for (const f of this.notSupported) declared.delete(f);
    return declared;
  }
}

const CONTROL_FIELDS = new Set(['id', 'op', 'release', 'release_regions', 'sync']);

class Region {
  constructor(id, bytes) { this.id = id; this.bytes = bytes; this.seen = Buffer.from(bytes); }
}

class Server {
  constructor(testee) {
    this.testee = testee;
    this.iface = null;
    this.protocol = 0;  // none before hello: the hello is read with readJson
    this.handles = new Map();
    this.nextHandle = 1;
    this.regions = new Map();
    this.features = new Set();
    this.facts = null;  // version 3: the facts of the tensor being answered
  }

  tensor(h, field) {
    const key = typeof h === 'string' && INT_TEXT.test(h) ? Number(h) : h;
    if (typeof key !== 'number' || !this.handles.has(key)) throw new ProtocolError(`${field}: no tensor with handle ${safeText(h)}`);
    return this.handles.get(key);
  }

  operand(v, field) {
    if (isObject(v) && 'tensor' in v) return this.tensor(v.tensor, field);
    if (isObject(v) && 'scalar' in v) return decodeScalar(v.scalar, field);
    throw new ProtocolError(`${field}: expected {"tensor": h} or {"scalar": s}, got ${safeText(v)}`);
  }

  asarraySource(v, field) {
    if (!isObject(v)) throw new ProtocolError(`${field}: expected {"kind", ...}, got ${safeText(v)}`);
    if (v.kind === 'sequence') return {...v, value: decodePythonValue(v.value, `${field}.value`)};
    if (v.kind === 'tensor') return {...v, tensor: this.tensor(v.tensor, `${field}.tensor`)};
    return v;  // host memory: the testee calls lend
  }

  /** A lent region's bytes (the suite's copy), as a Uint8Array the suite's and the library's
   * writes reach across requests. */
  lend(src, field) {
    const reg = src && src.region;
    if (!isObject(reg) || !('id' in reg)) {
      throw new ProtocolError(`${field}.region: expected {"id", "bytes"}, got ${safeText(reg)}`);
    }
    const id = decodeInt(reg.id, `${field}.region.id`);
    const bytes = new Uint8Array(base64(reg.bytes || '', `${field}.region.bytes`));
    this.regions.set(id, new Region(id, bytes));
    return bytes;
  }

  hello(req) {
    if (!('interface' in req)) {
      throw new ProtocolError('hello: no "interface": this kit dispatches from the interface description the suite ' +
        "sends (a suite of protocol version 2's handshake)");
    }
    this.iface = new Interface(req.interface);
    const offered = req.protocols;
    if (!Array.isArray(offered) || !offered.length) throw new ProtocolError(`protocols: expected a list of versions, got ${safeText(offered)}`);
    // None spoken here (a suite of version 1 alone): the kit's own is claimed, and the suite refuses it by name.
    const common = offered.map(Number).filter((v) => SPOKEN.includes(v) && v <= PROTOCOL);
    this.protocol = common.length ? Math.max(...common) : PROTOCOL;
    this.features = this.testee.features(this.iface);
    const known = new Set(req.features || this.iface.features);
    const unknown = [...this.features].filter((f) => !known.has(f));
    if (unknown.length) throw new ProtocolError(`features: the suite does not know ${unknown.sort()}`);
    const answer = {name: this.testee.name, version: this.testee.version, build: this.testee.build,
      protocol: this.protocol, features: [...this.features].sort(), ops: [...this.testee.ops(this.iface)].sort()};
    // A suite that names no dtypes (before declared dtypes) takes no declaration.
    if (this.testee.dtypes !== null && Array.isArray(req.dtypes)) {
      const knownDtypes = new Set(req.dtypes);
      const unknownDtypes = [...this.testee.dtypes].filter((d) => !knownDtypes.has(d));
      if (unknownDtypes.length) throw new ProtocolError(`dtypes: the suite does not know ${unknownDtypes.sort()}`);
      answer.dtypes = [...new Set(this.testee.dtypes)].sort();
    }
    // Where the tensors are (PROTOCOL.md "Handshake"), for a suite that asks with no device:
    // so it sends nothing before its first case. Asked for a device, this kit says nothing (the
    // suite moves the tensors through the default device, if declared).
    if ('device' in req && req.device === null) answer.device = this.tensorDevice(answer.dtypes || req.dtypes || []);
    return answer;
  }

  /** meta().device of a one-element tensor the testee makes (float32's, else the first declared
   * dtype's; float32's when the suite names none); null when it makes none or the library threw (the suite then takes "cpu"). */
  tensorDevice(dtypes) {
    if (!this.testee.implements('make_tensor') || !this.testee.implements('meta')) return null;
    const dtype = dtypes.includes('float32') || !dtypes.length ? 'float32' : dtypes[0];  // none named: every one
    try {
      const t = this.testee.make_tensor.call(this.testee, {sizes: [1], dtype, values: [0]}, this);
      try {
        const m = this.testee.meta.call(this.testee, {t}, this);
        return isObject(m) && typeof m.device === 'string' && m.device ? m.device : null;
      } finally {
        if (typeof this.testee.release === 'function') this.testee.release(t);  // tensor.dispose()
      }
    } catch (e) {
      return null;
    }
  }

  /** The request's arguments of op `o`, decoded, by the JavaScript binding's names. */
  arguments(o, req) {
    const args = {};
    for (const a of o.args) {
      const nullable = a.type.endsWith('?');
      const base = nullable ? a.type.slice(0, -1) : a.type;
      let v = req[a.name];
      if (v === undefined) {
        if (base === 'dlpack_import') v = req;  // an inline argument (spec/interface.toml): its fields are the request's own
        else if (nullable) v = null;
        else throw new ProtocolError(`${o.name}: missing argument "${a.name}"`);
      }
      let value;
      if (v === null && nullable) value = null;
      else if (base === 'tensor') value = this.tensor(v, a.name);
      else if (base === 'operand') value = this.operand(v, a.name);
      else if (base === 'asarray_source') value = this.asarraySource(v, a.name);
      else if (base === 'dlpack_import') value = v;  // no DLPack in JavaScript: as sent
      else value = this.iface.decode(a.type, v, a.name);
      args[RENAMES[a.name] || a.name] = value;
    }
    return args;
  }

  result(o, result) {
    const t = o.result;
    if (t === 'tensor') {
      const h = this.nextHandle++;
      this.handles.set(h, result);
      if (this.protocol >= 3) this.facts = this.factsOf(result);
      return h;
    }
    if (t === 'none') return null;
    if (t === 'address') {
      return isObject(result) ? {region: result.region, offset: encodeInt(result.offset, this.protocol)}
        : encodeInt(result, this.protocol);
    }
    if (t === 'dlpack_export') {  // as the testee built it, its descriptor's fields encoded
      if (!isObject(result)) throw new AnswerError(`to_dlpack: expected an export object, got ${safeText(result)}`);
      const types = new Map((this.iface.records.get('DLPackDescriptor') || []).map((f) => [f.name, f.type]));
      const out = {};
      for (const [k, v] of Object.entries(result)) out[k] = types.has(k) ? this.iface.encode(types.get(k), v, this.protocol, k) : v;
      return out;
    }
    return this.iface.encode(t, result, this.protocol, o.name);
  }

  /** Version 3: the answers of the interface's fact ops (meta, storage) for a new tensor, as
   * the later requests would have them; an op the testee lacks, or one that throws, is left out
   * (the suite asks it). */
  factsOf(tensor) {
    const facts = {};
    let any = false;
    for (const op of this.iface.factOps) {
      if (!this.testee.implements(op)) continue;
      try {
        facts[op] = this.result(this.iface.ops.get(op), this.testee[op].call(this.testee, {t: tensor}, this));
        any = true;
      } catch (e) {  // the request, asked later, answers the error
        continue;
      }
    }
    return any ? facts : null;
  }

  handle(req) {
    for (const h of req.release || []) {
      const key = decodeInt(h, 'release');
      if (this.handles.has(key) && typeof this.testee.release === 'function') this.testee.release(this.handles.get(key));
      this.handles.delete(key);
    }
    for (const r of req.release_regions || []) this.regions.delete(decodeInt(r, 'release_regions'));
    for (const s of req.sync || []) {
      const r = this.regions.get(decodeInt(s.id, 'sync.id'));
      if (r === undefined) continue;
      const data = base64(s.bytes || '', 'sync.bytes');
      if (data.length !== r.bytes.length) throw new ProtocolError(`sync: region ${s.id} holds ${r.bytes.length} bytes, got ${data.length}`);
      r.bytes.set(data);
      r.seen = Buffer.from(data);
    }
    const op = req.op;
    if (op === 'release') return null;
    if (op === 'hello') return this.hello(req);
    if (this.iface === null) throw new ProtocolError(`${safeText(op)} before hello`);
    const o = typeof op === 'string' ? this.iface.ops.get(op) : undefined;
    if (o === undefined) throw new NotSupported(`unknown request '${typeof op === 'string' ? op : safeText(op)}'`);
    if (!this.testee.implements(op)) throw new NotSupported(`the testee does not implement '${op}'`);
    const result = this.testee[op].call(this.testee, this.arguments(o, req), this);
    return this.result(o, result);
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

  /** One request line -> its answer (a value for writeJson). Requests after the hello are read
   * with JSON.parse (every value in them is exact as a double); the hello with readJson. */
  answerValue(line) {
    let id = null;
    let answer;
    try {
      const req = this.protocol ? JSON.parse(line) : readJson(line);
      if (!isObject(req)) throw new ProtocolError('the request is not a JSON object');
      id = req.id === undefined ? null : req.id;
      this.facts = null;
      answer = {id, ok: this.handle(req)};
      if (this.facts !== null) answer.facts = this.facts;
    } catch (e) {
      if (e instanceof ProtocolError || e instanceof SyntaxError) {
        const text = e instanceof SyntaxError ? `not JSON: ${e.message}` : e.message;
        answer = {id, error: {kind: 'Internal', message: `testee kit: bad request: ${text}`}};
      } else if (e instanceof AnswerError) {
        answer = {id, error: {kind: 'Internal', message: `testee kit: bad answer: ${e.message}`}};
      } else {
        let kind = this.testee.classify(e);
        let text = e instanceof Error ? e.message : String(e);
        if (this.iface !== null && !this.iface.errors.includes(kind)) {
          text = `the testee answered an unknown error kind '${kind}': ${text}`;
          kind = 'Internal';
        } else if (kind === 'Internal' && e instanceof Error) {
          text = `${e.name}: ${text}`;
        }
        if (kind === 'Internal') process.stderr.write(`${e && e.stack ? e.stack : text}\n`);
        answer = {id, error: {kind, message: text}};
      }
    }
    this.extras(answer);
    return answer;
  }

  /** One request line -> one answer line (without its newline). */
  answer(line) {
    const answer = this.answerValue(line);
    try {
      return writeJson(answer);
    } catch (e) {  // a method answered something the protocol cannot carry
      process.stderr.write(`${e.stack}\n`);
      return writeJson({id: answer.id, error: {kind: 'Internal', message: `testee kit: cannot encode the answer: ${e.message}`}});
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
  PROTOCOL, RENAMES, Interface, Testee, NotSupported, TesteeError, ProtocolError, AnswerError, Complex, JsonFloat,
  readJson, writeJson, hexToDouble, parseFloatText, floatText, encodeInt, decodeInt, encodeScalar,
  decodeScalar, encodePythonValue, decodePythonValue, Server, serve, protectStdout,
};
