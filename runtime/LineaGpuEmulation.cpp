//===- LineaGpuEmulation.cpp - warps of a GPU block on CPU threads --------===//
//
// The run-time half of linea-emulate-gpu-threads: a GPU block's threads run
// as the threads of one OpenMP team (one block at a time), and the warp
// instructions that exchange registers between lanes (ldmatrix, mma.sync)
// meet in a per-warp scratch area between two warp barriers. The fragment
// layouts are PTX's (ISA 8.x, "Matrix fragments for mma.m16n8k16" and
// "ldmatrix"), written here from the ISA, not from Linea's code generator,
// so that the emulation checks the generator rather than repeating it.
//
//===----------------------------------------------------------------------===//

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include <sched.h>

#define LINEA_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr int64_t kWarpSize = 32;

/// A reusable barrier for a fixed number of threads (sense counted). A
/// block's threads far outnumber the cores, so a waiting thread yields its
/// core at once rather than spinning on it.
class Barrier {
public:
  explicit Barrier(int64_t count) : count(count) {}

  void arriveAndWait() {
    int64_t myGeneration = generation.load(std::memory_order_acquire);
    if (arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == count) {
      arrived.store(0, std::memory_order_relaxed);
      generation.fetch_add(1, std::memory_order_acq_rel);
      return;
    }
    while (generation.load(std::memory_order_acquire) == myGeneration)
      sched_yield();
  }

private:
  int64_t count;
  std::atomic<int64_t> arrived{0}, generation{0};
};

/// What the lanes of one warp put down for the others to read.
struct Warp {
  explicit Warp(int64_t lanes) : barrier(lanes), lanes(lanes) {}
  Barrier barrier;
  int64_t lanes;
  const uint16_t *rows[kWarpSize] = {};
  uint32_t a[kWarpSize][4] = {}, b[kWarpSize][2] = {};
};

/// The block being run: its size, its barrier and its warps.
struct Block {
  explicit Block(int64_t threads) : threads(threads), barrier(threads) {
    for (int64_t first = 0; first < threads; first += kWarpSize)
      warps.push_back(std::make_unique<Warp>(
          std::min(kWarpSize, threads - first)));
  }
  int64_t threads;
  Barrier barrier;
  std::vector<std::unique_ptr<Warp>> warps;
};

std::unique_ptr<Block> block;

[[noreturn]] void fail(const char *message) {
  std::fprintf(stderr, "linea GPU emulation: %s\n", message);
  std::fflush(stderr);
  std::_Exit(1); // the other threads wait at barriers: no clean exit

}

Warp &warpOf(int64_t thread) {
  Warp &warp = *block->warps[thread / kWarpSize];
  if (warp.lanes != kWarpSize)
    fail("a warp instruction in a block whose size is not a multiple of 32");
  return warp;
}

float bf16ToFloat(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

float f16ToFloat(uint16_t bits) {
  uint32_t sign = uint32_t(bits >> 15) << 31;
  int32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ff;
  uint32_t wide;
  if (exponent == 0x1f) { // inf, nan
    wide = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    wide = sign | (uint32_t(exponent - 15 + 127) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    wide = sign;
  } else { // subnormal: normalize
    exponent = 1;
    while (!(mantissa & 0x400)) {
      mantissa <<= 1;
      --exponent;
    }
    mantissa &= 0x3ff;
    wide = sign | (uint32_t(exponent - 15 + 127) << 23) | (mantissa << 13);
  }
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

/// Element `half` (0: the low 16 bits) of a packed pair.
uint16_t halfOf(uint32_t pair, int64_t half) {
  return uint16_t(half ? pair >> 16 : pair & 0xffff);
}

} // namespace

/// Before a block's threads start: `threads` of them.
LINEA_EXPORT void linea_gpu_emu_begin_block(int64_t threads) {
  if (threads <= 0)
    fail("a block of no threads");
  block = std::make_unique<Block>(threads);
}

/// Every thread on entry: the OpenMP team must be the block.
LINEA_EXPORT void linea_gpu_emu_join(int64_t thread, int64_t teamSize) {
  if (!block || teamSize != block->threads || thread < 0 ||
      thread >= block->threads)
    fail("the OpenMP team is not the block (nested parallelism, or a "
         "thread limit below the block size)");
}

/// `gpu.barrier`.
LINEA_EXPORT void linea_gpu_emu_barrier(int64_t) {
  block->barrier.arriveAndWait();
}

/// `ldmatrix.sync.aligned.m8n8.x{tiles}[.trans].shared.b16`: lane l of
/// the warp gives the address of row l % 8 of matrix l / 8; every lane
/// receives two elements of each matrix, in `out[2 m]`, `out[2 m + 1]`:
/// row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1, or with `.trans` the
/// matrix's transpose at that place (rows 2 (l % 4) + {0, 1}, column l / 4).
LINEA_EXPORT void linea_gpu_emu_ldmatrix(int64_t thread, int64_t tiles,
                                         int64_t transpose, int64_t row,
                                         int64_t out) {
  Warp &warp = warpOf(thread);
  int64_t lane = thread % kWarpSize;
  warp.rows[lane] = reinterpret_cast<const uint16_t *>(row);
  warp.barrier.arriveAndWait();
  auto *result = reinterpret_cast<uint16_t *>(out);
  for (int64_t matrix = 0; matrix < tiles; ++matrix)
    for (int64_t half = 0; half < 2; ++half) {
      int64_t r = lane / 4, c = 2 * (lane % 4) + half;
      if (transpose)
        std::swap(r, c);
      result[2 * matrix + half] = warp.rows[8 * matrix + r][c];
    }
  warp.barrier.arriveAndWait();
}

/// `mma.sync.aligned.m16n8k16.row.col.f32.{bf16|f16}.{bf16|f16}.f32`:
/// lane l (group g = l / 4, t = l % 4) holds A's registers
/// {(g, 2t..), (g + 8, 2t..), (g, 2t + 8..), (g + 8, 2t + 8..)} (row, col),
/// B's {(2t.., g), (2t + 8.., g)} (k, n), two elements each, the lower
/// index in the low half; and the accumulator elements (g, 2t), (g, 2t + 1),
/// (g + 8, 2t), (g + 8, 2t + 1), updated in place in `c`.
LINEA_EXPORT void linea_gpu_emu_mma_m16n8k16(int64_t thread, int64_t bf16,
                                             int64_t a, int64_t b,
                                             int64_t c) {
  Warp &warp = warpOf(thread);
  int64_t lane = thread % kWarpSize;
  std::memcpy(warp.a[lane], reinterpret_cast<const void *>(a), 16);
  std::memcpy(warp.b[lane], reinterpret_cast<const void *>(b), 8);
  warp.barrier.arriveAndWait();
  auto widen = bf16 ? bf16ToFloat : f16ToFloat;
  auto aAt = [&](int64_t row, int64_t col) {
    uint32_t pair = warp.a[(row % 8) * 4 + (col % 8) / 2]
                          [(row >= 8 ? 1 : 0) + (col >= 8 ? 2 : 0)];
    return widen(halfOf(pair, col % 2));
  };
  auto bAt = [&](int64_t k, int64_t n) {
    uint32_t pair = warp.b[n * 4 + (k % 8) / 2][k >= 8 ? 1 : 0];
    return widen(halfOf(pair, k % 2));
  };
  auto *acc = reinterpret_cast<float *>(c);
  int64_t group = lane / 4, pairIndex = lane % 4;
  for (int64_t element = 0; element < 4; ++element) {
    int64_t row = group + (element >= 2 ? 8 : 0);
    int64_t col = 2 * pairIndex + element % 2;
    float sum = acc[element];
    for (int64_t k = 0; k < 16; ++k)
      sum += aAt(row, k) * bAt(k, col);
    acc[element] = sum;
  }
  warp.barrier.arriveAndWait();
}
