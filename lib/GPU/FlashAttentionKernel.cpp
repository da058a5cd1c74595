//===- FlashAttentionKernel.cpp - flash attention as GPU blocks ---------===//
//
// linea-flash-attention's calls, once the program is on buffers, as
// FlashAttention-2's forward (Dao, 2023): a block of 8 warps takes one
// sequence's 128 query rows, 16 per warp, and walks the 64-key tiles those
// rows see. The block stages each tile's keys and values in shared memory
// (by cp.async where the operands are stored in the tensor-core type on
// aligned lines: a tile's values land while the warps multiply by its
// keys, the next tile's keys while they multiply by its values; f32
// operands by 16-byte loads, rounded on the way); each warp
// multiplies its rows by the keys on mma.sync (m16n8k16, f32
// accumulators), keeps its rows' running max and sum in registers (the
// four lanes holding a row meet by shuffles), and hands its probabilities,
// rounded to the operand type, to P V straight from the accumulator
// registers: two adjacent m16n8 accumulator tiles are, register for
// register, one m16n8k16 A fragment. Only the staged tiles go through
// shared memory; only the output leaves the block.
//
//===----------------------------------------------------------------------===//

#include "linea/GPU/Passes.h"

#include "FlashAttention.h"
#include "Fragments.h"
#include "GPUMapping.h"
#include "StoredTypes.h"

#include "linea/Utils/KernelNames.h"
#include "linea/Utils/SequenceBlocks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

namespace mlir::linea {
#define GEN_PASS_DEF_LINEAEXPANDFLASHATTENTION
#include "linea/GPU/Passes.h.inc"
} // namespace mlir::linea

using namespace mlir;
using namespace mlir::linea::flash;

namespace {

// m16n8k16: an accumulator tile is 8 columns, a step 16 deep.
using linea::mma::kTileK;
using linea::mma::kTileN;
/// 16-bit elements in one cp.async line (16 bytes).
constexpr int64_t kLine = 8;
// Each staged row is padded by one line (ldmatrix's rows in distinct banks).
using linea::kRowPad;
constexpr float kLog2E = 1.44269504088896340736f;
constexpr float kInfinity = std::numeric_limits<float>::infinity();

/// One call's kernel: what it computes and with what (`offsets`: the
/// segments of packed sequences, else null).
struct Kernel {
  Value q, k, v, offsets, out;
  bool causal = false;
  float scale = 1.0f;
  Type operandType;
};

/// Whether the kernel stages 16-bit operands by cp.async: where each of
/// its tiles (128 query rows, 64 key and value rows) is whole rounds of
/// the block's 256 threads, a 16-byte line each (heads of 32, 64, 96,
/// 128), so that every thread's copies are one group per tile. Heads of
/// 16, 48, 80 and 112 are staged by 16-byte loads instead.
bool asyncStaging(const Kernel &kernel) {
  for (Value x : {kernel.k, kernel.v})
    if (kKeyRows * cast<MemRefType>(x.getType()).getShape().back() / kLine %
        kThreads)
      return false;
  return true;
}

/// One thread's program in a flash block: see the file comment. Built
/// twice where the operands may be staged a line at a time (`aligned`),
/// once element by element, for operands a run-time check finds
/// unaligned.
class FlashThread : public linea::mma::WarpOps {
public:
  FlashThread(OpBuilder &b, Location loc, const Kernel &kernel)
      : WarpOps(b, loc, kernel.operandType), kernel(kernel) {}

  /// One block's part: its shared tiles (workgroup views), its sequence,
  /// the row its rows count from in the buffers (a packed segment's first;
  /// null: 0; the thread addresses views from there), its first query
  /// row, the rows and keys there are, the key its rows see up to
  /// (exclusive), and the causal offset Lk - Lq.
  struct Block {
    Value qShared, kShared, vShared;
    SmallVector<Value> sequence;
    Value rowBase, firstRow, queryRows, keyRows, keyEnd, keyOffset;
  };

  /// Thread `thread`'s program: the block's queries and first keys
  /// staged, the loop over the key tiles its rows see (keyTile), the rows
  /// stored (storeRows).
  void build(const Block &block, Value thread, bool aligned) {
    blk = &block;
    this->aligned = aligned;
    lane = rem(thread, kWarp);
    warpRow = mul(div(thread, kWarp), kRowsPerWarp);
    group = div(lane, 4);
    pair = rem(lane, 4);
    int64_t depth = headSize(kernel.q), columns = headSize(kernel.v);

    stage(kernel.q, block.qShared, block.firstRow, block.queryRows, kQueryRows,
          depth, thread);
    Value firstKeys = stage(kernel.k, block.kShared, cst(0), block.keyRows,
                            kKeyRows, depth, thread);

    Running start;
    start.max = {f32(-kInfinity), f32(-kInfinity)};
    start.sum = {f32(0), f32(0)};
    start.acc.assign(columns / kTileN * 4, f32(0));
    Value tiles =
        arith::CeilDivUIOp::create(b, loc, block.keyEnd, cst(kKeyRows));
    auto loop = scf::ForOp::create(
        b, loc, cst(0), tiles, cst(1), start.values(),
        [&](OpBuilder &, Location, Value tile, ValueRange carried) {
          scf::YieldOp::create(b, loc,
                               keyTile(mul(tile, kKeyRows),
                                       Running::of(carried), thread, depth,
                                       columns)
                                   .values());
        });
    // Nothing may stay in flight past the block (the last tile staged
    // keys nobody reads).
    if (firstKeys)
      nvgpu::DeviceAsyncWaitOp::create(b, loc, firstKeys,
                                       b.getI32IntegerAttr(0));
    storeRows(Running::of(loop.getResults()), columns);
  }

private:
  /// Per lane: its two rows' (group, group + 8) running max and partial
  /// sum (over the lane's own columns; the row's lanes add theirs at the
  /// end), and its accumulators, four per 8-column tile.
  struct Running {
    SmallVector<Value> max, sum, acc;
    SmallVector<Value> values() const {
      SmallVector<Value> all(max);
      all.append(sum);
      all.append(acc);
      return all;
    }
    static Running of(ValueRange values) {
      Running r;
      r.max = {values[0], values[1]};
      r.sum = {values[2], values[3]};
      r.acc.assign(values.begin() + 4, values.end());
      return r;
    }
  };

  Value f32(float v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  Value lessThan(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y);
  }
  static int64_t headSize(Value buffer) {
    return cast<MemRefType>(buffer.getType()).getShape().back();
  }
  SmallVector<Value> at(Value row, Value col) {
    SmallVector<Value> indices(blk->sequence);
    indices.append({row, col});
    return indices;
  }

  /// Rows [first, first + rows) of `source` (`depth` features) into
  /// `shared`, rows from `limit` on as zeros; each thread copies lines
  /// thread, thread + 256, ... (a last round that does not fill the
  /// threads by those that have a line). Where the operands start on
  /// 16-byte lines (`aligned`), a source of the operand type by cp.async
  /// where every tile the kernel stages is whole rounds (returned: the
  /// group of this thread's copies), else by 16-byte loads, an f32 one
  /// rounded, each stored 16 bytes at a time; otherwise element by
  /// element.
  Value stage(Value source, Value shared, Value first, Value limit,
              int64_t rows, int64_t depth, Value thread) {
    int64_t lineCount = rows * depth / kLine, perRow = depth / kLine;
    Type stored = cast<MemRefType>(source.getType()).getElementType();
    bool lines = aligned && asyncStaging(kernel) && stored == operandType;
    bool wide = aligned && !lines;
    Value lastRow = arith::MaxSIOp::create(b, loc, add(limit, -1), cst(0));
    SmallVector<Value> copies;
    for (int64_t k = 0; k * kThreads < lineCount; ++k) {
      OpBuilder::InsertionGuard guard(b);
      Value line = add(thread, k * kThreads);
      if ((k + 1) * kThreads > lineCount) {
        // (Never with cp.async: asyncStaging.)
        auto some = scf::IfOp::create(b, loc, lessThan(line, cst(lineCount)),
                                      /*withElseRegion=*/false);
        b.setInsertionPoint(some.thenBlock()->getTerminator());
      }
      Value r = div(line, perRow), c = mul(rem(line, perRow), kLine);
      Value row = add(first, r);
      Value inside = lessThan(row, limit);
      // A line past the limit reads no byte, from a row that exists.
      Value clamped = arith::MinSIOp::create(b, loc, row, lastRow);
      if (lines) {
        Value elements =
            arith::SelectOp::create(b, loc, inside, cst(kLine), cst(0));
        copies.push_back(nvgpu::DeviceAsyncCopyOp::create(
            b, loc, shared, ValueRange{r, c}, source, at(clamped, c),
            b.getIndexAttr(kLine), elements, b.getUnitAttr()));
      } else if (wide) {
        stageWideLine(source, shared, inside, at(clamped, c), {r, c});
      } else {
        stageElements(source, shared, inside, clamped, r, c);
      }
    }
    if (!lines)
      return {};
    return nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, copies);
  }

  /// One line of 8 elements (one 16-byte load of the operand type, two
  /// of f32; zeros where not `inside`), rounded to the operand type and
  /// stored as one 16-byte line.
  void stageWideLine(Value source, Value shared, Value inside, ValueRange from,
                     ValueRange to) {
    auto wideType = VectorType::get(
        {kLine}, cast<MemRefType>(source.getType()).getElementType());
    auto load = scf::IfOp::create(
        b, loc, inside,
        [&](OpBuilder &, Location) {
          scf::YieldOp::create(b, loc,
                               vector::LoadOp::create(
                                   b, loc, wideType, source, from,
                                   /*nontemporal=*/false, llvm::MaybeAlign(16))
                                   .getResult());
        },
        [&](OpBuilder &, Location) {
          scf::YieldOp::create(
              b, loc,
              arith::ConstantOp::create(b, loc, b.getZeroAttr(wideType))
                  .getResult());
        });
    Value narrow = load.getResult(0);
    auto narrowType = VectorType::get({kLine}, operandType);
    if (wideType != narrowType)
      narrow = arith::TruncFOp::create(b, loc, narrowType, narrow);
    vector::StoreOp::create(b, loc, narrow, shared, to, /*nontemporal=*/false,
                            llvm::MaybeAlign(16));
  }

  /// One line element by element, each converted (zeros where not
  /// `inside`).
  void stageElements(Value source, Value shared, Value inside, Value row,
                     Value r, Value c) {
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(operandType));
    for (int64_t e = 0; e < kLine; ++e) {
      Value col = add(c, e);
      auto load = scf::IfOp::create(
          b, loc, inside,
          [&](OpBuilder &, Location) {
            Value x = memref::LoadOp::create(b, loc, source, at(row, col));
            scf::YieldOp::create(b, loc, toOperandType(x));
          },
          [&](OpBuilder &, Location) { scf::YieldOp::create(b, loc, zero); });
      memref::StoreOp::create(b, loc, load.getResult(0), shared,
                              ValueRange{r, col});
    }
  }

  /// Waits for this thread's groups but the newest (`newest`, null: none
  /// in flight), then for the block.
  void waitForOlderGroups(Value newest) {
    if (newest)
      nvgpu::DeviceAsyncWaitOp::create(b, loc, newest, b.getI32IntegerAttr(1));
    gpu::BarrierOp::create(b, loc);
  }

  /// One key tile from `firstKey`: the scores of the warp's rows, the
  /// online softmax's update, P V into the accumulators.
  Running keyTile(Value firstKey, const Running &before, Value thread,
                  int64_t depth, int64_t columns) {
    Value values = stage(kernel.v, blk->vShared, firstKey, blk->keyRows,
                         kKeyRows, columns, thread);
    waitForOlderGroups(values); // the keys (and queries) have landed
    SmallVector<Value> scores = maskedScores(firstKey, depth);
    Running after = softmaxUpdate(before, scores);
    gpu::BarrierOp::create(b, loc); // every warp is done with the keys
    Value nextKeys = stage(kernel.k, blk->kShared, add(firstKey, kKeyRows),
                           blk->keyRows, kKeyRows, depth, thread);
    waitForOlderGroups(nextKeys); // the values have landed
    after.acc = multiplyValues(scores, after.acc, columns);
    gpu::BarrierOp::create(b, loc); // every warp is done with the values
    return after;
  }

  /// The warp's 16 x 64 scores, scaled into the log2 domain, -inf where a
  /// key is past the end or (causal) after the row's last key: per 8-key
  /// tile n, elements 4n .. 4n + 3 as the accumulator holds them. Only a
  /// tile that has such keys for some row of the warp (the last one, the
  /// diagonal) is masked.
  SmallVector<Value> maskedScores(Value firstKey, int64_t depth) {
    SmallVector<SmallVector<Value>> acc(kKeyRows / kTileN,
                                        SmallVector<Value>(4, f32(0)));
    for (int64_t k = 0; k < depth; k += kTileK) {
      SmallVector<Value> a = queryFragment(k);
      for (int64_t n = 0; n < kKeyRows / kTileN; n += 2) {
        SmallVector<Value> keys = keyFragments(n * kTileN, k);
        acc[n] = mma(a, ArrayRef<Value>(keys).take_front(2), acc[n]);
        acc[n + 1] = mma(a, ArrayRef<Value>(keys).drop_front(2), acc[n + 1]);
      }
    }
    SmallVector<Value> scores;
    for (ArrayRef<Value> tile : acc)
      for (Value score : tile)
        scores.push_back(
            arith::MulFOp::create(b, loc, score, f32(kernel.scale * kLog2E)));
    Value lastKey = add(firstKey, kKeyRows - 1);
    Value whole = lessThan(lastKey, blk->keyRows);
    if (kernel.causal) {
      // The warp's first row sees every key of the tile.
      Value firstRow = add(blk->firstRow, warpRow);
      whole = arith::AndIOp::create(
          b, loc, whole,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, lastKey,
                                add(firstRow, blk->keyOffset)));
    }
    SmallVector<Type> types(scores.size(), b.getF32Type());
    auto masking = scf::IfOp::create(b, loc, types, whole, /*withElse=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(masking.thenBlock());
    scf::YieldOp::create(b, loc, scores);
    b.setInsertionPointToStart(masking.elseBlock());
    for (int64_t n = 0; n < kKeyRows / kTileN; ++n)
      for (int64_t e = 0; e < 4; ++e) {
        Value key = add(add(firstKey, mul(pair, 2)), n * kTileN + e % 2);
        Value visible = lessThan(key, blk->keyRows);
        if (kernel.causal) {
          Value row =
              add(add(blk->firstRow, add(warpRow, group)), e >= 2 ? 8 : 0);
          visible = arith::AndIOp::create(
              b, loc, visible,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, key,
                                    add(row, blk->keyOffset)));
        }
        Value &score = scores[4 * n + e];
        score =
            arith::SelectOp::create(b, loc, visible, score, f32(-kInfinity));
      }
    scf::YieldOp::create(b, loc, scores);
    return SmallVector<Value>(masking.getResults());
  }

  /// The online softmax over one tile for the lane's two rows: the new
  /// max (the row's four lanes exchange theirs), the probabilities in
  /// place of `scores`, the sums and accumulators rescaled.
  Running softmaxUpdate(const Running &before, SmallVector<Value> &scores) {
    Running after = before;
    for (int64_t half = 0; half < 2; ++half) {
      Value tileMax = f32(-kInfinity);
      for (int64_t n = 0; n < kKeyRows / kTileN; ++n)
        for (int64_t e = 2 * half; e < 2 * half + 2; ++e)
          tileMax =
              arith::MaximumFOp::create(b, loc, tileMax, scores[4 * n + e]);
      tileMax = acrossRow(tileMax, /*sum=*/false);
      Value max = arith::MaximumFOp::create(b, loc, before.max[half], tileMax);
      // No key yet (max -inf): shift by 0, so exp2(-inf - 0) is 0.
      Value none = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, max,
                                         f32(-kInfinity));
      Value shift = arith::SelectOp::create(b, loc, none, f32(0), max);
      Value rescale = exp2(before.max[half], shift);
      Value sum = arith::MulFOp::create(b, loc, before.sum[half], rescale);
      for (int64_t n = 0; n < kKeyRows / kTileN; ++n)
        for (int64_t e = 2 * half; e < 2 * half + 2; ++e) {
          Value &p = scores[4 * n + e];
          p = exp2(p, shift);
          sum = arith::AddFOp::create(b, loc, sum, p);
        }
      for (int64_t j = 0; j < int64_t(after.acc.size()) / 4; ++j)
        for (int64_t e = 2 * half; e < 2 * half + 2; ++e)
          after.acc[4 * j + e] =
              arith::MulFOp::create(b, loc, before.acc[4 * j + e], rescale);
      after.max[half] = max;
      after.sum[half] = sum;
    }
    return after;
  }

  Value exp2(Value x, Value shift) {
    return math::Exp2Op::create(b, loc,
                                arith::SubFOp::create(b, loc, x, shift));
  }

  /// `value` combined over the four lanes of its row (xor 1, then 2).
  Value acrossRow(Value value, bool sum) {
    for (int32_t offset : {1, 2}) {
      Value other = gpu::ShuffleOp::create(b, loc, value, offset, kWarp,
                                           gpu::ShuffleMode::XOR)
                        .getShuffleResult();
      value = sum ? arith::AddFOp::create(b, loc, value, other).getResult()
                  : arith::MaximumFOp::create(b, loc, value, other).getResult();
    }
    return value;
  }

  /// acc += P V: the probabilities of key tiles 2s and 2s + 1 are the A
  /// fragment of step s (rows g, g + 8; keys 2q.., 2q + 8..).
  SmallVector<Value> multiplyValues(ArrayRef<Value> probabilities,
                                    SmallVector<Value> acc, int64_t columns) {
    for (int64_t s = 0; s < kKeyRows / kTileK; ++s) {
      ArrayRef<Value> low = probabilities.slice(8 * s, 4),
                      high = probabilities.slice(8 * s + 4, 4);
      SmallVector<Value> a{packed(low[0], low[1]), packed(low[2], low[3]),
                           packed(high[0], high[1]), packed(high[2], high[3])};
      for (int64_t j = 0; j < columns / kTileN; j += 2) {
        SmallVector<Value> values = valueFragments(s * kTileK, j * kTileN);
        for (int64_t half = 0; half < 2; ++half) {
          auto c = MutableArrayRef<Value>(acc).slice(4 * (j + half), 4);
          SmallVector<Value> d =
              mma(a, ArrayRef<Value>(values).slice(2 * half, 2), c);
          std::copy(d.begin(), d.end(), c.begin());
        }
      }
    }
    return acc;
  }

  /// The 16 x 16 A fragment of the warp's query rows at depth `k` by one
  /// ldmatrix.x4 (lane l addresses a row of matrix l / 8: rows +0/+8,
  /// then depth +0/+8).
  SmallVector<Value> queryFragment(int64_t k) {
    Value matrix = div(lane, 8), line = rem(lane, 8);
    Value row = add(add(warpRow, mul(rem(matrix, 2), 8)), line);
    Value col = add(mul(div(matrix, 2), 8), k);
    return ldmatrixAt(blk->qShared, {row, col}, 4, /*transpose=*/false);
  }

  /// The 16 x 8 B fragments of keys `key` .. + 7 and `key + 8` .. + 15 at
  /// depth `k` by one ldmatrix.x4 (K stored [key][depth]: lane l addresses
  /// key (l / 16) * 8 + l % 8, depth + ((l / 8) % 2) * 8).
  SmallVector<Value> keyFragments(int64_t key, int64_t k) {
    Value row = add(add(mul(div(lane, 16), 8), rem(lane, 8)), key);
    Value col = add(mul(rem(div(lane, 8), 2), 8), k);
    return ldmatrixAt(blk->kShared, {row, col}, 4, /*transpose=*/false);
  }

  /// The 16 x 8 B fragments of keys `key` .. + 15, value columns `col` ..
  /// + 7 and `col + 8` .. + 15 by one ldmatrix.x4 (V stored [key][column]:
  /// .trans; lane l addresses key l % 16, column (l / 16) * 8).
  SmallVector<Value> valueFragments(int64_t key, int64_t col) {
    return ldmatrixAt(
        blk->vShared,
        {add(rem(lane, 16), key), add(mul(div(lane, 16), 8), col)}, 4,
        /*transpose=*/true);
  }

  /// Two f32 values as one operand register, the first in the low half.
  Value packed(Value low, Value high) {
    Value pair = vector::FromElementsOp::create(
        b, loc, VectorType::get({2}, operandType),
        ValueRange{arith::TruncFOp::create(b, loc, operandType, low),
                   arith::TruncFOp::create(b, loc, operandType, high)});
    return operandRegister(pair);
  }

  /// o = acc / l per row (0 for a row that saw no key), the rows that
  /// exist stored in the output's type.
  void storeRows(const Running &done, int64_t columns) {
    Type element = cast<MemRefType>(kernel.out.getType()).getElementType();
    for (int64_t half = 0; half < 2; ++half) {
      Value sum = acrossRow(done.sum[half], /*sum=*/true);
      Value seen =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, sum, f32(0));
      Value inverse = arith::SelectOp::create(
          b, loc, seen, arith::DivFOp::create(b, loc, f32(1), sum), f32(0));
      Value row = add(add(blk->firstRow, add(warpRow, group)), half ? 8 : 0);
      auto exists = scf::IfOp::create(b, loc, lessThan(row, blk->queryRows),
                                      /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(exists.thenBlock()->getTerminator());
      // The lane's two adjacent columns as one store (an even column of
      // rows of whole lines in a buffer of Linea's own: aligned to it).
      auto pairType = VectorType::get({2}, element);
      unsigned pairBytes = 2 * element.getIntOrFloatBitWidth() / 8;
      for (int64_t j = 0; j < columns / kTileN; ++j) {
        SmallVector<Value> outputs;
        for (int64_t e = 2 * half; e < 2 * half + 2; ++e) {
          Value o = arith::MulFOp::create(b, loc, done.acc[4 * j + e], inverse);
          if (element != o.getType())
            o = arith::TruncFOp::create(b, loc, element, o);
          outputs.push_back(o);
        }
        Value col = add(mul(pair, 2), j * kTileN);
        vector::StoreOp::create(
            b, loc, vector::FromElementsOp::create(b, loc, pairType, outputs),
            kernel.out, at(row, col), /*nontemporal=*/false,
            llvm::MaybeAlign(pairBytes));
      }
    }
  }

  const Kernel &kernel;
  const Block *blk = nullptr;
  bool aligned = false;
  Value lane, warpRow, group, pair;
};

/// Whether the operands, where they start on 16-byte lines, are staged
/// a line at a time: stored in the operand type or in f32. Their rows are
/// whole lines (head sizes of 16).
bool stagedInLines(const Kernel &kernel) {
  return llvm::all_of(ValueRange{kernel.q, kernel.k, kernel.v}, [&](Value x) {
    Type stored = cast<MemRefType>(x.getType()).getElementType();
    return stored == kernel.operandType || stored.isF32();
  });
}

/// A `rows` x `depth` tile of the block's shared memory, rows padded by
/// a line, seen in the workgroup address space (what ldmatrix and
/// cp.async address).
Value sharedTile(OpBuilder &b, Location loc, int64_t rows, int64_t depth,
                 Type type) {
  Value alloc = memref::AllocOp::create(
      b, loc, MemRefType::get({rows, depth + kRowPad}, type));
  return linea::workgroupView(b, loc, alloc);
}

/// `buffer` seen with a layout of innermost stride 1 (its sizes, offset
/// and other strides as they are at run time), where its type does not
/// say so already: for a view whose stride was checked at run time. (A
/// memref.cast would fold into the loads, back to the type without.)
Value withUnitInnerStride(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.isLastDimUnitStride())
    return buffer;
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
  SmallVector<OpFoldResult> strides =
      getAsOpFoldResult(ValueRange(metadata.getStrides()));
  strides.back() = b.getIndexAttr(1);
  return memref::ReinterpretCastOp::create(
      b, loc, buffer, getAsOpFoldResult(metadata.getOffset()),
      memref::getMixedSizes(b, loc, buffer), strides);
}

/// `buffer`'s rows from `first` on (along the dim before the last).
Value rowsFrom(OpBuilder &b, Location loc, Value buffer, Value first) {
  auto type = cast<MemRefType>(buffer.getType());
  int64_t rowDim = type.getRank() - 2;
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = memref::getMixedSizes(b, loc, buffer);
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  offsets[rowDim] = first;
  sizes[rowDim] =
      arith::SubIOp::create(
          b, loc, memref::DimOp::create(b, loc, buffer, rowDim), first)
          .getResult();
  return memref::SubViewOp::create(b, loc, buffer, offsets, sizes, strides);
}

/// Where the block's rows are: query tile `tile` of the sequence, rows
/// `[128 tile, 128 tile + 128)` of Lq, seeing Lk keys.
void sequenceTile(OpBuilder &b, Location loc, const Kernel &kernel,
                  FlashThread::Block &block, Value tile) {
  int64_t nb = cast<MemRefType>(kernel.q.getType()).getRank() - 2;
  block.queryRows = memref::DimOp::create(b, loc, kernel.q, nb);
  block.keyRows = memref::DimOp::create(b, loc, kernel.k, nb);
  block.keyOffset =
      arith::SubIOp::create(b, loc, block.keyRows, block.queryRows);
  block.firstRow = arith::MulIOp::create(
      b, loc, tile, arith::ConstantIndexOp::create(b, loc, kQueryRows));
}

/// Where the block's rows are in packed sequences: segment n's tiles are
/// numbered from start(n) = o_n / 128 + n, so that start is increasing
/// and leaves each segment at least the ceil((o_{n+1} - o_n) / 128) tiles
/// it has (and at most two more, blocks without rows); a block finds its
/// segment by binary search over start, reading log2(N) offsets. There
/// are start(N) = L / 128 + N tiles in all.
void segmentTile(OpBuilder &b, Location loc, const Kernel &kernel,
                 FlashThread::Block &block, Value tile) {
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  auto offset = [&](Value n) -> Value {
    Value o = memref::LoadOp::create(b, loc, kernel.offsets, n);
    if (o.getType().isIndex())
      return o;
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), o);
  };
  // start(n) from n and o_n.
  auto start = [&](Value n, Value first) -> Value {
    return arith::AddIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, first, index(kQueryRows)), n);
  };
  Value segments = arith::SubIOp::create(
      b, loc, memref::DimOp::create(b, loc, kernel.offsets, 0), index(1));
  // start(lo) <= tile < start(hi), start(N) being the number of tiles.
  Type indexType = b.getIndexType();
  auto search = scf::WhileOp::create(
      b, loc, TypeRange{indexType, indexType}, ValueRange{index(0), segments},
      [&](OpBuilder &, Location, ValueRange bounds) {
        Value apart = arith::SubIOp::create(b, loc, bounds[1], bounds[0]);
        Value open = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                           apart, index(1));
        scf::ConditionOp::create(b, loc, open, bounds);
      },
      [&](OpBuilder &, Location, ValueRange bounds) {
        Value mid = arith::DivUIOp::create(
            b, loc, arith::AddIOp::create(b, loc, bounds[0], bounds[1]),
            index(2));
        Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                            start(mid, offset(mid)), tile);
        scf::YieldOp::create(
            b, loc,
            ValueRange{arith::SelectOp::create(b, loc, below, mid, bounds[0]),
                       arith::SelectOp::create(b, loc, below, bounds[1], mid)});
      });
  Value n = search.getResult(0);
  Value first = offset(n);
  Value rows = arith::SubIOp::create(
      b, loc, offset(arith::AddIOp::create(b, loc, n, index(1))), first);
  block.firstRow = arith::MulIOp::create(
      b, loc, arith::SubIOp::create(b, loc, tile, start(n, first)),
      index(kQueryRows));
  // A tile past its segment's rows has none (nor keys to stage).
  Value some = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                     block.firstRow, rows);
  block.rowBase = arith::SelectOp::create(b, loc, some, first, index(0));
  block.queryRows = arith::SelectOp::create(b, loc, some, rows, index(0));
  block.keyRows = block.queryRows;
  block.keyOffset = index(0);
}

/// The body of the block at `ivs` (the sequence, then the tile of
/// `tiles`): where its rows are, its shared tiles, then its threads'
/// program, staging a line at a time where the operands start on 16-byte
/// lines.
void buildBlock(OpBuilder &b, Location loc, const Kernel &kernel,
                ValueRange ivs, Value tiles) {
  Type operandType = kernel.operandType;
  int64_t depth = cast<MemRefType>(kernel.q.getType()).getShape().back();
  int64_t columns = cast<MemRefType>(kernel.v.getType()).getShape().back();
  FlashThread::Block block;
  block.qShared = sharedTile(b, loc, kQueryRows, depth, operandType);
  block.kShared = sharedTile(b, loc, kKeyRows, depth, operandType);
  block.vShared = sharedTile(b, loc, kKeyRows, columns, operandType);
  ValueRange sequence = ivs.drop_back();
  block.sequence.assign(sequence.begin(), sequence.end());
  // Causal: the longest tiles (the last rows) first, so that the short
  // ones fill in behind them.
  Value tile = ivs.back();
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  if (kernel.causal)
    tile = arith::SubIOp::create(
        b, loc, arith::SubIOp::create(b, loc, tiles, one), tile);
  if (kernel.offsets)
    segmentTile(b, loc, kernel, block, tile);
  else
    sequenceTile(b, loc, kernel, block, tile);
  block.keyEnd = block.keyRows;
  if (kernel.causal) {
    // The tile's last row sees keys up to its index + (Lk - Lq).
    Value rowEnd = arith::MinSIOp::create(
        b, loc, block.queryRows,
        arith::AddIOp::create(
            b, loc, block.firstRow,
            arith::ConstantIndexOp::create(b, loc, kQueryRows)));
    Value seen = arith::AddIOp::create(b, loc, rowEnd, block.keyOffset);
    block.keyEnd = arith::MaxSIOp::create(
        b, loc, arith::ConstantIndexOp::create(b, loc, 0),
        arith::MinSIOp::create(b, loc, block.keyRows, seen));
  }

  SmallVector<Value> ids =
      linea::parallelLoop(b, loc, ArrayRef<int64_t>{kThreads},
                          ArrayRef<gpu::Processor>{gpu::Processor::ThreadX});
  Value thread = ids.front();
  // A packed block addresses its segment's rows from their first.
  Kernel rows = kernel;
  if (kernel.offsets)
    for (Value *x : {&rows.q, &rows.k, &rows.v, &rows.out})
      *x = rowsFrom(b, loc, *x, block.rowBase);
  FlashThread program(b, loc, rows);
  if (!stagedInLines(kernel)) {
    program.build(block, thread, /*aligned=*/false);
    return;
  }
  Value aligned = linea::rowsOnCopyLines(b, loc, rows.q);
  for (Value operand : {rows.k, rows.v})
    aligned = arith::AndIOp::create(b, loc, aligned,
                                    linea::rowsOnCopyLines(b, loc, operand));
  auto branch = scf::IfOp::create(b, loc, aligned, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(branch.thenBlock()->getTerminator());
  // Rows of unit stride there (what cp.async and vector loads take).
  Kernel lined = rows;
  for (Value *x : {&lined.q, &lined.k, &lined.v})
    *x = withUnitInnerStride(b, loc, *x);
  FlashThread(b, loc, lined).build(block, thread, /*aligned=*/true);
  b.setInsertionPoint(branch.elseBlock()->getTerminator());
  program.build(block, thread, /*aligned=*/false);
}

/// The blocks per SM the kernel is built for: two (ptxas's 128 registers
/// a thread) where a lane's accumulators are at most 32 (value heads up
/// to 64: 123-125 registers at heads of 32 and 64, 128 at query heads of
/// 128, no spill on sm_90a), else one (160-180 registers for value heads
/// of 96 and 128, which spill 130-150 bytes at two).
int64_t blocksPerSM(int64_t columns) { return columns <= 64 ? 2 : 1; }

/// The call's kernel, where its operands are ones the kernel takes: q,
/// k, v and out of one rank, head sizes the kernel takes (k's that of
/// q), and, for packed sequences, 1-D integer offsets.
FailureOr<Kernel> kernelOf(func::CallOp call) {
  auto attrs = call->getAttrOfType<DictionaryAttr>(kCallAttr);
  ValueRange operands = call.getOperands();
  Kernel kernel{operands[0],
                operands[1],
                operands[2],
                operands.size() == 5 ? operands[3] : Value(),
                operands.back(),
                cast<BoolAttr>(attrs.get("causal")).getValue(),
                float(cast<FloatAttr>(attrs.get("scale")).getValueAsDouble()),
                cast<TypeAttr>(attrs.get("operand_type")).getValue()};
  SmallVector<MemRefType> types;
  for (Value x : {kernel.q, kernel.k, kernel.v, kernel.out}) {
    auto type = dyn_cast<MemRefType>(x.getType());
    if (!type || type.getRank() < 2 ||
        type.getRank() != cast<ShapedType>(kernel.q.getType()).getRank() ||
        !type.isStrided())
      return call.emitError("flash attention takes q, k, v and out as "
                            "strided buffers [B..., L, D] of one rank, got ")
             << x.getType();
    types.push_back(type);
  }
  if (!types[3].isLastDimUnitStride())
    return call.emitError("flash attention writes heads of unit stride (its "
                          "lanes store pairs), got out ")
           << types[3];
  int64_t depth = types[0].getShape().back(),
          columns = types[2].getShape().back();
  if (!takesHeadSize(depth) || !takesHeadSize(columns) ||
      types[1].getShape().back() != depth ||
      types[3].getShape().back() != columns)
    return call.emitError("flash attention takes heads of 16, 32, ..., 128 "
                          "(k's as q's, out's as v's), got q ")
           << types[0] << ", k " << types[1] << ", v " << types[2] << ", out "
           << types[3];
  if (kernel.offsets) {
    auto offsets = dyn_cast<MemRefType>(kernel.offsets.getType());
    if (!offsets || offsets.getRank() != 1 ||
        !offsets.getElementType().isIntOrIndex())
      return call.emitError("flash attention's offsets are a 1-D buffer of "
                            "integers, got ")
             << kernel.offsets.getType();
  }
  return kernel;
}

/// The call as one GPU block per (sequence, 128 query rows), or for
/// packed sequences per (sequence, tile of a segment): each block's
/// shared tiles, then its threads' program.
LogicalResult expandCall(func::CallOp call) {
  FailureOr<Kernel> kernel = kernelOf(call);
  if (failed(kernel))
    return failure();
  OpBuilder b(call);
  Location loc = linea::withBlocksPerSM(
      call.getLoc(),
      blocksPerSM(cast<MemRefType>(kernel->v.getType()).getShape().back()));
  int64_t nb = cast<MemRefType>(kernel->q.getType()).getRank() - 2;
  Value rowTile = arith::ConstantIndexOp::create(b, loc, kQueryRows);
  Value queryRows = memref::DimOp::create(b, loc, kernel->q, nb);
  Value tiles = arith::CeilDivUIOp::create(b, loc, queryRows, rowTile);
  if (kernel->offsets) {
    // segmentTile's numbering: L / 128 + N.
    Value bounds = memref::DimOp::create(b, loc, kernel->offsets, 0);
    tiles = arith::AddIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, queryRows, rowTile),
        arith::SubIOp::create(b, loc, bounds,
                              arith::ConstantIndexOp::create(b, loc, 1)));
  }
  SmallVector<OpFoldResult> blocks;
  for (int64_t d = 0; d < nb; ++d)
    blocks.push_back(memref::getMixedSize(b, loc, kernel->q, d));
  blocks.push_back(tiles);
  auto forall =
      scf::ForallOp::create(b, loc, blocks, ValueRange{},
                            b.getArrayAttr(linea::sequenceBlockMapping(
                                b.getContext(), blocks.size())));
  b.setInsertionPoint(forall.getTerminator());
  buildBlock(b, loc, *kernel, forall.getInductionVars(), tiles);
  call.erase();
  return success();
}

struct LineaExpandFlashAttentionPass
    : linea::impl::LineaExpandFlashAttentionBase<
          LineaExpandFlashAttentionPass> {
  void runOnOperation() override {
    SmallVector<func::CallOp> calls;
    getOperation()->walk([&](func::CallOp call) {
      if (call->hasAttr(kCallAttr))
        calls.push_back(call);
    });
    for (func::CallOp call : calls)
      if (failed(expandCall(call)))
        return signalPassFailure();
    // The declarations stood for the kernels only.
    for (auto func : llvm::make_early_inc_range(
             getOperation().getBody()->getOps<func::FuncOp>()))
      if (func->hasAttr(kCallAttr) && func.isDeclaration())
        func.erase();
  }
};

} // namespace
