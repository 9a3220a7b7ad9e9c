// satdt.solvers.dp core: CART's Gini-greedy tree, the search's first incumbent (Search::greedy).

#include <vector>

#include "search.h"

namespace satdt_dp {

// ------------------------------------------------------------------ greedy incumbent
int Search::greedy_node(const std::vector<int>& pos, int d, i64* cost) {
    check_time(true);
    const View& V = root_;
    const int T = V.T(), np = static_cast<int>(pos.size());
    std::vector<i64> N(C_, 0);
    for (int a = 0; a < np; ++a) {
        const i64* wr = w(V.rows[pos[a]]);
        for (int c = 0; c < C_; ++c) N[c] += wr[c];
    }
    i64 tot = 0;
    const Sub leaf = leaf_of(N.data(), &tot);
    *cost = leaf.val;
    if (d == 0 || leaf.val == lc_) return leaf.tree;  // no errors: nothing to split
    std::vector<i64> F;
    std::vector<char> present;
    count(V, pos.data(), np, F, &present, C_);
    const std::vector<int> U = useful(F, present, N.data(), T);
    if (U.empty()) return leaf.tree;
    int g = -1;
    double best = 0;
    for (int j : U) {
        i64 nR = 0, sr = 0, sl = 0;
        for (int c = 0; c < C_; ++c) {
            const i64 f = F[static_cast<size_t>(c) * T + j], l = N[c] - f;
            nR += f;
            sr += f * f;
            sl += l * l;
        }
        const double score = static_cast<double>(sr) / static_cast<double>(nR) +
                             static_cast<double>(sl) / static_cast<double>(tot - nR);
        if (g < 0 || score > best) { g = j; best = score; }
    }
    const int k = V.cchain[g], lv = V.clevel[g];
    std::vector<int> left, right;
    for (int a = 0; a < np; ++a)
        (V.bucket[static_cast<size_t>(pos[a]) * V.p + k] >= lv ? right : left).push_back(pos[a]);
    i64 cl = 0, cr = 0;
    const int tl = greedy_node(left, d - 1, &cl);
    const int tr = greedy_node(right, d - 1, &cr);
    if (cl + cr < leaf.val) {
        *cost = cl + cr;
        return new_split(V.gcol[g], tl, tr);
    }
    return leaf.tree;
}

}  // namespace satdt_dp
