// satdt.solvers.dp core: the bookkeeping of a root search (the general one, search.cpp, and the
// depth-two scan, scan.cpp): the best-first order of the roots, ConTree's interval halving [3],
// and the incumbent root.
#pragma once

#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

#include "types.h"
#include "view.h"

namespace satdt_dp {

// Roots best-first by a key that only grows (lower bounds): a lazy min-heap. An entry whose key
// is still current is the minimum; a stale one goes back with its new key.
template <class Key>
class RootQueue {
  public:
    RootQueue(int T, Key key) : key_(key) {
        heap_.resize(T);
        for (int j = 0; j < T; ++j) heap_[j] = {key_(j), j};
        std::make_heap(heap_.begin(), heap_.end(), later_);
    }
    // the open root of smallest key (it stays queued until closed), or -1
    int next(const std::vector<char>& open, double* kmin) {
        return next(open, kmin, [](int) { return false; });
    }

    // next(open, kmin) among the roots that skip(j) does not exclude (the excluded stay queued)
    template <class Skip>
    int next(const std::vector<char>& open, double* kmin, Skip&& skip) {
        held_.clear();
        int found = -1;
        while (!heap_.empty()) {
            const auto [k, j] = heap_.front();
            std::pop_heap(heap_.begin(), heap_.end(), later_);
            heap_.pop_back();
            if (!open[j]) continue;
            const double cur = key_(j);
            if (cur > k) {
                heap_.push_back({cur, j});
                std::push_heap(heap_.begin(), heap_.end(), later_);
                continue;
            }
            if (skip(j)) {
                held_.push_back({cur, j});
                continue;
            }
            heap_.push_back({cur, j});
            std::push_heap(heap_.begin(), heap_.end(), later_);
            *kmin = cur;
            found = j;
            break;
        }
        for (const auto& e : held_) {
            heap_.push_back(e);
            std::push_heap(heap_.begin(), heap_.end(), later_);
        }
        return found;
    }

  private:
    Key key_;
    std::vector<std::pair<double, int>> held_;
    std::vector<std::pair<double, int>> heap_;
    std::greater<std::pair<double, int>> later_;
};

// The key of the general root search's queue (search.cpp, and its waves, waves.cpp): a root's
// children's lower bounds, plus its tie-break (the depth-one errors of the split).
struct RootKey {
    const std::vector<i64>& lbL;
    const std::vector<i64>& lbR;
    const std::vector<double>& tie;
    double operator()(int j) const { return static_cast<double>(lbL[j] + lbR[j]) + tie[j]; }
};

// ConTree's interval search [3]: the roots of a chain between two evaluated ones share the
// bound optL(lower) + optR(upper) (children are monotone in their rows). Returns the middle of
// the run [lo, hi] of open roots around t whose bounds are below `bound`, so each evaluation
// halves an interval.
inline int interval_middle(const View& V, int t, const std::vector<char>& open, const std::vector<i64>& lbL,
                           const std::vector<i64>& lbR, i64 bound, int* lo, int* hi) {
    const int ck = V.cchain[t];
    int a = t, b = t;
    while (a > V.col0[ck] && open[a - 1] && lbL[a - 1] + lbR[a - 1] < bound) --a;
    while (b + 1 < V.col0[ck + 1] && open[b + 1] && lbL[b + 1] + lbR[b + 1] < bound) ++b;
    *lo = a;
    *hi = b;
    return (a + b) / 2;
}

// The best root of one root search so far (or the leaf: root -1) and the bound the roots must
// beat, min(ub, best).
struct Incumbent {
    i64 best, bound;
    int root = -1;
    Sub left, right;
    Incumbent(const Sub& leaf, i64 ub) : best(leaf.val < ub ? leaf.val : INF), bound(std::min(ub, leaf.val)) {}
};

}  // namespace satdt_dp
