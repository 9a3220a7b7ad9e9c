// satdt.solvers.dp core: the memo over (row set, depth) with MurTree's upper-bound semantics
// [2, sec. 4.5]: an entry holds the exact optimum with its tree when one was found, else the best
// lower bound proven for the node. And the arena of the search's tree nodes.
//
// Threads (parallel roots, waves.cpp): the memo is read by every thread during a wave of roots
// and written by none; each root's new entries go to a memo of its own and are absorbed into the
// memo in root order after the wave (absorb), so what a root sees never depends on timing. The
// arena is shared: appends are thread-safe and a node never moves.
#pragma once

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

#include "types.h"

namespace satdt_dp {

struct Entry {
    std::vector<int> rows;
    int depth;
    i64 lb;
    i64 cost;  // valid when tree != NONE
    int tree;
    u64 h;     // hash_rows(rows, depth)
};

class Memo {
  public:
    static u64 hash_rows(const std::vector<int>& rows, int depth) {
        u64 h = 1469598103934665603ULL ^ static_cast<u64>(depth) * 0x9E3779B97F4A7C15ULL;
        for (int r : rows) {
            h ^= static_cast<u64>(r) + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
        }
        return h ^ rows.size();
    }

    Entry* find(const std::vector<int>& rows, int depth, u64 h) {
        return const_cast<Entry*>(static_cast<const Memo*>(this)->find(rows, depth, h));
    }
    // read only: safe from several threads while no thread writes
    const Entry* find(const std::vector<int>& rows, int depth, u64 h) const {
        auto it = map_.find(h);
        if (it == map_.end()) return nullptr;
        for (int idx : it->second) {
            const Entry& e = entries_[idx];
            if (e.depth == depth && e.rows == rows) return &e;
        }
        return nullptr;
    }

    // the entry of (rows, depth): its lower bound raised to lb; with a tree (tree != NONE), the
    // optimum cost and its tree
    void store(const std::vector<int>& rows, int depth, u64 h, i64 lb, int tree, i64 cost) {
        store_impl(rows, depth, h, lb, tree, cost);
    }

    size_t size() const { return entries_.size(); }

    // stores every entry of `other` in its order (store's rules: bounds raised, trees set), then
    // empties it
    void absorb(Memo& other) {
        for (Entry& e : other.entries_) store_impl(std::move(e.rows), e.depth, e.h, e.lb, e.tree, e.cost);
        other.clear();
    }

    void clear() {
        entries_.clear();
        map_.clear();
    }

  private:
    template <class Rows>
    void store_impl(Rows&& rows, int depth, u64 h, i64 lb, int tree, i64 cost) {
        Entry* e = find(rows, depth, h);
        if (e == nullptr) {
            entries_.push_back({std::forward<Rows>(rows), depth, lb, INF, NONE, h});
            map_[h].push_back(static_cast<int>(entries_.size()) - 1);
            e = &entries_.back();
        } else {
            e->lb = std::max(e->lb, lb);
        }
        if (tree != NONE) {
            e->tree = tree;
            e->cost = cost;
            e->lb = cost;
        }
    }

    std::vector<Entry> entries_;
    std::unordered_map<u64, std::vector<int>> map_;
};

// The search's tree nodes, addressed by index (a tree reference, types.h). Chunks of 2^15 nodes
// that never move: push is safe from several threads, and a node can be read while others are
// appended. truncate (one thread only) drops the nodes from n on.
class Arena {
  public:
    Arena() : chunks_(new std::atomic<TNode*>[kMaxChunks]) {
        for (size_t c = 0; c < kMaxChunks; ++c) chunks_[c].store(nullptr, std::memory_order_relaxed);
    }
    ~Arena() {
        for (size_t c = 0; c < kMaxChunks; ++c) delete[] chunks_[c].load(std::memory_order_relaxed);
    }
    Arena(const Arena&) = delete;
    Arena& operator=(const Arena&) = delete;

    int push(const TNode& t) {
        const size_t i = size_.fetch_add(1, std::memory_order_relaxed);
        if (i >= kChunk * kMaxChunks) throw std::length_error("too many tree nodes");
        TNode* c = chunks_[i >> kBits].load(std::memory_order_acquire);
        if (c == nullptr) c = grow(i >> kBits);
        c[i & (kChunk - 1)] = t;
        return static_cast<int>(i);
    }
    const TNode& operator[](int i) const {
        return chunks_[static_cast<size_t>(i) >> kBits].load(std::memory_order_acquire)[static_cast<size_t>(i) & (kChunk - 1)];
    }
    size_t size() const { return size_.load(std::memory_order_relaxed); }
    void truncate(size_t n) { size_.store(std::min(n, size()), std::memory_order_relaxed); }

  private:
    static constexpr int kBits = 15;
    static constexpr size_t kChunk = size_t(1) << kBits, kMaxChunks = size_t(1) << 16;  // 2^31 nodes

    TNode* grow(size_t c) {
        std::lock_guard<std::mutex> lk(mu_);
        TNode* p = chunks_[c].load(std::memory_order_acquire);
        if (p == nullptr) {
            p = new TNode[kChunk];
            chunks_[c].store(p, std::memory_order_release);
        }
        return p;
    }

    std::unique_ptr<std::atomic<TNode*>[]> chunks_;
    std::atomic<size_t> size_{0};
    std::mutex mu_;
};

}  // namespace satdt_dp
