//===- IndexPredicateNode.h - the tree of an index predicate ----*- C++ -*-===//
//
// What IndexPredicate.cpp (the decision) and IndexPredicateBuilder.cpp (the
// predicate of an element expression) share: the node of a predicate and the
// constructors that fold constants as they combine nodes. Private to the two.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_LIB_RAISE_INDEXPREDICATENODE_H
#define LINEA_LIB_RAISE_INDEXPREDICATENODE_H

#include "IndexPredicate.h"

#include <memory>
#include <vector>

namespace mlir::linea {

/// A boolean combination of atoms `ai * i + at * t + c <pred> 0`, and of
/// tables: a mask read from constant tensors, tabulated over its
/// `rows x cols` and decided there only.
struct IndexPredicate::Node {
  enum class Kind {
    constant, atom, table, negation, conjunction, disjunction, parity
  };
  enum class Pred { eq, ne, lt, le, gt, ge };
  Kind kind;
  bool value = false;
  int64_t ai = 0, at = 0, c = 0;
  Pred pred = Pred::eq;
  int64_t rows = 0, cols = 0;
  std::shared_ptr<const std::vector<bool>> bits; // row-major
  std::shared_ptr<const Node> lhs, rhs;
};

namespace index_predicate {

using Node = IndexPredicate::Node;
using NodePtr = std::shared_ptr<const Node>;

NodePtr constant(bool v);
NodePtr atom(int64_t ai, int64_t at, int64_t c, Node::Pred pred);
/// `kind` of `lhs` (and `rhs`), constants folded away.
NodePtr combine(Node::Kind kind, NodePtr lhs, NodePtr rhs = nullptr);

} // namespace index_predicate
} // namespace mlir::linea

#endif // LINEA_LIB_RAISE_INDEXPREDICATENODE_H
