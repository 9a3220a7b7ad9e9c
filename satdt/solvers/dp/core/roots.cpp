// satdt.solvers.dp core: the bookkeeping of the general root search (see search.h): the roots'
// initial bounds, the similarity bound [2, sec. 4.6; 3], the incumbent root and the answer of a
// finished root search, and the top-level root search's proven bound at a time-out and its state
// kept for the next slice of the anytime schedule (TopResume).

#include <algorithm>
#include <vector>

#include "search.h"

namespace satdt_dp {

// similarity bound [2, sec. 4.6; 3] of a child A of root i (opt(A) >= v) on every root j
void Search::similar(i64 v, const std::vector<i64>& Fa, int T, i64 n, std::vector<i64>& lb_same,
                     std::vector<i64>& lb_other, bool left) {
    if (v <= 0) return;
    const i64 nq = q_ * n;
    std::vector<i64>& r = scratch_a_;  // weight of A on the right of each root j
    r.assign(Fa.begin(), Fa.begin() + T);
    for (int c = 1; c < C_; ++c) {
        const i64* f = Fa.data() + static_cast<size_t>(c) * T;
        for (int j = 0; j < T; ++j) r[j] += f[j];
    }
    i64* same = lb_same.data();
    i64* other = lb_other.data();
    const i64* rj = r.data();
    if (left) {  // A = L_i: A \ L_j = A on the right of j, A \ R_j = A on its left
        for (int j = 0; j < T; ++j) {
            same[j] = std::max(same[j], v - q_ * rj[j]);
            other[j] = std::max(other[j], v - (nq - q_ * rj[j]));
        }
    } else {
        for (int j = 0; j < T; ++j) {
            same[j] = std::max(same[j], v - (nq - q_ * rj[j]));
            other[j] = std::max(other[j], v - q_ * rj[j]);
        }
    }
}

// The missing rows' bound (issue 24). A missing-value pair (chains k, k + 1: kind 1 and 3) has
// the rows M missing its feature on one side of every root: the left of chain k's roots, the
// right of chain k + 1's. For rows S disjoint from M and any tree of depth d - 1,
//   cost(S + M) = q err(S) + q err(M) + lc leaves >= opt(S) + q err*(M),
// err*(M) the least errors of a tree of depth d - 1 on M alone, so opt(S + M) >= opt(S) + e with
// e = q err*(M) >= opt(M) - lc 2^(d-1) (solved once per pair and node: solve_node on M; its
// value, exact or a lower bound, bounds opt(M) from below). Two floors under the children
// bounds of the pair's roots follow (floorL, floorR; the root search skips a root whose floors
// reach its bound, but orders the roots by their plain bounds: raising the bounds themselves
// reordered the roots and cost more roots than it saved on three of six measured cells):
//   - at once, each child holding M: >= its other rows' leaf-conflict errors and leaf, plus e;
//   - after a pair root's side without M, S of value >= v (similar_missing): each child S_j
//     holding M >= v - q w(S - S_j) + e (the similarity bound [2, sec. 4.6] on S_j minus M,
//     plus e), where the plain similarity bound across the pair loses q w(M) instead.
// Bounds only: the same optimum. Depth three (depth-two solves on M; deeper, e would take a
// search of depth d - 1 of its own).
void Search::missing_bounds(const View& V, const std::vector<i64>& F, const i64* N, const std::vector<char>& kind,
                            int d, std::vector<i64>& floorL, std::vector<i64>& floorR, std::vector<i64>& pair_e) {
    const int n = V.n(), p = V.p, T = V.T();
    const i64* fc = F.data() + static_cast<size_t>(C_) * T;  // leaf-conflict errors on the right of each root
    std::vector<int> posM;
    for (int k = 0; k + 1 < p; ++k) {
        if (kind[k] != 1) continue;
        posM.clear();
        i64 wM = 0, confM = 0;
        for (int a = 0; a < n; ++a)
            if (V.bucket[static_cast<size_t>(a) * p + k] == 0) {
                posM.push_back(a);
                const i64* wr = w(V.rows[a]);
                for (int c = 0; c < C_; ++c) wM += wr[c];
                confM += wr[C_];
            }
        if (posM.empty()) continue;
        // opt(M) at depth d - 1 (its leaf costs lc each, at most 2^(d-1) of them)
        const Sub s = solve_node(V, posM, d - 1, q_ * wM + lc_ + 1, nullptr, nullptr, false);
        ++mb_solves_;
        const i64 e = std::max<i64>(0, s.val - lc_ * (i64{1} << (d - 1)));
        pair_e[k] = e;
        if (e <= q_ * confM) continue;  // no better than the leaf-conflict bound of root_bounds
        missing_floors(V, fc, N, k, e - q_ * confM, floorL, floorR);
    }
}

// the floors of missing_bounds for pair k: each child holding M, its side's leaf-conflict errors
// minus M's (as root_bounds) and a leaf, plus gain = e - q (M's leaf-conflict errors)
void Search::missing_floors(const View& V, const i64* fc, const i64* N, int k, i64 gain, std::vector<i64>& floorL,
                            std::vector<i64>& floorR) const {
    for (int j = V.col0[k]; j < V.col0[k + 1]; ++j)  // M on the left
        floorL[j] = std::max(floorL[j], q_ * (N[C_] - fc[j]) + lc_ + gain);
    for (int j = V.col0[k + 1]; j < V.col0[k + 2]; ++j)  // M on the right
        floorR[j] = std::max(floorR[j], q_ * fc[j] + lc_ + gain);
}

void Search::similar_missing(i64 v, const std::vector<i64>& Fa, int T, i64 n, const View& V, int k, i64 e,
                             std::vector<i64>& floorL, std::vector<i64>& floorR) const {
    if (v + e <= 0) return;
    auto right = [&](int j) {  // weight of S on the right of root j
        i64 r = 0;
        for (int c = 0; c < C_; ++c) r += Fa[static_cast<size_t>(c) * T + j];
        return r;
    };
    for (int j = V.col0[k]; j < V.col0[k + 1]; ++j)  // S_j = L_j: S - S_j = S on the right of j
        floorL[j] = std::max(floorL[j], v - q_ * right(j) + e);
    for (int j = V.col0[k + 1]; j < V.col0[k + 2]; ++j)  // S_j = R_j: S - S_j = S on the left of j
        floorR[j] = std::max(floorR[j], v - q_ * (n - right(j)) + e);
}

// Initial bounds of every root column j of a node: each side costs at least its leaf-conflict
// errors and one leaf; tie = the depth-one errors of the split (best-first ties); ftot = the
// weight on the right of j.
void Search::root_bounds(const std::vector<i64>& F, int T, const i64* N, i64 tot, std::vector<i64>& lbL,
                         std::vector<i64>& lbR, std::vector<double>& tie, std::vector<i64>& ftot) const {
    for (int j = 0; j < T; ++j) {
        i64 mr = 0, ml = 0, ft = 0;
        for (int c = 0; c < C_; ++c) {
            const i64 f = F[static_cast<size_t>(c) * T + j];
            ft += f;
            mr = std::max(mr, f);
            ml = std::max(ml, N[c] - f);
        }
        const i64 fc = F[static_cast<size_t>(C_) * T + j];
        ftot[j] = ft;
        lbR[j] = q_ * fc + lc_;
        lbL[j] = q_ * (N[C_] - fc) + lc_;
        tie[j] = static_cast<double>(tot - mr - ml) / (static_cast<double>(tot) + 1.0);
    }
}

// root t with children l and r beats the incumbent: adopt it (at the top level its tree is kept
// for a time-out); true when it reaches the node's lower bound lb0 (no root can do better)
bool Search::adopt(Incumbent& inc, const View& V, int t, const Sub& l, const Sub& r, i64 ub, i64 lb0, bool top) {
    inc.best = l.val + r.val;
    inc.root = t;
    inc.left = l;
    inc.right = r;
    inc.bound = std::min(ub, inc.best);
    if (top) {
        top_best_ = inc.best;
        top_tree_ = new_split(V.gcol[t], materialize(inc.left), materialize(inc.right));
        inc.left.tree = (*arena_)[top_tree_].left;  // the children now live in the kept tree
        inc.left.stump_col = -1;
        inc.right.tree = (*arena_)[top_tree_].right;
        inc.right.stump_col = -1;
    }
    return inc.best <= lb0;
}

// the answer of a finished root search (MurTree's upper-bound semantics): the optimum with its
// tree when below ub, else a lower bound >= ub (the leaf, every root's children bounds)
Sub Search::roots_result(const View& V, const Sub& leaf, Incumbent& inc, const std::vector<i64>& lbL,
                         const std::vector<i64>& lbR, i64 ub, i64 lb0, bool top, i64* lb_out) {
    if (inc.best < ub) {
        if (inc.root < 0) return leaf;
        Sub s;
        s.val = inc.best;
        s.tree = (top && top_tree_ != NONE && top_best_ == inc.best)
                     ? top_tree_
                     : new_split(V.gcol[inc.root], materialize(inc.left), materialize(inc.right));
        return s;
    }
    i64 lb = leaf.val;
    for (size_t j = 0; j < lbL.size(); ++j) lb = std::min(lb, lbL[j] + lbR[j]);
    *lb_out = std::max({lb, ub, lb0});
    return Sub();
}

// the top-level search stopped by the time limit: its proven bound (the leaf, every root's
// children bounds, the incumbent), and no tree unless a root was adopted
void Search::record_top_bound(i64 leaf, const std::vector<i64>& lbL, const std::vector<i64>& lbR,
                              const Incumbent& inc) {
    i64 lb = leaf;
    for (size_t j = 0; j < lbL.size(); ++j) lb = std::min(lb, lbL[j] + lbR[j]);
    top_active_ = true;
    top_lb_ = std::min(lb, inc.best);
    if (inc.root < 0) {
        top_tree_ = NONE;
        top_best_ = INF;
    }
}

// the top-level root search cut by its time cap or the host's stop, kept for the next slice (TopResume)
void Search::keep_top(int d, i64 ub, const std::vector<i64>& lbL, const std::vector<i64>& lbR,
                      const std::vector<char>& open, const Incumbent& inc) {
    TopResume& r = resume_;
    r.valid = true;
    r.depth = d;
    r.ub = ub;
    r.lbL = lbL;
    r.lbR = lbR;
    r.open = open;
    r.best = inc.best;
    r.root = inc.root;
    r.tree = inc.root >= 0 ? top_tree_ : NONE;
    r.left = inc.left;
    r.right = inc.right;
    top_done_ = top_live_ = 0;
    for (size_t j = 0; j < open.size(); ++j) {
        if (!open[j])
            ++top_done_;
        else if (lbL[j] + lbR[j] < inc.bound)
            ++top_live_;
    }
}

// the kept top-level root search, when solve() left it valid (same depth, an upper bound no
// looser): its roots' bounds (never below the fresh ones: both are proven), the roots still open
// and its incumbent root, under the new upper bound. Used once: a finished search leaves nothing.
void Search::resume_top(int d, i64 ub, std::vector<i64>& lbL, std::vector<i64>& lbR, std::vector<char>& open,
                        Incumbent& inc) {
    TopResume& r = resume_;
    const bool ok = r.valid && r.depth == d && r.lbL.size() == lbL.size() && ub <= r.ub;
    r.valid = false;
    if (!ok) return;
    for (size_t j = 0; j < lbL.size(); ++j) {
        lbL[j] = std::max(lbL[j], r.lbL[j]);
        lbR[j] = std::max(lbR[j], r.lbR[j]);
    }
    open = r.open;
    ++resumes_;
    if (r.root >= 0 && r.best < inc.best) {
        inc.best = r.best;
        inc.root = r.root;
        inc.left = r.left;
        inc.right = r.right;
        top_best_ = r.best;
        top_tree_ = r.tree;
    }
    inc.bound = std::min(ub, inc.best);
}

}  // namespace satdt_dp
