//===- LineaGpuEmulation.cpp - warps of a GPU block on CPU threads --------===//
//
// The run-time half of linea-emulate-gpu-threads: a GPU block's threads run
// as the threads of one OpenMP team (one block at a time), and the warp
// instructions that exchange registers between lanes (ldmatrix, mma.sync)
// meet in a per-warp scratch area between two warp barriers. The fragment
// layouts are PTX's (ISA 8.x, "Matrix fragments for mma.m16n8k16" and
// "ldmatrix"), written here from the ISA, not from Linea's code generator,
// so that the emulation checks the generator rather than repeating it;
// python/tests/test_ptx_layouts.py checks these layouts against the ISA's
// figures transcribed as data (python/tests/data/ptx_isa_layouts.txt).
// wgmma reads its operands from shared memory through matrix descriptors:
// those are decoded here as the ISA defines them ("Matrix Descriptor
// Format", "Shared Memory Matrix Layout", the canonical K-major and
// MN-major layouts with the 128-byte swizzle), the address field taken
// back to the buffer it points into among the block's registered shared
// buffers.
//
//===----------------------------------------------------------------------===//

#include "TiledTensor.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LINEA_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr int64_t kWarpSize = 32;

/// A count of completed phases that threads wait on. A block's threads far
/// outnumber the cores: a waiting thread yields its core a while (a warp's
/// lanes mostly arrive within a few of its turns), then sleeps in the
/// kernel (a futex on the count) until the phase it waits for completes.
/// Threads that only yielded, 256 of them on two cores, spent most of a
/// run in sched_yield; sleeping at once costs a wake-up per arrival. An
/// emulated chunk program (1 x 2 x 256 x 128, bf16 tensor cores) ran in
/// 5.4 s yielding only and 4.0 s with 64 yields first; sleeping at once
/// was several times slower than either.
class Phases {
public:
  uint32_t completed() const { return count.load(std::memory_order_acquire); }

  /// Completes a phase and wakes its sleepers.
  void complete() {
    count.fetch_add(1, std::memory_order_seq_cst);
    // A sleeper counts itself before the kernel reads the count: either it
    // is counted here, or it reads the new count and does not sleep.
    if (sleepers.load(std::memory_order_seq_cst) > 0)
      futex(FUTEX_WAKE_PRIVATE, INT32_MAX);
  }

  /// Returns once `done(completed())` holds.
  template <typename Done> void waitUntil(Done done) {
    for (int yields = 0; yields < kYieldsBeforeSleep; ++yields) {
      if (done(completed()))
        return;
      sched_yield();
    }
    sleepers.fetch_add(1, std::memory_order_seq_cst);
    for (uint32_t seen = completed(); !done(seen); seen = completed())
      futex(FUTEX_WAIT_PRIVATE, seen);
    sleepers.fetch_sub(1, std::memory_order_relaxed);
  }

private:
  static constexpr int kYieldsBeforeSleep = 64;

  void futex(int operation, uint32_t value) {
    syscall(SYS_futex, reinterpret_cast<uint32_t *>(&count), operation, value,
            nullptr, nullptr, 0);
  }

  std::atomic<uint32_t> count{0};
  std::atomic<int64_t> sleepers{0};
  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t),
                "the futex word is the count itself");
};

/// A reusable barrier for a fixed number of threads.
class Barrier {
public:
  explicit Barrier(int64_t count) : count(count) {}

  void arriveAndWait() {
    uint32_t mine = phases.completed();
    if (arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == count) {
      arrived.store(0, std::memory_order_relaxed);
      phases.complete();
      return;
    }
    phases.waitUntil([mine](uint32_t completed) { return completed != mine; });
  }

private:
  int64_t count;
  std::atomic<int64_t> arrived{0};
  Phases phases;
};

/// What the lanes of one warp put down for the others to read.
struct Warp {
  explicit Warp(int64_t lanes) : barrier(lanes), lanes(lanes) {}
  Barrier barrier;
  int64_t lanes;
  const uint16_t *rows[kWarpSize] = {};
  uint64_t shuffled[kWarpSize] = {};
  uint32_t a[kWarpSize][4] = {}, b[kWarpSize][2] = {};
};

constexpr int64_t kWarpgroupSize = 4 * kWarpSize;

/// What the threads of one warpgroup put down: the descriptors each gave
/// its wgmma, which must agree.
struct Warpgroup {
  Barrier barrier{kWarpgroupSize};
  uint64_t descriptors[kWarpgroupSize][2] = {};
};

/// A shared-memory buffer of the block (host memory standing for it).
struct Window {
  uintptr_t base;
  int64_t bytes;
};

/// An mbarrier (PTX ISA: "Parallel Synchronization and Communication
/// Instructions: mbarrier"): a phase completes when its expected arrivals
/// have arrived and the transaction bytes announced for it have landed;
/// `phase` counts the completed phases.
struct MBarrier {
  std::mutex mutex;
  Phases phase;
  int64_t expected = 0, arrived = 0, pendingBytes = 0;

  /// With `mutex` held.
  void completeIfDone() {
    if (arrived < expected || pendingBytes > 0)
      return;
    arrived = 0;
    pendingBytes = 0;
    phase.complete();
  }
};

/// The block being run: its size, its barrier, its warps (and
/// warpgroups, where its size is a multiple of 128), its shared buffers
/// and its mbarriers (per creating op, as `nvgpu.mbarrier.create` makes
/// one group of them in the block's shared memory).
struct Block {
  explicit Block(int64_t threads) : threads(threads), barrier(threads) {
    for (int64_t first = 0; first < threads; first += kWarpSize)
      warps.push_back(std::make_unique<Warp>(
          std::min(kWarpSize, threads - first)));
    if (threads % kWarpgroupSize == 0)
      for (int64_t first = 0; first < threads; first += kWarpgroupSize)
        warpgroups.push_back(std::make_unique<Warpgroup>());
  }
  int64_t threads;
  Barrier barrier;
  std::vector<std::unique_ptr<Warp>> warps;
  std::vector<std::unique_ptr<Warpgroup>> warpgroups;
  std::vector<Window> windows;
  std::mutex mbarrierMutex;
  std::map<int64_t, std::vector<std::unique_ptr<MBarrier>>> mbarriers;
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

/// `shfl.sync.bfly.b32` over the whole warp (twice for 64 bits): lane l
/// receives lane l ^ `offset`'s bits.
LINEA_EXPORT uint64_t linea_gpu_emu_shuffle_xor(int64_t thread, uint64_t bits,
                                                int64_t offset) {
  Warp &warp = warpOf(thread);
  int64_t lane = thread % kWarpSize;
  warp.shuffled[lane] = bits;
  warp.barrier.arriveAndWait();
  uint64_t received = warp.shuffled[lane ^ offset];
  warp.barrier.arriveAndWait();
  return received;
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

namespace {

/// Shared-memory addresses hold 18 bits; a descriptor keeps bits 4..17.
constexpr uint64_t kSharedAddressMask = (uint64_t(1) << 18) - 1;

/// A wgmma matrix descriptor's fields (ISA: "Matrix Descriptor Format").
struct Descriptor {
  uint64_t startAddress;  // bits 0-13, in 16-byte units
  uint64_t leadingBytes;  // bits 16-29, in 16-byte units
  uint64_t strideBytes;   // bits 32-45, in 16-byte units
  uint64_t baseOffset;    // bits 49-51
  uint64_t swizzle;       // bits 62-63: 0 none, 1 128B, 2 64B, 3 32B

  explicit Descriptor(uint64_t bits)
      : startAddress((bits & 0x3fff) << 4),
        leadingBytes(((bits >> 16) & 0x3fff) << 4),
        strideBytes(((bits >> 32) & 0x3fff) << 4),
        baseOffset((bits >> 49) & 0x7), swizzle(bits >> 62) {}
};

/// The registered buffer that shared-memory address `shared` (18 bits)
/// falls in, and the host address it stands for there: the one buffer
/// whose host base agrees with it in the low bits the hardware keeps.
std::pair<const Window *, uintptr_t> hostAddress(uint64_t shared) {
  const Window *found = nullptr;
  uintptr_t address = 0;
  int64_t matches = 0;
  for (const Window &window : block->windows) {
    uint64_t offset = (shared - window.base) & kSharedAddressMask;
    if (int64_t(offset) < window.bytes) {
      found = &window;
      address = window.base + offset;
      ++matches;
    }
  }
  if (matches != 1)
    fail(matches ? "a wgmma descriptor's address falls in two shared buffers"
                 : "a wgmma descriptor's address is in no shared buffer of "
                   "the block");
  return {found, address};
}

/// A wgmma operand in shared memory as its descriptor describes it: the
/// canonical layouts with the 128-byte swizzle (ISA: "Shared Memory Matrix
/// Layout").
class SwizzledOperand {
public:
  SwizzledOperand(uint64_t bits, bool transposed, bool bf16)
      : descriptor(bits), transposed(transposed), bf16(bf16) {
    if (descriptor.swizzle != 1 || descriptor.baseOffset != 0)
      fail("only wgmma operands in the 128-byte swizzle (base offset 0) "
           "are emulated");
    std::tie(window, start) = hostAddress(descriptor.startAddress);
  }

  /// Element (`x`, `k`), `x` its row of A or column of B and `k` its depth.
  /// K-major (not `transposed`): rows of 128 bytes along the depth, 8-row
  /// groups `strideBytes` apart. MN-major: rows of 128 bytes of 64
  /// consecutive x per depth, 8-row groups `strideBytes` apart, blocks of
  /// 64 x `leadingBytes` apart. The swizzle exchanges the 16-byte chunk
  /// bits (4-6) of the address with its row bits (7-9) by XOR.
  float at(int64_t x, int64_t k) const {
    uintptr_t address =
        transposed ? start + (x / 64) * descriptor.leadingBytes +
                         (k / 8) * descriptor.strideBytes + (k % 8) * 128 +
                         (x % 64) * 2
                   : start + (x / 8) * descriptor.strideBytes +
                         (x % 8) * 128 + k * 2;
    address ^= ((address >> 7) & 7) << 4;
    if (address < window->base ||
        address + 2 > window->base + uintptr_t(window->bytes))
      fail("a wgmma operand element lies outside its shared buffer");
    uint16_t bits;
    std::memcpy(&bits, reinterpret_cast<const void *>(address), sizeof(bits));
    return bf16 ? bf16ToFloat(bits) : f16ToFloat(bits);
  }

private:
  Descriptor descriptor;
  bool transposed, bf16;
  const Window *window = nullptr;
  uintptr_t start = 0;
};

} // namespace

/// Per block, before its threads start: a buffer of `bytes` at `base`
/// stands for shared memory that wgmma descriptors may address. The
/// hardware applies the swizzle to the shared-memory address, the
/// emulation to the host address: they agree where both are aligned to
/// the swizzle's 1024 bytes, as Linea's staged buffers are declared.
LINEA_EXPORT void linea_gpu_emu_shared_window(int64_t base, int64_t bytes) {
  if (base % 1024)
    fail("a shared buffer that wgmma may read is not 1024-byte aligned");
  block->windows.push_back(Window{uintptr_t(base), bytes});
}

/// `wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{bf16|f16}.{bf16|f16}`
/// with both operands in shared memory, `transposeA`/`transposeB` the
/// MN-major reads (imm-trans-a/b): the 128 threads of the warpgroup give
/// the same descriptors; thread t (warp w = t / 32 of the group, lane l)
/// holds accumulator i at row 16 w + l / 4 + 8 ((i % 4) / 2), column
/// 8 (i / 4) + 2 (l % 4) + i % 2, updated in place in `accumulators`.
LINEA_EXPORT void linea_gpu_emu_wgmma(int64_t thread, int64_t n, int64_t bf16,
                                      int64_t transposeA, int64_t transposeB,
                                      int64_t descriptorA, int64_t descriptorB,
                                      int64_t accumulators) {
  if (block->warpgroups.empty())
    fail("wgmma in a block whose size is not a multiple of 128");
  if (n % 8 || n < 8 || n > 256)
    fail("a wgmma whose N is not a multiple of 8 from 8 to 256");
  Warpgroup &group = *block->warpgroups[thread / kWarpgroupSize];
  int64_t member = thread % kWarpgroupSize;
  group.descriptors[member][0] = uint64_t(descriptorA);
  group.descriptors[member][1] = uint64_t(descriptorB);
  group.barrier.arriveAndWait();
  bool agree = group.descriptors[member][0] == group.descriptors[0][0] &&
               group.descriptors[member][1] == group.descriptors[0][1];
  group.barrier.arriveAndWait();
  if (!agree)
    fail("the threads of a warpgroup gave wgmma different descriptors");
  SwizzledOperand a(uint64_t(descriptorA), transposeA, bf16);
  SwizzledOperand b(uint64_t(descriptorB), transposeB, bf16);
  // The thread's two rows of A and its two columns of B per 8 columns.
  int64_t warp = member / kWarpSize, lane = member % kWarpSize;
  float rows[2][16], cols[32][2][16];
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t k = 0; k < 16; ++k)
      rows[r][k] = a.at(16 * warp + lane / 4 + 8 * r, k);
  for (int64_t j = 0; j < n / 8; ++j)
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t k = 0; k < 16; ++k)
        cols[j][c][k] = b.at(8 * j + 2 * (lane % 4) + c, k);
  auto *acc = reinterpret_cast<float *>(accumulators);
  for (int64_t i = 0; i < n / 2; ++i) {
    const float *row = rows[(i % 4) / 2], *col = cols[i / 4][i % 2];
    float sum = acc[i];
    for (int64_t k = 0; k < 16; ++k)
      sum += row[k] * col[k];
    acc[i] = sum;
  }
}

namespace {

/// A tensor map as linea_gpu_emu_tensor_map makes it: the tensor and the
/// swizzle (CUtensorMapSwizzle: 0 none, 3 128 bytes).
struct TensorMap {
  linea::runtime::TiledTensor tensor;
  int64_t swizzle;
};

std::mutex tensorMapMutex;
std::vector<std::unique_ptr<TensorMap>> tensorMaps;

MBarrier &mbarrierAt(int64_t group, int64_t index) {
  auto *barriers =
      reinterpret_cast<std::vector<std::unique_ptr<MBarrier>> *>(group);
  if (index < 0 || index >= int64_t(barriers->size()))
    fail("an mbarrier index outside its group");
  return *(*barriers)[index];
}

} // namespace

/// `nvgpu.tma.create.descriptor` on the host: the tensor of `rank` dims at
/// `address` (its first element), `fields` holding its sizes, its strides
/// (elements) and the box, each outermost first, as the CUDA runtime's
/// mgpuTensorMapEncodeTiledMemref reads them (runtime/TiledTensor.h, shared
/// with it). 0 where TMA cannot address the tensor, as the runtime's null.
LINEA_EXPORT int64_t linea_gpu_emu_tensor_map(int64_t rank, int64_t address,
                                              int64_t elementBytes,
                                              int64_t swizzle,
                                              int64_t fields) {
  const auto *values = reinterpret_cast<const int64_t *>(fields);
  auto map = std::make_unique<TensorMap>();
  map->swizzle = swizzle;
  if (!linea::runtime::describeTiledTensor(
          rank, reinterpret_cast<char *>(address), values, values + rank,
          elementBytes, values + 2 * rank, map->tensor))
    return 0;
  std::lock_guard<std::mutex> lock(tensorMapMutex);
  tensorMaps.push_back(std::move(map));
  return reinterpret_cast<int64_t>(tensorMaps.back().get());
}

/// `nvgpu.mbarrier.create` of op `site` (`count` barriers): every thread
/// of the block gets the same group.
LINEA_EXPORT int64_t linea_gpu_emu_mbarrier_group(int64_t site,
                                                  int64_t count) {
  std::lock_guard<std::mutex> lock(block->mbarrierMutex);
  auto &group = block->mbarriers[site];
  while (int64_t(group.size()) < count)
    group.push_back(std::make_unique<MBarrier>());
  return reinterpret_cast<int64_t>(&group);
}

/// `mbarrier.init`: `count` arrivals complete a phase.
LINEA_EXPORT void linea_gpu_emu_mbarrier_init(int64_t group, int64_t index,
                                              int64_t count) {
  MBarrier &barrier = mbarrierAt(group, index);
  std::lock_guard<std::mutex> lock(barrier.mutex);
  barrier.expected = count;
  barrier.arrived = 0;
  barrier.pendingBytes = 0;
}

/// `mbarrier.arrive.expect_tx`: `bytes` more to land in this phase, and an
/// arrival.
LINEA_EXPORT void linea_gpu_emu_mbarrier_arrive_expect_tx(int64_t group,
                                                          int64_t index,
                                                          int64_t bytes) {
  MBarrier &barrier = mbarrierAt(group, index);
  std::lock_guard<std::mutex> lock(barrier.mutex);
  if (barrier.expected <= 0)
    fail("an arrival on an mbarrier that was not initialized");
  barrier.pendingBytes += bytes;
  ++barrier.arrived;
  barrier.completeIfDone();
}

/// `mbarrier.try_wait.parity` in a loop: returns once the phase of parity
/// `parity` has completed (the count of completed phases has the other
/// parity).
LINEA_EXPORT void linea_gpu_emu_mbarrier_wait_parity(int64_t group,
                                                     int64_t index,
                                                     int64_t parity) {
  MBarrier &barrier = mbarrierAt(group, index);
  barrier.phase.waitUntil(
      [parity](uint32_t completed) { return (completed & 1) != (parity & 1); });
}

/// `cp.async.bulk.tensor...mbarrier::complete_tx::bytes` (a TMA load),
/// done at once: the box of `map` at `coordinates` (innermost first, its
/// rank of them) into shared memory at `destination`, elements outside the
/// tensor zero, in the box's row-major order with the 128-byte swizzle
/// applied to the shared addresses (16-byte chunk bits 4-6 XOR row bits
/// 7-9); then its bytes land on the mbarrier.
LINEA_EXPORT void linea_gpu_emu_tma_load(int64_t map, int64_t destination,
                                         int64_t group, int64_t index,
                                         int64_t coordinates) {
  if (!map)
    fail("a TMA load through a tensor map the runtime could not make");
  const TensorMap &tensorMap = *reinterpret_cast<const TensorMap *>(map);
  const linea::runtime::TiledTensor &tensor = tensorMap.tensor;
  const auto *at = reinterpret_cast<const int64_t *>(coordinates);
  int64_t elementBytes = tensor.elementBytes;
  if (tensorMap.swizzle != 0 &&
      (tensorMap.swizzle != 3 || tensor.box[0] * elementBytes > 128 ||
       destination % 1024))
    fail("only TMA boxes without swizzle, or with the 128-byte swizzle, "
         "rows of at most 128 bytes and a 1024-byte aligned destination, "
         "are emulated");
  int64_t elements = 1;
  for (int64_t d = 0; d < tensor.rank; ++d)
    elements *= tensor.box[d];
  for (int64_t e = 0; e < elements; ++e) {
    intptr_t source = reinterpret_cast<intptr_t>(tensor.address);
    bool inside = true;
    for (int64_t d = 0, rest = e; d < tensor.rank; ++d) {
      int64_t position = at[d] + rest % tensor.box[d];
      rest /= tensor.box[d];
      inside &= position >= 0 && position < int64_t(tensor.dims[d]);
      source += position * int64_t(tensor.strides[d]);
    }
    uintptr_t target = uintptr_t(destination) + uintptr_t(e * elementBytes);
    if (tensorMap.swizzle)
      target ^= ((target >> 7) & 7) << 4;
    if (inside)
      std::memcpy(reinterpret_cast<void *>(target),
                  reinterpret_cast<const void *>(source), elementBytes);
    else
      std::memset(reinterpret_cast<void *>(target), 0, elementBytes);
  }
  MBarrier &barrier = mbarrierAt(group, index);
  std::lock_guard<std::mutex> lock(barrier.mutex);
  barrier.pendingBytes -= elements * elementBytes;
  barrier.completeIfDone();
}
