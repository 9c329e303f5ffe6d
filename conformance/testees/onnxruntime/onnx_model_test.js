'use strict';
/**
 * onnx_model.js's test (//conformance/testees:onnxruntime_model_test): `node onnx_model_test.js`
 * from anywhere; exits 1 naming each failed check.
 *  1. the wire format: the protobuf encoding guide's own examples
 *     (https://protobuf.dev/programming-guides/encoding/: field 1 = 150 is 08 96 01, field 2 =
 *     "testing" is 12 07 74 65 73 74 69 6e 67) and 300, 2^63 - 1, -1 as varints;
 *  2. ONNX Runtime reads the models back as written: an Identity model per element type has
 *     that type as its input's and output's type in ORT's metadata (each ELEM_TYPES number is
 *     the type onnx.proto gives it), Add adds, Cast takes its `to` attribute;
 *  3. ORT refuses what it should (so 2 can fail): a model stamped with opset 27 or IR version
 *     14 (newer than onnxruntime-node 1.30.0), and a model whose graph is written under a
 *     wrong field number.
 */
const assert = require('assert');
const ort = require('onnxruntime-node');
const m = require('./onnx_model.js');

const failures = [];
async function check(name, fn) {
  try {
    await fn();
    process.stdout.write(`ok   ${name}\n`);
  } catch (e) {
    failures.push(name);
    process.stdout.write(`FAIL ${name}: ${e && e.message}\n`);
  }
}

const hex = (b) => Buffer.from(b).toString('hex');
const options = {intraOpNumThreads: 1, interOpNumThreads: 1};

(async () => {
  await check('protobuf guide: field 1 = 150', () => assert.strictEqual(hex(m.intField(1, 150)), '089601'));
  await check('protobuf guide: field 2 = "testing"', () => assert.strictEqual(hex(m.bytesField(2, 'testing')), '120774657374696e67'));
  await check('varints: 300, 2^63-1, -1', () => {
    assert.strictEqual(hex(m.varint(300)), 'ac02');
    assert.strictEqual(hex(m.varint(2n ** 63n - 1n)), 'ffffffffffffffff7f');
    assert.strictEqual(hex(m.varint(-1)), 'ffffffffffffffffff01');
  });

  for (const [type, number] of Object.entries(m.ELEM_TYPES)) {
    await check(`ORT reads element type ${number} as ${type}`, async () => {
      const s = await ort.InferenceSession.create(m.oneNodeModel('Identity', [type]), options);
      assert.deepStrictEqual(s.inputNames, ['a']);
      assert.deepStrictEqual(s.outputNames, ['y']);
      assert.strictEqual(s.inputMetadata[0].type, type);
      assert.strictEqual(s.outputMetadata[0].type, type);
    });
  }

  await check('Add of float32 runs: [1, 2] + 0-d 3 = [4, 5]', async () => {
    const s = await ort.InferenceSession.create(m.oneNodeModel('Add', ['float32', 'float32']), options);
    const {y} = await s.run({a: new ort.Tensor('float32', Float32Array.from([1, 2]), [2]),
      b: new ort.Tensor('float32', Float32Array.from([3]), [])});
    assert.strictEqual(y.type, 'float32');
    assert.deepStrictEqual([...y.dims], [2]);
    assert.deepStrictEqual([...y.data], [4, 5]);
  });

  await check('Cast takes its to attribute: float64 [2.5] to int64 (7)', async () => {
    const s = await ort.InferenceSession.create(m.oneNodeModel('Cast', ['float64'], {to: m.ELEM_TYPES.int64}), options);
    const {y} = await s.run({a: new ort.Tensor('float64', Float64Array.from([2.5]), [1])});
    assert.strictEqual(y.type, 'int64');
    assert.deepStrictEqual([...y.data], [2n]);
  });

  const refused = async (bytes, pattern) => {
    await assert.rejects(ort.InferenceSession.create(bytes, options), pattern);
  };
  await check('ORT refuses opset 27', () => refused(m.oneNodeModel('Add', ['float32', 'float32'], {}, {opset: 27}), /opset/i));
  await check('ORT refuses IR version 14', () => refused(m.oneNodeModel('Add', ['float32', 'float32'], {}, {irVersion: 14}), /IR version/));
  await check('ORT refuses a graph under a wrong field number', () => {
    const good = m.oneNodeModel('Identity', ['float32']);
    // ModelProto.graph is field 7 (key 0x3a); written as field 6 (key 0x32) it is no graph.
    const at = good.indexOf(Buffer.from([0x3a]), m.intField(1, m.IR_VERSION).length + m.bytesField(2, 'tensor-cts').length);
    assert.strictEqual(at, m.intField(1, m.IR_VERSION).length + m.bytesField(2, 'tensor-cts').length);
    const bad = Buffer.from(good);
    bad[at] = 0x32;
    return refused(bad, /./);
  });

  if (failures.length) {
    process.stdout.write(`${failures.length} check(s) failed: ${failures.join('; ')}\n`);
    process.exit(1);
  }
  process.stdout.write('all checks passed\n');
})();
