'use strict';
// The Node.js kit's test (node tcts_testee_test.js VECTORS_JSON): exact values through its JSON
// reader and writer and its hex-float reader; the protocol's test vectors (//spec:interface_vectors.json,
// generators/vectors.py documents them) replayed: every value decodes from its v1 form (retired
// version 1's, which readers still read) and its v2 form to one value that encodes back equal to
// the v2 form, JSON.parse reads every v2 form exactly (and not every v1 form), and every session replays through the kit's server with an echo testee, each answer
// equal to the vector's and each argument the method received encoding back to the request's.
// Exit 1 on any failure, naming it.
const assert = require('assert');
const path = require('path');
const fs = require('fs');
const tcts = require(path.join(__dirname, 'tcts_testee.js'));
if (process.argv.length < 3) {
  process.stderr.write('usage: node tcts_testee_test.js VECTORS_JSON (//spec:interface_vectors.json)\n');
  process.exit(2);
}
const VECTORS = tcts.readJson(fs.readFileSync(process.argv[2], 'utf8'));
const IFACE_JSON = VECTORS.sessions[0].steps[0].request.interface;

let failures = 0;
function check(name, fn) {
  try {
    fn();
  } catch (e) {
    failures++;
    process.stderr.write(`FAIL ${name}: ${e.message}\n`);
  }
}

// Integers the protocol carries as plain JSON numbers: exact through readJson / writeJson.
for (const text of ['9223372036854775807', '-9223372036854775807', '-9223372036854775808', '9007199254740993',
  '-9007199254740993', '9007199254740991', '-9007199254740991', '0', '18446744073709551615']) {
  check(`integer ${text}`, () => {
    const v = tcts.readJson(`{"x":[${text}]}`).x[0];
    assert.strictEqual(String(v), text);
    assert.strictEqual(tcts.writeJson({x: [v]}), `{"x":[${text}]}`);
    assert.strictEqual(tcts.decodeScalar(v), BigInt(text));
    // Written back as the protocol writes it: a number within +-(2^53 - 1), its decimal string past it.
    const safe = BigInt(text) <= 9007199254740991n && BigInt(text) >= -9007199254740991n;
    assert.strictEqual(tcts.writeJson(tcts.encodeScalar(tcts.decodeScalar(v), 2)), safe ? text : `"${text}"`);
  });
}
check('beyond 2^53 is a BigInt, within is a number', () => {
  assert.strictEqual(typeof tcts.readJson('9007199254740993'), 'bigint');
  assert.strictEqual(typeof tcts.readJson('9007199254740991'), 'number');
  assert.ok(tcts.readJson('1.5') instanceof tcts.JsonFloat);
  assert.ok(tcts.readJson('1e3') instanceof tcts.JsonFloat);
});

// Floats: [hex text as Python's float.hex() writes it, the IEEE bits of the double].
const FLOATS = [
  ['0x1.8000000000000p+1', 0x4008000000000000n],  // 3.0
  ['-0x0.0p+0', 0x8000000000000000n],  // -0.0
  ['0x0.0p+0', 0x0n],
  ['0x0.0000000000001p-1022', 0x1n],  // the smallest double subnormal
  ['-0x0.0000000000001p-1022', 0x8000000000000001n],
  ['0x0.fffffffffffffp-1022', 0x000fffffffffffffn],  // the largest subnormal
  ['0x1.0000000000000p-1022', 0x0010000000000000n],  // the smallest normal
  ['0x1.fffffffffffffp+1023', 0x7fefffffffffffffn],  // the largest double
  ['0x1.0000000000000p-24', 0x3e70000000000000n],  // float16's smallest subnormal
  ['0x1.0000000000000p-133', 0x37a0000000000000n],  // bfloat16's smallest subnormal
  ['0x1.0000000000000p-149', 0x36a0000000000000n],  // float32's smallest subnormal
  ['0x1.0000000000000p+63', 0x43e0000000000000n],
  ['inf', 0x7ff0000000000000n],
  ['-inf', 0xfff0000000000000n],
];
function bits(x) {
  const v = new DataView(new ArrayBuffer(8));
  v.setFloat64(0, x);
  return v.getBigUint64(0);
}
for (const [hex, want] of FLOATS) {
  check(`float ${hex}`, () => {
    const x = tcts.decodeScalar(tcts.readJson(`{"float":"${hex}"}`));
    assert.strictEqual(bits(x), want, `decoded bits 0x${bits(x).toString(16)}`);
    // Written back as the shortest round-trip decimal, which reads back as the same double.
    const wire = tcts.writeJson(tcts.encodeScalar(x, 2));
    assert.ok(!wire.toLowerCase().includes('0x'), wire);
    assert.strictEqual(bits(tcts.decodeScalar(JSON.parse(wire))), want, wire);
  });
}
check('NaN', () => {
  assert.ok(Number.isNaN(tcts.hexToDouble('nan')));
  assert.strictEqual(tcts.writeJson(tcts.encodeScalar(NaN, 2)), '{"float":"nan"}');
});
// Other spellings of the same values (C's printf("%a"), shortened mantissas), and rounding.
for (const [hex, want] of [['0x1.8p+1', 0x4008000000000000n], ['0X1P0', 0x3ff0000000000000n],
  ['0x1p-1074', 0x1n], ['0x.8p1', 0x3ff0000000000000n], ['-0x0p+0', 0x8000000000000000n],
  ['0x1.00000000000008p+0', 0x3ff0000000000000n],  // a tie: to even (down)
  ['0x1.00000000000018p+0', 0x3ff0000000000002n],  // a tie: to even (up)
  ['0x1.000000000000081p+0', 0x3ff0000000000001n],  // above the tie
  ['0x1p-1075', 0x0n],  // half the smallest subnormal: a tie, to even (zero)
  ['0x1.8p-1074', 0x2n],  // 1.5 subnormal steps: a tie, to even (2)
  ['0x1.fffffffffffff8p+1023', 0x7ff0000000000000n],  // rounds past the largest: inf
  ['0x1p+1024', 0x7ff0000000000000n]]) {
  check(`hex ${hex}`, () => assert.strictEqual(bits(tcts.hexToDouble(hex)), want));
}
for (const bad of ['0x', '1.5', '0x1.8', 'infinity', '0x1p', '']) {
  check(`not a hex float: ${JSON.stringify(bad)}`, () => assert.strictEqual(tcts.hexToDouble(bad), null));
}
for (const bad of ['{"a":1', '[1,]', '01', '{"a" 1}', '"\u0001"', '1 2', 'nul']) {
  check(`not JSON: ${JSON.stringify(bad)}`, () => assert.throws(() => tcts.readJson(bad), tcts.ProtocolError));
}
check('writeJson refuses a non-integer number', () => assert.throws(() => tcts.writeJson(1.5), TypeError));

// ---------------------------------------------------------------- the test vectors
function floatBits(x) {
  if (Number.isNaN(x)) return 0x7ff8000000000000n;
  return bits(x);
}

/** Strict equality of JavaScript values: the type too (1n is not 1, true is not 1), numbers
 * by Object.is (NaN equals NaN, -0 is not 0). */
function sameNative(a, b, where) {
  if (typeof a !== typeof b) throw new Error(`${where}: ${tcts.writeJson(String(a))} (${typeof a}) vs ${String(b)} (${typeof b})`);
  if (a instanceof tcts.Complex || b instanceof tcts.Complex) {
    assert.ok(a instanceof tcts.Complex && b instanceof tcts.Complex, `${where}: a complex and not`);
    sameNative(a.re, b.re, `${where}.re`);
    sameNative(a.im, b.im, `${where}.im`);
  } else if (Array.isArray(a)) {
    assert.ok(Array.isArray(b) && a.length === b.length, `${where}: lengths`);
    a.forEach((x, k) => sameNative(x, b[k], `${where}[${k}]`));
  } else if (a !== null && typeof a === 'object') {
    assert.ok(b !== null, `${where}: null`);
    assert.deepStrictEqual(Object.keys(a).sort(), Object.keys(b).sort(), `${where}: keys`);
    for (const k of Object.keys(a)) sameNative(a[k], b[k], `${where}.${k}`);
  } else if (!Object.is(a, b)) {
    throw new Error(`${where}: ${String(a)} vs ${String(b)}`);
  }
}

function floatTextOk(text, protocol, where) {
  if (text.toLowerCase().includes('0x')) throw new Error(`${where}: v${protocol} writes floats in decimal, got ${text}`);
}

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof tcts.JsonFloat);
const only = (v, key) => isObj(v) && Object.keys(v).length === 1 && key in v;

/** `got` (the kit's wire value) equals `want` (the vector's): float texts by the double they
 * denote and in the version's form; integers by value and JSON type (a string is not a number);
 * everything else exactly. */
function sameWire(got, want, protocol, where) {
  if (only(want, 'float') && typeof want.float === 'string') {
    assert.ok(only(got, 'float') && typeof got.float === 'string', `${where}: ${tcts.writeJson(got)} vs a float`);
    floatTextOk(got.float, protocol, where);
    const g = tcts.parseFloatText(got.float);
    const w = tcts.parseFloatText(want.float);
    if (g === null || floatBits(g) !== floatBits(w)) throw new Error(`${where}: ${got.float} vs ${want.float}`);
    return;
  }
  if (only(want, 'complex') && Array.isArray(want.complex)) {
    assert.ok(only(got, 'complex') && Array.isArray(got.complex) && got.complex.length === 2, `${where}: not a complex`);
    for (const k of [0, 1]) sameWire({float: got.complex[k]}, {float: want.complex[k]}, protocol, `${where}.complex[${k}]`);
    return;
  }
  const numeric = (v) => typeof v === 'number' || typeof v === 'bigint';
  if (numeric(want)) {
    if (!numeric(got) || BigInt(got) !== BigInt(want)) throw new Error(`${where}: ${String(got)} (${typeof got}) vs ${String(want)}`);
    return;
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(got) || got.length !== want.length) throw new Error(`${where}: ${tcts.writeJson(got)} vs ${tcts.writeJson(want)}`);
    want.forEach((x, k) => sameWire(got[k], x, protocol, `${where}[${k}]`));
    return;
  }
  if (isObj(want)) {
    if (!isObj(got)) throw new Error(`${where}: ${String(got)} vs an object`);
    assert.deepStrictEqual(Object.keys(got).sort(), Object.keys(want).sort(), `${where}: keys`);
    for (const k of Object.keys(want)) sameWire(got[k], want[k], protocol, `${where}.${k}`);
    return;
  }
  if (got !== want) throw new Error(`${where}: ${tcts.writeJson(got)} vs ${tcts.writeJson(want)}`);
}

/** A kit-written value, as the wire carries it: written, then read back exactly. */
const wire = (v) => tcts.readJson(tcts.writeJson(v));
const iface = new tcts.Interface(IFACE_JSON);

check('the vectors hold every value type', () => assert.ok(VECTORS.values.length > 50));
VECTORS.values.forEach((v, k) => {
  const where = `values[${k}] (${v.type}: ${v.note})`;
  check(where, () => {
    const one = iface.decode(v.type, v.v1, where);
    // v2 through JSON.parse: what a kit of a language with double numbers reads.
    const two = iface.decode(v.type, JSON.parse(tcts.writeJson(v.v2)), where);
    sameNative(one, two, where);
    sameWire(wire(iface.encode(v.type, one, 2, where)), v.v2, 2, `${where} v2`);
    // v2's encoding needs no BigInt: JSON.stringify writes it.
    assert.strictEqual(JSON.stringify(iface.encode(v.type, one, 2, where)), tcts.writeJson(iface.encode(v.type, one, 2, where)));
  });
});

// JSON.parse reads numbers as doubles: every v2 form reads exactly (the exact reader agrees);
// some v1 form does not (the check can fail).
check('JSON.parse reads every v2 form exactly', () => {
  const exact = (v, where) => {
    const text = tcts.writeJson(v);
    assert.deepStrictEqual(JSON.parse(text), tcts.readJson(text), where);
  };
  VECTORS.values.forEach((v, k) => exact(v.v2, `values[${k}].v2`));
  for (const s of VECTORS.sessions) {
    s.steps.forEach((st, k) => { exact(st.request, `step ${k} request`); exact(st.answer, `step ${k} answer`); });
  }
});
check('JSON.parse does not read every v1 form exactly', () => {
  const inexact = VECTORS.values.filter((v) => {
    const text = tcts.writeJson(v.v1);
    try { assert.deepStrictEqual(JSON.parse(text), tcts.readJson(text)); return false; } catch (e) { return true; }
  });
  assert.ok(inexact.length > 0);
});

class Label {
  constructor(label) { this.label = label; }
}

/** A testee implementing every op of the interface but spec.lacks: each returns (or throws)
 * what the current step says and records its arguments. */
function echoTestee(spec) {
  class Echo extends tcts.Testee {
    constructor() {
      super();
      Object.assign(this, {name: spec.name, version: spec.version, build: spec.build});
      this.alsoSupports = new Set(spec.also_supports);
      this.dtypes = spec.dtypes;
      this.step = null;
      this.calls = [];
    }
  }
  // Kinds thrown as the JavaScript error classify() maps (the others as TesteeError).
  const JS_ERRORS = {IndexError: RangeError, TypeError, RuntimeError: Error};
  for (const op of iface.ops.keys()) {
    if (spec.lacks.includes(op)) continue;
    Echo.prototype[op] = function (args, server) {
      this.calls.push([op, args, server]);
      const st = this.step;
      if ('raises' in st) {
        const {kind, message} = st.raises;
        if (kind === 'NotSupported') throw new tcts.NotSupported(message);
        if (kind in JS_ERRORS) throw new JS_ERRORS[kind](message);
        throw new tcts.TesteeError(kind, message);
      }
      const r = st.returns;
      const result = iface.ops.get(op).result;
      if (isObj(r) && Object.keys(r).length === 1 && 'new_tensor' in r) return new Label(r.new_tensor);
      if (result === 'none') return undefined;
      const value = iface.decode(result, r, 'returns');
      if (iface.records.has(result)) {  // the fields the step returns, no more (defaults are the kit's)
        for (const k of Object.keys(value)) if (!(k in r)) delete value[k];
      }
      return value;
    };
  }
  return new Echo();
}

function checkArguments(server, req, o, args, protocol, where) {
  const handleOf = (obj) => [...server.handles].find(([, v]) => v === obj)?.[0];
  assert.deepStrictEqual(Object.keys(args).sort(), o.args.map((a) => tcts.RENAMES[a.name] || a.name).sort(), where);
  for (const a of o.args) {
    const got = args[tcts.RENAMES[a.name] || a.name];
    let w;
    if (a.type === 'tensor') w = handleOf(got);
    else if (a.type === 'operand') w = got instanceof Label ? {tensor: handleOf(got)} : {scalar: tcts.encodeScalar(got, protocol)};
    else if (a.type === 'asarray_source') {
      w = got.kind === 'tensor' ? {kind: 'tensor', tensor: handleOf(got.tensor)}
        : {kind: got.kind, value: tcts.encodePythonValue(got.value, protocol)};
    } else if (a.type === 'dlpack_import') w = got;  // as sent
    else w = iface.encode(a.type, got, protocol, a.name);
    // An inline argument's fields are the request's own (from_dlpack's DLPack source).
    sameWire(wire(w), a.inline ? req : req[a.name], protocol, `${where}: argument ${a.name}`);
  }
}

for (const session of VECTORS.sessions) {
  check(`v${session.protocol} session`, () => {
    const testee = echoTestee(session.testee);
    const server = new tcts.Server(testee);
    const called = new Set();
    session.steps.forEach((st, k) => {
      const where = `v${session.protocol} session, step ${k} (${st.request.op})`;
      testee.step = st;
      testee.calls = [];
      const answer = tcts.readJson(server.answer(tcts.writeJson(st.request)));
      sameWire(answer, st.answer, session.protocol, where);
      if ('returns' in st || 'raises' in st) {
        assert.strictEqual(testee.calls.length, 1, `${where}: the method is called once`);
        const [op, args] = testee.calls[0];
        called.add(op);
        checkArguments(server, st.request, iface.ops.get(op), args, session.protocol, where);
      } else {
        assert.strictEqual(testee.calls.length, 0, `${where}: the kit answers without the testee`);
      }
    });
    const missed = [...iface.ops.keys()].filter((op) => !session.testee.lacks.includes(op) && !called.has(op));
    assert.deepStrictEqual(missed, [], 'every op is called');
  });
}

// Lent regions: the suite's writes reach the testee's bytes (sync in), the testee's writes are
// answered (sync out), once.
class Lender extends tcts.Testee {
  asarray({source}, server) { this.bytes = server.lend(source, 'source'); return this.bytes; }
  values({t}) { t[0] = 7; return Array.from(t, (x) => BigInt(x)); }
}
check('regions', () => {
  const testee = new Lender();
  const server = new tcts.Server(testee);
  const ask = (req) => tcts.readJson(server.answer(req));
  ask(tcts.writeJson({id: 0, op: 'hello', protocol: 2, protocols: [1, 2], interface: IFACE_JSON}));
  const region = Buffer.from([1, 2, 3]).toString('base64');
  assert.strictEqual(ask(`{"id":1,"op":"asarray","source":{"kind":"buffer","region":{"id":5,"bytes":"${region}"}}}`).ok, 1);
  const synced = Buffer.from([4, 5, 6]).toString('base64');
  const answer = ask(`{"id":2,"op":"values","t":1,"sync":[{"id":5,"bytes":"${synced}"}]}`);
  assert.deepStrictEqual(answer.ok, [7, 5, 6]);
  assert.deepStrictEqual(answer.sync, [{id: 5, bytes: Buffer.from([7, 5, 6]).toString('base64')}]);
  assert.strictEqual(ask('{"id":3,"op":"release"}').sync, undefined);
  assert.strictEqual(ask('{"id":4,"op":"release","sync":[{"id":5,"bytes":"AAA="}]}').error.kind, 'Internal');
});

// Version 3: an answer that is a new tensor carries the fact ops' answers for it (as the later
// request answers them); one that throws, or that the testee lacks, is left out; none in version 2.
class Facts extends tcts.Testee {
  make_tensor({sizes, dtype}) { return {sizes, dtype}; }
  meta({t}) {
    if (t.sizes.length === 0) throw new RangeError('no meta for a 0-d tensor');
    return {dtype: t.dtype, sizes: t.sizes, strides: t.sizes.map(() => 1), storage_offset: 0, device: 'cpu'};
  }
}
check('version 3 facts', () => {
  for (const protocols of [[1, 2, 3], [1, 2]]) {
    const server = new tcts.Server(new Facts());
    const ask = (req) => tcts.readJson(server.answer(req));
    assert.strictEqual(ask(tcts.writeJson({id: 1, op: 'hello', protocol: protocols.length, protocols, interface: IFACE_JSON})).ok.protocol,
      protocols.length);
    const made = ask('{"id":2,"op":"make_tensor","sizes":[2],"dtype":"float32","values":[]}');
    const asked = ask(`{"id":3,"op":"meta","t":${made.ok}}`);
    if (protocols.length === 2) {
      assert.strictEqual(made.facts, undefined);
      continue;
    }
    assert.deepStrictEqual(made.facts, {meta: asked.ok});  // storage: not implemented, left out
    assert.strictEqual(asked.facts, undefined);
    const scalar = ask('{"id":4,"op":"make_tensor","sizes":[],"dtype":"float32","values":[]}');
    assert.strictEqual(scalar.facts, undefined);
    assert.ok(ask(`{"id":5,"op":"meta","t":${scalar.ok}}`).error, 'the request answers the error');
  }
});

// hello's device (PROTOCOL.md "Handshake"): asked with none, the answer says where the tensors
// the testee makes are (meta().device of one); null when it makes none; nothing for an asked device
// (this kit has no use_device: the suite moves the tensors) or a suite that does not ask.
check('device', () => {
  class OnMeta extends Facts {
    meta(args) { return {...super.meta(args), device: 'meta'}; }
  }
  const hello = (testee, extra) => tcts.readJson(new tcts.Server(testee).answer(
    tcts.writeJson({id: 1, op: 'hello', protocol: 3, protocols: [1, 2, 3], interface: IFACE_JSON, ...extra}))).ok;
  assert.strictEqual(hello(new Facts(), {device: null}).device, 'cpu');
  assert.strictEqual(hello(new OnMeta(), {device: null}).device, 'meta');
  assert.strictEqual(hello(new tcts.Testee(), {device: null}).device, null);
  assert.strictEqual('device' in hello(new Facts(), {device: 'meta'}), false);
  assert.strictEqual('device' in hello(new Facts(), {}), false);
});

// hello's binary_ops (spec/promotion.toml [[op]]): each name with its symbol; a binary_op outside
// them is refused naming the field; a description without them (a suite from before) takes any.
check('binary ops come with the interface', () => {
  const described = IFACE_JSON.binary_ops;  // spec/promotion.toml's [[op]] rows
  assert.ok(described.length >= 4);
  assert.deepStrictEqual([...iface.binaryOps], described.map((o) => [o.name, o.symbol]));
  assert.strictEqual(iface.decode('binary_op', described[0].name, 'binary_op'), described[0].name);
  const names = described.map((o) => o.name).join(', ');
  assert.throws(() => iface.decode('binary_op', 'pow', 'binary_op'),
    (e) => e instanceof tcts.ProtocolError && e.message.includes(`binary_op: "pow" is not a binary op of the interface (${names})`));
  assert.throws(() => new tcts.Interface({...IFACE_JSON, binary_ops: [{name: 'add'}]}),
    (e) => e instanceof tcts.ProtocolError && e.message.includes('binary_ops: expected a list'));
  const older = {...IFACE_JSON};
  delete older.binary_ops;
  assert.strictEqual(new tcts.Interface(older).decode('binary_op', 'pow', 'binary_op'), 'pow');
});

if (failures) {
  process.stderr.write(`${failures} check(s) failed\n`);
  process.exit(1);
}
process.stdout.write('tcts_testee_test.js: all checks passed\n');
