// satdt.solvers.dp core: the value types every component shares (costs, tree references, a
// child's answer) and the two ways a search stops early.
#pragma once

#include <cstdint>
#include <limits>

namespace satdt_dp {

using i64 = int64_t;
using u64 = uint64_t;

inline constexpr i64 INF = std::numeric_limits<i64>::max() / 4;

// Signed overflow: the core is built without -fwrapv (setup.py), so an i64 that overflows is
// undefined behaviour, not a wrap-around. Every cost and bound of a search stays at most a small
// multiple of MAX_COST = 2^53 (a tree's q * errors + lc * leaves; the search adds a few of them,
// and a child's extra budget q * weight), far below INF = 2^61 - 1, which sums of up to four
// times itself still hold; Search checks its input against MAX_COST (check_costs) and an upper
// bound is clamped to [0, MAX_UB] (solve). Python keeps its costs below 2^53 anyway (the doubles
// of satdt/solvers/dp/search.py are exact there; satdt/weights.py, RegularizedCost).
inline constexpr i64 MAX_COST = i64{1} << 53;
inline constexpr i64 MAX_UB = i64{1} << 62;

// a search cut before its end: by its time cap (Timeout) or by the host (Interrupted: a Python
// signal, an error of the progress callback, or the caller's stop: e.g. an anytime slice ended
// early, the deadline); a root search records its bound and keeps its top level alike for both
struct Cut {};
struct Timeout : Cut {};
struct Interrupted : Cut {};

// A tree reference: >= 0 an arena split node, <= -2 a leaf of class (-ref - 2), -1 none.
inline int leaf_ref(int label) { return -label - 2; }
inline constexpr int NONE = -1;

struct TNode {
    int col;    // global column (chain order)
    int left;   // tree reference
    int right;
};

// A child's answer: a tree reference, or a depth-one stump still to be built.
struct Sub {
    i64 val = INF;
    int tree = NONE;  // tree reference (NONE: only a lower bound)
    int stump_col = -1, lab_l = 0, lab_r = 0;
    bool has_tree() const { return tree != NONE || stump_col >= 0; }
};

}  // namespace satdt_dp
