'use strict';
/**
 * A one-node ONNX model, written as the protobuf bytes ONNX Runtime's InferenceSession.create
 * takes (Node's standard library only). The messages and field numbers are onnx.proto's
 * (https://github.com/onnx/onnx/blob/main/onnx/onnx.proto):
 *
 *   ModelProto        ir_version = 1 (int64), producer_name = 2, graph = 7, opset_import = 8
 *   OperatorSetIdProto domain = 1, version = 2 (int64)
 *   GraphProto        node = 1, name = 2, input = 11, output = 12 (ValueInfoProto)
 *   NodeProto         input = 1, output = 2, name = 3, op_type = 4, attribute = 5
 *   AttributeProto    name = 1, i = 3 (int64), type = 20 (AttributeType INT = 2)
 *   ValueInfoProto    name = 1, type = 2 (TypeProto)
 *   TypeProto         tensor_type = 1 (TypeProto.Tensor: elem_type = 1, shape = 2, left out:
 *                     a graph input of any rank and sizes)
 *   TensorProto.DataType  the ELEM_TYPES below
 *
 * Wire format (https://protobuf.dev/programming-guides/encoding/): a field is its key
 * (number << 3 | wire type) as a varint, then a varint (wire type 0) or a length-delimited
 * payload (wire type 2: strings, bytes, embedded messages). A graph output is named without a
 * type: ONNX Runtime infers it from the node (its operator schema's type inference).
 */

// TensorProto.DataType (onnx.proto), by ort.Tensor's type names.
const ELEM_TYPES = {
  float32: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6, int64: 7, string: 8, bool: 9,
  float16: 10, float64: 11, uint32: 12, uint64: 13,
};

// The model's ONNX versions: the default (ai.onnx) opset 26 and IR version 13, the newest that
// onnxruntime-node 1.30.0 loads (it refuses IR version 14, "max supported IR version: 13", and
// calls opset 27 "under development": "official support for domain ai.onnx is till opset 26").
const OPSET = 26;
const IR_VERSION = 13;

function varint(n) {
  let v = BigInt(n);
  if (v < 0n) v += 1n << 64n;  // int64 fields: two's complement, ten bytes
  if (v < 0n || v >= 1n << 64n) throw new RangeError(`onnx_model: ${n} does not fit a 64-bit varint`);
  const out = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v) byte |= 0x80;
    out.push(byte);
  } while (v);
  return Buffer.from(out);
}

function key(field, wireType) {
  return varint((field << 3) | wireType);
}

/** A varint field. */
function intField(field, n) {
  return Buffer.concat([key(field, 0), varint(n)]);
}

/** A length-delimited field: a string (UTF-8) or the bytes of an embedded message. */
function bytesField(field, payload) {
  const b = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  return Buffer.concat([key(field, 2), varint(b.length), b]);
}

function elemType(type) {
  if (!Object.prototype.hasOwnProperty.call(ELEM_TYPES, type)) {
    throw new TypeError(`onnx_model: no ONNX element type for ${JSON.stringify(type)} (known: ${Object.keys(ELEM_TYPES).join(', ')})`);
  }
  return ELEM_TYPES[type];
}

/** ValueInfoProto: a name and, when `type` is given, a tensor type of that element type and no
 * shape. */
function valueInfo(name, type) {
  const parts = [bytesField(1, name)];
  if (type !== undefined) parts.push(bytesField(2, bytesField(1, intField(1, elemType(type)))));
  return Buffer.concat(parts);
}

/** AttributeProto of an int: {name, i}. */
function intAttribute(name, i) {
  return Buffer.concat([bytesField(1, name), intField(3, i), intField(20, 2)]);
}

/**
 * ModelProto bytes of one node: `opType` (ai.onnx, OPSET) on inputs named a, b, ... of
 * `inputTypes` (ort.Tensor type names), output y, with the int attributes `intAttrs`
 * ({to: 1} for Cast).
 */
function oneNodeModel(opType, inputTypes, intAttrs = {}, {opset = OPSET, irVersion = IR_VERSION} = {}) {
  const names = inputTypes.map((_, k) => String.fromCharCode(97 + k));
  const node = Buffer.concat([
    ...names.map((n) => bytesField(1, n)),
    bytesField(2, 'y'),
    bytesField(3, opType.toLowerCase()),
    bytesField(4, opType),
    ...Object.entries(intAttrs).map(([n, i]) => bytesField(5, intAttribute(n, i))),
  ]);
  const graph = Buffer.concat([
    bytesField(1, node),
    bytesField(2, `tcts_${opType}`),
    ...names.map((n, k) => bytesField(11, valueInfo(n, inputTypes[k]))),
    bytesField(12, valueInfo('y')),
  ]);
  return Buffer.concat([
    intField(1, irVersion),
    bytesField(2, 'tensor-cts'),
    bytesField(7, graph),
    bytesField(8, Buffer.concat([bytesField(1, ''), intField(2, opset)])),
  ]);
}

module.exports = {ELEM_TYPES, OPSET, IR_VERSION, varint, intField, bytesField, valueInfo, oneNodeModel};
