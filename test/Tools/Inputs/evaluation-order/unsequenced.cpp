// The two patterns utils/check-evaluation-order.py finds, as they were in
// Blueprint before issue 14 (Checked.h, ModelSummary.cpp).
int64_t mul(int64_t a, int64_t b, const llvm::Twine &what) {
  int64_t result;
  return record(!llvm::MulOverflow(a, b, result), result, what);
}
int64_t total(OverflowGuard &guard) {
  return guard.add(guard.mul(a, b, "block parameters"),
                   guard.add(c, d, "embedding parameters"), "parameters");
}
// Sequenced: named locals, and braced initialisers.
int64_t sequenced(OverflowGuard &guard) {
  int64_t product = 0;
  bool overflowed = llvm::MulOverflow(a, b, product);
  int64_t blocks = guard.mul(a, b, "block parameters");
  Spec spec{guard.mul(a, b, "x"), guard.mul(c, d, "y")};
  return record(!overflowed, product, guard.add(blocks, c, "parameters"));
}
