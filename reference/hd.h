// TCTS_HD marks the few reference functions the cuda/ backend's kernels call too (float16 /
// bfloat16 rounding, the arithmetic of reference/arith.h): __host__ __device__ under nvcc,
// nothing for the host compiler. One definition serves both, so the device rounds exactly as
// the CPU reference does.
#ifndef TCTS_REFERENCE_HD_H_
#define TCTS_REFERENCE_HD_H_

#ifdef __CUDACC__
#define TCTS_HD __host__ __device__
#else
#define TCTS_HD
#endif

#endif  // TCTS_REFERENCE_HD_H_
