//===- ModelMemo.h - Derivations of one model, kept by key ------*- C++ -*-===//
//
// A search derives the same pieces for many runs: a block's work, a run's
// templates, a run's persistent state. Each is a pure function of the model
// and a key of what the derivation reads of the other contracts, and recurs
// within a few runs of the enumeration. ModelMemo is the one mechanism their
// memos share (docs/Sweep.md, "Derivations shared across runs and
// workers"); each memo states its own key.
//
//===----------------------------------------------------------------------===//

#ifndef BLUEPRINT_WORKLOAD_MODELMEMO_H
#define BLUEPRINT_WORKLOAD_MODELMEMO_H

#include "Blueprint/Workload/Spec.h"

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>

namespace blueprint::workload {

/// Values derived for one model, by key: at most `capacity` of them, all
/// forgotten when it is full and asked to keep another, or asked to keep one
/// of another model (a search meets one model, and a key recurs within a
/// few runs, so forgetting all is as good as any order and costs nothing
/// to track). Safe to share between threads: a value is handed out by copy
/// (a Value is cheap to copy: a shared pointer, or a few small fields), so
/// forgetting never invalidates what a caller holds; two threads that miss
/// the same key both derive it, and the first kept stays (both are the same
/// derivation).
template <typename Key, typename Value> class ModelMemo {
public:
  explicit ModelMemo(size_t capacity) : capacity(capacity) {}
  ModelMemo(const ModelMemo &) = delete;
  ModelMemo &operator=(const ModelMemo &) = delete;

  /// The value kept for `key` of `model` (counted as shared), or none.
  std::optional<Value> find(const ModelSpec &model, const Key &key) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!this->model || !sameModel(*this->model, model))
      return std::nullopt;
    auto found = entries.find(key);
    if (found == entries.end())
      return std::nullopt;
    ++sharedCount;
    return found->second;
  }

  /// Keeps `value` as that of `key` of `model`, unless another caller kept
  /// one for it meanwhile (the same derivation: the first stays).
  void insert(const ModelSpec &model, Key key, Value value) {
    std::lock_guard<std::mutex> lock(mutex);
    bool sameModelAsEntries = this->model && sameModel(*this->model, model);
    if (sameModelAsEntries && entries.count(key))
      return;
    if (!sameModelAsEntries || entries.size() >= capacity) {
      entries.clear();
      this->model = model;
    }
    entries.emplace(std::move(key), std::move(value));
  }

  /// How many calls of find() found a value.
  size_t shared() const {
    std::lock_guard<std::mutex> lock(mutex);
    return sharedCount;
  }

private:
  const size_t capacity;
  mutable std::mutex mutex;
  /// The model of every entry.
  std::optional<ModelSpec> model;
  std::map<Key, Value> entries;
  size_t sharedCount = 0;
};

} // namespace blueprint::workload

#endif // BLUEPRINT_WORKLOAD_MODELMEMO_H
