//===- LineaRuntimeChecks.cpp - verifier rules checked at run time --------===//
//
// Each op's RuntimeVerifiableOpInterface: the shape relations its verifier
// checks on static sizes, emitted as `linea.check`s where a size is dynamic
// (and the prefix range and the fold's segment multiple, which only a run
// can know), with the sizes in the message as the verifier would print them.
// A static relation needs no check: the verifier already holds.
//
//===----------------------------------------------------------------------===//

#include "linea/Dialect/LineaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::linea;

namespace {

/// One dim of a named operand or result.
struct NamedDim {
  StringRef name;
  Value value;
  int64_t dim;
  StringRef what;

  int64_t staticSize() const {
    return cast<RankedTensorType>(value.getType()).getDimSize(dim);
  }
};

/// `{` written as `{{`, so that text from elsewhere (a file name) is never
/// read as a reference to a value.
std::string escapeBraces(StringRef text) {
  std::string escaped;
  for (char c : text) {
    escaped += c;
    if (c == '{')
      escaped += '{';
  }
  return escaped;
}

} // namespace

std::string mlir::linea::describeCheckLocation(Location loc) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    return file.getFilename().str() + ":" + std::to_string(file.getLine()) +
           ":" + std::to_string(file.getColumn());
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

Value mlir::linea::segmentOffset(OpBuilder &b, Location loc, Value offsets,
                                 Value n) {
  Value value = tensor::ExtractOp::create(b, loc, offsets, n);
  if (value.getType().isIndex())
    return value;
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), value);
}

OpFoldResult mlir::linea::segmentCount(OpBuilder &b, Location loc,
                                       Value offsets) {
  OpFoldResult entries = tensor::getMixedSize(b, loc, offsets, 0);
  if (std::optional<int64_t> count = getConstantIntValue(entries))
    return b.getIndexAttr(*count - 1);
  return arith::SubIOp::create(b, loc, cast<Value>(entries),
                               arith::ConstantIndexOp::create(b, loc, 1))
      .getResult();
}

std::string mlir::linea::checkMessageAt(Location loc, StringRef text) {
  return escapeBraces(describeCheckLocation(loc)) + ": " + text.str();
}

std::string mlir::linea::runtimeCheckMessage(Operation *op, StringRef what) {
  return describeCheckLocation(op->getLoc()) + ": " +
         op->getName().getStringRef().str() + ": " + what.str();
}

/// A `linea.check` that `condition` holds, its message `prefix + text`.
static void checkHolds(OpBuilder &b, Location loc, StringRef prefix,
                       Value condition, const Twine &text, ValueRange values) {
  CheckOp::create(b, loc, condition, (prefix + text).str(), values);
}

/// The first n in [from, count) where `fails(n)`, else `count`: an
/// `scf.for` the message then reads its entry from.
static Value
firstFailing(OpBuilder &b, Location loc, Value from, Value count,
             function_ref<Value(OpBuilder &, Location, Value)> fails) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto scan = scf::ForOp::create(
      b, loc, from, count, one, ValueRange{count},
      [&](OpBuilder &nb, Location l, Value n, ValueRange found) {
        Value firstSoFar = arith::CmpIOp::create(
            nb, l, arith::CmpIPredicate::eq, found[0], count);
        Value take = arith::AndIOp::create(nb, l, fails(nb, l, n), firstSoFar);
        scf::YieldOp::create(
            nb, l,
            ValueRange{arith::SelectOp::create(nb, l, take, n, found[0])});
      });
  return scan.getResult(0);
}

void mlir::linea::checkSegmentOffsets(OpBuilder &b, Location loc,
                                      StringRef prefix, Value offsets,
                                      Value length, StringRef lengthName) {
  auto holds = [&](Value condition, const Twine &text, ValueRange values) {
    checkHolds(b, loc, prefix, condition, text, values);
  };
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value count = b.createOrFold<tensor::DimOp>(loc, offsets, 0);
  holds(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, count, one),
        "'offsets' has {0} entries, but N segments need N + 1 >= 1", {count});
  Value first = segmentOffset(b, loc, offsets, zero);
  holds(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, first, zero),
        "'offsets' start at {0}, not 0", {first});
  Value lastIndex = arith::SubIOp::create(b, loc, count, one);
  Value last = segmentOffset(b, loc, offsets, lastIndex);
  holds(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, last, length),
        "'offsets' end at {0}, but " + lengthName.str() + " is {1}",
        {last, length});
  // The first entry smaller than the one before it, else `count`.
  Value bad = firstFailing(
      b, loc, one, count, [&](OpBuilder &nb, Location l, Value n) -> Value {
        Value before =
            segmentOffset(nb, l, offsets, arith::SubIOp::create(nb, l, n, one));
        return arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt,
                                     segmentOffset(nb, l, offsets, n), before);
      });
  // The message's entries are read before the check (it formats them only
  // on failure): clamped so that they are in range when nothing decreased.
  Value at = arith::MinSIOp::create(b, loc, bad, lastIndex);
  Value previous = arith::MaxSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, at, one), zero);
  holds(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, bad, count),
        "'offsets' decrease at entry {0}: {1} after {2}",
        {bad, segmentOffset(b, loc, offsets, at),
         segmentOffset(b, loc, offsets, previous)});
}

void mlir::linea::checkSegmentPrefixLengths(OpBuilder &b, Location loc,
                                            StringRef prefix, Value lengths,
                                            Value offsets) {
  auto holds = [&](Value condition, const Twine &text, ValueRange values) {
    checkHolds(b, loc, prefix, condition, text, values);
  };
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value count = b.createOrFold<tensor::DimOp>(loc, lengths, 0);
  Value segments =
      getValueOrCreateConstantIndexOp(b, loc, segmentCount(b, loc, offsets));
  holds(
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, count, segments),
      "'prefix lengths' count {0} does not match the {1} segments of "
      "'offsets'",
      {count, segments});
  auto segmentSize = [&](OpBuilder &nb, Location l, Value n) -> Value {
    Value next = arith::AddIOp::create(nb, l, n, one);
    return arith::SubIOp::create(nb, l, segmentOffset(nb, l, offsets, next),
                                 segmentOffset(nb, l, offsets, n));
  };
  // The first segment whose length is out of range, else `count`.
  Value bad = firstFailing(
      b, loc, zero, count, [&](OpBuilder &nb, Location l, Value n) -> Value {
        Value j = segmentOffset(nb, l, lengths, n);
        return arith::OrIOp::create(
            nb, l,
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, j, zero),
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sgt, j,
                                  segmentSize(nb, l, n)));
      });
  // The message reads entry `at`, clamped in range when all held (and 0
  // segments have nothing to report: the check then holds).
  Value last = arith::MaxSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, count, one), zero);
  Value at = arith::MinSIOp::create(b, loc, bad, last);
  Value safe =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, bad, count);
  auto read = scf::IfOp::create(
      b, loc, safe,
      [&](OpBuilder &nb, Location l) {
        scf::YieldOp::create(nb, l, ValueRange{zero, zero});
      },
      [&](OpBuilder &nb, Location l) {
        scf::YieldOp::create(nb, l,
                             ValueRange{segmentOffset(nb, l, lengths, at),
                                        segmentSize(nb, l, at)});
      });
  holds(safe,
        "prefix length {1} of segment {0} is outside [0, {2}], the "
        "segment's length",
        {bad, read.getResult(0), read.getResult(1)});
}

namespace {

/// Emits the checks of one op, each with the op's one-line message and the
/// sizes it compares.
class RuntimeChecks {
public:
  RuntimeChecks(OpBuilder &b, Location loc, Operation *op,
                function_ref<std::string(Operation *, StringRef)> message)
      : b(b), loc(loc), op(op), prefix(escapeBraces(message(op, ""))) {}

  /// `a` and `ref` have equal sizes, worded as the verifier's message.
  void sameSize(const NamedDim &a, const NamedDim &ref) {
    equalSizes(a, ref,
               "'" + a.name.str() + "' " + a.what.str() +
                   " {0} does not match '" + ref.name.str() + "' " +
                   ref.what.str() + " {1}");
  }

  /// The leading `count` dims of `x` (after its first `lead`, a packed
  /// state's segment dim) match those of `ref`.
  void sameBatch(StringRef name, Value x, StringRef refName, Value ref,
                 int64_t count, int64_t lead = 0) {
    for (int64_t i = 0; i < count; ++i) {
      std::string what = "batch dim " + std::to_string(i);
      equalSizes({name, x, lead + i, what}, {refName, ref, i, what},
                 "'" + name.str() + "' " + what + " is {0} but '" +
                     refName.str() + "' " + what + " is {1}");
    }
  }

  /// `0 <= length <= L`.
  void prefixInRange(Value length, const NamedDim &seq) {
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value l = size(seq);
    Value nonNegative = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::sge, length, zero);
    Value notPast =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, length, l);
    holds(arith::AndIOp::create(b, loc, nonNegative, notPast),
          "prefix length {0} is outside [0, L] of '" + seq.name.str() +
              "' (L = {1})",
          {length, l});
  }

  /// A dynamic `x` dim equals `expected`.
  void equals(const NamedDim &x, int64_t expected, StringRef expectation) {
    if (!ShapedType::isDynamic(x.staticSize()))
      return;
    Value actual = size(x);
    Value want = arith::ConstantIndexOp::create(b, loc, expected);
    holds(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, actual,
                                want),
          "'" + x.name.str() + "' " + x.what.str() + " {0} does not match " +
              expectation.str() + " " + std::to_string(expected),
          {actual});
  }

  /// `L % segmentLength == 0` for a dynamic L.
  void multipleOf(const NamedDim &seq, int64_t segmentLength) {
    if (!ShapedType::isDynamic(seq.staticSize()))
      return;
    Value actual = size(seq);
    Value l = arith::ConstantIndexOp::create(b, loc, segmentLength);
    Value rest = arith::RemUIOp::create(b, loc, actual, l);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    holds(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rest, zero),
          "'" + seq.name.str() + "' " + seq.what.str() +
              " {0} is not a multiple of segment_length " +
              std::to_string(segmentLength),
          {actual});
  }

  /// Packed segments: checkSegmentOffsets against `seq`'s length.
  void segmentOffsets(Value offsets, const NamedDim &seq) {
    checkSegmentOffsets(b, loc, prefix, offsets, size(seq),
                        "'" + seq.name.str() + "' " + seq.what.str());
  }

  /// Packed prefix lengths: checkSegmentPrefixLengths.
  void prefixLengthsInSegments(Value lengths, Value offsets) {
    checkSegmentPrefixLengths(b, loc, prefix, lengths, offsets);
  }

  /// `x` has one entry per segment of `offsets` along `x.dim`.
  void onePerSegment(const NamedDim &x, Value offsets) {
    if (isResult(x) && ShapedType::isDynamic(x.staticSize()))
      return;
    Value segments =
        getValueOrCreateConstantIndexOp(b, loc, segmentCount(b, loc, offsets));
    Value actual = size(x);
    holds(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, actual,
                                segments),
          "'" + x.name.str() + "' " + x.what.str() +
              " {0} does not match the {1} segments of 'offsets'",
          {actual, segments});
  }

private:
  /// `a` and `ref` have equal sizes; `text` shows a's as {0}, ref's as {1}.
  /// A dynamic size of the op's own result follows its operands by
  /// construction and is not checked.
  void equalSizes(const NamedDim &a, const NamedDim &ref,
                  const std::string &text) {
    int64_t sizeA = a.staticSize(), sizeRef = ref.staticSize();
    if (!ShapedType::isDynamic(sizeA) && !ShapedType::isDynamic(sizeRef))
      return;
    if ((isResult(a) && ShapedType::isDynamic(sizeA)) ||
        (isResult(ref) && ShapedType::isDynamic(sizeRef)))
      return;
    Value actual = size(a), expected = size(ref);
    holds(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, actual,
                                expected),
          text, {actual, expected});
  }

  bool isResult(const NamedDim &x) const { return x.value.getDefiningOp() == op; }
  /// A result's size is its static one: the checks run before the op.
  Value size(const NamedDim &x) {
    if (isResult(x))
      return arith::ConstantIndexOp::create(b, loc, x.staticSize());
    return b.createOrFold<tensor::DimOp>(loc, x.value, x.dim);
  }
  void holds(Value condition, const std::string &text, ValueRange values) {
    CheckOp::create(b, loc, condition, prefix + text, values);
  }

  OpBuilder &b;
  Location loc;
  Operation *op;
  std::string prefix;
};

/// q, k, v, the gate, the states and the results of both linear-attention
/// ops; the prefix length when it is an operand.
void checkLinearAttention(LinearAttentionOpInterface op, RuntimeChecks &checks) {
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  int64_t rank = op.getQuery().getType().getRank();
  int64_t batch = rank - 2, seq = rank - 2;
  checks.sameBatch("key", k, "query", q, batch);
  checks.sameBatch("value", v, "query", q, batch);
  checks.sameSize({"key", k, seq, "sequence length"},
                  {"query", q, seq, "sequence length"});
  checks.sameSize({"value", v, seq, "sequence length"},
                  {"query", q, seq, "sequence length"});
  if (Value g = op.getGate()) {
    checks.sameBatch("gate", g, "query", q, batch);
    checks.sameSize({"gate", g, seq, "sequence length"},
                    {"query", q, seq, "sequence length"});
  }
  Value offsets = op.getOffsets();
  // A packed op's states lead with one entry per segment.
  int64_t lead = offsets ? 1 : 0;
  if (offsets)
    checks.segmentOffsets(offsets, {"query", q, seq, "sequence length"});
  if (Value init = op.getInitialState()) {
    checks.sameBatch("initial_state", init, "query", q, batch, lead);
    if (offsets)
      checks.onePerSegment({"initial_state", init, 0, "dim 0"}, offsets);
  }
  checks.sameBatch("output", op.getOutput(), "query", q, batch);
  checks.sameSize({"output", op.getOutput(), seq, "sequence length"},
                  {"query", q, seq, "sequence length"});
  if (Value fin = op.getFinalState()) {
    checks.sameBatch("final_state", fin, "query", q, batch, lead);
    if (offsets)
      checks.onePerSegment({"final_state", fin, 0, "dim 0"}, offsets);
  }
  Value length = op.getPrefixIndex();
  if (length && offsets) {
    checks.prefixLengthsInSegments(length, offsets);
  } else if (length) {
    checks.prefixInRange(length, {"query", q, seq, "sequence length"});
  }
}

/// x, the memory and the results of fold and folded_attention.
template <typename FoldLike>
void checkFold(FoldLike op, RuntimeChecks &checks) {
  Value x = op.getInput(), memory = op.getMemory();
  int64_t rank = op.getInput().getType().getRank();
  checks.sameBatch("memory", memory, "input", x, rank - 2);
  checks.multipleOf({"input", x, rank - 2, "sequence length"},
                    op.getSegmentLength());
  checks.equals({"memory", memory, rank - 2, "sequence length"},
                op.getSegmentLength(), "segment_length");
}

} // namespace

void PresumOp::generateRuntimeVerification(
    OpBuilder &b, Location loc,
    function_ref<std::string(Operation *, StringRef)> message) {
  // The result has the input's type: only a decay and the offsets can
  // disagree.
  RuntimeChecks checks(b, loc, *this, message);
  if (Value decay = getDecay()) {
    for (int64_t i = 0, e = getDecay().getType().getRank(); i < e; ++i) {
      std::string what = "dim " + std::to_string(i);
      checks.sameSize({"decay", decay, i, what},
                      {"input", getInput(), i, what});
    }
  }
  if (Value offsets = getOffsets())
    checks.segmentOffsets(offsets,
                          {"input", getInput(), getScanDim(), "scanned dim"});
}

void LinearAttentionOp::generateRuntimeVerification(
    OpBuilder &b, Location loc,
    function_ref<std::string(Operation *, StringRef)> message) {
  RuntimeChecks checks(b, loc, *this, message);
  checkLinearAttention(*this, checks);
}

void GatedLinearAttentionOp::generateRuntimeVerification(
    OpBuilder &b, Location loc,
    function_ref<std::string(Operation *, StringRef)> message) {
  RuntimeChecks checks(b, loc, *this, message);
  checkLinearAttention(*this, checks);
}

void AttentionOp::generateRuntimeVerification(
    OpBuilder &b, Location loc,
    function_ref<std::string(Operation *, StringRef)> message) {
  RuntimeChecks checks(b, loc, *this, message);
  Value q = getQuery(), k = getKey(), v = getValue();
  int64_t rank = getQuery().getType().getRank();
  checks.sameBatch("key", k, "query", q, rank - 2);
  checks.sameBatch("value", v, "query", q, rank - 2);
  checks.sameSize({"value", v, rank - 2, "sequence length"},
                  {"key", k, rank - 2, "sequence length"});
  checks.sameBatch("output", getOutput(), "query", q, rank - 2);
  checks.sameSize({"output", getOutput(), rank - 2, "sequence length"},
                  {"query", q, rank - 2, "sequence length"});
  if (Value offsets = getOffsets()) {
    checks.sameSize({"key", k, rank - 2, "sequence length"},
                    {"query", q, rank - 2, "sequence length"});
    checks.segmentOffsets(offsets, {"query", q, rank - 2, "sequence length"});
  }
}

void FoldOp::generateRuntimeVerification(
    OpBuilder &b, Location loc,
    function_ref<std::string(Operation *, StringRef)> message) {
  RuntimeChecks checks(b, loc, *this, message);
  checkFold(*this, checks);
}

void FoldedAttentionOp::generateRuntimeVerification(
    OpBuilder &b, Location loc,
    function_ref<std::string(Operation *, StringRef)> message) {
  RuntimeChecks checks(b, loc, *this, message);
  checkFold(*this, checks);
}

//===----------------------------------------------------------------------===//
// linea.check
//===----------------------------------------------------------------------===//

CheckOp::Pieces CheckOp::splitMessage() {
  Pieces pieces;
  pieces.text.emplace_back();
  StringRef rest = getMessage();
  while (!rest.empty()) {
    size_t open = rest.find('{');
    pieces.text.back() += rest.take_front(open).str();
    if (open == StringRef::npos)
      break;
    rest = rest.drop_front(open + 1);
    // `{{` is one brace; `{N}` is the N-th value; any other `{` is itself.
    if (rest.consume_front("{")) {
      pieces.text.back() += '{';
      continue;
    }
    size_t close = rest.find('}');
    unsigned index;
    if (close == StringRef::npos ||
        rest.take_front(close).getAsInteger(10, index)) {
      pieces.text.back() += '{';
      continue;
    }
    pieces.refs.push_back(index);
    pieces.text.emplace_back();
    rest = rest.drop_front(close + 1);
  }
  return pieces;
}

LogicalResult CheckOp::verify() {
  Pieces pieces = splitMessage();
  llvm::SmallBitVector used(getValues().size());
  for (unsigned ref : pieces.refs) {
    if (ref >= getValues().size())
      return emitOpError() << "message refers to value {" << ref
                           << "}, but the check has " << getValues().size()
                           << " values";
    used.set(ref);
  }
  if (!used.all())
    return emitOpError() << "value " << used.find_first_unset()
                         << " is not shown in the message";
  return success();
}

LogicalResult CheckOp::canonicalize(CheckOp op, PatternRewriter &rewriter) {
  if (!matchPattern(op.getCondition(), m_One()))
    return failure();
  rewriter.eraseOp(op);
  return success();
}
