'use strict';
/**
 * stdlib-js ndarray as a tensor-cts testee (conformance/protocol/PROTOCOL.md), over
 * @stdlib/ndarray 0.4.1 (package.json here pins it, with @stdlib/slice and @stdlib/complex 0.4.1,
 * whose Slice and Complex128 objects its API takes; .ci/setup installs them with `npm ci`):
 *
 *   bazel run --local_cpu_resources=1 //conformance:run -- --candidate=stdlib_ndarray
 *
 * Every answer is stdlib's own, through its public API (the packages of @stdlib/ndarray's
 * namespace, `nd` below, and of its `base` namespace); this file only translates. Where stdlib
 * has two ways to express a call, the one its docs give as the default is used and named here:
 * casting 'safe' (nd.defaults) for can_cast and nd.array, strict slicing, nd.array's default
 * dtype (float64) for a sequence without a dtype. make_tensor is the one place that opts out of
 * the default: torch.tensor(values, dtype=) converts each value as a cast would, which nd.array's
 * 'safe' casting refuses for any generic array, so it assigns (below).
 *
 *   dtypes         the dtypes in DTYPES below: each is in nd.dtypes() and has a buffer
 *                  (nd.base.buffer; stdlib lists float16 and complex32 but their buffer
 *                  constructors throw "not implemented": not declared). stdlib has no int64 or
 *                  bfloat16. dtype_from_name is `new nd.DataType(name)` (stdlib's dtype
 *                  parser: its own names only); dtype_info: itemsize nd.base.bytesPerElement,
 *                  is_floating_point isRealFloatingPointDataType, is_complex
 *                  isComplexFloatingPointDataType, is_signed isSignedIntegerDataType or
 *                  isFloatingPointDataType (nd.base.assert; stdlib has no "signed" for
 *                  floats, whose kinds hold negative values).
 *  promotion       nd.promotionRules(a, b) (it answers -1 where "the data types cannot be
 *                  safely promoted": answered as an error, naming it). can_cast is
 *                  nd.base.assert.isAllowedDataTypeCast(from, to, casting) with stdlib's
 *                  default casting mode, nd.defaults.get('casting') ('safe').
 *   tensors        make_tensor: the values as an ndarray of their own kind (nd.array of a
 *                  bool array as 'bool', of numbers as 'float64', of complex numbers as
 *                  'complex128'; a 0-d one through nd.scalar2ndarray), assigned into
 *                  nd.empty(sizes, {dtype}) with nd.base.assign: stdlib's own conversion
 *                  between dtypes (what nd.copy and friends use). Values of several kinds are
 *                  assigned one by one, each from its own kind. An integer past 2^53 is
 *                  rounded to a JS number (stdlib's largest integer dtype is 32-bit).
 *                  meta: nd.dtype, x.shape, x.strides (stdlib's strides are in elements; a 0-d
 *                  array's are [0] in stdlib, [] in PyTorch: stridesIn / stridesOut translate),
 *                  x.offset (the index of the first element in the data buffer), device 'cpu'
 *                  (stdlib ndarrays live in JS memory). values: x.get(...) of every index in
 *                  row-major order (nd.ndarray2array; a 0-d array's x.get()).
 * memory formats   nd.empty(sizes, {dtype, order: 'row-major'}) (contiguous_format; stdlib's
 *                  orders are row-major and column-major: no channels_last);
 *                  is_contiguous: nd.flag(x, 'ROW_MAJOR_CONTIGUOUS'). empty_strided: nd.empty
 *                  takes a shape and an order, so it is the ndarray constructor over a new
 *                  buffer (nd.base.buffer) of as many elements as the strides reach
 *                  (nd.base.minmaxViewBufferIndex) from the offset nd.base.strides2offset
 *                  gives them.
 *   views          as_strided: the ndarray constructor, new nd.ndarray(dtype, dataBuffer(x),
 *                  sizes, strides, offset, 'row-major': stdlib's default order,
 *                  nd.defaults.get('order'), as for every array made here); t: nd.transpose
 *                  (stdlib transposes the last two dimensions); transpose(dim0, dim1) is
 *                  nd.transpose when the two are the last two dimensions, NotSupported
 *                  otherwise (stdlib has no permute / swapaxes: permute NotSupported);
 *                  narrow / slice:
 *                  nd.sliceDimension(x, dim, new Slice(start, stop, step)) in its default
 *                  strict mode (a slice past the bounds throws; {strict: false} is the
 *                  opt-in); select: nd.sliceDimension(x, dim, index) (an integer drops the
 *                  dimension); expand: nd.broadcastArray (a read-only view); unsqueeze:
 *                  nd.base.expandDimensions; squeeze(): nd.removeSingletonDimensions, squeeze(dim)
 *                  NotSupported (stdlib removes every singleton dimension or none); view and
 *                  reshape NotSupported (stdlib 0.4.1 has no reshape).
 * format copies    clone(preserve_format): nd.copy (an array of the input's order: stdlib's copy
 *                  has no order option, so other formats answer NotSupported); empty_like:
 *                  nd.emptyLike(x, {order}) (preserve_format: emptyLike's default, the input's
 *                  order); contiguous NotSupported (stdlib has no "x itself if contiguous, else
 *                  a copy").
 *   storage        an ndarray's data buffer (nd.dataBuffer), the memory its views share: its
 *                  id is the buffer's identity (a number this testee gives each buffer object),
 *                  numel its length; storage_values reads it through a 1-d ndarray over the
 *                  whole buffer; write_storage and write_element are x.set(..., value) on a
 *                  0-d ndarray over that buffer index, and on the element's view
 *                  (nd.slice(x, ...index)). JavaScript has no addresses: data_ptr answers
 *                  NotSupported.
 *   asarray        nd.array(source, {dtype, copy}) for a (nested) sequence, another ndarray or
 *                  a buffer (in JavaScript a Uint8Array over the suite's bytes); an array in
 *                  the suite's memory is stdlib's ndarray-like object (its dtype, a typed array
 *                  over the bytes, shape, strides in elements, offset) read by
 *                  nd.ndarraylike2ndarray (nd.array reads no such object), then nd.array with
 *                  the dtype / copy asked for, if any. stdlib has no device argument and no
 *                  autograd: NotSupported.
 * Undeclared, because stdlib ndarray has no such API: binary / binary_out / binary_inplace
 * (@stdlib/ndarray 0.4.1 has no element-wise arithmetic; stdlib's math namespace offers it only
 * for 1-d strided arrays, without division or broadcasting), result_type (no dtype of Python
 * numbers), default_dtype (nd.defaults.get('dtypes.default') reads stdlib's default, float64,
 * but nothing sets it), finfo, legacy_constructor, devices, default_device, device_factories,
 * dlpack, autograd.
 */
const path = require('path');
const tcts = require(path.join(__dirname, '..', '..', 'protocol', 'js', 'tcts_testee.js'));

if (process.argv.length > 2) {
  process.stderr.write(`stdlib_ndarray_testee.js: unknown argument ${JSON.stringify(process.argv[2])} (it takes none)\n`);
  process.exit(2);
}

// stdlib's public packages, each by its own entry point (require('@stdlib/ndarray/array') is
// require('@stdlib/ndarray').array; the namespace's index would load all of them, seconds of
// start-up): `nd` below reads as the namespace does.
const ND = {
  DataType: 'dtype-ctor', array: 'array', broadcastArray: 'broadcast-array', copy: 'copy', dataBuffer: 'data-buffer',
  defaults: 'defaults', dtype: 'dtype', dtypes: 'dtypes', empty: 'empty', emptyLike: 'empty-like', flag: 'flag',
  ndarray: 'ctor', ndarray2array: 'to-array', orders: 'orders', promotionRules: 'promotion-rules',
  removeSingletonDimensions: 'remove-singleton-dimensions', scalar2ndarray: 'from-scalar', slice: 'slice',
  sliceDimension: 'slice-dimension', transpose: 'transpose', ndarraylike2ndarray: 'ndarraylike2ndarray',
};
const BASE = {
  assign: 'assign', buffer: 'buffer', bufferCtors: 'buffer-ctors', bytesPerElement: 'bytes-per-element', expandDimensions: 'expand-dimensions',
  minmaxViewBufferIndex: 'minmax-view-buffer-index', strides2offset: 'strides2offset',
};
const ASSERT = [
  'isAllowedDataTypeCast', 'isComplexFloatingPointDataType', 'isFloatingPointDataType', 'isIntegerDataType',
  'isRealFloatingPointDataType', 'isSignedIntegerDataType',
];
const kebab = (name) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const nd = {base: {assert: {}}};
for (const [name, pkg] of Object.entries(ND)) nd[name] = require(`@stdlib/ndarray/${pkg}`);
for (const [name, pkg] of Object.entries(BASE)) nd.base[name] = require(`@stdlib/ndarray/base/${pkg}`);
for (const name of ASSERT) nd.base.assert[name] = require(`@stdlib/ndarray/base/assert/${kebab(name)}`);
const Slice = require('@stdlib/slice/ctor');
const Complex128 = require('@stdlib/complex/float64/ctor');

// The suite's dtypes that stdlib has (its names are PyTorch's for these). Checked below against
// nd.dtypes() and nd.base.buffer, so a name stdlib lacks fails at start, naming it.
const DTYPES = ['bool', 'uint8', 'int8', 'int16', 'int32', 'float32', 'float64', 'complex64', 'complex128'];
for (const d of DTYPES) {
  if (!nd.dtypes().includes(d)) throw new Error(`stdlib_ndarray_testee.js: stdlib has no dtype '${d}' (nd.dtypes())`);
  nd.base.buffer(d, 1);  // throws "not implemented" where stdlib lists a dtype without a buffer
}

function dtype(name) {
  if (!DTYPES.includes(name)) {
    throw new tcts.NotSupported(`stdlib ndarray has no dtype ${JSON.stringify(name)} with a buffer (its dtypes here: ` +
      `${DTYPES.join(', ')})`);
  }
  return name;
}

function dim(d) {  // a dimension as stdlib takes it (a JS number)
  return Number(d);
}

// A 0-d ndarray's strides: stdlib writes them [0] (its constructor requires one entry,
// nd.empty([]).strides is [0]), PyTorch []. The same strides, each way:
function stridesIn(shape, strides) {
  return shape.length ? strides : [0];
}

function stridesOut(x) {
  return x.shape.length ? x.strides : [];
}

/** A decoded scalar as a stdlib value of its own kind: boolean, number or Complex128. */
function value(v) {
  if (v instanceof tcts.Complex) return new Complex128(v.re, v.im);
  if (typeof v === 'bigint') return Number(v);
  return v;
}

/** The dtype stdlib stores a scalar of this kind in, exactly. */
function kindOf(v) {
  if (typeof v === 'boolean') return 'bool';
  return v instanceof tcts.Complex ? 'complex128' : 'float64';
}

/** An ndarray of sizes holding vals (all of one kind), in that kind's dtype: exact (a JS
 * boolean array into 'bool', Complex128 objects into 'complex128'; casting 'unsafe' only because
 * nd.array's 'safe' refuses any generic array). */
function ofKind(kind, vals, sizes) {
  const data = vals.map(value);
  if (sizes.length === 0) return nd.scalar2ndarray(data[0], {dtype: kind});
  return nd.array(kind === 'float64' ? Float64Array.from(data) : data, {dtype: kind, shape: sizes, casting: 'unsafe'});
}

let nextStorage = 1;
const storageIds = new WeakMap();

function storageId(buffer) {
  if (!storageIds.has(buffer)) storageIds.set(buffer, nextStorage++);
  return storageIds.get(buffer);
}

/** A 1-d ndarray over the whole data buffer of x. */
function storageArray(x) {
  const buffer = nd.dataBuffer(x);
  return new nd.ndarray(nd.dtype(x), buffer, [buffer.length], [1], 0, 'row-major');
}

const ORDERS = {contiguous_format: 'row-major'};

function order(memoryFormat) {
  if (!(memoryFormat in ORDERS)) {
    throw new tcts.NotSupported(`stdlib ndarray has no memory format ${JSON.stringify(memoryFormat)} (its orders: ` +
      `${nd.orders().join(', ')})`);
  }
  return ORDERS[memoryFormat];
}

function flatValues(x) {
  if (x.shape.length === 0) return [x.get()];
  return nd.ndarray2array(x).flat(x.shape.length - 1);
}

function scalarOut(dt, v) {  // a stdlib element of dtype dt -> the kit's scalar
  if (dt === 'bool') return Boolean(v);
  if (nd.base.assert.isComplexFloatingPointDataType(dt)) return new tcts.Complex(v.re, v.im);
  if (nd.base.assert.isIntegerDataType(dt)) return BigInt(v);
  return v;
}

class StdlibNdarrayTestee extends tcts.Testee {
  constructor() {
    super();
    const version = require('@stdlib/ndarray/package.json').version;
    this.name = 'stdlib-js ndarray';
    this.dtypes = DTYPES;
    this.version = version;
    this.build = `Node.js ${process.version}, @stdlib/ndarray ${version}, @stdlib/slice ` +
      `${require('@stdlib/slice/package.json').version}`;
  }

  // -- dtypes
  dtype_from_name({name}) {
    return String(new nd.DataType(name));
  }

  dtype_info({dtype: name}) {
    const d = dtype(name);
    const is = nd.base.assert;
    return {itemsize: nd.base.bytesPerElement(d), is_floating_point: is.isRealFloatingPointDataType(d),
      is_complex: is.isComplexFloatingPointDataType(d),
      is_signed: is.isSignedIntegerDataType(d) || is.isFloatingPointDataType(d)};
  }

  // -- promotion and casting
  promote_types({a, b}) {
    const r = nd.promotionRules(dtype(a), dtype(b));
    if (r === -1 || r === null) throw new Error(`stdlib's promotionRules('${a}', '${b}') is ${r}: no promotion`);
    return String(r);
  }

  can_cast({from_, to}) {
    return nd.base.assert.isAllowedDataTypeCast(dtype(from_), dtype(to), nd.defaults.get('casting'));
  }

  // -- tensors
  make_tensor({sizes, dtype: name, values}) {
    const shape = sizes.map(dim);
    const out = nd.empty(shape, {dtype: dtype(name), order: 'row-major'});
    const kinds = new Set(values.map(kindOf));
    if (kinds.size === 1) {
      nd.base.assign([ofKind(kinds.values().next().value, values, shape), out]);
    } else if (kinds.size > 1) {  // one by one, each from its own kind, into the flat buffer
      const flat = storageArray(out);
      values.forEach((v, k) => {
        nd.base.assign([ofKind(kindOf(v), [v], [1]), nd.sliceDimension(flat, 0, new Slice(k, k + 1, 1))]);
      });
    }
    return out;
  }

  meta({t}) {
    return {dtype: String(nd.dtype(t)), sizes: t.shape, strides: stridesOut(t), storage_offset: t.offset, device: 'cpu'};
  }

  values({t}) {
    const dt = String(nd.dtype(t));
    return flatValues(t).map((v) => scalarOut(dt, v));
  }

  // -- memory formats
  empty({sizes, dtype: name, layout, memory_format: fmt}) {
    if (layout !== 'strided') throw new tcts.NotSupported(`stdlib ndarray has no ${layout} layout (dense arrays only)`);
    return nd.empty(sizes.map(dim), {dtype: dtype(name), order: order(fmt)});
  }

  empty_strided({sizes, strides, dtype: name}) {
    // stdlib's way to an ndarray of given strides: its constructor over a buffer (nd.base.buffer)
    // that holds every element the strides reach, from the offset stdlib computes for them.
    const shape = sizes.map(dim);
    const st = stridesIn(shape, strides.map(dim));
    const offset = nd.base.strides2offset(shape, st);
    const [, last] = nd.base.minmaxViewBufferIndex(shape, st, offset);
    return new nd.ndarray(dtype(name), nd.base.buffer(dtype(name), last + 1), shape, st, offset, 'row-major');
  }

  is_contiguous({t, memory_format: fmt}) {
    order(fmt);
    return nd.flag(t, 'ROW_MAJOR_CONTIGUOUS');
  }

  // -- views
  as_strided({t, sizes, strides, storage_offset: offset}) {
    const shape = sizes.map(dim);
    return new nd.ndarray(nd.dtype(t), nd.dataBuffer(t), shape, stridesIn(shape, strides.map(dim)), dim(offset),
      'row-major');
  }

  t({t}) {
    return nd.transpose(t);
  }

  transpose({t, dim0, dim1}) {
    const n = t.shape.length;
    const last = new Set([n - 2, n - 1, -2, -1]);
    if (n >= 2 && dim0 !== dim1 && last.has(dim(dim0)) && last.has(dim(dim1)) &&
        (dim(dim0) + n) % n !== (dim(dim1) + n) % n) {
      return nd.transpose(t);
    }
    throw new tcts.NotSupported(`stdlib transposes the last two dimensions only (nd.transpose); it has no swapaxes ` +
      `(asked for dims ${dim0}, ${dim1} of ${n})`);
  }

  permute({dims}) {
    throw new tcts.NotSupported(`stdlib ndarray has no permute (asked for dims [${dims}])`);
  }

  narrow({t, dim: d, start, length}) {
    return nd.sliceDimension(t, dim(d), new Slice(dim(start), dim(start) + dim(length), 1));
  }

  select({t, dim: d, index}) {
    return nd.sliceDimension(t, dim(d), dim(index));
  }

  slice({t, dim: d, start, end, step}) {
    return nd.sliceDimension(t, dim(d), new Slice(dim(start), dim(end), dim(step)));
  }

  expand({t, sizes}) {
    return nd.broadcastArray(t, sizes.map(dim));
  }

  unsqueeze({t, dim: d}) {
    return nd.base.expandDimensions(t, dim(d));
  }

  squeeze({t, dim: d}) {
    if (d !== null) {
      throw new tcts.NotSupported(`stdlib removes every singleton dimension (nd.removeSingletonDimensions) or none: ` +
        `no squeeze of dim ${d}`);
    }
    return nd.removeSingletonDimensions(t);
  }

  view({sizes}) {
    throw new tcts.NotSupported(`stdlib ndarray 0.4.1 has no reshape (asked for a view of sizes [${sizes}])`);
  }

  reshape({sizes}) {
    throw new tcts.NotSupported(`stdlib ndarray 0.4.1 has no reshape (asked for sizes [${sizes}])`);
  }

  // -- format copies
  contiguous({memory_format: fmt}) {
    throw new tcts.NotSupported(`stdlib has no "the array itself when contiguous, else a copy" (nd.copy always ` +
      `copies; asked for ${fmt})`);
  }

  clone({t, memory_format: fmt}) {
    if (fmt !== 'preserve_format') {
      throw new tcts.NotSupported(`stdlib's copy has no order option (it copies in the input's order): no clone to ${fmt}`);
    }
    return nd.copy(t);
  }

  empty_like({t, memory_format: fmt}) {
    return fmt === 'preserve_format' ? nd.emptyLike(t) : nd.emptyLike(t, {order: order(fmt)});
  }

  // -- storage: the data buffer
  storage({t}) {
    const buffer = nd.dataBuffer(t);
    return {id: storageId(buffer), numel: buffer.length};
  }

  storage_values({t}) {
    return this.values({t: storageArray(t)});
  }

  write_storage({t, index, value: v}) {
    new nd.ndarray(nd.dtype(t), nd.dataBuffer(t), [], [0], dim(index), 'row-major').set(value(v));
  }

  write_element({t, index, value: v}) {
    nd.slice(t, ...index.map(dim)).set(value(v));
  }

  data_ptr() {
    throw new tcts.NotSupported('JavaScript has no memory addresses: stdlib ndarrays have no data pointer');
  }

  // -- asarray
  asarray({source, dtype: name, device, copy, requires_grad: requiresGrad}, server) {
    if (device !== null) throw new tcts.NotSupported(`stdlib's array has no device argument (asked for ${device})`);
    if (requiresGrad) throw new tcts.NotSupported('stdlib ndarray has no autograd (asked for requires_grad=True)');
    const opts = {};
    if (name !== null) opts.dtype = dtype(name);
    if (copy !== null) opts.copy = copy;
    const given = (x) => (Object.keys(opts).length ? nd.array(x, opts) : x);
    switch (source.kind) {
      case 'sequence': {
        const convert = (v) => (Array.isArray(v) ? v.map(convert) : value(v));
        return nd.array(convert(source.value), opts);
      }
      case 'tensor':
        return nd.array(source.tensor, opts);
      case 'buffer':  // a writable bytes buffer: in JavaScript a Uint8Array over its memory
        return nd.array(server.lend(source, 'source'), opts);
      case 'array':
      case 'array_scalar':
        return given(nd.ndarraylike2ndarray(this.ndarrayLike(source, server)));
      default:
        throw new tcts.NotSupported(`stdlib ndarray reads no ${source.kind} source`);
    }
  }

  /** The suite's array in host memory as stdlib's ndarray-like object (dtype, data, shape,
   * strides, offset, order: what nd.ndarraylike2ndarray reads) over a typed array of its
   * dtype over the lent bytes. */
  ndarrayLike(source, server) {
    const d = dtype(source.dtype);
    const bytes = server.lend(source, 'source');
    const item = nd.base.bytesPerElement(d);
    const elements = (b, what) => {
      if (Number(b) % item) throw new tcts.NotSupported(`${what} of ${b} bytes is not a whole number of ${item}-byte elements`);
      return Number(b) / item;
    };
    const data = new (nd.base.bufferCtors(d))(bytes.buffer, bytes.byteOffset, Math.floor(bytes.byteLength / item));
    const shape = source.shape.map(Number);
    const strides = stridesIn(shape, source.byte_strides.map((b) => elements(b, 'a stride')));
    return {dtype: d, data, shape, strides,
      offset: elements(source.offset, 'the offset'), order: 'row-major'};
  }
}

tcts.serve(new StdlibNdarrayTestee());
