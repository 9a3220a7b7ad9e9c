// The compiled DP core (satdt/solvers/dp/core/) tested without Python, STreeD-style: every
// answer is checked against the optimum (hard-coded ones from satdt's brute force, known.h, and
// a brute force over every tree written here for random instances), and with each switch the
// core offers turned on and off:
//   - the depth-two solver: pair_ops = -1 (the core's own rule), 0 (never the pair-count
//     solver: the root search, or ConTree's depth-two scan on nodes with long chains), a huge
//     value (the pair-count solver at every depth-two node); each run checks, from stats(),
//     that the component it meant to exercise ran;
//   - the upper bound: none, opt + 1 (the optimum must be found), opt and opt - 1 (MurTree's
//     semantics: a tree only at the optimum, else a lower bound >= ub and <= opt);
//   - the memo: a fresh search per call, and one search answering every call in turn.
// The similarity bound, the leaf-conflict bound and the interval halving have no switch in
// the core (they are always on); they are covered by every run above.
// Also: the greedy incumbent, a time-out's answer, and the Host (progress reports, stopping).
//
// Build (tests/test_dp_core_cpp.py does this): c++ -O2 -std=c++17 -I satdt/solvers/dp/core
//   -I tests/core tests/core/test_core.cpp satdt/solvers/dp/core/{search,view,depth2,scan,greedy}.cpp
// Exit status 0 when every check passed; the last line counts them.

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "instance.h"
#include "known.h"
#include "search.h"

using satdt_dp::i64;

namespace {

int failures = 0;
long checks = 0;
std::string context;  // what is being checked, for the failure messages

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        ++checks;                                                                          \
        if (!(cond)) {                                                                     \
            if (++failures <= 30) {                                                        \
                std::fprintf(stderr, "FAIL line %d [%s]: %s: ", __LINE__, context.c_str(), #cond); \
                std::fprintf(stderr, __VA_ARGS__);                                         \
                std::fprintf(stderr, "\n");                                                \
            }                                                                              \
        }                                                                                  \
    } while (0)

const i64 NO_BOUND = i64(1) << 62;
const double PAIR_ALWAYS = 1e300;
const double PAIR_MODES[] = {-1.0, 0.0, PAIR_ALWAYS};

bool right_of(const Instance& in, int row, int g) {
    return in.rank[static_cast<size_t>(row) * in.p + in.chain[g]] >= in.level[g];
}

i64 leaf_errors(const Instance& in, const std::vector<int>& rows, int* label = nullptr) {
    std::vector<i64> n(in.C, 0);
    i64 tot = 0;
    for (int r : rows)
        for (int c = 0; c < in.C; ++c) {
            n[c] += in.counts[static_cast<size_t>(r) * in.C + c];
            tot += in.counts[static_cast<size_t>(r) * in.C + c];
        }
    const int lab = static_cast<int>(std::max_element(n.begin(), n.end()) - n.begin());
    if (label != nullptr) *label = lab;
    return tot - n[lab];
}

// The least q * errors + lc * leaves over every tree of depth <= d on rows: every column as a
// split at every node (a split with an empty side never helps and is skipped).
i64 brute(const Instance& in, const std::vector<int>& rows, int d, i64 q, i64 lc) {
    i64 best = q * leaf_errors(in, rows) + lc;
    if (d == 0) return best;
    std::vector<int> L, R;
    for (int g = 0; g < in.B; ++g) {
        L.clear();
        R.clear();
        for (int r : rows) (right_of(in, r, g) ? R : L).push_back(r);
        if (L.empty() || R.empty()) continue;
        const i64 l = brute(in, L, d - 1, q, lc);
        if (l >= best) continue;
        best = std::min(best, l + brute(in, R, d - 1, q, lc));
    }
    return best;
}

std::vector<int> all_rows(const Instance& in) {
    std::vector<int> rows(in.m);
    for (int i = 0; i < in.m; ++i) rows[i] = i;
    return rows;
}

// The cost of a tree (preorder arrays) re-evaluated on the instance, its depth; -1 if malformed.
i64 eval(const Instance& in, const satdt_dp::TreeArrays& t, int node, const std::vector<int>& rows, i64 q, i64 lc,
         int* depth) {
    const int n = static_cast<int>(t.feature.size());
    if (node < 0 || node >= n) return -1;
    if (t.feature[node] < 0) {
        const int lab = t.label[node];
        if (lab < 0 || lab >= in.C) return -1;
        i64 err = 0;
        for (int r : rows)
            for (int c = 0; c < in.C; ++c)
                if (c != lab) err += in.counts[static_cast<size_t>(r) * in.C + c];
        *depth = 0;
        return q * err + lc;
    }
    const int g = t.feature[node];
    if (g >= in.B || t.left[node] <= node || t.right[node] <= node) return -1;
    std::vector<int> L, R;
    for (int r : rows) (right_of(in, r, g) ? R : L).push_back(r);
    int dl = 0, dr = 0;
    const i64 cl = eval(in, t, t.left[node], L, q, lc, &dl), cr = eval(in, t, t.right[node], R, q, lc, &dr);
    if (cl < 0 || cr < 0) return -1;
    *depth = 1 + std::max(dl, dr);
    return cl + cr;
}

i64 tree_cost(const Instance& in, const satdt_dp::TreeArrays& t, i64 q, i64 lc, int* depth) {
    const size_t n = t.feature.size();
    if (n == 0 || t.left.size() != n || t.right.size() != n || t.label.size() != n) return -1;
    return eval(in, t, 0, all_rows(in), q, lc, depth);
}

satdt_dp::Search make_search(const Instance& in, i64 q, i64 lc, double pair_ops) {
    return satdt_dp::Search(in.rank.data(), in.m, in.p, in.chain.data(), in.level.data(), in.B, in.counts.data(),
                            in.C, q, lc, pair_ops);
}

bool binary_only(const Instance& in) { return in.B == in.p; }  // every chain of length one

// One solve against the optimum, with MurTree's upper-bound semantics.
void check_solve(satdt_dp::Search& s, const Instance& in, int d, i64 q, i64 lc, i64 ub, i64 opt) {
    const satdt_dp::SolveOutcome out = s.solve(d, ub, 1e9);
    CHECK(out.finished && !out.interrupted, "d=%d ub=%lld", d, (long long)ub);
    if (out.has_tree) {
        int depth = -1;
        const i64 cost = tree_cost(in, out.tree, q, lc, &depth);
        CHECK(out.value == opt, "d=%d ub=%lld: value %lld, optimum %lld", d, (long long)ub, (long long)out.value,
              (long long)opt);
        CHECK(cost == out.value, "d=%d: the tree costs %lld, reported %lld", d, (long long)cost, (long long)out.value);
        CHECK(depth >= 0 && depth <= d, "d=%d: tree of depth %d", d, depth);
    } else {
        CHECK(ub <= opt, "d=%d ub=%lld > optimum %lld but no tree", d, (long long)ub, (long long)opt);
        CHECK(out.value >= ub && out.value <= opt, "d=%d ub=%lld: bound %lld, optimum %lld", d, (long long)ub,
              (long long)out.value, (long long)opt);
    }
}

// Every switch on one instance and depth whose optimum is opt.
void check_all(const Instance& in, int d, i64 q, i64 lc, i64 opt, std::map<std::string, i64>& ran) {
    std::vector<i64> ubs = {NO_BOUND, opt + 1, opt};
    if (opt > 0) ubs.push_back(opt - 1);
    for (double pair_ops : PAIR_MODES) {
        const std::string mode = pair_ops < 0 ? "auto" : pair_ops == 0.0 ? "no-pair" : "pair";
        // one memo for every call, tightest bound first: the lower bounds it stores are reused
        satdt_dp::Search shared = make_search(in, q, lc, pair_ops);
        for (int x = 0; x < static_cast<int>(ubs.size()); ++x) {
            const i64 ub = ubs[x], ub_shared = ubs[ubs.size() - 1 - x];
            context = in.name + " d=" + std::to_string(d) + " q=" + std::to_string(q) + " lc=" + std::to_string(lc) +
                      " " + mode + " ub=" + std::to_string(ub);
            satdt_dp::Search fresh = make_search(in, q, lc, pair_ops);
            check_solve(fresh, in, d, q, lc, ub, opt);
            context += " shared ub=" + std::to_string(ub_shared);
            check_solve(shared, in, d, q, lc, ub_shared, opt);
            const satdt_dp::Stats st = fresh.stats();
            // the switch did what it says
            if (pair_ops == PAIR_ALWAYS) CHECK(st.depth2_scans == 0, "scans %lld", (long long)st.depth2_scans);
            if (pair_ops == 0.0) CHECK(st.pair_solves == 0, "pair solves %lld", (long long)st.pair_solves);
            if (binary_only(in)) CHECK(st.depth2_scans == 0, "scan on chains of length one");
            ran[mode + " pair_solves"] += st.pair_solves;
            ran[mode + " depth2_scans"] += st.depth2_scans;
            ran[mode + " roots"] += st.roots_evaluated;
            ran["memo hits"] += st.memo_hits + shared.stats().memo_hits;
        }
        // the greedy incumbent: a tree of depth <= d whose cost is what it says, never below opt
        context = in.name + " greedy d=" + std::to_string(d);
        const satdt_dp::GreedyOutcome g = shared.greedy(d, 1e9);
        int depth = -1;
        CHECK(g.finished, "greedy unfinished");
        CHECK(tree_cost(in, g.tree, q, lc, &depth) == g.cost && depth <= d, "greedy tree cost %lld, depth %d",
              (long long)g.cost, depth);
        CHECK(g.cost >= opt, "greedy %lld below the optimum %lld", (long long)g.cost, (long long)opt);
    }
}

// n raw rows: nnum numeric features with values 0..maxval - 1, nbin binary ones, C classes
// (random, with a planted rule for some structure); chains per feature (thresholds between its
// distinct values), distinct rows merged with their class counts.
Instance random_instance(std::mt19937& rng, const std::string& name, int n, int nnum, int nbin, int maxval, int C) {
    const int F = nnum + nbin;
    std::vector<std::vector<int>> x(n, std::vector<int>(F));
    std::vector<int> y(n);
    const int v0 = nnum > 0 ? maxval : 2;  // values of feature 0
    for (int i = 0; i < n; ++i) {
        for (int f = 0; f < F; ++f) x[i][f] = static_cast<int>(rng() % static_cast<unsigned>(f < nnum ? maxval : 2));
        y[i] = rng() % 4 == 0 ? static_cast<int>(rng() % C) : (x[i][0] * 2 / v0 + x[i][F - 1]) % C;
    }
    Instance in;
    in.name = name;
    in.C = C;
    std::vector<std::vector<int>> rank(n);
    for (int f = 0; f < F; ++f) {
        std::vector<int> vals;
        for (int i = 0; i < n; ++i) vals.push_back(x[i][f]);
        std::sort(vals.begin(), vals.end());
        vals.erase(std::unique(vals.begin(), vals.end()), vals.end());
        if (vals.size() < 2) continue;  // a constant feature: no column
        for (int l = 1; l < static_cast<int>(vals.size()); ++l) {
            in.chain.push_back(in.p);
            in.level.push_back(l);
        }
        for (int i = 0; i < n; ++i)
            rank[i].push_back(static_cast<int>(std::lower_bound(vals.begin(), vals.end(), x[i][f]) - vals.begin()));
        in.p++;
    }
    in.B = static_cast<int>(in.chain.size());
    std::map<std::vector<int>, std::vector<int64_t>> distinct;
    for (int i = 0; i < n; ++i) {
        auto& c = distinct[rank[i]];
        c.resize(C, 0);
        c[y[i]]++;
    }
    for (const auto& [r, c] : distinct) {
        in.rank.insert(in.rank.end(), r.begin(), r.end());
        in.counts.insert(in.counts.end(), c.begin(), c.end());
        in.m++;
    }
    return in;
}

}  // namespace

int main() {
    std::map<std::string, i64> ran;
    // 1. known optima (satdt's brute force, known.h)
    int n_known = 0;
    for (const Known& k : known_instances()) {
        context = k.in.name + " (known) d=" + std::to_string(k.depth) + " lc=" + std::to_string(k.lc);
        CHECK(brute(k.in, all_rows(k.in), k.depth, 1, k.lc) == k.opt, "this file's brute force disagrees");
        check_all(k.in, k.depth, 1, k.lc, k.opt, ran);
        ++n_known;
    }
    // 2. random instances against the brute force written here
    std::mt19937 rng(12345);
    int n_random = 0;
    for (int t = 0; t < 250; ++t) {
        const int nnum = static_cast<int>(rng() % 3), nbin = nnum == 0 ? 2 + static_cast<int>(rng() % 4) : static_cast<int>(rng() % 3);
        const int maxval = nnum == 0 ? 2 : 3 + static_cast<int>(rng() % 6);
        const Instance in = random_instance(rng, "random" + std::to_string(t), 4 + static_cast<int>(rng() % 18), nnum,
                                            nbin, maxval, 2 + static_cast<int>(rng() % 2));
        if (in.B == 0 || in.B > 12) continue;
        const i64 q = 1 + static_cast<i64>(rng() % 2), lc = static_cast<i64>(rng() % 3);
        for (int d = 1; d <= (in.B <= 8 ? 4 : 3); ++d) {
            check_all(in, d, q, lc, brute(in, all_rows(in), d, q, lc), ran);
            ++n_random;
        }
    }
    // 3. larger random instances with long chains: every switch gives the brute force's optimum
    //    at depth 2 and the same optimum at depth 3
    int n_large = 0;
    for (int t = 0; t < 6; ++t) {
        const Instance in = random_instance(rng, "large" + std::to_string(t), 150 + 50 * t, 2 + t % 3, t % 2, 12, 2 + t % 2);
        const i64 opt2 = brute(in, all_rows(in), 2, 1, 0);
        check_all(in, 2, 1, 0, opt2, ran);
        satdt_dp::Search s = make_search(in, 1, 0, -1.0);
        const i64 opt3 = s.solve(3, NO_BOUND, 1e9).value;
        check_all(in, 3, 1, 0, opt3, ran);
        context = in.name + " d=3";
        CHECK(opt3 <= opt2, "depth 3 (%lld) worse than depth 2 (%lld)", (long long)opt3, (long long)opt2);
        n_large += 2;
    }
    // 3b. the restricted (anytime) search and solves of row subsets, on the random instances again:
    //     a restricted tree is a real tree, never better than the optimum, never worse than the
    //     greedy tree (which its space contains), and it leaves the exact memo exact; a subset's
    //     optimum equals the brute force on those rows
    std::mt19937 rng2(777);
    int n_restricted = 0;
    for (int t = 0; t < 120; ++t) {
        const Instance in = random_instance(rng2, "restricted" + std::to_string(t), 8 + static_cast<int>(rng2() % 20),
                                            static_cast<int>(rng2() % 3), 1 + static_cast<int>(rng2() % 3), 4, 2 + t % 2);
        if (in.B == 0 || in.B > 12) continue;
        const i64 lc = static_cast<i64>(rng2() % 2);
        const int d = 3 + t % 2;
        const i64 opt = brute(in, all_rows(in), d, 1, lc);
        satdt_dp::Search s = make_search(in, 1, lc, -1.0);
        const satdt_dp::GreedyOutcome g = s.greedy(d, 1e9);
        for (int width : {1, 2, 3, 7}) {
            context = in.name + " width=" + std::to_string(width);
            const satdt_dp::SolveOutcome out = s.solve(d, g.cost + 1, 1e9, nullptr, 2.0, width);
            CHECK(out.finished && out.has_tree, "no restricted tree at the greedy bound");
            int depth = -1;
            CHECK(tree_cost(in, out.tree, 1, lc, &depth) == out.value && depth <= d, "restricted tree cost");
            CHECK(out.value >= opt && out.value <= g.cost, "restricted %lld, optimum %lld, greedy %lld",
                  (long long)out.value, (long long)opt, (long long)g.cost);
        }
        context = in.name + " exact after restricted";
        CHECK(s.solve(d, NO_BOUND, 1e9).value == opt, "the exact search after restricted ones");
        std::vector<int> rows;
        for (int r = 0; r < in.m; ++r)
            if (rng2() % 3 != 0) rows.push_back(r);
        if (!rows.empty()) {
            context = in.name + " rows";
            const satdt_dp::SolveOutcome sub = s.solve(d - 1, NO_BOUND, 1e9, nullptr, 2.0, 0, &rows);
            CHECK(sub.finished && sub.value == brute(in, rows, d - 1, 1, lc), "subset optimum");
        }
        ++n_restricted;
    }
    CHECK(n_restricted > 50, "only %d restricted instances", n_restricted);

    // each depth-two component ran somewhere
    context = "coverage";
    CHECK(ran["pair pair_solves"] > 0, "the pair solver never ran");
    CHECK(ran["no-pair depth2_scans"] > 0, "the depth-two scan never ran");
    CHECK(ran["no-pair roots"] > 0, "the root search never ran");
    CHECK(ran["auto pair_solves"] > 0 || ran["auto depth2_scans"] > 0, "the core's own rule chose nothing");
    CHECK(ran["memo hits"] > 0, "the memo never answered");

    // 4. a time-out, and a Host that stops the search after three progress reports
    const Instance big = random_instance(rng, "big", 3000, 8, 2, 40, 2);
    {
        context = "time-out";
        satdt_dp::Search s = make_search(big, 1, 0, -1.0);
        const satdt_dp::SolveOutcome out = s.solve(5, NO_BOUND, 0.2);
        CHECK(!out.finished && !out.interrupted, "a depth-5 search of %d rows finished in 0.2 s", big.m);
        if (out.has_top_tree) {
            int depth = -1;
            CHECK(tree_cost(big, out.top_tree, 1, 0, &depth) == out.top_best && depth <= 5, "top tree cost");
            CHECK(out.top_bound <= out.top_best, "bound %lld above the best %lld", (long long)out.top_bound,
                  (long long)out.top_best);
        }
    }
    {
        context = "host";
        struct StopHost : satdt_dp::Host {
            std::vector<satdt_dp::Report> reports_seen;
            int polls = 0;
            bool reports() const override { return true; }
            bool poll(const satdt_dp::Report* r) override {
                ++polls;
                if (r != nullptr) reports_seen.push_back(*r);
                return reports_seen.size() < 3;
            }
        } host;
        satdt_dp::Search s = make_search(big, 1, 0, -1.0);
        const satdt_dp::SolveOutcome out = s.solve(5, NO_BOUND, 1e9, &host, 0.05);
        CHECK(!out.finished && out.interrupted, "the host's stop was not obeyed");
        CHECK(host.reports_seen.size() == 3, "%zu reports", host.reports_seen.size());
        for (size_t i = 0; i < host.reports_seen.size(); ++i) {
            const satdt_dp::Report& r = host.reports_seen[i];
            CHECK(r.elapsed >= 0 && r.nodes >= 0, "report %zu", i);
            if (i > 0) CHECK(r.elapsed >= host.reports_seen[i - 1].elapsed && r.nodes >= host.reports_seen[i - 1].nodes,
                             "reports go back in time");
            if (r.has_best && r.has_bound) CHECK(r.bound <= r.best, "report bound above best");
        }
    }
    std::printf("core test: %d known, %d random, %d large instance-depths; %ld checks, %d failed\n", n_known, n_random,
                n_large, checks, failures);
    return failures == 0 ? 0 : 1;
}
