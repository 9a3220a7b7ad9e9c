// satdt.solvers.dp core: the memo over (row set, depth) with MurTree's upper-bound semantics
// [2, sec. 4.5]: an entry holds the exact optimum with its tree when one was found, else the best
// lower bound proven for the node. And the arena of the search's tree nodes.
//
// Threads (parallel roots, waves.cpp): the memo is read by every thread during a wave of roots
// and written by none; each root's new entries go to a memo of its own and are absorbed into the
// memo in root order after the wave (absorb), so what a root sees never depends on timing. In the
// pipeline of roots (depth >= 4) the roots' memos are committed one by one while other roots run:
// the Overlay below lets each root read the memo as it stood when the root was chosen. The arena
// is shared: appends are thread-safe and a node never moves.
#pragma once

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <type_traits>
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
    const std::vector<Entry>& entries() const { return entries_; }

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

// The memo as it stands after each of a pipeline's committed root memos (layers), for readers
// that must see it as it stood at a fixed point (waves.cpp, root_pipeline): layer s (s = 0, 1,
// ...) is added by one thread at a time (the pipeline's lock held) while other threads read.
// Each key gets one record per layer that touched it, stamped s + 1 and holding the key's state
// after that layer (the base memo's entry, then the layers' entries merged in order by the memo's
// rules, as absorb would: bounds raised, trees set); a reader with snapshot v sees the newest
// record stamped <= v, i.e. exactly the entry the base memo would hold after absorbing layers
// 0 .. v - 1, whatever the layers committed since. Records never move (a deque) and are published
// by an atomic store after they are written; the layers' rows are referenced, not copied, so the
// layers must live, unchanged, until clear().
class Overlay {
  public:
    struct Rec {
        u64 h;
        int depth, stamp, tree;
        i64 lb, cost;
        const std::vector<int>* rows;
        const Rec* next;
    };

    Overlay() : heads_(new std::atomic<const Rec*>[kBuckets]) {
        for (size_t b = 0; b < kBuckets; ++b) heads_[b].store(nullptr, std::memory_order_relaxed);
    }

    // the writer: layer `stamp - 1`'s entries over `base` (both unchanged from now until clear)
    void add(const Memo& layer, const Memo& base, int stamp) {
        for (const Entry& e : layer.entries()) {
            std::atomic<const Rec*>& head = heads_[e.h & (kBuckets - 1)];
            const Rec* first = head.load(std::memory_order_relaxed);
            if (first == nullptr) used_.push_back(e.h & (kBuckets - 1));
            Rec r{e.h, e.depth, stamp, NONE, 0, INF, &e.rows, first};
            if (const Rec* prev = find_in(first, e.rows, e.depth, e.h, INT_MAX)) {
                r.lb = prev->lb;
                r.tree = prev->tree;
                r.cost = prev->cost;
            } else if (const Entry* b = base.find(e.rows, e.depth, e.h)) {
                r.lb = b->lb;
                r.tree = b->tree;
                r.cost = b->cost;
            } else {
                r.lb = e.lb;
            }
            r.lb = std::max(r.lb, e.lb);  // Memo::store's rules
            if (e.tree != NONE) {
                r.tree = e.tree;
                r.cost = e.cost;
                r.lb = e.cost;
            }
            recs_.push_back(r);
            head.store(&recs_.back(), std::memory_order_release);
        }
    }

    // a reader: the state of (rows, depth) after the first `snap` layers, or null when no layer
    // among them has the key (then the base memo's entry is the state)
    const Rec* find(const std::vector<int>& rows, int depth, u64 h, int snap) const {
        return find_in(heads_[h & (kBuckets - 1)].load(std::memory_order_acquire), rows, depth, h, snap);
    }

    // (no reader left) empties it for the next pipeline
    void clear() {
        for (size_t b : used_) heads_[b].store(nullptr, std::memory_order_relaxed);
        used_.clear();
        recs_.clear();
    }

  private:
    static constexpr size_t kBuckets = size_t(1) << 18;

    static const Rec* find_in(const Rec* r, const std::vector<int>& rows, int depth, u64 h, int snap) {
        for (; r != nullptr; r = r->next)
            if (r->stamp <= snap && r->h == h && r->depth == depth && *r->rows == rows) return r;
        return nullptr;
    }

    std::unique_ptr<std::atomic<const Rec*>[]> heads_;
    std::vector<size_t> used_;
    std::deque<Rec> recs_;
};

// The search's tree nodes, addressed by index (a tree reference, types.h). Chunks of 2^15 nodes
// that never move: push is safe from several threads, and a node can be read while others are
// appended. truncate (one thread only) drops the nodes from n on. The table of chunk pointers
// (512 KB) is zeroed memory from calloc (fresh pages, not written: a search of a few nodes does
// not pay for touching it, ~0.1 ms a Search), and only the chunks grown are visited at the end.
class Arena {
    static_assert(std::is_trivially_default_constructible<std::atomic<void*>>::value &&
                      sizeof(std::atomic<void*>) == sizeof(void*),
                  "a zeroed std::atomic<T*> must be a null pointer");

  public:
    Arena() : chunks_(static_cast<std::atomic<TNode*>*>(std::calloc(kMaxChunks, sizeof(std::atomic<TNode*>)))) {
        if (chunks_ == nullptr) throw std::bad_alloc();
    }
    ~Arena() {
        for (size_t c = 0; c < grown_; ++c) delete[] chunks_[c].load(std::memory_order_relaxed);
        std::free(chunks_);
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
            grown_ = std::max(grown_, c + 1);
        }
        return p;
    }

    std::atomic<TNode*>* chunks_;
    size_t grown_ = 0;  // chunks [0, grown_) may be allocated (written under mu_)
    std::atomic<size_t> size_{0};
    std::mutex mu_;
};

}  // namespace satdt_dp
