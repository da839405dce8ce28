//===- ceiling.cu - How fast a kernel can only move given bytes -----------===//

#include "ceiling.h"
#include "harness.h"

#include <cstdio>
#include <cstdlib>

namespace bench {
namespace {

/// Up to three ranges of 16-byte words read as one (a layer's codes,
/// scales and zero points).
struct WordRanges {
  const uint4 *begin[3];
  size_t words[3];
  __device__ uint4 operator[](size_t j) const {
    if (j < words[0])
      return begin[0][j];
    j -= words[0];
    return j < words[1] ? begin[1][j] : begin[2][j - words[1]];
  }
};

/// Reads the ranges and nothing else; each thread keeps kLoads independent
/// loads in flight per iteration.
template <int kLoads>
__global__ void readRanges(WordRanges ranges, unsigned *sink) {
  size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t total = ranges.words[0] + ranges.words[1] + ranges.words[2];
  unsigned acc = 0;
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (kLoads - 1) * stride < total; i += kLoads * stride) {
    uint4 v[kLoads];
#pragma unroll
    for (int u = 0; u < kLoads; ++u)
      v[u] = ranges[i + u * stride];
#pragma unroll
    for (int u = 0; u < kLoads; ++u)
      acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < total; i += stride) {
    uint4 v = ranges[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  // A store the compiler cannot drop keeps the loads alive.
  if (acc == 0x9E3779B9u)
    *sink = acc;
}

template <int kLoads>
void launchRead(size_t blocks, int threads, cudaStream_t stream,
                const WordRanges &ranges, unsigned *sink) {
  readRanges<kLoads><<<blocks, threads, 0, stream>>>(ranges, sink);
}

/// Output word j of the traffic kernels: input word floor(j * step / 2^32),
/// step = 2^32 inputWords / outputWords (a multiply, not a division), so
/// that the reads are spread over the writes, with j mixed in so that a
/// word stored to the wrong place is seen.
__device__ uint4 movedWord(const uint4 *input, uint64_t step, size_t j) {
  uint4 v = input[(j * step) >> 32];
  return make_uint4(v.x ^ unsigned(j), v.y, v.z, v.w);
}

/// movedWord for every output word; kStores words per thread and iteration.
template <int kStores>
__global__ void moveWords(const uint4 *input, uint64_t step, uint4 *output,
                          size_t outputWords) {
  size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i < outputWords; i += kStores * stride) {
    uint4 v[kStores];
#pragma unroll
    for (int u = 0; u < kStores; ++u) {
      size_t j = i + u * stride;
      v[u] =
          j < outputWords ? movedWord(input, step, j) : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < kStores; ++u) {
      size_t j = i + u * stride;
      if (j < outputWords)
        output[j] = v[u];
    }
  }
}

template <int kStores>
void launchMove(size_t blocks, int threads, cudaStream_t stream,
                const uint4 *input, uint64_t step, uint4 *output,
                size_t outputWords) {
  moveWords<kStores>
      <<<blocks, threads, 0, stream>>>(input, step, output, outputWords);
}

/// The same traffic with the output written by bulk copies (sm_90): each
/// block fills a chunk of kChunkWords words in shared memory (two buffers)
/// and one thread stores it with cp.async.bulk, so the stores leave the SM
/// as whole 16 KB (or 8 KB) transfers instead of 16-byte words.
template <int kChunkWords>
__global__ void moveWordsBulk(const uint4 *input, uint64_t step, uint4 *output,
                              size_t outputWords) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  __shared__ alignas(128) uint4 chunk[2][kChunkWords];
  size_t chunks = outputWords / kChunkWords;
  int buffer = 0;
  for (size_t c = blockIdx.x; c < chunks; c += gridDim.x, buffer ^= 1) {
    // The bulk store that last read this buffer (two chunks ago) is done.
    if (threadIdx.x == 0)
      asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
    __syncthreads();
    size_t first = c * kChunkWords;
    for (int w = threadIdx.x; w < kChunkWords; w += blockDim.x) {
      chunk[buffer][w] = movedWord(input, step, first + w);
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
      unsigned from = unsigned(__cvta_generic_to_shared(chunk[buffer]));
      asm volatile(
          "cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(
              output + first),
          "r"(from), "r"(unsigned(kChunkWords * 16))
          : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    }
  }
  if (threadIdx.x == 0)
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  // Words past the whole chunks: plain stores by the first block.
  if (blockIdx.x == 0)
    for (size_t j = chunks * kChunkWords + threadIdx.x; j < outputWords;
         j += blockDim.x)
      output[j] = movedWord(input, step, j);
#endif
}

/// Counts the output words that differ from what the traffic kernels
/// write.
__global__ void countWrongWords(const uint4 *input, uint64_t step,
                                const uint4 *output, size_t outputWords,
                                unsigned long long *wrong) {
  size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
       j < outputWords; j += stride) {
    uint4 want = movedWord(input, step, j), out = output[j];
    if (out.x != want.x || out.y != want.y || out.z != want.z ||
        out.w != want.w)
      atomicAdd(wrong, 1ull);
  }
}

/// Whether every word of `output` holds what the traffic kernels write: a
/// kernel that skipped or raced its stores would not count as a ceiling.
bool movedWordsMatch(const uint4 *input, uint64_t step, const uint4 *output,
                     size_t outputWords) {
  unsigned long long *wrong, host = 0;
  CUDA_CHECK(cudaMalloc(&wrong, sizeof(host)));
  CUDA_CHECK(cudaMemset(wrong, 0, sizeof(host)));
  countWrongWords<<<1024, 256>>>(input, step, output, outputWords, wrong);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(&host, wrong, sizeof(host), cudaMemcpyDeviceToHost));
  cudaFree(wrong);
  return host == 0;
}

} // namespace

double trafficCeilingMs(cudaStream_t stream, void *const *inputs,
                        size_t inputBytes, void *const *outputs,
                        size_t outputBytes, int copies, int multiprocessors,
                        std::string &config) {
  size_t inputWords = inputBytes / 16, outputWords = outputBytes / 16;
  uint64_t step = (uint64_t(inputWords) << 32) / outputWords;
  double bestMs = 1e30;
  // Times `move`, checks what it wrote, keeps the fastest.
  auto consider = [&](auto move, const std::string &name) {
    double ms = batchedMs(stream, 2, 15, 20, move);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemset(outputs[0], 0, outputBytes));
    move(0);
    if (!movedWordsMatch(static_cast<const uint4 *>(inputs[0]), step,
                         static_cast<const uint4 *>(outputs[0]), outputWords)) {
      std::fprintf(stderr, "traffic ceiling kernel %s wrote wrong words\n",
                   name.c_str());
      std::exit(4);
    }
    if (ms < bestMs) {
      bestMs = ms;
      config = name;
    }
  };
  for (int threads : {128, 256, 512})
    for (int perSM : {0, 2, 4, 8})
      for (int stores : {1, 2, 4}) {
        if (perSM == 0 && stores != 1)
          continue;
        if (perSM * threads > 2048)
          continue;
        size_t blocks = perSM == 0 ? (outputWords + threads - 1) / threads
                                   : size_t(perSM) * multiprocessors;
        auto move = [&](int i) {
          auto input = static_cast<const uint4 *>(inputs[i % copies]);
          auto output = static_cast<uint4 *>(outputs[i % copies]);
          auto launch = stores == 1   ? launchMove<1>
                        : stores == 2 ? launchMove<2>
                                      : launchMove<4>;
          launch(blocks, threads, stream, input, step, output, outputWords);
        };
        consider(move,
                 std::to_string(threads) + "_threads_" +
                     (perSM == 0 ? std::string("one_word_per_thread")
                                 : std::to_string(perSM) + "_blocks_per_sm_" +
                                       std::to_string(stores) + "_words"));
      }
  // Bulk copies from shared memory exist from sm_90 on.
  int major = 0, device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor,
                                    device));
  for (int threads : {256, 512})
    for (int perSM : {2, 4, 6})
      for (int chunkWords : {512, 1024}) {
        if (major < 9 || perSM * threads > 2048)
          continue;
        size_t blocks = size_t(perSM) * multiprocessors;
        auto move = [&](int i) {
          auto input = static_cast<const uint4 *>(inputs[i % copies]);
          auto output = static_cast<uint4 *>(outputs[i % copies]);
          if (chunkWords == 512)
            moveWordsBulk<512><<<blocks, threads, 0, stream>>>(
                input, step, output, outputWords);
          else
            moveWordsBulk<1024><<<blocks, threads, 0, stream>>>(
                input, step, output, outputWords);
        };
        consider(move, std::to_string(threads) + "_threads_" +
                           std::to_string(perSM) +
                           "_blocks_per_sm_bulk_store_" +
                           std::to_string(chunkWords * 16) + "_bytes");
      }
  return bestMs;
}

void launchReadCeiling(cudaStream_t stream, const void *codes, size_t codeBytes,
                       const void *scales, size_t scaleBytes,
                       const void *zeroPoints, size_t zeroPointBytes,
                       int blocksPerSM, int loads, int multiprocessors,
                       unsigned *sink) {
  constexpr int threads = 512;
  size_t total = codeBytes / 16 + scaleBytes / 16 + zeroPointBytes / 16;
  size_t blocks = blocksPerSM == 0 ? (total + threads - 1) / threads
                                   : size_t(blocksPerSM) * multiprocessors;
  WordRanges ranges = {
      {static_cast<const uint4 *>(codes), static_cast<const uint4 *>(scales),
       static_cast<const uint4 *>(zeroPoints)},
      {codeBytes / 16, scaleBytes / 16, zeroPoints ? zeroPointBytes / 16 : 0}};
  auto launch = loads == 1   ? launchRead<1>
                : loads == 2 ? launchRead<2>
                : loads == 4 ? launchRead<4>
                             : launchRead<8>;
  launch(blocks, threads, stream, ranges, sink);
}

double readCeilingMs(cudaStream_t stream, void *const *codes, size_t codeBytes,
                     void *const *scales, size_t scaleBytes,
                     void *const *zeroPoints, size_t zeroPointBytes, int copies,
                     int multiprocessors, std::string &config) {
  unsigned *sink;
  CUDA_CHECK(cudaMalloc(&sink, sizeof(unsigned)));
  double bestMs = 1e30;
  // Blocks per SM; 0: one load per thread over the whole range.
  for (int perSM : {0, 1, 2, 4})
    for (int loads : {1, 2, 4, 8}) {
      if (perSM == 0 && loads != 1)
        continue;
      auto read = [&](int i) {
        int c = i % copies;
        launchReadCeiling(stream, codes[c], codeBytes, scales[c], scaleBytes,
                          zeroPoints ? zeroPoints[c] : nullptr, zeroPointBytes,
                          perSM, loads, multiprocessors, sink);
      };
      double ms = batchedMs(stream, 2, 15, 20, read);
      CUDA_CHECK(cudaGetLastError());
      if (ms < bestMs) {
        bestMs = ms;
        config = perSM == 0 ? std::string("one_load_per_thread")
                            : std::to_string(perSM) + "_blocks_per_sm_" +
                                  std::to_string(loads) + "_loads";
      }
    }
  cudaFree(sink);
  return bestMs;
}

} // namespace bench
