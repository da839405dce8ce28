//===- ceiling.h - How fast a kernel can only move given bytes ------------===//
//
// Ceilings measured in the same run as the kernels they bound, on the same
// buffers and timed the same way (batches rotating through copies larger
// than L2): a kernel that only reads a GEMV's code and scale bytes, and one
// that reads a dequantization's inputs and writes its output and does
// nothing else.
//
//===----------------------------------------------------------------------===//

#ifndef QMAT_BENCH_CEILING_H
#define QMAT_BENCH_CEILING_H

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace bench {

/// The best mean time (ms) per read of codes[i], scales[i] and (unless
/// null) zeroPoints[i] (i rotating over `copies`) over a sweep of grid
/// sizes and loads in flight per thread; `config` names the winner. Whole
/// 16-byte words only (a tail below 16 bytes of each is not read).
double readCeilingMs(cudaStream_t stream, void *const *codes, size_t codeBytes,
                     void *const *scales, size_t scaleBytes,
                     void *const *zeroPoints, size_t zeroPointBytes, int copies,
                     int multiprocessors, std::string &config);

/// One launch of readCeilingMs's kernel over one copy: `blocksPerSM` blocks
/// of 512 threads per SM (0: one thread per 16-byte word) with `loads` (1, 2,
/// 4 or 8) loads in flight per thread; `sink` a device word.
void launchReadCeiling(cudaStream_t stream, const void *codes, size_t codeBytes,
                       const void *scales, size_t scaleBytes,
                       const void *zeroPoints, size_t zeroPointBytes,
                       int blocksPerSM, int loads, int multiprocessors,
                       unsigned *sink);

/// The same for a kernel that reads `inputs[i]` (inputBytes) and writes
/// `outputs[i]` (outputBytes >= inputBytes), the reads spread evenly over
/// the writes as a dequantization's are.
double trafficCeilingMs(cudaStream_t stream, void *const *inputs,
                        size_t inputBytes, void *const *outputs,
                        size_t outputBytes, int copies, int multiprocessors,
                        std::string &config);

} // namespace bench

#endif // QMAT_BENCH_CEILING_H
