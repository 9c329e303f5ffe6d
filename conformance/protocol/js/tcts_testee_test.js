'use strict';
// The Node.js kit's test (node tcts_testee_test.js): exact values through its JSON reader and
// writer and its hex-float codec, and one protocol session through its server. Exit 1 on any
// failure, naming it.
const assert = require('assert');
const path = require('path');
const tcts = require(path.join(__dirname, 'tcts_testee.js'));

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
    assert.strictEqual(tcts.writeJson(tcts.encodeScalar(tcts.decodeScalar(v))), text);
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
    assert.strictEqual(tcts.doubleToHex(x), hex);
    const wire = tcts.writeJson(tcts.encodeScalar(x));
    assert.strictEqual(wire, `{"float":"${hex}"}`);
  });
}
check('NaN', () => {
  assert.ok(Number.isNaN(tcts.hexToDouble('nan')));
  assert.strictEqual(tcts.writeJson(tcts.encodeScalar(NaN)), '{"float":"nan"}');
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

// One session through the server: a tiny testee over plain JS arrays.
class Tiny extends tcts.Testee {
  constructor() { super(); this.name = 'tiny'; this.version = '1'; }
  promote_types({a, b}) {
    if (a === 'bad' || b === 'bad') throw new TypeError(`no dtype bad`);
    return a === b ? a : 'float64';
  }
  make_tensor({sizes, dtype, values}) { return {sizes, dtype, values}; }
  meta({t}) { return {dtype: t.dtype, sizes: t.sizes, strides: [1], storage_offset: 0, device: 'cpu'}; }
  values({t}) { return t.values; }
}
check('session', () => {
  const server = new tcts.Server(new Tiny());
  const ask = (req) => tcts.readJson(server.answer(req));
  const hello = ask('{"id":1,"op":"hello","protocol":1,"features":["promote_types","tensors","binary"]}');
  assert.deepStrictEqual(hello.ok.features, ['promote_types', 'tensors']);
  assert.strictEqual(hello.ok.protocol, 1);
  assert.deepStrictEqual(ask('{"id":2,"op":"promote_types","a":"int64","b":"int64"}'), {id: 2, ok: 'int64'});
  assert.deepStrictEqual(ask('{"id":3,"op":"promote_types","a":"bad","b":"int64"}').error,
    {kind: 'TypeError', message: 'no dtype bad'});
  assert.strictEqual(ask('{"id":4,"op":"binary","binary_op":"add"}').error.kind, 'NotSupported');
  assert.strictEqual(ask('{"id":5,"op":"frobnicate"}').error.kind, 'NotSupported');
  const line = '{"id":6,"op":"make_tensor","sizes":[4],"dtype":"int64","values":[9223372036854775807,' +
    '-9223372036854775808,{"float":"-0x0.0p+0"},{"float":"nan"}]}';
  const h = ask(line).ok;
  assert.strictEqual(server.answer(`{"id":7,"op":"values","t":${h}}`),
    '{"id":7,"ok":[9223372036854775807,-9223372036854775808,{"float":"-0x0.0p+0"},{"float":"nan"}]}');
  assert.strictEqual(ask(`{"id":8,"op":"meta","t":${h},"release":[${h}]}`).error.kind, 'Internal');
  assert.match(ask('{"id":9,"op":"values","t":{"x":1}').error.message, /bad request: not JSON/);
});

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
  const region = Buffer.from([1, 2, 3]).toString('base64');
  assert.strictEqual(ask(`{"id":1,"op":"asarray","source":{"kind":"buffer","region":{"id":5,"bytes":"${region}"}}}`).ok, 1);
  const synced = Buffer.from([4, 5, 6]).toString('base64');
  const answer = ask(`{"id":2,"op":"values","t":1,"sync":[{"id":5,"bytes":"${synced}"}]}`);
  assert.deepStrictEqual(answer.ok, [7, 5, 6]);
  assert.deepStrictEqual(answer.sync, [{id: 5, bytes: Buffer.from([7, 5, 6]).toString('base64')}]);
  assert.strictEqual(ask('{"id":3,"op":"release"}').sync, undefined);
  assert.strictEqual(ask('{"id":4,"op":"release","sync":[{"id":5,"bytes":"AAA="}]}').error.kind, 'Internal');
});

if (failures) {
  process.stderr.write(`${failures} check(s) failed\n`);
  process.exit(1);
}
process.stdout.write('tcts_testee_test.js: all checks passed\n');
