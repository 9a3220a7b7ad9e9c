// satdt.solvers.dp core: the memo over (row set, depth) with MurTree's upper-bound semantics
// [2, sec. 4.5]: an entry holds the exact optimum with its tree when one was found, else the best
// lower bound proven for the node.
#pragma once

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "types.h"

namespace satdt_dp {

struct Entry {
    std::vector<int> rows;
    int depth;
    i64 lb;
    i64 cost;  // valid when tree != NONE
    int tree;
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
        auto it = map_.find(h);
        if (it == map_.end()) return nullptr;
        for (int idx : it->second) {
            Entry& e = entries_[idx];
            if (e.depth == depth && e.rows == rows) return &e;
        }
        return nullptr;
    }

    // the entry of (rows, depth): its lower bound raised to lb; with a tree (tree != NONE), the
    // optimum cost and its tree
    void store(const std::vector<int>& rows, int depth, u64 h, i64 lb, int tree, i64 cost) {
        Entry* e = find(rows, depth, h);
        if (e == nullptr) {
            entries_.push_back({rows, depth, lb, INF, NONE});
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

    size_t size() const { return entries_.size(); }

    void clear() {
        entries_.clear();
        map_.clear();
    }

  private:
    std::vector<Entry> entries_;
    std::unordered_map<u64, std::vector<int>> map_;
};

}  // namespace satdt_dp
