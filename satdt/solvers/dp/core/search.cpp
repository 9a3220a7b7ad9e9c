// satdt.solvers.dp core: the search (see search.h for the algorithm and the components): the
// calls (solve, greedy, stats) and their clock, the recursion over nodes with its memo, the
// general root search with ConTree's interval halving [3] (its bookkeeping, the similarity
// bound [2, sec. 4.6; 3] among it, is in roots.cpp).

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "search.h"

namespace satdt_dp {

// The satisficing search (solve with satisfice = true; satdt/proof/witness.py's DT_size questions): a
// yes / no question "is there a tree below ub?" answered with ANY tree below ub, or the usual
// proof that none is (a lower bound >= ub). Only the top node and, below it, the second child of
// a root satisfice: a first child is solved exactly (its value sets the second child's budget,
// so a worse tree there could fail a root that a better one passes), and a second child's budget
// is what the root needs (no ConTree extra), so any tree it returns completes a root below the
// node's bound, which is adopted and ends the node's root search. A satisficed tree is not the
// node's optimum: it is neither stored in the memo nor used for a similarity bound; a failed
// satisficing node proved its lower bound as the exact search does (every root's children were
// ruled out by exact values or proven bounds), so that bound is stored. The mode is this file's
// state (thread-local: one Search runs its recursion on the calling thread; the waves and the
// resumable top search are off in it): solve() sets it, solve_node reads it for its node.
namespace {
thread_local bool t_satisfice = false;   // this solve() satisfices (its top node does)
thread_local bool t_next_sat = false;    // the solve_node about to be entered is a second child that satisfices
thread_local bool t_roots_sat = false;   // the root search about to be entered satisfices
}  // namespace

Search::Search(const int32_t* rank, int m, int p, const int32_t* col_chain, const int32_t* col_level, int B,
               const int64_t* counts, int C, i64 q, i64 lc, double pair_ops, int threads)
    : q_(q), lc_(lc), pair_ops_(pair_ops) {
    if (threads < 1) throw std::invalid_argument("threads must be >= 1");
    m_ = m;
    C_ = C;
    C1_ = C_ + 1;
    B_ = B;
    if (m_ < 0 || p < 0 || B_ < 0 || C_ < 1)
        throw std::invalid_argument("shapes of rank, counts, col_chain, col_level disagree");
    if (q_ < 1 || lc_ < 0) throw std::invalid_argument("q must be >= 1 and leaf_cost >= 0");
    auto r = [&](int i, int k) { return rank[static_cast<size_t>(i) * p + k]; };
    auto w = [&](int i, int c) { return counts[static_cast<size_t>(i) * C_ + c]; };
    auto cc = [&](int g) { return col_chain[g]; };
    auto cl = [&](int g) { return col_level[g]; };
    wext_.assign(static_cast<size_t>(m_) * C1_, 0);
    for (int i = 0; i < m_; ++i) {
        i64 tot = 0, mx = 0;
        for (int c = 0; c < C_; ++c) {
            i64 v = w(i, c);
            if (v < 0) throw std::invalid_argument("negative class count");
            wext_[static_cast<size_t>(i) * C1_ + c] = v;
            if (__builtin_add_overflow(tot, v, &tot) || __builtin_add_overflow(total_w_, v, &total_w_))
                throw std::invalid_argument("class counts: their total exceeds 2^63");
            mx = std::max(mx, v);
        }
        wext_[static_cast<size_t>(i) * C1_ + C_] = tot - mx;  // leaf-conflict errors
    }
    // each class's (and the conflicts') unit: the bit-planes of the bitset counts hold weight / unit
    unit_.assign(C1_, 0);
    for (int i = 0; i < m_; ++i)
        for (int c = 0; c < C1_; ++c) unit_[c] = std::gcd(unit_[c], wext_[static_cast<size_t>(i) * C1_ + c]);
    for (int c = 0; c < C1_; ++c)
        if (unit_[c] == 0) unit_[c] = 1;
    wdiv_.resize(wext_.size());
    for (size_t x = 0; x < wext_.size(); ++x) wdiv_[x] = wext_[x] / unit_[x % C1_];
    // the same weights as (class, weight) lists of the nonzero entries: rows mostly hold one class
    nz_off_.assign(m_ + 1, 0);
    for (int i = 0; i < m_; ++i) {
        for (int c = 0; c < C1_; ++c) {
            const i64 v = wext_[static_cast<size_t>(i) * C1_ + c];
            if (v != 0) {
                nz_cls_.push_back(c);
                nz_w_.push_back(v);
            }
        }
        nz_off_[i + 1] = static_cast<int>(nz_cls_.size());
    }
    // the root view: chains in order, columns of each chain by level (chain order)
    root_.rows.resize(m_);
    for (int i = 0; i < m_; ++i) root_.rows[i] = i;
    root_.p = p;
    root_.col0.assign(p + 1, 0);
    std::vector<int> len(p, 0);
    for (int g = 0; g < B_; ++g) {
        int k = cc(g);
        if (k < 0 || k >= p) throw std::invalid_argument("col_chain out of range");
        if (g > 0 && (k < cc(g - 1) || (k == cc(g - 1) && cl(g) != cl(g - 1) + 1)))
            throw std::invalid_argument("columns must be in chain order with levels 1, 2, ...");
        if ((g == 0 || k != cc(g - 1)) && cl(g) != 1)
            throw std::invalid_argument("each chain's levels must start at 1");
        len[k]++;
    }
    for (int k = 0; k < p; ++k) root_.col0[k + 1] = root_.col0[k] + len[k];
    root_.gcol.resize(B_);
    root_.cchain.resize(B_);
    root_.clevel.resize(B_);
    for (int g = 0; g < B_; ++g) {
        root_.gcol[g] = g;
        root_.cchain[g] = cc(g);
        root_.clevel[g] = cl(g);
    }
    root_.bucket.resize(static_cast<size_t>(m_) * p);
    for (int i = 0; i < m_; ++i)
        for (int k = 0; k < p; ++k) {
            int32_t b = r(i, k);
            if (b < 0 || b > len[k]) throw std::invalid_argument("rank out of range for its chain");
            root_.bucket[static_cast<size_t>(i) * p + k] = b;
        }
    // missing-value pairs (see set_pairing): adjacent chains whose ranks on all rows make a pair
    pair_lo_.assign(p, 1);
    {
        std::vector<char> kind(p, 0);
        pair_kinds(root_, kind);
        for (int k = 0; k < p; ++k) pair_lo_[k] = kind[k] == 1;
    }
    if (threads > 1) pool_ = std::make_unique<Pool>(threads);
}

void Search::check_costs(int depth) const {
    const i64 leaves = std::max<i64>(2, std::min<i64>(depth >= 62 ? INF : i64{1} << std::max(depth, 0), m_));
    i64 errors, leaf_costs, most;
    if (__builtin_mul_overflow(q_, total_w_, &errors) || __builtin_mul_overflow(lc_, leaves, &leaf_costs) ||
        __builtin_add_overflow(errors, leaf_costs, &most) || most > MAX_COST)
        throw std::invalid_argument("q * total weight + leaf_cost * leaves exceeds 2^53 at this depth");
}

int Search::missing_pairs() const {
    int n = 0;
    for (char c : pair_lo_) n += c;
    return n;
}

// body(), with a time-out or an interrupt turned into out.finished = false (and out.interrupted)
template <class Out, class Body>
static void stoppable(Out& out, Body&& body) {
    try {
        body();
    } catch (const Timeout&) {
        out.finished = false;
    } catch (const Interrupted&) {
        out.finished = false;
        out.interrupted = true;
    }
}

SolveOutcome Search::solve(int depth, i64 ub, double time_limit, Host* host, double interval, int width,
                           const std::vector<int>* rows, const std::vector<int>* roots, bool satisfice) {
    if (width < 0) throw std::invalid_argument("width must be >= 0");
    check_costs(depth);
    ub = std::clamp<i64>(ub, 0, MAX_UB);  // costs are >= 0 and <= MAX_COST: the same answers
    if (satisfice && width != 0) throw std::invalid_argument("the satisficing search needs width 0");
    t_satisfice = satisfice;  // (see t_satisfice)
    t_next_sat = t_roots_sat = false;
    top_roots_.clear();
    resumable_ = rows == nullptr && width == 0 && roots == nullptr;  // other calls keep resume_
    if (roots != nullptr) {
        if (depth < 3 || width != 0) throw std::invalid_argument("roots needs depth >= 3 and width 0");
        top_roots_.assign(B_, 0);
        for (int g : *roots) {
            if (g < 0 || g >= B_) throw std::invalid_argument("roots must be column indices");
            top_roots_[g] = 1;
        }
    }
    std::vector<int> all;
    if (rows == nullptr) {
        all.resize(m_);
        for (int i = 0; i < m_; ++i) all[i] = i;
    } else {
        for (size_t i = 0; i < rows->size(); ++i)
            if ((*rows)[i] < 0 || (*rows)[i] >= m_ || (i > 0 && (*rows)[i] <= (*rows)[i - 1]))
                throw std::invalid_argument("rows must be ascending distinct-row indices");
        all = *rows;
    }
    if (width > 0 && width != rmemo_width_) {  // restricted answers hold for one width only
        rmemo_.clear();
        rmemo_width_ = width;
    }
    width_ = width;
    start_clock(time_limit, host);
    interval_ = interval;
    next_report_ = interval;
    reported_best_ = INF;
    top_active_ = false;
    top_best_ = INF;
    top_tree_ = NONE;
    top_lb_ = 0;
    top_done_ = top_live_ = -1;
    SolveOutcome out;
    Sub res;
    stoppable(out, [&] { res = solve_node(root_, all, depth, ub, nullptr, nullptr, true); });
    host_ = nullptr;
    if (out.finished) {
        out.value = res.val;
        out.has_tree = res.has_tree();
        if (out.has_tree) out.tree = export_tree(materialize(res));
    } else {
        out.top_valid = top_active_;
        out.top_best = top_best_;
        out.has_top_tree = top_tree_ != NONE;
        if (out.has_top_tree) out.top_tree = export_tree(top_tree_);
        out.top_bound = top_lb_;
        out.top_done = top_done_;
        out.top_live = top_live_;
    }
    return out;
}

GreedyOutcome Search::greedy(int depth, double time_limit, Host* host) {
    check_costs(depth);
    start_clock(time_limit, host);
    const size_t arena0 = arena_->size();
    int ref = NONE;
    GreedyOutcome out;
    stoppable(out, [&] {
        std::vector<int> all(m_);
        for (int i = 0; i < m_; ++i) all[i] = i;
        ref = greedy_node(all, depth, &out.cost);
    });
    host_ = nullptr;
    if (out.finished) out.tree = export_tree(ref);
    arena_->truncate(arena0);  // the greedy's nodes are not the search's
    return out;
}

Stats Search::stats() const {
    return {nodes_, roots_, pairs_, scans_, hits_, static_cast<i64>(memo_.size()), static_cast<i64>(arena_->size()),
            static_cast<i64>(rmemo_.size()), pool_ ? pool_->runs() : 0, pool_ ? pool_->worker_tasks() : 0, merged_,
            waves_, wave_roots_, wave_task_us_, wave_span_us_, resumes_, tables_};
}

// ------------------------------------------------------------------ helpers
void Search::start_clock(double time_limit, Host* host) {
    start_ = std::chrono::steady_clock::now();
    limit_ = time_limit;
    ticks_ = 0;
    next_poll_ = 0.05;
    host_ = host;
}

void Search::poll(double el) {
    next_poll_ = el + 0.05;
    if (owner_ != nullptr) {  // a clone: only the calling thread's calls the host, through its owner
        if (tid_ == 0) owner_->poll(el);
        return;
    }
    if (host_ == nullptr) return;
    // in a pipeline of roots other threads commit roots (the bounds, the incumbent) meanwhile
    std::unique_lock<std::mutex> lk;
    if (pipe_mu_ != nullptr) lk = std::unique_lock<std::mutex>(*pipe_mu_);
    Report rep{};
    const Report* due = nullptr;
    const bool improved = top_best_ < reported_best_;
    if (host_->reports() && (el >= next_report_ || improved)) {
        next_report_ = el + interval_;
        reported_best_ = top_best_;
        rep.elapsed = el;
        rep.has_best = top_best_ < INF;
        rep.best = top_best_;
        rep.nodes = nodes_;
        if (top_lbL_ != nullptr) {  // the top-level roots' bounds: no tree costs less than this
            i64 lb = top_leaf_;
            for (size_t j = 0; j < top_lbL_->size(); ++j) lb = std::min(lb, (*top_lbL_)[j] + (*top_lbR_)[j]);
            rep.has_bound = true;
            rep.bound = lb;
        }
        due = &rep;
    }
    if (lk.owns_lock()) lk.unlock();
    if (!host_->poll(due)) throw Interrupted();
}

TreeArrays Search::export_tree(int ref) const {
    TreeArrays out;
    std::vector<int>& feat = out.feature;
    std::vector<int>& left = out.left;
    std::vector<int>& right = out.right;
    std::vector<int>& label = out.label;
    struct Item { int ref, parent, side; };
    std::vector<Item> st{{ref, -1, 0}};
    while (!st.empty()) {
        Item it = st.back();
        st.pop_back();
        int id = static_cast<int>(feat.size());
        if (it.parent >= 0) (it.side == 0 ? left : right)[it.parent] = id;
        if (it.ref >= 0) {
            const TNode& t = (*arena_)[it.ref];
            feat.push_back(t.col);
            label.push_back(-1);
            left.push_back(-1);
            right.push_back(-1);
            st.push_back({t.right, id, 1});
            st.push_back({t.left, id, 0});
        } else {
            feat.push_back(-1);
            label.push_back(-it.ref - 2);
            left.push_back(-1);
            right.push_back(-1);
        }
    }
    return out;
}

// ------------------------------------------------------------------ the recursion
// Optimum of the rows pos of P at depth <= d if below ub (with a tree), else a lower bound
// >= ub. F / present: counts of pos on P's columns when the caller has them.
Sub Search::solve_node(const View& P, const std::vector<int>& pos, int d, i64 ub, const std::vector<i64>* Fin,
                       const std::vector<char>* presin, bool top) {
    nodes_++;
    const bool sat_here = top ? t_satisfice : t_next_sat;
    t_next_sat = false;
    const int np = static_cast<int>(pos.size());
    std::vector<i64> N(C1_, 0);
    std::vector<int> rows(np);
    for (int a = 0; a < np; ++a) {
        rows[a] = P.rows[pos[a]];
        const i64* wr = w(rows[a]);
        for (int c = 0; c < C1_; ++c) N[c] += wr[c];
    }
    const Sub leaf = leaf_of(N.data());
    i64 lb0 = q_ * N[C_] + 2 * lc_;
    if (d == 0 || leaf.val <= lb0) return leaf;
    if (top && !top_roots_.empty()) return top_part(P, pos, N, d, ub, leaf, lb0, Fin, presin);
    const u64 h = Memo::hash_rows(rows, d);
    const Entry* e = memo_.find(rows, d, h);
    i64 e_lb = 0, e_cost = INF;
    int e_tree = NONE;
    bool found = e != nullptr;
    if (found) {
        e_lb = e->lb;
        e_tree = e->tree;
        e_cost = e->cost;
    } else if (base_ != nullptr) {  // a clone: the owner's memo
        found = shared_find(rows, d, h, e_lb, e_tree, e_cost);
    }
    if (found) {
        hits_++;
        if (e_tree != NONE) {
            Sub s;
            s.val = e_cost;
            s.tree = e_tree;
            return s;
        }
        if (e_lb >= ub) {
            Sub s;
            s.val = e_lb;
            return s;
        }
        lb0 = std::max(lb0, e_lb);
    }
    // the restricted search at depth >= 3 (see solve): its own answers, after the exact ones
    const bool restricted = width_ > 0 && d >= 3;
    if (restricted && (e = rmemo_.find(rows, d, h)) != nullptr) {
        hits_++;
        if (e->tree != NONE || e->lb >= ub) {
            Sub s;
            s.val = e->tree != NONE ? e->cost : e->lb;
            s.tree = e->tree;
            return s;
        }
        lb0 = std::max(lb0, e->lb);
    }
    if (lb0 >= ub) {
        Sub s;
        s.val = lb0;
        return s;
    }
    check_time(static_cast<int>(pos.size()) >= kPollRows);
    std::vector<i64> FV;
    View V = node_view(P, pos, N.data(), Fin, presin, FV);
    const int T = V.T();
    Sub res;
    if (d == 1 || T == 0) {
        res = depth1(FV, T, N.data());
        if (res.stump_col >= 0) res.stump_col = V.gcol[res.stump_col];
        store(rows, d, h, res.val, &res);
        return res;
    }
    if (d == 2 && use_pair_solver(V)) {
        res = pair_depth2(V, FV, N.data());
        store(rows, d, h, res.val, &res);
        return res;
    }
    i64 lb = 0;
    if (d == 2 && V.T() >= 4 * V.p) {  // long chains (numeric features): ConTree's depth-two scan
        res = depth2_scan(V, FV, N.data(), ub, leaf, lb0, top, &lb);
    } else if (restricted) {
        std::vector<int> tests;
        cart_tests(V, FV, N.data(), width_, tests);
        res = root_search(V, FV, N.data(), d, ub, leaf, lb0, top, &lb, &tests);
    } else {
        t_roots_sat = sat_here;
        res = root_search(V, FV, N.data(), d, ub, leaf, lb0, top, &lb);
    }
    if (res.has_tree()) {
        if (sat_here) return res;  // satisficed: below ub, not (known to be) the optimum
        store(rows, d, h, res.val, &res, restricted);
        return res;
    }
    store(rows, d, h, lb, nullptr, restricted);
    Sub s;
    s.val = lb;
    return s;
}

// the node's own view: its rows ``pos`` of P, the columns that split them (useful), and their
// class counts FV (from Fin when the caller counted them, else counted here)
View Search::node_view(const View& P, const std::vector<int>& pos, const i64* N, const std::vector<i64>* Fin,
                       const std::vector<char>* presin, std::vector<i64>& FV) {
    const int np = static_cast<int>(pos.size());
    std::vector<i64> Fown;
    std::vector<char> pown;
    const std::vector<i64>* F = Fin;
    const std::vector<char>* pres = presin;
    if (F == nullptr) {
        count(P, pos.data(), np, Fown, &pown, C1_);
        F = &Fown;
        pres = &pown;
    } else if (pres == nullptr) {
        presence(P, pos.data(), np, pown);
        pres = &pown;
    }
    const int TP = P.T();
    std::vector<int> U = useful(*F, *pres, N, TP);
    View V = subview(P, pos.data(), np, U);
    const int T = V.T();
    FV.assign(static_cast<size_t>(C1_) * T, 0);
    for (int c = 0; c < C1_; ++c)
        for (int j = 0; j < T; ++j) FV[static_cast<size_t>(c) * T + j] = (*F)[static_cast<size_t>(c) * TP + U[j]];
    return V;
}

// the top node of a part of the root's subproblems (solve's roots): the root search over the
// allowed columns only; nothing stored, since the answer holds for those roots only
Sub Search::top_part(const View& P, const std::vector<int>& pos, const std::vector<i64>& N, int d, i64 ub,
                     const Sub& leaf, i64 lb0, const std::vector<i64>* Fin, const std::vector<char>* presin) {
    check_time(static_cast<int>(pos.size()) >= kPollRows);
    std::vector<i64> FV;
    View V = node_view(P, pos, N.data(), Fin, presin, FV);
    const int T = V.T();
    std::vector<int> tests;
    for (int j = 0; j < T; ++j)
        if (top_roots_[V.gcol[j]]) tests.push_back(j);
    if (lb0 >= ub) {
        Sub s;
        s.val = lb0;
        return s;
    }
    i64 lb = 0;
    Sub res = root_search(V, FV, N.data(), d, ub, leaf, lb0, true, &lb, &tests);
    if (res.has_tree()) return res;
    Sub s;
    s.val = lb;
    return s;
}

Sub Search::child(const View& V, const std::vector<int>& pos, int d, i64 ub, const std::vector<i64>& F,
                  const std::vector<char>* pres, const i64* Nside) {
    if (d == 1) {
        Sub s = depth1(F, V.T(), Nside);
        if (s.stump_col >= 0) s.stump_col = V.gcol[s.stump_col];
        return s;
    }
    return solve_node(V, pos, d, ub, &F, pres, false);
}

Sub Search::root_search(const View& V, const std::vector<i64>& F, const i64* N, int d, i64 ub, const Sub& leaf,
                        i64 lb0, bool top, i64* lb_out, const std::vector<int>* tests) {
    const bool sat = t_roots_sat;  // (see t_satisfice)
    t_roots_sat = false;
    const int T = V.T(), n = V.n();
    i64 tot = 0;
    for (int c = 0; c < C_; ++c) tot += N[c];
    std::vector<i64> lbL(T), lbR(T), ftot(T);
    std::vector<double> tie(T);
    root_bounds(F, T, N, tot, lbL, lbR, tie, ftot);
    TopBounds top_bounds(this, top, lbL, lbR, leaf.val);
    std::vector<char> open(T, tests == nullptr);  // tests: the only roots tried (the restricted search)
    if (tests != nullptr)
        for (int j : *tests) open[j] = 1;
    Incumbent inc(leaf, ub);
    if (sat && inc.best < ub) return roots_result(V, leaf, inc, lbL, lbR, ub, lb0, top, lb_out);  // the leaf
    // the whole problem's complete search resumes where its last time cap stopped it (TopResume)
    const bool keep = top && resumable_ && tests == nullptr && owner_ == nullptr && !sat;
    if (keep) resume_top(d, ub, lbL, lbR, open, inc);
    const i64& bound = inc.bound;  // what a root must beat: min(ub, best so far)
    std::vector<int> posL, posR;
    posL.reserve(n);
    posR.reserve(n);
    std::vector<i64> FL, FR(static_cast<size_t>(C1_) * T), NL(C1_), NR(C1_);
    std::vector<char> presL, presR;
    RootQueue<RootKey> queue(T, RootKey{lbL, lbR, tie});
    int run_lo = 0, run_hi = 0;  // the open interval of the root evaluated
    const bool leafy = d - 1 == 1;  // depth-one children: classes only, no presence
    const int rowsF = leafy ? C_ : C1_;
    // counting by bitsets when its popcounts are fewer than the scattered increments (short
    // chains: binary data); the estimate counts one plane per class row (set_count_paths: forced)
    const bool by_bits = bits_path_ >= 0 ? bits_path_ >= 1 : bits_work(V, rowsF) * 1.5 < 0.5 * n * V.p;
    ViewBits bits;
    std::vector<u64> maskL, maskR;
    if (by_bits) {
        build_bits(V, bits);
        maskL.resize(bits.W);
        maskR.resize(bits.W);
    }
    if (top && owner_ == nullptr) {  // the nodes whose roots run on the threads (set_root_level)
        top_d_ = d;
        level_ = root_level_ >= 0 ? root_level_ : d >= kRootLevelDepth + 2 ? d - kRootLevelDepth : 0;
    }
    const bool level = top ? level_ == 0 : level_ > 0 && d == top_d_ - level_;
    const bool waves = level && pool_ && pool_->active() > 1 && root_wave_ >= 0 && width_ == 0 && tests == nullptr &&
                       d >= 3 && owner_ == nullptr && !sat;
    int current = -1;  // the root being evaluated (open again when the time limit cuts it)
    // missing-value pairs on this node (pair_kinds; kind 1: chain k sends the missing rows M
    // left, kind 3: chain k + 1 sends them right, the present rows split alike by both)
    std::vector<char> kind(V.p, 0);
    if (pairing_) pair_kinds(V, kind);
    // the missing rows' bound of each pair (missing_bounds), and the floors it puts under the
    // roots' children bounds: used to skip a root, not to order the roots
    std::vector<i64> pair_e(V.p, -1), floorL, floorR;
    try {
        if (pairing_ && missing_bound_ && d == 3 && !sat && tests == nullptr) {  // (not the restricted search)
            floorL.assign(T, 0);
            floorR.assign(T, 0);
            missing_bounds(V, F, N, kind, d, floorL, floorR, pair_e);
        }
        if (waves && d >= 4 && root_wave_ == 0) {
            root_pipeline(V, F, N, d, ub, lb0, tot, ftot, lbL, lbR, open, queue, inc, by_bits ? &bits : nullptr, pair_e,
                          floorL, floorR, top);
            return roots_result(V, leaf, inc, lbL, lbR, ub, lb0, top, lb_out);
        }
        if (waves) {
            root_waves(V, F, N, d, ub, lb0, tot, ftot, lbL, lbR, open, queue, inc, by_bits ? &bits : nullptr, pair_e,
                       floorL, floorR, top);
            return roots_result(V, leaf, inc, lbL, lbR, ub, lb0, top, lb_out);
        }
        while (true) {
            current = -1;
            check_time(V.n() >= kPollRows);
            const int t = pick_root(V, lbL, lbR, open, queue, bound, floorL, floorR, &run_lo, &run_hi,
                                    [](int) { return false; });
            if (t < 0) break;
            current = t;
            roots_++;
            const int ch = V.cchain[t], lv = V.clevel[t];
            posL.clear();
            posR.clear();
            for (int a = 0; a < n; ++a) (V.bucket[static_cast<size_t>(a) * V.p + ch] >= lv ? posR : posL).push_back(a);
            if (by_bits) {
                const u64* ct = &bits.col[static_cast<size_t>(t) * bits.W];
                for (int x = 0; x < bits.W; ++x) {
                    const u64 valid = x + 1 < bits.W || (n & 63) == 0 ? ~0ULL : (1ULL << (n & 63)) - 1;
                    maskR[x] = ct[x];
                    maskL[x] = ~ct[x] & valid;
                }
                count_bits(V, bits, maskL.data(), FL, leafy ? nullptr : &presL, rowsF);
            } else {
                count(V, posL.data(), static_cast<int>(posL.size()), FL, leafy ? nullptr : &presL, rowsF);
            }
            for (int c = 0; c < C_; ++c) {
                NR[c] = F[static_cast<size_t>(c) * T + t];
                NL[c] = N[c] - NR[c];
            }
            const i64 nL = tot - ftot[t], nR = ftot[t];
            for (size_t x = 0, e = static_cast<size_t>(rowsF) * T; x < e; ++x) FR[x] = F[x] - FL[x];
            if (!leafy) {
                if (by_bits)
                    presence_bits(bits, T, maskR.data(), presR);
                else
                    presence(V, posR.data(), static_cast<int>(posR.size()), presR);
            }
            // the larger side first (ConTree [3]): it decides most often that the root fails. A
            // root of a missing-value pair: the side without M first (the right of a kind-1 root,
            // the left of a kind-3 one), a subset of that side of the other chain's root at the
            // same split point (its twin), so similar() passes its value to the twin whole (the
            // side with M passes its value minus q w(M)); when the root fails on that side, its
            // twin keeps a bound as tight as its own child would give. Only the order of the
            // two children changes: the same optimum.
            bool left_first = nL >= nR;
            if (kind[ch] == 1 || kind[ch] == 3) left_first = kind[ch] == 3;
            Sub sl, sr;
            Sub& s1 = left_first ? sl : sr;
            Sub& s2 = left_first ? sr : sl;
            const std::vector<int>& pos1 = left_first ? posL : posR;
            const std::vector<int>& pos2 = left_first ? posR : posL;
            const std::vector<i64>& F1 = left_first ? FL : FR;
            const std::vector<i64>& F2 = left_first ? FR : FL;
            std::vector<char>* pres1 = leafy ? nullptr : (left_first ? &presL : &presR);
            std::vector<char>* pres2 = leafy ? nullptr : (left_first ? &presR : &presL);
            std::vector<i64>& lb1 = left_first ? lbL : lbR;
            std::vector<i64>& lb2 = left_first ? lbR : lbL;
            s1 = child(V, pos1, d - 1, bound - lb2[t], F1, pres1, left_first ? NL.data() : NR.data());
            similar(s1.val, F1, T, left_first ? nL : nR, lb1, lb2, left_first);
            {  // a pair's root: s1 is its side without M (the missing rows' bound)
                const int kp = kind[ch] == 1 ? ch : kind[ch] == 3 ? ch - 1 : -1;
                if (kp >= 0 && pair_e[kp] >= 0)
                    similar_missing(s1.val, F1, T, left_first ? nL : nR, V, kp, pair_e[kp], floorL, floorR);
            }
            if (!s1.has_tree() || s1.val + lb2[t] >= bound) continue;
            // the second child gets ConTree's extra budget [3]: the rows between the root and the
            // ends of its interval, so that its value can rule out the whole interval
            const i64 extra = sat ? 0 : q_ * std::max(ftot[run_lo] - ftot[t], ftot[t] - ftot[run_hi]);
            t_next_sat = sat;
            s2 = child(V, pos2, d - 1, bound - s1.val + extra, F2, pres2, left_first ? NR.data() : NL.data());
            t_next_sat = false;
            if (sat && s2.has_tree() && sl.val + sr.val < inc.bound) {  // any tree below the bound
                adopt(inc, V, t, sl, sr, ub, lb0, top);
                break;
            }  // (else s2 is exact or a proven bound: a satisficed tree is always below its budget)
            similar(s2.val, F2, T, left_first ? nR : nL, lb2, lb1, !left_first);
            if (sr.has_tree() && sl.val + sr.val < inc.bound && adopt(inc, V, t, sl, sr, ub, lb0, top)) break;
        }
    } catch (const Cut&) {  // its time cap or the host's stop (a slice's `stop`, the deadline)
        if (top) record_top_bound(leaf.val, lbL, lbR, inc);
        if (keep) {
            if (current >= 0) open[current] = 1;
            keep_top(d, ub, lbL, lbR, open, inc);
        }
        throw;
    }
    return roots_result(V, leaf, inc, lbL, lbR, ub, lb0, top, lb_out);
}

}  // namespace satdt_dp
