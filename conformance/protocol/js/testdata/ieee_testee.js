'use strict';
// A fixture for the Node.js kit's end-to-end test (../js_kit_test.sh): a "library" of the
// IEEE-754 binary formats that answers finfo (bits, eps, max, min, tiny) from each format's
// exponent and significand widths, through the kit and //conformance:testee_bin. Every value
// crosses the pipe as a C99 hex float, so the dtypes suite's exact comparisons check the kit's
// encoder (float64's max 0x1.fffffffffffffp+1023, float16's tiny 0x1p-14, ...). A format it
// does not know is a TypeError, as torch.finfo's for an integer dtype.
// --faulty=eps: answers each eps one ulp too large (a faulty candidate: the test expects FAILs).
const path = require('path');
const tcts = require(path.join(__dirname, '..', 'tcts_testee.js'));

const FORMATS = {float16: [5, 10], bfloat16: [8, 7], float32: [8, 23], float64: [11, 52]};
const faulty = process.argv.includes('--faulty=eps');

class IeeeTestee extends tcts.Testee {
  constructor() { super(); this.name = 'ieee formats (kit fixture)'; this.version = '1'; }
  finfo({dtype}) {
    if (!(dtype in FORMATS)) throw new TypeError(`${dtype} is not a binary floating-point format`);
    const [e, m] = FORMATS[dtype];
    const emax = 2 ** (e - 1) - 1;
    const max = (2 - 2 ** -m) * 2 ** emax;
    const eps = 2 ** -m;
    return {bits: 1 + e + m, eps: faulty ? eps * (1 + 2 ** -52) : eps, max, min: -max, tiny: 2 ** (1 - emax)};
  }
}
tcts.serve(new IeeeTestee());
