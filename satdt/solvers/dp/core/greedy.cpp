// satdt.solvers.dp core: CART's Gini-greedy tree, the search's first incumbent (Search::greedy),
// and the restricted search's candidate tests (CART's tests on a node's rows).

#include <algorithm>
#include <vector>

#include "search.h"

namespace satdt_dp {

// CART's Gini score of test j (counts F of T tests, class weights N of total tot; the larger the
// better), or -1 when the test leaves a side empty. The squares in doubles: a class count reaches
// 2^40 (satdt/weights.py keeps exact integer weights up to that total, and rounds to 2^32), whose
// square overflows an i64 above 2^31.5; the same doubles as SearchBase.greedy
// (satdt/solvers/dp/search.py), so both make the same choices
static inline double gini_score(const i64* F, int T, int j, const i64* N, int C, i64 tot) {
    i64 nR = 0;
    double sr = 0, sl = 0;
    for (int c = 0; c < C; ++c) {
        const i64 f = F[static_cast<size_t>(c) * T + j];
        const double r = static_cast<double>(f), l = static_cast<double>(N[c] - f);
        nR += f;
        sr += r * r;
        sl += l * l;
    }
    if (nR <= 0 || nR >= tot) return -1.0;
    return sr / static_cast<double>(nR) + sl / static_cast<double>(tot - nR);
}

// ------------------------------------------------------------------ candidate tests
// The first `k` tests, breadth first, of CART's Gini-greedy tree grown on the rows of view V
// (counts F of V's columns, class weights N): the candidate roots of the restricted search, as
// DPDT generates its MDP's actions [9] (k = 2^c - 1: all tests of CART's tree of depth c).
// Columns of V, each once.
void Search::cart_tests(const View& V, const std::vector<i64>& F, const i64* N, int k, std::vector<int>& out) {
    std::vector<char> taken(V.T(), 0);
    std::vector<std::vector<int>> queue(1);
    queue[0].resize(V.n());
    for (int a = 0; a < V.n(); ++a) queue[0][a] = a;
    for (size_t head = 0; head < queue.size() && static_cast<int>(out.size()) < k; ++head) {
        const std::vector<int> pos = std::move(queue[head]);
        const int g = gini_best(V, pos, head == 0 ? &F : nullptr, head == 0 ? N : nullptr);
        if (g < 0) continue;
        if (!taken[g]) {
            taken[g] = 1;
            out.push_back(g);
        }
        const int ch = V.cchain[g], lv = V.clevel[g];
        std::vector<int> left, right;
        for (int a : pos) (V.bucket[static_cast<size_t>(a) * V.p + ch] >= lv ? right : left).push_back(a);
        queue.push_back(std::move(left));
        queue.push_back(std::move(right));
    }
}

// the column of V of best Gini score splitting the rows pos of V into two non-empty sides (the
// first on ties), or -1 (pure or unsplittable rows); F, N: their counts when the caller has them
int Search::gini_best(const View& V, const std::vector<int>& pos, const std::vector<i64>* Fin, const i64* Nin) {
    const int T = V.T(), np = static_cast<int>(pos.size());
    if (T == 0 || np < 2) return -1;
    check_time(np >= kPollRows);
    std::vector<i64> N(C_, 0);
    if (Nin != nullptr) {
        for (int c = 0; c < C_; ++c) N[c] = Nin[c];
    } else {
        for (int a = 0; a < np; ++a) {
            const i64* wr = w(V.rows[pos[a]]);
            for (int c = 0; c < C_; ++c) N[c] += wr[c];
        }
    }
    i64 tot = 0, mx = 0;
    for (int c = 0; c < C_; ++c) {
        tot += N[c];
        mx = std::max(mx, N[c]);
    }
    if (mx == tot) return -1;  // pure: nothing to split
    std::vector<i64> Fown;
    const std::vector<i64>* F = Fin;
    if (F == nullptr) {
        count(V, pos.data(), np, Fown, nullptr, C_);
        F = &Fown;
    }
    int g = -1;
    double best = 0;
    for (int j = 0; j < T; ++j) {
        const double score = gini_score(F->data(), T, j, N.data(), C_, tot);
        if (score < 0) continue;
        if (g < 0 || score > best) {
            g = j;
            best = score;
        }
    }
    return g;
}

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
    for (int j : U) {  // (useful tests: both sides hold rows)
        const double score = gini_score(F.data(), T, j, N.data(), C_, tot);
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
