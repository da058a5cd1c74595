// RUN: linea-opt %s --linea-checks-to-asserts | FileCheck %s

// A check becomes cf.assert on the same condition; the values it would
// print are `?` in the constant message, the rest of the message stays.
// CHECK-LABEL: func.func @lengths
// CHECK-SAME: (%[[A:.+]]: index, %[[B:.+]]: index)
// CHECK: %[[SAME:.+]] = arith.cmpi eq, %[[A]], %[[B]]
// CHECK: cf.assert %[[SAME]], "f.py:3:4: linea.linear_attention: 'key' sequence length ? does not match 'query' sequence length ?"
// CHECK-NOT: linea.check
func.func @lengths(%a: index, %b: index) {
  %same = arith.cmpi eq, %a, %b : index
  linea.check %same, "f.py:3:4: linea.linear_attention: 'key' sequence length {0} does not match 'query' sequence length {1}"(%a, %b : index, index)
  return
}

// A check without values, and a literal brace, keep their text.
// CHECK-LABEL: func.func @plain
// CHECK: cf.assert %{{.+}}, "a set {x} is empty"
func.func @plain(%c: i1) {
  linea.check %c, "a set {{x} is empty"
  return
}
