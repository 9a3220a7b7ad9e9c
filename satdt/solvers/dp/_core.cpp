// satdt.solvers.dp._core: the compiled branch and bound of satdt's exact DP [1, 2].
//
// One search object per (problem, cost): cost of a tree = q * errors + lc * leaves (max accuracy:
// q = 1, lc = 0; regularized [4, 5]: lc = p * n). The algorithm is the one documented in
// satdt/solvers/dp/__init__.py (module docstring) and implemented, for reference only, in numpy
// by satdt/solvers/dp/reference.py; tests compare the two on random instances.
//
// Data: m distinct rows; p chains of nested columns (a column is "rank[row, chain] >= level");
// class weights per row (merged duplicates), plus each row's leaf-conflict errors.
//
// A node of the search is a View: its rows and, per chain, a *compressed* rank (bucket): only
// the columns that still split the node are kept, renumbered 1..t per chain, so counting on a
// node costs O(rows x chains + columns of the node), never the columns of the whole problem.
//
// Per node (rows S, depth d, upper bound ub): MurTree's upper-bound semantics [2, sec. 4.5]: the
// exact optimum when it is below ub (with its tree), else a lower bound >= ub (cached).
//   - depth 1 from the column counts ("frequency counting" [2, sec. 4.2]);
//   - depth 2 by the specialised pair-count solver [2, sec. 4.3]: pair counts per class by
//     bitsets (one word per 64 rows, weight bit-planes) or, for long chains (thresholds of a
//     numeric feature), by 2-D histograms of two chains' buckets with suffix sums;
//   - depth >= 2 by the root search: roots best-first by their children's lower bounds, the
//     leaf-conflict bound, the similarity bound of every solved child on every other root
//     [2, sec. 4.6; 3], the incumbent's upper bound, a memo over (row set, depth).
// References are numbered as in satdt/REFERENCES.md.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <functional>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <vector>

namespace py = pybind11;
using i64 = int64_t;
using u64 = uint64_t;

namespace {

const i64 INF = std::numeric_limits<i64>::max() / 4;

// ---------------------------------------------------------------- popcount kernels
// popcount(a & b) and popcount(a & b & c) over W words: the inner loops of the pair counts and of
// frequency counting by bitsets. Built twice: for CPUs with AVX-512 VPOPCNTQ (8 words per
// instruction; chosen at run time, so the module still runs on any x86-64) and portable.
#define SATDT_POPCOUNT_BODY(EXPR)                                   \
    i64 cnt = 0;                                                    \
    for (int x = 0; x < W; ++x) cnt += __builtin_popcountll(EXPR);  \
    return cnt;

i64 and2_portable(const u64* __restrict a, const u64* __restrict b, int W) { SATDT_POPCOUNT_BODY(a[x] & b[x]) }
i64 and3_portable(const u64* __restrict a, const u64* __restrict b, const u64* __restrict c, int W) {
    SATDT_POPCOUNT_BODY(a[x] & b[x] & c[x])
}
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
__attribute__((target("avx512f,avx512vpopcntdq"))) i64 and2_avx512(const u64* __restrict a, const u64* __restrict b,
                                                                  int W) {
    SATDT_POPCOUNT_BODY(a[x] & b[x])
}
__attribute__((target("avx512f,avx512vpopcntdq"))) i64 and3_avx512(const u64* __restrict a, const u64* __restrict b,
                                                                  const u64* __restrict c, int W) {
    SATDT_POPCOUNT_BODY(a[x] & b[x] & c[x])
}
bool has_vpopcnt() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq");
}
const bool kVpopcnt = has_vpopcnt();
inline i64 popcount_and(const u64* a, const u64* b, int W) { return kVpopcnt ? and2_avx512(a, b, W) : and2_portable(a, b, W); }
inline i64 popcount_and(const u64* a, const u64* b, const u64* c, int W) {
    return kVpopcnt ? and3_avx512(a, b, c, W) : and3_portable(a, b, c, W);
}
#else
inline i64 popcount_and(const u64* a, const u64* b, int W) { return and2_portable(a, b, W); }
inline i64 popcount_and(const u64* a, const u64* b, const u64* c, int W) { return and3_portable(a, b, c, W); }
#endif
#undef SATDT_POPCOUNT_BODY

struct Timeout {};
struct Interrupted {};  // a Python signal (Ctrl-C) or an exception raised by the progress callback

// A tree reference: >= 0 an arena split node, <= -2 a leaf of class (-ref - 2), -1 none.
inline int leaf_ref(int label) { return -label - 2; }
const int NONE = -1;

struct TNode {
    int col;    // global column (chain order)
    int left;   // tree reference
    int right;
};

struct View {
    std::vector<int> rows;        // global distinct-row ids, ascending
    int p = 0;                    // chains kept
    std::vector<int> col0;        // first local column of each chain, size p + 1 (col0[p] = T)
    std::vector<int> gcol;        // local column -> global column
    std::vector<int> cchain;      // local column -> chain
    std::vector<int> clevel;      // local column -> level (1-based)
    std::vector<int32_t> bucket;  // rows x p, 0..t_k
    int T() const { return col0.empty() ? 0 : col0[p]; }
    int n() const { return static_cast<int>(rows.size()); }
};

// A child's answer: a tree reference, or a depth-one stump still to be built.
struct Sub {
    i64 val = INF;
    int tree = NONE;  // tree reference (NONE: only a lower bound)
    int stump_col = -1, lab_l = 0, lab_r = 0;
    bool has_tree() const { return tree != NONE || stump_col >= 0; }
};

struct Entry {
    std::vector<int> rows;
    int depth;
    i64 lb;
    i64 cost;  // valid when tree != NONE
    int tree;
};

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
        while (!heap_.empty()) {
            const auto [k, j] = heap_.front();
            std::pop_heap(heap_.begin(), heap_.end(), later_);
            heap_.pop_back();
            if (!open[j]) continue;
            const double cur = key_(j);
            heap_.push_back({cur, j});
            std::push_heap(heap_.begin(), heap_.end(), later_);
            if (cur > k) continue;
            *kmin = cur;
            return j;
        }
        return -1;
    }

  private:
    Key key_;
    std::vector<std::pair<double, int>> heap_;
    std::greater<std::pair<double, int>> later_;
};

class Search {
  public:
    Search(py::array_t<int32_t, py::array::c_style | py::array::forcecast> rank,
           py::array_t<int32_t, py::array::c_style | py::array::forcecast> col_chain,
           py::array_t<int32_t, py::array::c_style | py::array::forcecast> col_level,
           py::array_t<int64_t, py::array::c_style | py::array::forcecast> counts, i64 q, i64 lc,
           double pair_ops)
        : q_(q), lc_(lc), pair_ops_(pair_ops) {
        if (rank.ndim() != 2 || counts.ndim() != 2 || col_chain.ndim() != 1 || col_level.ndim() != 1)
            throw std::invalid_argument("rank and counts must be 2-D, col_chain and col_level 1-D");
        m_ = static_cast<int>(rank.shape(0));
        int p = static_cast<int>(rank.shape(1));
        C_ = static_cast<int>(counts.shape(1));
        C1_ = C_ + 1;
        B_ = static_cast<int>(col_chain.shape(0));
        if (counts.shape(0) != m_ || col_level.shape(0) != B_ || C_ < 1)
            throw std::invalid_argument("shapes of rank, counts, col_chain, col_level disagree");
        auto r = rank.unchecked<2>();
        auto w = counts.unchecked<2>();
        auto cc = col_chain.unchecked<1>();
        auto cl = col_level.unchecked<1>();
        wext_.assign(static_cast<size_t>(m_) * C1_, 0);
        for (int i = 0; i < m_; ++i) {
            i64 tot = 0, mx = 0;
            for (int c = 0; c < C_; ++c) {
                i64 v = w(i, c);
                if (v < 0) throw std::invalid_argument("negative class count");
                wext_[static_cast<size_t>(i) * C1_ + c] = v;
                tot += v;
                mx = std::max(mx, v);
            }
            wext_[static_cast<size_t>(i) * C1_ + C_] = tot - mx;  // leaf-conflict errors
        }
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
    }

    // Solve the whole problem at depth d with upper bound ub within time_limit seconds.
    // progress(elapsed, best cost or None, nodes) is called every `interval` seconds and soon
    // after each new top-level incumbent; Python signals (Ctrl-C) are polled every 50 ms.
    //
    // width > 0: the restricted (anytime) search: a node of depth >= 3 tries only the first `width`
    // tests (breadth first) of CART's tree grown on its rows (DPDT's candidate tests [9]); nodes of
    // depth <= 2 are solved exactly. Its answers are trees (upper bounds), never bounds: they are kept in
    // a memo of their own, and the exact memo is only read. rows: solve on these distinct rows
    // only (a subtree of an incumbent; None: all rows).
    py::dict solve(int depth, i64 ub, double time_limit, py::object progress, double interval, int width,
                   py::object rows) {
        start_clock(time_limit);
        if (width < 0) throw std::invalid_argument("width must be >= 0");
        if (width > 0 && width != rmemo_width_) {  // restricted answers hold for one width only
            rentries_.clear();
            rmemo_.clear();
            rmemo_width_ = width;
        }
        width_ = width;
        std::vector<int> all;
        if (rows.is_none()) {
            all.resize(m_);
            for (int i = 0; i < m_; ++i) all[i] = i;
        } else {
            auto r = rows.cast<py::array_t<int64_t, py::array::c_style | py::array::forcecast>>();
            auto v = r.unchecked<1>();
            all.resize(v.shape(0));
            for (py::ssize_t i = 0; i < v.shape(0); ++i) {
                if (v(i) < 0 || v(i) >= m_ || (i > 0 && v(i) <= v(i - 1)))
                    throw std::invalid_argument("rows must be ascending distinct-row indices");
                all[i] = static_cast<int>(v(i));
            }
        }
        progress_ = progress;
        interval_ = interval;
        next_report_ = interval;
        reported_best_ = INF;
        top_active_ = false;
        top_best_ = INF;
        top_tree_ = NONE;
        top_lb_ = 0;
        py::dict out;
        bool finished = true;
        Sub res;
        {
            py::gil_scoped_release release;
            try {
                res = solve_node(root_, all, depth, ub, nullptr, nullptr, true);
            } catch (const Timeout&) {
                finished = false;
            } catch (const Interrupted&) {
                finished = false;
            }
        }
        progress_ = py::none();
        if (py_error_) throw py::error_already_set();
        out["finished"] = finished;
        if (finished) {
            out["value"] = res.val;
            out["tree"] = res.has_tree() ? export_tree(materialize(res)) : py::object(py::none());
        } else {
            out["top_valid"] = top_active_;
            out["top_best"] = top_best_;
            out["top_tree"] = top_tree_ != NONE ? export_tree(top_tree_) : py::object(py::none());
            out["top_bound"] = top_lb_;
        }
        return out;
    }

    // CART's Gini-greedy tree of depth <= depth over all rows: the search's incumbent, the same
    // choices as SearchBase.greedy (satdt/solvers/dp/search.py): at each node the useful column
    // of largest sum_c F_c^2 / |right| + sum_c (N_c - F_c)^2 / |left| (the first on ties), kept
    // only when its subtrees cost less than the leaf. (cost, preorder arrays as solve's tree), or
    // None when time_limit ran out. O(rows x chains + columns) per node, no copy of the data.
    py::object greedy(int depth, double time_limit) {
        start_clock(time_limit);
        const size_t arena0 = arena_.size();
        int ref = NONE;
        i64 cost = 0;
        bool finished = true;
        {
            py::gil_scoped_release release;
            try {
                std::vector<int> all(m_);
                for (int i = 0; i < m_; ++i) all[i] = i;
                ref = greedy_node(all, depth, &cost);
            } catch (const Timeout&) {
                finished = false;
            } catch (const Interrupted&) {
                finished = false;
            }
        }
        if (py_error_) throw py::error_already_set();
        py::object out = finished ? py::object(py::make_tuple(cost, export_tree(ref))) : py::object(py::none());
        arena_.resize(arena0);  // the greedy's nodes are not the search's
        return out;
    }

    py::dict stats() const {
        py::dict d;
        d["nodes"] = nodes_;
        d["roots_evaluated"] = roots_;
        d["pair_solves"] = pairs_;
        d["depth2_scans"] = scans_;
        d["memo_hits"] = hits_;
        d["memo_entries"] = static_cast<i64>(entries_.size());
        d["restricted_entries"] = static_cast<i64>(rentries_.size());
        d["tree_nodes"] = static_cast<i64>(arena_.size());
        return d;
    }

  private:
    int m_, C_, C1_, B_;
    i64 q_, lc_;
    double pair_ops_;
    std::vector<i64> wext_;
    std::vector<int> nz_off_, nz_cls_;
    std::vector<i64> nz_w_;
    View root_;
    std::vector<TNode> arena_;
    std::vector<Entry> entries_;
    std::unordered_map<u64, std::vector<int>> memo_;
    int width_ = 0;                                     // > 0: the restricted search (see solve)
    int rmemo_width_ = 0;                               // the width of rmemo_'s answers
    std::vector<Entry> rentries_;                       // its memo: restricted optima / bounds
    std::unordered_map<u64, std::vector<int>> rmemo_;
    std::chrono::steady_clock::time_point start_;
    double limit_ = 1e300;
    i64 ticks_ = 0;
    py::object progress_ = py::none();
    const std::vector<i64>* top_lbL_ = nullptr;  // the top-level root search's bounds, for progress
    const std::vector<i64>* top_lbR_ = nullptr;
    i64 top_leaf_ = 0;

    // registers the bounds of the top-level root search for progress reports while it runs
    struct TopBounds {
        Search* s;
        TopBounds(Search* search, bool top, const std::vector<i64>& lbL, const std::vector<i64>& lbR, i64 leaf)
            : s(top && search->width_ == 0 ? search : nullptr) {
            if (s) { s->top_lbL_ = &lbL; s->top_lbR_ = &lbR; s->top_leaf_ = leaf; }
        }
        ~TopBounds() { if (s) { s->top_lbL_ = nullptr; s->top_lbR_ = nullptr; } }
    };
    double interval_ = 2.0, next_poll_ = 0.05, next_report_ = 2.0;
    i64 reported_best_ = INF;
    bool py_error_ = false;
    i64 nodes_ = 0, roots_ = 0, pairs_ = 0, hits_ = 0, scans_ = 0;
    bool top_active_ = false;
    i64 top_best_ = INF, top_lb_ = 0;
    int top_tree_ = NONE;
    std::vector<i64> scratch_h_;
    std::vector<int> scratch_occ_;
    std::vector<char> scratch_seen_;
    std::vector<i64> scratch_a_, scratch_b_;
    std::vector<int32_t> scan_bkt_, scan_w_, scan_w1_;  // depth2_scan's per-unit tables, reused
    std::vector<i64> scan_wpre_, scan_w1pre_;

    // ------------------------------------------------------------------ helpers
    // a call's clock (solve, greedy): check_time counts from now
    void start_clock(double time_limit) {
        start_ = std::chrono::steady_clock::now();
        limit_ = time_limit;
        ticks_ = 0;
        next_poll_ = 0.05;
        py_error_ = false;
    }

    void check_time(bool force = false) {
        if (!force && (++ticks_ & 63) != 0) return;
        double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        if (el > limit_) throw Timeout();
        if (el >= next_poll_) poll(el);
    }

    // with the GIL: Python's pending signals, then the progress callback when it is due
    void poll(double el) {
        next_poll_ = el + 0.05;
        py::gil_scoped_acquire gil;
        if (PyErr_CheckSignals() != 0) {
            py_error_ = true;
            throw Interrupted();
        }
        bool improved = top_best_ < reported_best_;
        if (progress_.is_none() || (el < next_report_ && !improved)) return;
        next_report_ = el + interval_;
        reported_best_ = top_best_;
        py::object best = top_best_ < INF ? py::object(py::int_(top_best_)) : py::object(py::none());
        py::object bound = py::none();
        if (top_lbL_ != nullptr) {  // the top-level roots' bounds: no tree costs less than this
            i64 lb = top_leaf_;
            for (size_t j = 0; j < top_lbL_->size(); ++j) lb = std::min(lb, (*top_lbL_)[j] + (*top_lbR_)[j]);
            bound = py::int_(lb);
        }
        try {
            progress_(el, best, bound, nodes_);
        } catch (py::error_already_set& e) {
            e.restore();
            py_error_ = true;
            throw Interrupted();
        }
    }

    const i64* w(int row) const { return &wext_[static_cast<size_t>(row) * C1_]; }

    int argmax(const i64* v, int stride = 1) const {
        int best = 0;
        for (int c = 1; c < C_; ++c)
            if (v[c * stride] > v[best * stride]) best = c;
        return best;
    }

    int new_split(int col, int left, int right) {
        arena_.push_back({col, left, right});
        return static_cast<int>(arena_.size()) - 1;
    }

    int materialize(const Sub& s) {
        if (s.stump_col >= 0) return new_split(s.stump_col, leaf_ref(s.lab_l), leaf_ref(s.lab_r));
        return s.tree;
    }

    // preorder arrays (feature column, left index, right index, label); leaves have feature -1
    py::tuple export_tree(int ref) const {
        std::vector<int> feat, left, right, label;
        std::vector<std::pair<int, int>> stack;  // (ref, slot to patch: index*2 + side, -1 root)
        struct Item { int ref, parent, side; };
        std::vector<Item> st{{ref, -1, 0}};
        while (!st.empty()) {
            Item it = st.back();
            st.pop_back();
            int id = static_cast<int>(feat.size());
            if (it.parent >= 0) (it.side == 0 ? left : right)[it.parent] = id;
            if (it.ref >= 0) {
                const TNode& t = arena_[it.ref];
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
        return py::make_tuple(py::array_t<int>(feat.size(), feat.data()), py::array_t<int>(left.size(), left.data()),
                              py::array_t<int>(right.size(), right.data()),
                              py::array_t<int>(label.size(), label.data()));
    }

    // ------------------------------------------------------------------ memo
    static u64 hash_rows(const std::vector<int>& rows, int depth) {
        u64 h = 1469598103934665603ULL ^ static_cast<u64>(depth) * 0x9E3779B97F4A7C15ULL;
        for (int r : rows) {
            h ^= static_cast<u64>(r) + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
        }
        return h ^ rows.size();
    }

    // restricted = true: the restricted search's own memo (see solve)
    Entry* find(const std::vector<int>& rows, int depth, u64 h, bool restricted = false) {
        auto& memo = restricted ? rmemo_ : memo_;
        auto& entries = restricted ? rentries_ : entries_;
        auto it = memo.find(h);
        if (it == memo.end()) return nullptr;
        for (int idx : it->second) {
            Entry& e = entries[idx];
            if (e.depth == depth && e.rows == rows) return &e;
        }
        return nullptr;
    }

    void store(const std::vector<int>& rows, int depth, u64 h, i64 lb, const Sub* opt, bool restricted = false) {
        auto& memo = restricted ? rmemo_ : memo_;
        auto& entries = restricted ? rentries_ : entries_;
        Entry* e = find(rows, depth, h, restricted);
        if (e == nullptr) {
            entries.push_back({rows, depth, lb, INF, NONE});
            memo[h].push_back(static_cast<int>(entries.size()) - 1);
            e = &entries.back();
        } else {
            e->lb = std::max(e->lb, lb);
        }
        if (opt != nullptr) {
            Sub s = *opt;
            e->tree = materialize(s);
            e->cost = opt->val;
            e->lb = opt->val;
        }
    }

    // ------------------------------------------------------------------ counting
    // Class weights (+ conflict errors) on the right of every column of V, over positions pos;
    // F[c * T + j], present[j]: some row sits exactly at the column's level.
    // rows: C1_ (classes and conflict errors) or C_ (classes only, for depth-one children);
    // present: filled unless null
    void count(const View& V, const int* pos, int np, std::vector<i64>& F, std::vector<char>* present,
               int rows) {
        const int T = V.T(), p = V.p, S = T + p;
        std::vector<i64>& H = scratch_h_;   // class-major; reused: no allocation per call
        std::vector<int>& occ = scratch_occ_;
        H.assign(static_cast<size_t>(S) * C1_, 0);
        if (present != nullptr) occ.assign(S, 0);
        for (int a = 0; a < np; ++a) {
            const int r = pos[a], row = V.rows[r];
            const int32_t* b = &V.bucket[static_cast<size_t>(r) * p];
            const int z0 = nz_off_[row], z1 = nz_off_[row + 1];
            for (int k = 0; k < p; ++k) {
                const int s = V.col0[k] + k + b[k];
                if (present != nullptr) occ[s]++;
                for (int z = z0; z < z1; ++z) H[static_cast<size_t>(nz_cls_[z]) * S + s] += nz_w_[z];
            }
        }
        F.resize(static_cast<size_t>(C1_) * T);
        for (int c = 0; c < rows; ++c) {
            const i64* h = &H[static_cast<size_t>(c) * S];
            i64* f = &F[static_cast<size_t>(c) * T];
            for (int k = 0; k < p; ++k) {
                i64 run = 0;
                const int base = V.col0[k];
                for (int l = V.col0[k + 1] - base; l >= 1; --l) {
                    run += h[base + k + l];
                    f[base + l - 1] = run;
                }
            }
        }
        if (present == nullptr) return;
        present->resize(T);
        for (int k = 0; k < p; ++k)
            for (int l = 1; l <= V.col0[k + 1] - V.col0[k]; ++l)
                (*present)[V.col0[k] + l - 1] = occ[V.col0[k] + k + l] > 0;
    }

    // Frequency counting by bitsets, for the root search of a node with short chains (binary
    // data): each column's rows as a bitset and each class's weights as bit-planes, built once per
    // node; then the counts of a child (a mask of the node's rows) are popcounts, T x planes x
    // words per root instead of rows x chains scattered increments.
    struct ViewBits {
        int W = 0;
        std::vector<u64> col;                    // T x W: rows right of column j
        std::vector<u64> plane;                  // planes x W
        std::vector<int> plane_class, plane_shift;
        std::vector<int> next;                   // next column of j's chain, or -1
    };

    static double bits_work(const View& V, int planes) {
        return static_cast<double>(V.T()) * planes * ((V.n() + 63) / 64);
    }

    // each column's rows (right of it) as a bitset: T x W words; a one-level chain (a binary
    // column) is set without a branch per row
    static void column_bits(const View& V, int W, std::vector<u64>& col) {
        const int n = V.n(), p = V.p;
        col.assign(static_cast<size_t>(V.T()) * W, 0);
        for (int r = 0; r < n; ++r) {
            const int32_t* b = &V.bucket[static_cast<size_t>(r) * p];
            const int shift = r & 63;
            u64* word = col.data() + (r >> 6);
            for (int k = 0; k < p; ++k) {
                const int c0 = V.col0[k];
                if (V.col0[k + 1] - c0 == 1) {
                    word[static_cast<size_t>(c0) * W] |= static_cast<u64>(b[k]) << shift;
                } else {
                    for (int l = 1; l <= b[k]; ++l) word[static_cast<size_t>(c0 + l - 1) * W] |= 1ULL << shift;
                }
            }
        }
    }

    void build_bits(const View& V, ViewBits& B) const {
        const int T = V.T(), n = V.n(), p = V.p, W = (n + 63) / 64;
        B.W = W;
        column_bits(V, W, B.col);
        B.plane.clear();
        B.plane_class.clear();
        B.plane_shift.clear();
        for (int c = 0; c < C1_; ++c) {
            i64 mx = 0;
            for (int r = 0; r < n; ++r) mx = std::max(mx, w(V.rows[r])[c]);
            for (int k = 0; (mx >> k) > 0; ++k) {
                const size_t off = B.plane.size();
                B.plane.resize(off + W, 0);
                for (int r = 0; r < n; ++r)
                    if ((w(V.rows[r])[c] >> k) & 1) B.plane[off + (r >> 6)] |= 1ULL << (r & 63);
                B.plane_class.push_back(c);
                B.plane_shift.push_back(k);
            }
        }
        B.next.assign(T, -1);
        for (int k = 0; k < p; ++k)
            for (int j = V.col0[k]; j + 1 < V.col0[k + 1]; ++j) B.next[j] = j + 1;
    }

    // count() over the rows of `mask` (a subset of the node's rows), by popcounts
    void count_bits(const View& V, const ViewBits& B, const u64* mask, std::vector<i64>& F,
                    std::vector<char>* present, int rows) const {
        const int T = V.T(), W = B.W, NP = static_cast<int>(B.plane_class.size());
        F.assign(static_cast<size_t>(C1_) * T, 0);
        std::vector<u64> mp(static_cast<size_t>(NP) * W);  // each plane restricted to the mask
        std::vector<int> planes;
        for (int pl = 0; pl < NP; ++pl) {
            if (B.plane_class[pl] >= rows) continue;
            for (int x = 0; x < W; ++x) mp[static_cast<size_t>(pl) * W + x] = B.plane[static_cast<size_t>(pl) * W + x] & mask[x];
            planes.push_back(pl);
        }
        for (int j = 0; j < T; ++j) {
            const u64* cj = &B.col[static_cast<size_t>(j) * W];
            for (int pl : planes) {
                const i64 cnt = popcount_and(cj, &mp[static_cast<size_t>(pl) * W], W);
                F[static_cast<size_t>(B.plane_class[pl]) * T + j] += cnt << B.plane_shift[pl];
            }
        }
        if (present != nullptr) presence_bits(B, T, mask, *present);
    }

    // present[j]: some row of `mask` sits exactly at column j's level (right of j, not of the next)
    static void presence_bits(const ViewBits& B, int T, const u64* mask, std::vector<char>& present) {
        const int W = B.W;
        present.assign(T, 0);
        for (int j = 0; j < T; ++j) {
            const u64* cj = &B.col[static_cast<size_t>(j) * W];
            const u64* cn = B.next[j] >= 0 ? &B.col[static_cast<size_t>(B.next[j]) * W] : nullptr;
            u64 any = 0;
            for (int x = 0; x < W && !any; ++x) any = cj[x] & mask[x] & (cn ? ~cn[x] : ~0ULL);
            present[j] = any != 0;
        }
    }

    void presence(const View& V, const int* pos, int np, std::vector<char>& present) {
        const int T = V.T(), p = V.p;
        std::vector<char>& occ = scratch_seen_;
        occ.assign(T + p, 0);
        for (int a = 0; a < np; ++a) {
            const int32_t* b = &V.bucket[static_cast<size_t>(pos[a]) * p];
            for (int k = 0; k < p; ++k) occ[V.col0[k] + k + b[k]] = 1;
        }
        present.assign(T, 0);
        for (int k = 0; k < p; ++k)
            for (int l = 1; l <= V.col0[k + 1] - V.col0[k]; ++l) present[V.col0[k] + l - 1] = occ[V.col0[k] + k + l];
    }

    // columns that split the node into two non-empty sides (one per distinct split), and, with a
    // leaf cost, pass OSDT's leaf-support bound [4, Theorem 3.5]
    std::vector<int> useful(const std::vector<i64>& F, const std::vector<char>& present, const i64* N, int T) const {
        std::vector<int> U;
        i64 tot = 0;
        for (int c = 0; c < C_; ++c) tot += N[c];
        for (int j = 0; j < T; ++j) {
            if (!present[j]) continue;
            i64 ft = 0, mr = 0, ml = 0;
            for (int c = 0; c < C_; ++c) {
                i64 f = F[static_cast<size_t>(c) * T + j];
                ft += f;
                mr = std::max(mr, f);
                ml = std::max(ml, N[c] - f);
            }
            if (ft <= 0 || ft >= tot) continue;
            if (lc_ > 0 && (q_ * mr < lc_ || q_ * ml < lc_)) continue;
            U.push_back(j);
        }
        return U;
    }

    // the rows pos of P, keeping the columns keep (ascending local columns of P)
    View subview(const View& P, const int* pos, int np, const std::vector<int>& keep) const {
        View V;
        V.rows.resize(np);
        for (int a = 0; a < np; ++a) V.rows[a] = P.rows[pos[a]];
        std::vector<int> newchain(P.p, -1);
        std::vector<int> map_off(P.p + 1, 0);  // offsets into lvmap: per chain t_k + 1 entries
        for (int k = 0; k < P.p; ++k) map_off[k + 1] = map_off[k] + (P.col0[k + 1] - P.col0[k]) + 1;
        std::vector<int> lvmap(map_off[P.p], 0);
        V.col0.push_back(0);
        size_t a = 0;
        for (int k = 0; k < P.p; ++k) {
            int kept = 0;
            const int t = P.col0[k + 1] - P.col0[k];
            int* mp = &lvmap[map_off[k]];
            size_t a0 = a;
            while (a < keep.size() && P.cchain[keep[a]] == k) {
                int j = keep[a++];
                V.gcol.push_back(P.gcol[j]);
                V.cchain.push_back(V.p);
                V.clevel.push_back(++kept);
                mp[P.clevel[j]] += 1;
            }
            if (kept == 0) continue;
            (void)a0;
            for (int l = 1; l <= t; ++l) mp[l] += mp[l - 1];  // new bucket = kept levels <= old
            newchain[k] = V.p++;
            V.col0.push_back(V.col0.back() + kept);
        }
        V.bucket.resize(static_cast<size_t>(np) * V.p);
        for (int i = 0; i < np; ++i) {
            const int32_t* b = &P.bucket[static_cast<size_t>(pos[i]) * P.p];
            int32_t* o = &V.bucket[static_cast<size_t>(i) * V.p];
            for (int k = 0; k < P.p; ++k)
                if (newchain[k] >= 0) o[newchain[k]] = lvmap[map_off[k] + b[k]];
        }
        return V;
    }

    // the leaf of class counts N (its majority class, cost q * errors + leaf cost); *tot: |N|
    Sub leaf_of(const i64* N, i64* tot = nullptr) const {
        i64 n = 0;
        for (int c = 0; c < C_; ++c) n += N[c];
        const int lab = argmax(N);
        Sub leaf;
        leaf.val = q_ * (n - N[lab]) + lc_;
        leaf.tree = leaf_ref(lab);
        if (tot != nullptr) *tot = n;
        return leaf;
    }

    // ------------------------------------------------------------------ candidate tests
    // The first `k` tests, breadth first, of CART's Gini-greedy tree grown on the rows of view V
    // (counts F of V's columns, class weights N): the candidate roots of the restricted search, as
    // DPDT generates its MDP's actions [9] (k = 2^c - 1: all tests of CART's tree of depth c).
    // Columns of V, each once.
    void cart_tests(const View& V, const std::vector<i64>& F, const i64* N, int k, std::vector<int>& out) {
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

    // the column of V of best Gini score splitting the rows pos of V into two non-empty sides, or
    // -1 (pure or unsplittable rows); F, N: their counts when the caller has them
    int gini_best(const View& V, const std::vector<int>& pos, const std::vector<i64>* Fin, const i64* Nin) {
        const int T = V.T(), np = static_cast<int>(pos.size());
        if (T == 0 || np < 2) return -1;
        check_time();
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
        for (int c = 0; c < C_; ++c) { tot += N[c]; mx = std::max(mx, N[c]); }
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
            i64 nR = 0, sr = 0, sl = 0;
            for (int c = 0; c < C_; ++c) {
                const i64 f = (*F)[static_cast<size_t>(c) * T + j], l = N[c] - f;
                nR += f;
                sr += f * f;
                sl += l * l;
            }
            if (nR <= 0 || nR >= tot) continue;
            const double score = static_cast<double>(sr) / static_cast<double>(nR) +
                                 static_cast<double>(sl) / static_cast<double>(tot - nR);
            if (g < 0 || score > best) { g = j; best = score; }
        }
        return g;
    }

    // ------------------------------------------------------------------ greedy incumbent
    int greedy_node(const std::vector<int>& pos, int d, i64* cost) {
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

    // ------------------------------------------------------------------ depth one
    // best depth-one tree from the counts F of the columns of a node (T columns): a Sub
    Sub depth1(const std::vector<i64>& F, int T, const i64* N) {
        i64 tot = 0;
        Sub best = leaf_of(N, &tot);
        i64 best_err = INF;
        int best_j = -1;
        // class-major passes (vectorizable): gain[j] = max_c F + max_c (N - F)
        std::vector<i64>& mr = scratch_a_;
        std::vector<i64>& ml = scratch_b_;
        mr.assign(T, 0);
        ml.assign(T, 0);
        for (int c = 0; c < C_; ++c) {
            const i64* f = &F[static_cast<size_t>(c) * T];
            const i64 nc = N[c];
            i64* a = mr.data();
            i64* b = ml.data();
            for (int j = 0; j < T; ++j) {
                a[j] = std::max(a[j], f[j]);
                b[j] = std::max(b[j], nc - f[j]);
            }
        }
        for (int j = 0; j < T; ++j) {
            const i64 err = tot - mr[j] - ml[j];
            if (err < best_err) {
                best_err = err;
                best_j = j;
            }
        }
        if (best_j >= 0 && q_ * best_err + 2 * lc_ < best.val) {
            best.val = q_ * best_err + 2 * lc_;
            best.tree = NONE;
            best.stump_col = best_j;  // local column: the caller maps it
            std::vector<i64> R(C_), L(C_);
            for (int c = 0; c < C_; ++c) {
                R[c] = F[static_cast<size_t>(c) * T + best_j];
                L[c] = N[c] - R[c];
            }
            best.lab_r = argmax(R.data());
            best.lab_l = argmax(L.data());
        }
        return best;
    }

    // ------------------------------------------------------------------ depth two
    struct PairBest {
        std::vector<i64> vr, vl;  // best value of the right / left subtree of each root
        std::vector<int> jr, jl;  // its column (-1: a leaf)
    };

    inline void pair_update(PairBest& pb, int i, int j, const i64* P, const std::vector<i64>& F, int T,
                            const i64* N) const {
        // root i, child j: right of i = x_i, left = not x_i
        i64 rr = 0, rl = 0, lr = 0, ll = 0;
        for (int c = 0; c < C_; ++c) {
            const i64 fi = F[static_cast<size_t>(c) * T + i], fj = F[static_cast<size_t>(c) * T + j];
            rr = std::max(rr, P[c]);
            rl = std::max(rl, fi - P[c]);
            lr = std::max(lr, fj - P[c]);
            ll = std::max(ll, N[c] - fi - fj + P[c]);
        }
        const i64 vr = q_ * (rr + rl) - lc_, vl = q_ * (lr + ll) - lc_;
        if (vr > pb.vr[i]) { pb.vr[i] = vr; pb.jr[i] = j; }
        if (vl > pb.vl[i]) { pb.vl[i] = vl; pb.jl[i] = j; }
    }

    double bitset_ops(const View& V) const {
        const double T = V.T(), W = (V.n() + 63) / 64;
        return T * T / 2 * W * (1 + C_ * 3);
    }
    double hist_ops(const View& V) const {
        const double T = V.T(), p = V.p;
        return p * (p - 1) / 2 * (V.n() * C_ + 8.0) + T * T * C_ * 2;
    }

    // pair_ops < 0 (auto): the pair solver when it is estimated cheaper than the root search with
    // depth-one children evaluating a tenth of its roots (the similarity bound prunes most roots
    // of long chains: measured on the continuous sets, benchmarks/results/dp.md); 0: never; else
    // when its estimate is at most pair_ops
    //
    // Many columns in long chains (T >= 512 and T >= 8 p) whose cheaper pair method is the 2-D
    // histograms: the depth-two scan, whose halving and monotonicity bounds evaluate a few dozen
    // roots where the histograms pay T^2 pair updates (room, 7,175 x 2,878 columns in 16 chains,
    // depth 3: 2.1 s with 53 pair solves, 0.6 s with the scan alone, same optimum; compas, T =
    // 133, and binary data, T = p, keep the rule below: benchmarks/results/dp.md).
    bool use_pair_solver(const View& V) const {
        const double bits = bitset_ops(V), hist = hist_ops(V), pair = std::min(bits, hist);
        if (pair_ops_ >= 0) return pair <= pair_ops_;
        const double T = V.T();
        if (hist < bits && T >= 512 && T >= 8.0 * V.p) return false;
        const double root = T * (static_cast<double>(V.n()) * V.p * C1_ + 4.0 * T * C_) * 0.1;
        return pair <= root;
    }

    Sub pair_depth2(const View& V, const std::vector<i64>& F, const i64* N) {
        pairs_++;
        const int T = V.T(), n = V.n(), p = V.p;
        PairBest pb;
        pb.vr.resize(T);
        pb.vl.resize(T);
        pb.jr.assign(T, -1);
        pb.jl.assign(T, -1);
        for (int i = 0; i < T; ++i) {
            i64 mr = 0, ml = 0;
            for (int c = 0; c < C_; ++c) {
                const i64 f = F[static_cast<size_t>(c) * T + i];
                mr = std::max(mr, f);
                ml = std::max(ml, N[c] - f);
            }
            pb.vr[i] = q_ * mr;
            pb.vl[i] = q_ * ml;
        }
        std::vector<i64> P(C_);
        if (bitset_ops(V) <= hist_ops(V)) {
            const int W = (n + 63) / 64;
            std::vector<u64> bits;
            column_bits(V, W, bits);
            // weight bit-planes per class: weight of class c on a row set = sum_k 2^k popcount
            std::vector<std::vector<u64>> planes;
            std::vector<int> plane_class, plane_shift;
            for (int c = 0; c < C_; ++c) {
                i64 mx = 0;
                for (int r = 0; r < n; ++r) mx = std::max(mx, w(V.rows[r])[c]);
                for (int k = 0; (mx >> k) > 0; ++k) {
                    std::vector<u64> pl(W, 0);
                    for (int r = 0; r < n; ++r)
                        if ((w(V.rows[r])[c] >> k) & 1) pl[r >> 6] |= (1ULL << (r & 63));
                    planes.push_back(std::move(pl));
                    plane_class.push_back(c);
                    plane_shift.push_back(k);
                }
            }
            const int NP = static_cast<int>(planes.size());
            for (int i = 0; i < T; ++i) {
                check_time();
                const u64* bi = &bits[static_cast<size_t>(i) * W];
                for (int j = i + 1; j < T; ++j) {
                    const u64* bj = &bits[static_cast<size_t>(j) * W];
                    std::fill(P.begin(), P.end(), 0);
                    for (int pl = 0; pl < NP; ++pl)
                        P[plane_class[pl]] += popcount_and(bi, bj, planes[pl].data(), W) << plane_shift[pl];
                    pair_update(pb, i, j, P.data(), F, T, N);
                    pair_update(pb, j, i, P.data(), F, T, N);
                }
            }
        } else {
            // same chain: nested columns, x_i and x_j = the higher level
            for (int k = 0; k < p; ++k)
                for (int i = V.col0[k]; i < V.col0[k + 1]; ++i)
                    for (int j = i + 1; j < V.col0[k + 1]; ++j) {
                        for (int c = 0; c < C_; ++c) P[c] = F[static_cast<size_t>(c) * T + j];
                        pair_update(pb, i, j, P.data(), F, T, N);
                        pair_update(pb, j, i, P.data(), F, T, N);
                    }
            // two chains: 2-D histogram of (bucket_a, bucket_b) per class, 2-D suffix sums
            std::vector<i64> H;
            for (int a = 0; a < p; ++a) {
                check_time(true);
                const int ta = V.col0[a + 1] - V.col0[a];
                for (int b = a + 1; b < p; ++b) {
                    const int tb = V.col0[b + 1] - V.col0[b];
                    const int sb = tb + 1;
                    H.assign(static_cast<size_t>(ta + 1) * sb * C_, 0);
                    for (int r = 0; r < n; ++r) {
                        const int32_t* bu = &V.bucket[static_cast<size_t>(r) * p];
                        i64* h = &H[(static_cast<size_t>(bu[a]) * sb + bu[b]) * C_];
                        const i64* wr = w(V.rows[r]);
                        for (int c = 0; c < C_; ++c) h[c] += wr[c];
                    }
                    for (int la = ta; la >= 0; --la)
                        for (int lb = tb; lb >= 0; --lb) {
                            i64* h = &H[(static_cast<size_t>(la) * sb + lb) * C_];
                            for (int c = 0; c < C_; ++c) {
                                i64 v = h[c];
                                if (la < ta) v += H[(static_cast<size_t>(la + 1) * sb + lb) * C_ + c];
                                if (lb < tb) v += H[(static_cast<size_t>(la) * sb + lb + 1) * C_ + c];
                                if (la < ta && lb < tb) v -= H[(static_cast<size_t>(la + 1) * sb + lb + 1) * C_ + c];
                                h[c] = v;
                            }
                        }
                    for (int la = 1; la <= ta; ++la)
                        for (int lb = 1; lb <= tb; ++lb) {
                            const i64* h = &H[(static_cast<size_t>(la) * sb + lb) * C_];
                            const int i = V.col0[a] + la - 1, j = V.col0[b] + lb - 1;
                            pair_update(pb, i, j, h, F, T, N);
                            pair_update(pb, j, i, h, F, T, N);
                        }
                }
            }
        }
        i64 tot = 0;
        Sub best = leaf_of(N, &tot);
        int bi = -1;
        i64 bc = INF;
        for (int i = 0; i < T; ++i) {
            const i64 cost = q_ * tot + 2 * lc_ - pb.vr[i] - pb.vl[i];
            if (cost < bc) { bc = cost; bi = i; }
        }
        if (bi >= 0 && bc < best.val) {
            best.val = bc;
            best.tree = new_split(V.gcol[bi], side_tree(V, F, N, bi, pb.jl[bi], false),
                                  side_tree(V, F, N, bi, pb.jr[bi], true));
        }
        return best;
    }

    // the depth-one subtree of the side of root i that splits on j (j < 0: a leaf), from counts
    int side_tree(const View& V, const std::vector<i64>& F, const i64* N, int i, int j, bool right) {
        const int T = V.T();
        std::vector<i64> side(C_), r(C_), l(C_);
        for (int c = 0; c < C_; ++c) {
            const i64 fi = F[static_cast<size_t>(c) * T + i];
            side[c] = right ? fi : N[c] - fi;
        }
        if (j < 0) return leaf_ref(argmax(side.data()));
        // rows of the side on the right of j: count them (exact, one pass over the node)
        std::fill(r.begin(), r.end(), 0);
        const int ci = V.cchain[i], li = V.clevel[i], cj = V.cchain[j], lj = V.clevel[j];
        for (int a = 0; a < V.n(); ++a) {
            const int32_t* b = &V.bucket[static_cast<size_t>(a) * V.p];
            if ((b[ci] >= li) != right || b[cj] < lj) continue;
            const i64* wr = w(V.rows[a]);
            for (int c = 0; c < C_; ++c) r[c] += wr[c];
        }
        for (int c = 0; c < C_; ++c) l[c] = side[c] - r[c];
        return new_split(V.gcol[j], leaf_ref(argmax(l.data())), leaf_ref(argmax(r.data())));
    }

    // ------------------------------------------------------------------ the recursion
    // Optimum of the rows pos of P at depth <= d if below ub (with a tree), else a lower bound
    // >= ub. F / present: counts of pos on P's columns when the caller has them.
    Sub solve_node(const View& P, const std::vector<int>& pos, int d, i64 ub, const std::vector<i64>* Fin,
                   const std::vector<char>* presin, bool top) {
        nodes_++;
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
        const u64 h = hash_rows(rows, d);
        Entry* e = find(rows, d, h);
        if (e != nullptr) {
            hits_++;
            if (e->tree != NONE) {
                Sub s;
                s.val = e->cost;
                s.tree = e->tree;
                return s;
            }
            if (e->lb >= ub) {
                Sub s;
                s.val = e->lb;
                return s;
            }
            lb0 = std::max(lb0, e->lb);
        }
        // the restricted search at depth >= 3 (see solve): its own answers, after the exact ones
        const bool restricted = width_ > 0 && d >= 3;
        if (restricted && (e = find(rows, d, h, true)) != nullptr) {
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
        check_time();
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
        std::vector<int> U = useful(*F, *pres, N.data(), TP);
        // the node's own view: its rows, the columns that split it
        View V = subview(P, pos.data(), np, U);
        const int T = V.T();
        std::vector<i64> FV(static_cast<size_t>(C1_) * T);
        for (int c = 0; c < C1_; ++c)
            for (int j = 0; j < T; ++j) FV[static_cast<size_t>(c) * T + j] = (*F)[static_cast<size_t>(c) * TP + U[j]];
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
            res = root_search(V, FV, N.data(), d, ub, leaf, lb0, top, &lb);
        }
        if (res.has_tree()) {
            store(rows, d, h, res.val, &res, restricted);
            return res;
        }
        store(rows, d, h, lb, nullptr, restricted);
        Sub s;
        s.val = lb;
        return s;
    }

    // similarity bound [2, sec. 4.6; 3] of a child A of root i (opt(A) >= v) on every root j
    void similar(i64 v, const std::vector<i64>& Fa, int T, i64 n, std::vector<i64>& lb_same,
                 std::vector<i64>& lb_other, bool left) {
        if (v <= 0) return;
        const i64 nq = q_ * n;
        std::vector<i64>& r = scratch_a_;  // weight of A on the right of each root j
        r.assign(Fa.begin(), Fa.begin() + T);
        for (int c = 1; c < C_; ++c) {
            const i64* f = &Fa[static_cast<size_t>(c) * T];
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

    Sub child(const View& V, const std::vector<int>& pos, int d, i64 ub, const std::vector<i64>& F,
              const std::vector<char>* pres, const i64* Nside) {
        if (d == 1) {
            Sub s = depth1(F, V.T(), Nside);
            if (s.stump_col >= 0) s.stump_col = V.gcol[s.stump_col];
            return s;
        }
        return solve_node(V, pos, d, ub, &F, pres, false);
    }

    // Initial bounds of every root column j of a node: each side costs at least its leaf-conflict
    // errors and one leaf; tie = the depth-one errors of the split (best-first ties); ftot = the
    // weight on the right of j.
    void root_bounds(const std::vector<i64>& F, int T, const i64* N, i64 tot, std::vector<i64>& lbL,
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

    // ConTree's interval search [3]: the roots of a chain between two evaluated ones share the
    // bound optL(lower) + optR(upper) (children are monotone in their rows). Returns the middle of
    // the run [lo, hi] of open roots around t whose bounds are below `bound`, so each evaluation
    // halves an interval.
    static int interval_middle(const View& V, int t, const std::vector<char>& open, const std::vector<i64>& lbL,
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

    // root t with children l and r beats the incumbent: adopt it (at the top level its tree is kept
    // for a time-out); true when it reaches the node's lower bound lb0 (no root can do better)
    bool adopt(Incumbent& inc, const View& V, int t, const Sub& l, const Sub& r, i64 ub, i64 lb0, bool top) {
        inc.best = l.val + r.val;
        inc.root = t;
        inc.left = l;
        inc.right = r;
        inc.bound = std::min(ub, inc.best);
        if (top) {
            top_best_ = inc.best;
            top_tree_ = new_split(V.gcol[t], materialize(inc.left), materialize(inc.right));
            inc.left.tree = arena_[top_tree_].left;  // the children now live in the kept tree
            inc.left.stump_col = -1;
            inc.right.tree = arena_[top_tree_].right;
            inc.right.stump_col = -1;
        }
        return inc.best <= lb0;
    }

    // the answer of a finished root search (MurTree's upper-bound semantics): the optimum with its
    // tree when below ub, else a lower bound >= ub (the leaf, every root's children bounds)
    Sub roots_result(const View& V, const Sub& leaf, Incumbent& inc, const std::vector<i64>& lbL,
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
    void record_top_bound(i64 leaf, const std::vector<i64>& lbL, const std::vector<i64>& lbR,
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

    // ------------------------------------------------------------------ depth two, long chains
    // The depth-two tree of a node whose columns are mostly thresholds of a few numeric features
    // (ConTree's specialised depth-two solver [3]): for each root evaluated, the best depth-one
    // subtree of both sides in one pass over the rows sorted by each chain, skipping the split
    // points where the errors cannot have dropped below the best (moving w rows changes a side's
    // errors by at most w). Roots are taken best-first by their bounds, halving each chain's
    // interval of open roots; after a root, its chain's other roots get the monotonicity bounds
    // (opt of a side is monotone in its rows; a side grows or shrinks by the rows between two
    // levels). O(rows x chains) per root instead of O(columns x classes).
    Sub depth2_scan(const View& V, const std::vector<i64>& F, const i64* N, i64 ub, const Sub& leaf, i64 lb0,
                    bool top, i64* lb_out) {
        const int T = V.T(), n = V.n(), p = V.p;
        ++scans_;
        i64 tot = 0;
        for (int c = 0; c < C_; ++c) tot += N[c];
        // units (position, class, weight) sorted by bucket in each chain (counting sort; a merged row
        // with several classes is one unit per class), and each chain's bucket weights
        std::vector<int> start(T + p + 1, 0);
        std::vector<i64> wsum(T + p + 1, 0);  // prefix of the node's weight over (chain, bucket) slots
        int units = 0;
        for (int r = 0; r < n; ++r) {
            const int row = V.rows[r];
            const int32_t* b = &V.bucket[static_cast<size_t>(r) * p];
            int nu = 0;
            i64 wt = 0;
            for (int z = nz_off_[row]; z < nz_off_[row + 1]; ++z)
                if (nz_cls_[z] < C_) { ++nu; wt += nz_w_[z]; }
            units += nu;
            for (int k = 0; k < p; ++k) {
                start[V.col0[k] + k + b[k] + 1] += nu;
                wsum[V.col0[k] + k + b[k] + 1] += wt;
            }
        }
        for (int x = 0; x < T + p; ++x) {
            start[x + 1] += start[x];
            wsum[x + 1] += wsum[x];
        }
        std::vector<int> upos(static_cast<size_t>(units) * p), ucls(upos.size());
        std::vector<i64> uw(upos.size());
        {
            std::vector<int> fill(start.begin(), start.end() - 1);
            for (int r = 0; r < n; ++r) {
                const int row = V.rows[r];
                const int32_t* b = &V.bucket[static_cast<size_t>(r) * p];
                for (int k = 0; k < p; ++k)
                    for (int z = nz_off_[row]; z < nz_off_[row + 1]; ++z) {
                        if (nz_cls_[z] >= C_) continue;
                        const int x = fill[V.col0[k] + k + b[k]]++;
                        upos[x] = r;
                        ucls[x] = nz_cls_[z];
                        uw[x] = nz_w_[z];
                    }
            }
        }
        // two classes (the common case) scan in blocks: each unit's bucket in every chain (so the
        // side of a root is a compare on a sequential array) and prefix weights (so a block of
        // units that cannot reach an evaluation is summed without looking at its buckets)
        const int U = static_cast<int>(upos.size());
        const bool blocks = C_ == 2 && tot < (i64(1) << 31);
        if (blocks) {
            scan_bkt_.resize(static_cast<size_t>(p) * U);
            scan_w_.resize(U);
            scan_w1_.resize(U);
            scan_wpre_.resize(U + 1);
            scan_w1pre_.resize(U + 1);
            scan_wpre_[0] = scan_w1pre_[0] = 0;
            for (int x = 0; x < U; ++x) {
                const int32_t* b = &V.bucket[static_cast<size_t>(upos[x]) * p];
                for (int k = 0; k < p; ++k) scan_bkt_[static_cast<size_t>(k) * U + x] = b[k];
                scan_w_[x] = static_cast<int32_t>(uw[x]);
                scan_w1_[x] = ucls[x] == 1 ? static_cast<int32_t>(uw[x]) : 0;
                scan_wpre_[x + 1] = scan_wpre_[x] + uw[x];
                scan_w1pre_[x + 1] = scan_w1pre_[x] + scan_w1_[x];
            }
        }
        // order of chain k: order[start[slot(k, 0)] .. start[slot(k, t_k) + 1]), slot = col0 + k + b
        std::vector<i64> lbL(T), lbR(T), ftot(T);
        std::vector<double> tie(T);
        root_bounds(F, T, N, tot, lbL, lbR, tie, ftot);
        TopBounds top_bounds(this, top, lbL, lbR, leaf.val);
        std::vector<char> open(T, 1), side(n);
        // the open root of least bound of each chain (the first one on ties), kept up to date
        std::vector<double> chain_key(p);
        std::vector<int> chain_arg(p);
        auto chain_best = [&](int k) {
            chain_arg[k] = -1;
            for (int j = V.col0[k]; j < V.col0[k + 1]; ++j) {
                if (!open[j]) continue;
                const double key = static_cast<double>(lbL[j] + lbR[j]) + tie[j];
                if (chain_arg[k] < 0 || key < chain_key[k]) { chain_arg[k] = j; chain_key[k] = key; }
            }
        };
        for (int k = 0; k < p; ++k) chain_best(k);
        Incumbent inc(leaf, ub);
        const i64& bound = inc.bound;  // what a root must beat: min(ub, best so far)
        std::vector<i64> cum(2 * C_), tot_side(2 * C_), best_err(2), side_n(2), cap_err(2);
        std::vector<int> best_col(2), best_lab_l(2), best_lab_r(2);
        try {
            while (true) {
                check_time();
                // each chain's best open root, not RootQueue: each root raises the bounds of its
                // whole chain, so a heap would re-sort most of them after every root
                double kmin = 0;
                int t = -1;
                for (int k = 0; k < p; ++k)
                    if (chain_arg[k] >= 0 && (t < 0 || chain_key[k] < kmin)) { t = chain_arg[k]; kmin = chain_key[k]; }
                if (t < 0 || !(kmin < static_cast<double>(bound))) break;
                const int a = V.cchain[t];
                int run_lo, run_hi;
                t = interval_middle(V, t, open, lbL, lbR, bound, &run_lo, &run_hi);
                open[t] = 0;
                roots_++;
                const int la = V.clevel[t];
                if (!blocks)
                    for (int r = 0; r < n; ++r) side[r] = V.bucket[static_cast<size_t>(r) * p + a] >= la;

                for (int c = 0; c < C_; ++c) {
                    tot_side[C_ + c] = F[static_cast<size_t>(c) * T + t];
                    tot_side[c] = N[c] - tot_side[C_ + c];
                }
                for (int sd = 0; sd < 2; ++sd) {
                    i64 nn = 0, mx = 0;
                    int lab = 0;
                    for (int c = 0; c < C_; ++c) {
                        const i64 v = tot_side[sd * C_ + c];
                        nn += v;
                        if (v > mx) { mx = v; lab = c; }
                    }
                    side_n[sd] = nn;
                    // only stumps that can make the root beat the bound matter (ConTree [3]):
                    // q * err + 2 lc < bound - (lower bound of the other side), i.e. err < cap
                    const i64 cap_cost = bound - (sd == 0 ? lbR[t] : lbL[t]) - 2 * lc_;
                    cap_err[sd] = cap_cost <= 0 ? 0 : (cap_cost + q_ - 1) / q_;
                    best_err[sd] = std::min(nn - mx, cap_err[sd]);  // the leaf, or the cap
                    best_col[sd] = -1;
                    best_lab_l[sd] = best_lab_r[sd] = lab;
                }
                const int* __restrict up = upos.data();
                const int* __restrict uc = ucls.data();
                const i64* __restrict uwt = uw.data();
                const char* __restrict sdv = side.data();
                i64* __restrict cm = cum.data();
                const bool two = C_ == 2;  // two classes: the counts live in registers
                for (int k = 0; blocks && k < p && (best_err[0] > 0 || best_err[1] > 0); ++k)
                    scan_chain_blocks(V, k, a, la, start, tot_side, side_n, best_err, best_col, best_lab_l,
                                      best_lab_r);
                for (int k = 0; !blocks && k < p && (best_err[0] > 0 || best_err[1] > 0); ++k) {
                    if (!two) std::fill(cum.begin(), cum.end(), 0);
                    // sn: weight of each side seen so far in this chain (the left part of the split
                    // point); k1: its class-1 weight (two classes). A side is evaluated when its
                    // seen weight passes thr = last + at - best (errors >= last - (sn - at), with
                    // last the errors at the previous evaluation, at its seen weight), and the
                    // chain ends when thr >= the side's weight for both (no later split point can
                    // beat the best: last - (sn - at) - (side_n - sn) >= best)
                    i64 sn[2] = {0, 0}, k1[2] = {0, 0}, thr[2] = {0, 0};
                    const int t_k = V.col0[k + 1] - V.col0[k];
                    const int s0 = V.col0[k] + k;
                    for (int bb = 0; bb < t_k; ++bb) {  // after bucket bb: the column of level bb + 1
                        if (two) {
                            i64 a0 = sn[0], a1 = sn[1], b0 = k1[0], b1 = k1[1];
                            for (int x = start[s0 + bb], e = start[s0 + bb + 1]; x < e; ++x) {
                                const i64 m = -static_cast<i64>(sdv[up[x]]);
                                const i64 wx = uwt[x], w1 = wx & -static_cast<i64>(uc[x]);
                                a1 += wx & m;
                                a0 += wx & ~m;
                                b1 += w1 & m;
                                b0 += w1 & ~m;
                            }
                            sn[0] = a0; sn[1] = a1; k1[0] = b0; k1[1] = b1;
                        } else {
                            for (int x = start[s0 + bb], e = start[s0 + bb + 1]; x < e; ++x) {
                                const int sd = sdv[up[x]];
                                cm[sd * C_ + uc[x]] += uwt[x];
                                sn[sd] += uwt[x];
                            }
                        }
                        bool evaluated = false;
                        for (int sd = 0; sd < 2; ++sd) {
                            if (sn[sd] <= thr[sd]) continue;
                            i64 ml = 0, mr = 0;
                            int labl = 0, labr = 0;
                            if (two) {
                                const i64 l1 = k1[sd], l0 = sn[sd] - l1;
                                const i64 r0 = tot_side[sd * 2] - l0, r1 = tot_side[sd * 2 + 1] - l1;
                                ml = std::max(l0, l1);
                                labl = l1 > l0;
                                mr = std::max(r0, r1);
                                labr = r1 > r0;
                            } else {
                                for (int c = 0; c < C_; ++c) {
                                    const i64 l = cm[sd * C_ + c], rr = tot_side[sd * C_ + c] - l;
                                    if (l > ml) { ml = l; labl = c; }
                                    if (rr > mr) { mr = rr; labr = c; }
                                }
                            }
                            const i64 err = side_n[sd] - ml - mr;
                            if (err < best_err[sd] && ml > 0 && mr > 0) {
                                best_err[sd] = err;
                                best_col[sd] = V.col0[k] + bb;
                                best_lab_l[sd] = labl;
                                best_lab_r[sd] = labr;
                            }
                            thr[sd] = err + sn[sd] - best_err[sd];
                            evaluated = true;
                        }
                        if (evaluated && thr[0] >= side_n[0] && thr[1] >= side_n[1]) break;
                    }
                }
                Sub sub[2];
                for (int sd = 0; sd < 2; ++sd) {
                    i64 mx = 0;
                    int lab = 0;
                    for (int c = 0; c < C_; ++c)
                        if (tot_side[sd * C_ + c] > mx) { mx = tot_side[sd * C_ + c]; lab = c; }
                    sub[sd].val = q_ * (side_n[sd] - mx) + lc_;
                    sub[sd].tree = leaf_ref(lab);
                    const i64 cap_cost = q_ * cap_err[sd] + 2 * lc_;  // every stump not found costs >= this
                    if (best_col[sd] < 0 && cap_err[sd] < side_n[sd] - mx && sub[sd].val >= cap_cost) {
                        // neither the leaf nor any stump can beat the bound: a lower bound only
                        sub[sd].val = cap_cost;
                        sub[sd].tree = NONE;
                    } else if (best_col[sd] >= 0 && q_ * best_err[sd] + 2 * lc_ < sub[sd].val) {
                        sub[sd].val = q_ * best_err[sd] + 2 * lc_;
                        sub[sd].tree = NONE;
                        sub[sd].stump_col = V.gcol[best_col[sd]];
                        sub[sd].lab_l = best_lab_l[sd];
                        sub[sd].lab_r = best_lab_r[sd];
                    }
                }
                const i64 vL = sub[0].val, vR = sub[1].val;
                // monotonicity bounds on the roots of the same chain
                for (int j = V.col0[a]; j < V.col0[a + 1]; ++j) {
                    const int lj = V.clevel[j];
                    const int s0 = V.col0[a] + a;
                    if (lj < la) {       // L_j = L_t minus the rows of buckets [lj, la); R_j grows
                        const i64 gap = wsum[s0 + la] - wsum[s0 + lj];
                        lbL[j] = std::max(lbL[j], vL - q_ * gap);
                        lbR[j] = std::max(lbR[j], vR);
                    } else if (lj > la) {  // L_j grows; R_j = R_t minus the rows of buckets [la, lj)
                        const i64 gap = wsum[s0 + lj] - wsum[s0 + la];
                        lbL[j] = std::max(lbL[j], vL);
                        lbR[j] = std::max(lbR[j], vR - q_ * gap);
                    }
                }
                lbL[t] = std::max(lbL[t], vL);
                lbR[t] = std::max(lbR[t], vR);
                chain_best(a);
                if (sub[0].has_tree() && sub[1].has_tree() && vL + vR < inc.bound &&
                    adopt(inc, V, t, sub[0], sub[1], ub, lb0, top))
                    break;
            }
        } catch (const Timeout&) {
            if (top) record_top_bound(leaf.val, lbL, lbR, inc);
            throw;
        }
        return roots_result(V, leaf, inc, lbL, lbR, ub, lb0, top, lb_out);
    }

    // One chain k of depth2_scan for the root (chain a, level la), two classes: the best stump of
    // each side over the chain's split points. A side is evaluated at a bucket's end when its
    // seen weight passed thr (see depth2_scan); between two evaluations, a block of units whose
    // weight cannot carry either side past its thr is summed in one vectorizable pass (its class-1
    // and right-side weights), without looking at bucket ends.
    void scan_chain_blocks(const View& V, int k, int a, int la, const std::vector<int>& start,
                           const std::vector<i64>& tot_side, const std::vector<i64>& side_n,
                           std::vector<i64>& best_err, std::vector<int>& best_col, std::vector<int>& best_lab_l,
                           std::vector<int>& best_lab_r) {
        const int U = static_cast<int>(scan_w_.size());
        const int32_t* __restrict Ba = &scan_bkt_[static_cast<size_t>(a) * U];
        const int32_t* __restrict Bk = &scan_bkt_[static_cast<size_t>(k) * U];
        const int32_t* __restrict w = scan_w_.data();
        const int32_t* __restrict w1 = scan_w1_.data();
        const i64* __restrict wpre = scan_wpre_.data();
        const i64* __restrict w1pre = scan_w1pre_.data();
        const int t_k = V.col0[k + 1] - V.col0[k];
        const int s0 = V.col0[k] + k;
        int x = start[s0];
        const int xe = start[s0 + t_k];  // the last bucket (beyond every split point) is not scanned
        i64 sn[2] = {0, 0}, k1[2] = {0, 0}, thr[2] = {0, 0};
        while (x < xe) {
            const i64 slack = std::min(thr[0] - sn[0], thr[1] - sn[1]);
            if (slack >= 8) {  // every weight is >= 1: the block ends before x + slack
                const i64* hi = wpre + std::min<i64>(xe, x + slack) + 1;
                const int xb = static_cast<int>(std::upper_bound(wpre + x, hi, wpre[x] + slack) - wpre) - 1;
                int32_t r = 0, r1 = 0;  // right-side weight and class-1 weight of the block
                for (int y = x; y < xb; ++y) {
                    const int32_t m = -static_cast<int32_t>(Ba[y] >= la);
                    r += w[y] & m;
                    r1 += w1[y] & m;
                }
                sn[1] += r;
                sn[0] += wpre[xb] - wpre[x] - r;
                k1[1] += r1;
                k1[0] += w1pre[xb] - w1pre[x] - r1;
                x = xb;
                if (x >= xe) break;
            }
            const int32_t bb = Bk[x];  // the rest of this bucket, unit by unit
            i64 a0 = sn[0], a1 = sn[1], b0 = k1[0], b1 = k1[1];
            do {
                const i64 m = -static_cast<i64>(Ba[x] >= la);
                const i64 wx = w[x], wx1 = w1[x];
                a1 += wx & m;
                a0 += wx & ~m;
                b1 += wx1 & m;
                b0 += wx1 & ~m;
            } while (++x < xe && Bk[x] == bb);
            sn[0] = a0; sn[1] = a1; k1[0] = b0; k1[1] = b1;
            bool evaluated = false;
            for (int sd = 0; sd < 2; ++sd) {
                if (sn[sd] <= thr[sd]) continue;
                const i64 l1 = k1[sd], l0 = sn[sd] - l1;
                const i64 r0 = tot_side[sd * 2] - l0, r1 = tot_side[sd * 2 + 1] - l1;
                const i64 ml = std::max(l0, l1), mr = std::max(r0, r1);
                const i64 err = side_n[sd] - ml - mr;
                if (err < best_err[sd] && ml > 0 && mr > 0) {
                    best_err[sd] = err;
                    best_col[sd] = V.col0[k] + bb;
                    best_lab_l[sd] = l1 > l0;
                    best_lab_r[sd] = r1 > r0;
                }
                thr[sd] = err + sn[sd] - best_err[sd];
                evaluated = true;
            }
            if (evaluated && thr[0] >= side_n[0] && thr[1] >= side_n[1]) break;
        }
    }

    // tests: the only roots tried (the restricted search), or all when null
    Sub root_search(const View& V, const std::vector<i64>& F, const i64* N, int d, i64 ub, const Sub& leaf,
                    i64 lb0, bool top, i64* lb_out, const std::vector<int>* tests = nullptr) {
        const int T = V.T(), n = V.n();
        i64 tot = 0;
        for (int c = 0; c < C_; ++c) tot += N[c];
        std::vector<i64> lbL(T), lbR(T), ftot(T);
        std::vector<double> tie(T);
        root_bounds(F, T, N, tot, lbL, lbR, tie, ftot);
        TopBounds top_bounds(this, top, lbL, lbR, leaf.val);
        std::vector<char> open(T, tests == nullptr);
        if (tests != nullptr)
            for (int j : *tests) open[j] = 1;
        Incumbent inc(leaf, ub);
        const i64& bound = inc.bound;  // what a root must beat: min(ub, best so far)
        std::vector<int> posL, posR;
        posL.reserve(n);
        posR.reserve(n);
        std::vector<i64> FL, FR(static_cast<size_t>(C1_) * T), NL(C1_), NR(C1_);
        std::vector<char> presL, presR;
        RootQueue queue(T, [&](int j) { return static_cast<double>(lbL[j] + lbR[j]) + tie[j]; });
        int run_lo = 0, run_hi = 0;  // the open interval of the root evaluated
        const bool leafy = d - 1 == 1;  // depth-one children: classes only, no presence
        const int rowsF = leafy ? C_ : C1_;
        // counting by bitsets when its popcounts are fewer than the scattered increments (short
        // chains: binary data); the estimate counts one plane per class row
        const bool by_bits = bits_work(V, rowsF) * 1.5 < 0.5 * n * V.p;
        ViewBits bits;
        std::vector<u64> maskL, maskR;
        if (by_bits) {
            build_bits(V, bits);
            maskL.resize(bits.W);
            maskR.resize(bits.W);
        }
        try {
            while (true) {
                check_time();
                double kmin = 0;
                int t = queue.next(open, &kmin);
                if (t < 0 || !(kmin < static_cast<double>(bound))) break;
                t = interval_middle(V, t, open, lbL, lbR, bound, &run_lo, &run_hi);
                open[t] = 0;
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
                // the larger side first (ConTree [3]): it decides most often that the root fails
                const bool left_first = nL >= nR;
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
                if (!s1.has_tree() || s1.val + lb2[t] >= bound) continue;
                // the second child gets ConTree's extra budget [3]: the rows between the root and the
                // ends of its interval, so that its value can rule out the whole interval
                const i64 extra = q_ * std::max(ftot[run_lo] - ftot[t], ftot[t] - ftot[run_hi]);
                s2 = child(V, pos2, d - 1, bound - s1.val + extra, F2, pres2, left_first ? NR.data() : NL.data());
                similar(s2.val, F2, T, left_first ? nR : nL, lb2, lb1, !left_first);
                if (sr.has_tree() && sl.val + sr.val < inc.bound && adopt(inc, V, t, sl, sr, ub, lb0, top)) break;
            }
        } catch (const Timeout&) {
            if (top) record_top_bound(leaf.val, lbL, lbR, inc);
            throw;
        }
        return roots_result(V, leaf, inc, lbL, lbR, ub, lb0, top, lb_out);
    }
};

}  // namespace

PYBIND11_MODULE(_core, mod) {
    mod.doc() = "Compiled branch and bound of satdt's exact DP (see satdt.solvers.dp).";
    py::class_<Search>(mod, "Search")
        .def(py::init<py::array_t<int32_t, py::array::c_style | py::array::forcecast>,
                      py::array_t<int32_t, py::array::c_style | py::array::forcecast>,
                      py::array_t<int32_t, py::array::c_style | py::array::forcecast>,
                      py::array_t<int64_t, py::array::c_style | py::array::forcecast>, i64, i64, double>(),
             py::arg("rank"), py::arg("col_chain"), py::arg("col_level"), py::arg("counts"), py::arg("q"),
             py::arg("leaf_cost"), py::arg("pair_ops"))
        .def("solve", &Search::solve, py::arg("depth"), py::arg("upper_bound"), py::arg("time_limit"),
             py::arg("progress") = py::none(), py::arg("interval") = 2.0, py::arg("width") = 0,
             py::arg("rows") = py::none())
        .def("greedy", &Search::greedy, py::arg("depth"), py::arg("time_limit"))
        .def("stats", &Search::stats);
}
