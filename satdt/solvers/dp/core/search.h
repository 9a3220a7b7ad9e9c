// satdt.solvers.dp core: the compiled branch and bound of satdt's exact DP [1, 2].
//
// One search object per (problem, cost): cost of a tree = q * errors + lc * leaves (max accuracy:
// q = 1, lc = 0; regularized [4, 5]: lc = p * n). The algorithm is the one documented in
// satdt/solvers/dp/__init__.py (module docstring) and implemented, for reference only, in numpy
// by satdt/solvers/dp/reference.py; tests compare the two on random instances, and
// tests/core/test_core.cpp runs this search without Python.
//
// Data: m distinct rows; p chains of nested columns (a column is "rank[row, chain] >= level");
// class weights per row (merged duplicates), plus each row's leaf-conflict errors.
//
// Per node (rows S, depth d, upper bound ub): MurTree's upper-bound semantics [2, sec. 4.5]: the
// exact optimum when it is below ub (with its tree), else a lower bound >= ub (cached).
//   - depth 1 from the column counts ("frequency counting" [2, sec. 4.2]);
//   - depth 2 by the specialised pair-count solver [2, sec. 4.3]: pair counts per class by
//     bitsets (one word per 64 rows, weight bit-planes; weights of many bits: byte tables or
//     row sums by AVX-512 BW / AVX2) or, for long chains (thresholds of a
//     numeric feature), by 2-D histograms of two chains' buckets with suffix sums;
//   - depth >= 2 by the root search: roots best-first by their children's lower bounds, the
//     leaf-conflict bound, the similarity bound of every solved child on every other root
//     [2, sec. 4.6; 3], the incumbent's upper bound, a memo over (row set, depth).
// References are numbered as in satdt/REFERENCES.md.
//
// Components (one class, its members defined by component):
//   types.h, kernels.h      shared value types; popcount kernels (AVX-512 dispatch)
//   view.h, view.cpp        a node's view; frequency counting (histograms, bitsets, row sums), presence,
//                           useful columns, sub-views
//   memo.h                  the memo over (row set, depth); the pipeline's Overlay
//   bounds.h                root queue, interval halving, incumbent
//   depth2.cpp              depth one from the counts; the pair-count depth-two solver
//   scan.cpp                ConTree's depth-two scan for long chains; a feature's two chains
//                           with missing values (satdt/missing.py) scanned as one (pair_kinds)
//   greedy.cpp              CART's Gini-greedy incumbent; the restricted search's candidate tests
//   search.cpp              the calls (solve, greedy, stats), the recursion, the root search
//   roots.cpp               the root search's bookkeeping: initial bounds, the similarity
//                           bound, the incumbent root, the top-level search's bound at a
//                           time-out or stop and its state kept for the next slice (TopResume)
//   waves.cpp               parallel roots: the top node's roots on clones of the search, in
//                           waves (root_waves) or, at depth >= 4, a pipeline (root_pipeline)
//   host.h                  what the search asks of its caller (signals, progress)
//   pool.h                  the worker threads of n_jobs: the top node's roots (parallel roots,
//                           waves.cpp: root_waves, root_pipeline), and below depth three the big
//                           depth-two kernels (a scan's set-up and each root's chains, a pair
//                           solve's pairs) split into tasks combined in the serial order with the
//                           serial tie-break; the host stays on the calling thread
//   witness.h, witness.cpp  not part of the search: the proof witness questions over every box of
//                           the data (satdt/proof/witness.py, issue 23)
//   bindings.cpp            the Python module satdt.solvers.dp._core (the only pybind11 file)
//   unity.cpp               the components above as the one translation unit the module builds
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <vector>

#include "bounds.h"
#include "host.h"
#include "memo.h"
#include "pool.h"
#include "types.h"
#include "view.h"

namespace satdt_dp {

// A tree in preorder arrays (feature column, left index, right index, label); leaves have
// feature -1, splits label -1.
struct TreeArrays {
    std::vector<int> feature, left, right, label;
};

// The answer of Search::solve.
struct SolveOutcome {
    bool finished = true;      // the search ended (else: time limit, or the host stopped it)
    bool interrupted = false;  // the host stopped it
    // finished: the optimum below the upper bound with its tree, else (has_tree false) a lower
    // bound >= the upper bound
    i64 value = INF;
    bool has_tree = false;
    TreeArrays tree;
    // unfinished: whether the top-level root search had started (top_valid), its best tree
    // (has_top_tree, top_best) and its proven bound
    bool top_valid = false;
    i64 top_best = INF;
    bool has_top_tree = false;
    TreeArrays top_tree;
    i64 top_bound = 0;
    // the whole problem's complete search cut by its time cap or stop (TopResume): its top-level roots
    // evaluated so far, and those still open that could beat the incumbent (-1: not kept)
    i64 top_done = -1, top_live = -1;
};

struct GreedyOutcome {
    bool finished = true;
    bool interrupted = false;
    i64 cost = 0;
    TreeArrays tree;
};

struct Stats {
    i64 nodes, roots_evaluated, pair_solves, depth2_scans, memo_hits, memo_entries, tree_nodes, restricted_entries;
    i64 thread_runs, worker_tasks;  // kernel runs handed to the threads; their tasks the workers ran
    i64 merged_pairs;               // missing-value pairs scanned as one, summed over depth-two scans
    i64 root_waves, wave_roots;      // parallel roots: waves (a pipeline counts
                                     // one), roots they evaluated
    i64 wave_task_us, wave_span_us;  // their thread CPU time (us), and the sum over waves of the
                                     // busiest thread's (the waves' span on idle cores; a
                                     // pipeline's: its roots' CPU times replayed on the threads)
    i64 top_resumes;                 // top-level root searches resumed from a kept one (TopResume)
    i64 pair_tables;                 // pair solves that counted by byte tables (PairWeights)
};

class Search {
  public:
    // rank: m x p (row-major), each chain's rank of each distinct row, 0..len(chain); col_chain,
    // col_level: B columns in chain order (levels 1, 2, ... per chain); counts: m x C class
    // weights; cost = q * errors + lc * leaves; pair_ops: see use_pair_solver. The arrays are
    // copied; q >= 1, lc >= 0, counts >= 0 with an i64 total (solve and greedy check the costs of
    // their depth against MAX_COST, types.h). threads > 1: the big kernels (a depth-two scan's chains per root, a pair solve's
    // rows) run on that many threads (pool.h), with the same answers and trees as one thread
    // (each combines its parts in the serial order, with the serial tie-break); threads = 1 is
    // the serial search. Bad input: std::invalid_argument.
    Search(const int32_t* rank, int m, int p, const int32_t* col_chain, const int32_t* col_level, int B,
           const int64_t* counts, int C, i64 q, i64 lc, double pair_ops, int threads = 1);
    Search(const Search&) = delete;
    Search& operator=(const Search&) = delete;

    int threads() const { return pool_ ? pool_->size() : 1; }
    // the least work of a kernel run on the threads: a depth-two scan's root, units x chains
    // (default 2^15), and a pair solve's estimated operations (default 2e5); below, one thread
    // (a hand-off costs more). Tests set 0 to run every kernel on the threads (then also while
    // the workers miss the runs: Pool::engaged).
    void set_thread_work(double scan_units, double pair_ops) {
        scan_threads_work_ = scan_units;
        pair_threads_ops_ = pair_ops;
        if (pool_) pool_->adaptive = scan_units > 0 || pair_ops > 0;
    }
    // parallel roots (threads > 1): the top node of an exact search at depth >= 3 evaluates its
    // roots on the threads: at depth three in waves of four roots per thread (root_waves), deeper
    // in a pipeline (root_pipeline) whose roots are chosen at most `lag` ahead of the last
    // committed one (set_root_lag; 0: the threads taking part). set_root_wave(wave > 0): waves of
    // `wave` roots at every depth >= 3 instead (1: exactly the serial search); wave < 0: off (only
    // the kernels on threads). The answer and the tree are fixed for given threads, wave and lag.
    void set_root_wave(int wave) { root_wave_ = wave; }
    void set_root_lag(int lag) { root_lag_ = lag; }
    // the level of the nodes whose roots run on the threads: 0 the top node (as above), k > 0 the
    // nodes k levels below it (depth d - k >= 3), the levels above them searched by the calling
    // thread alone, in the serial order (threads inside the top node's roots); -1 (the default):
    // the nodes of depth kRootLevelDepth when d >= kRootLevelDepth + 2, else the top node. At depth
    // 6 the top node's first roots are often the whole proof (their best-first order finds the
    // optimum there, and the roots run beside them are dropped); their nodes of depth 4 have many
    // roots. Still fixed for given threads, wave, lag and level.
    void set_root_level(int level) { root_level_ = level; }
    static constexpr int kRootLevelDepth = 4;
    // on: the search leaves one of its threads to another search running at the same time
    // (satdt/solvers/dp/anytime.py, the two lanes) until switched off: with two threads it runs
    // on the calling thread alone (no waves, no kernel on the threads; the answers of one thread),
    // with more on all but one (waves of that many roots).
    void set_solo(bool on) {
        if (pool_) pool_->reserve = on ? 1 : 0;
    }

    // Solve the whole problem at depth d with upper bound ub within time_limit seconds. The host
    // (may be null) is polled every 50 ms: see Host.
    //
    // width > 0: the restricted (anytime) search: a node of depth >= 3 tries only the first `width`
    // tests (breadth first) of CART's tree grown on its rows (DPDT's candidate tests [9]); nodes of
    // depth <= 2 are solved exactly. Its answers are trees (upper bounds), never bounds: they are
    // kept in a memo of their own (for one width at a time), and the exact memo is only read.
    // rows: solve on these distinct rows only (ascending; a subtree of an incumbent; null: all).
    // Bad rows: std::invalid_argument.
    // roots: the only tests (global columns) tried at the top node, depth >= 3 and width 0 (a part
    // of the root's subproblems, run as one task of a distributed search: distributed.py); the
    // top node's answer then holds for those roots only and is not memoized (its children are).
    // satisfice (width 0): the satisficing search, any tree below ub rather than the optimum (or
    // the exact proof that none is; see the top of search.cpp): the DT_size witness questions of
    // satdt/proof/witness.py.
    SolveOutcome solve(int depth, i64 ub, double time_limit, Host* host = nullptr, double interval = 2.0,
                       int width = 0, const std::vector<int>* rows = nullptr,
                       const std::vector<int>* roots = nullptr, bool satisfice = false);

    // CART's Gini-greedy tree of depth <= depth over all rows: the search's incumbent, the same
    // choices as SearchBase.greedy (satdt/solvers/dp/search.py): at each node the useful column
    // of largest sum_c F_c^2 / |right| + sum_c (N_c - F_c)^2 / |left| (the first on ties), kept
    // only when its subtrees cost less than the leaf. Unfinished when time_limit ran out.
    // O(rows x chains + columns) per node, no copy of the data.
    GreedyOutcome greedy(int depth, double time_limit, Host* host = nullptr);

    Stats stats() const;

    // Missing-value pairs (satdt/missing.py: each feature with missing values is two chains, x
    // with the missing rows below every value and x with them above): the constructor marks
    // adjacent chains g, g + 1 whose ranks on all rows pass pair_kinds' test (merged). The
    // depth-two scan repeats the test on each node's compressed buckets and, where it passes,
    // scans the pair as one chain (scan_chain_blocks) or skips the second chain when its columns
    // are the first one's; it meets the same split points as the scan of each chain on its own,
    // so the optimum does not depend on it. set_pairing(false) scans every chain on its own.
    void set_pairing(bool on) { pairing_ = on; }
    int missing_pairs() const;
    // The missing rows' bound (issue 24; see missing_bounds in roots.cpp): at a node of depth
    // three, each missing-value pair's rows M (missing the feature) are solved once at depth two,
    // and a child that holds M costs at least that optimum plus a bound of its other rows; a root
    // whose children reach the incumbent's bound so is skipped. In the depth-two scan, M's least
    // errors at depth one raise the bounds of the children holding M (scan_missing_bounds in
    // scan.cpp). Bounds only: the same optimum. set_missing_bound(false): both off.
    void set_missing_bound(bool on) { missing_bound_ = on; }
    // The depth-two scan's copies (issue 24; see copy_roots in scan.cpp): on a node without a
    // missing value of a pair's feature, each root of the pair's second chain splits the rows as
    // a root of the first (its copy) and is not evaluated; its bounds are its copy's. The same
    // roots' values: the same optimum. set_skip_copy_roots(false): every root evaluated.
    void set_skip_copy_roots(bool on) { skip_copy_roots_ = on; }
    // the roots the scans left to their copies (this object and its wave clones)
    i64 copy_roots_skipped() const { return copy_skips_; }
    // the row sums for weights with many bits (PairWeights::rows, ViewBits::rows; AVX-512 BW or AVX2);
    // off: the byte tables as before. Same counts either way. A wave clone keeps the default.
    void set_row_sums(bool on) { row_sums_ = on; }
    // The counts forced on every node (tests, benchmarks; CoreSearch.COUNT_PATHS), -1 each
    // node's estimate (the default). bits, the root search's: 0 scattered adds (count), 1 bitsets
    // by bit-planes (count_bits), 2 / 3 bitsets by row sums (AVX-512 BW where the CPU has it /
    // AVX2's) where the CPU has them and the class totals allow, else planes. pair, the pair
    // solver's: 0 bit-planes, 1 byte tables (the row sums instead, set_row_sums, where the CPU
    // has them), 2 AVX2's row sums. Same counts on every path.
    void set_count_paths(int bits, int pair) { bits_path_ = bits; pair_path_ = pair; }
    i64 row_sum_solves() const { return rowsums_; }
    static bool row_sums_available();  // this CPU runs them (AVX-512 F + BW, or AVX2)
    // its work: the pairs' M solved (missing_bounds) and the roots it ruled out unevaluated
    std::pair<i64, i64> missing_bound_stats() const { return {mb_solves_, mb_skips_}; }
    // the depth-two scans' err*(M) summed over their merged pairs (scan_missing_bounds; this
    // object, not its wave clones): for the tests
    i64 scan_missing_errors() const { return scan_missing_errors_; }

  private:
    int m_, C_, C1_, B_;
    i64 q_, lc_;
    i64 total_w_ = 0;  // the class weights of all rows (their sum fits an i64: the constructor)
    // std::invalid_argument unless every tree of depth <= depth costs at most MAX_COST (types.h):
    // q * (total weight) + lc * max(2, min(2^depth, distinct rows))
    void check_costs(int depth) const;
    double pair_ops_;
    std::vector<i64> wext_;
    std::vector<i64> unit_;  // per column of wext_: the gcd of its entries (1 when all are 0)
    std::vector<i64> wdiv_;  // wext_ / unit_, entry by entry: the values of the bit-planes
    std::vector<int> nz_off_, nz_cls_;
    std::vector<i64> nz_w_;
    View root_;
    Arena arena_own_;
    Arena* arena_ = &arena_own_;  // a clone's is its owner's
    Memo memo_;
    int width_ = 0;        // > 0: the restricted search (see solve)
    Memo rmemo_;           // its answers, for the width rmemo_width_
    int rmemo_width_ = 0;
    std::vector<char> top_roots_;  // non-empty: allowed[global column] at the top node (see solve)
    std::chrono::steady_clock::time_point start_;
    double limit_ = 1e300;
    i64 ticks_ = 0;
    Host* host_ = nullptr;
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
    i64 nodes_ = 0, roots_ = 0, pairs_ = 0, hits_ = 0, scans_ = 0, merged_ = 0, resumes_ = 0, tables_ = 0;
    // the counters a clone's roots add to its owner's (parallel roots)
    struct Counts {
        i64 nodes = 0, roots = 0, pairs = 0, hits = 0, scans = 0, tables = 0, mb_solves = 0, mb_skips = 0,
            copy_skips = 0;
    };
    Counts take_counts() {  // a clone's counters since the last call, then zero
        const Counts c{nodes_, roots_, pairs_, hits_, scans_, tables_, mb_solves_, mb_skips_, copy_skips_};
        nodes_ = roots_ = pairs_ = hits_ = scans_ = tables_ = mb_solves_ = mb_skips_ = copy_skips_ = 0;
        return c;
    }
    void add_counts(const Counts& c) {
        nodes_ += c.nodes;
        roots_ += c.roots;
        pairs_ += c.pairs;
        hits_ += c.hits;
        scans_ += c.scans;
        tables_ += c.tables;
        mb_solves_ += c.mb_solves;
        mb_skips_ += c.mb_skips;
        copy_skips_ += c.copy_skips;
    }
    bool top_active_ = false;
    i64 top_best_ = INF, top_lb_ = 0;
    int top_tree_ = NONE;
    // The whole problem's top-level root search (the complete search: all rows, width 0, all
    // roots), kept when the time cap (or the host's stop) cuts it: the anytime schedule calls solve() in slices, and
    // the next call of the same depth, with an upper bound no looser, resumes the roots where they
    // stopped (their bounds, the roots evaluated, the incumbent root) instead of starting them
    // over, which would lose the similarity bounds and evaluate roots it had ruled out.
    struct TopResume {
        bool valid = false;
        int depth = 0;
        i64 ub = 0;
        std::vector<i64> lbL, lbR;
        std::vector<char> open;  // the roots not yet evaluated (or cut by the time limit)
        i64 best = INF;          // the incumbent root (root >= 0) and its kept tree
        int root = -1, tree = NONE;
        Sub left, right;
    };
    TopResume resume_;
    bool resumable_ = false;  // this solve() is the whole problem's complete search
    i64 top_done_ = -1, top_live_ = -1;  // the kept search's roots (SolveOutcome::top_done, top_live)
    void keep_top(int d, i64 ub, const std::vector<i64>& lbL, const std::vector<i64>& lbR,
                  const std::vector<char>& open, const Incumbent& inc);
    void resume_top(int d, i64 ub, std::vector<i64>& lbL, std::vector<i64>& lbR, std::vector<char>& open,
                    Incumbent& inc);
    std::vector<i64> scratch_h_;
    std::vector<int> scratch_occ_;
    std::vector<char> scratch_seen_;
    std::vector<i64> scratch_a_, scratch_b_;
    std::vector<int> scan_upos_, scan_ucls_;  // depth2_scan's units (row, class, weight), reused
    std::vector<i64> scan_uw_;
    std::vector<int32_t> scan_bkt_;  // depth2_scan's per-unit tables, reused
    std::vector<uint32_t> scan_w_, scan_w1_;
    i64 scan_block_slack_ = 8;  // the least slack that starts a block: 8 units of scan_w_'s mean weight
    std::vector<i64> scan_wpre_, scan_w1pre_;
    std::unique_ptr<Pool> pool_;  // threads > 1 (see the constructor)
    std::vector<char> pair_lo_;   // global chain g: (g, g + 1) is a missing-value pair (see set_pairing)
    bool pairing_ = true;
    bool missing_bound_ = true;  // see set_missing_bound
    bool skip_copy_roots_ = true;  // see set_skip_copy_roots
    bool row_sums_ = true;       // see set_row_sums
    int bits_path_ = -1, pair_path_ = -1;  // see set_count_paths
    i64 rowsums_ = 0;            // pair solves by row sums (this object, not its wave clones)
    i64 mb_solves_ = 0, mb_skips_ = 0;  // see missing_bound_stats
    mutable i64 scan_missing_errors_ = 0;  // see scan_missing_errors
    i64 copy_skips_ = 0;                // see copy_roots_skipped
    double scan_threads_work_ = 1 << 15, pair_threads_ops_ = 2e5;  // see set_thread_work

    // ------------------------------------------------------------------ parallel roots (waves.cpp)
    // A clone is one thread's search during a wave or pipeline of the top node's roots: the same
    // problem, the owner's arena, its own scratch and counters, no pool. It reads the owner's memo
    // (base_, not written meanwhile; in a pipeline through the overlay) and writes a memo of its
    // own (memo_), handed to the root's task.
    Search(const Search& owner, int tid);
    Search* owner_ = nullptr;
    int tid_ = 0;                           // the clone's pool thread (0: the calling thread)
    const Memo* base_ = nullptr;
    // a clone in the pipeline of roots: the committed roots' entries it may see (the first snap_
    // layers of the overlay), over base_
    const Overlay* overlay_ = nullptr;
    int snap_ = 0;
    // a clone: the owner's memo as this root may see it (the overlay's state, else base_'s entry);
    // false when neither has (rows, depth)
    bool shared_find(const std::vector<int>& rows, int depth, u64 h, i64& lb, int& tree, i64& cost) const {
        if (overlay_ != nullptr) {
            if (const Overlay::Rec* r = overlay_->find(rows, depth, h, snap_)) {
                lb = r->lb;
                tree = r->tree;
                cost = r->cost;
                return true;
            }
        }
        const Entry* e = base_->find(rows, depth, h);
        if (e == nullptr) return false;
        lb = e->lb;
        tree = e->tree;
        cost = e->cost;
        return true;
    }
    std::unique_ptr<Overlay> overlay_own_;  // the owner's, for its pipelines
    std::mutex* pipe_mu_ = nullptr;         // the owner during a pipeline: its lock (see poll)
    const std::atomic<bool>* stop_ = nullptr;  // set: the wave is abandoned (Timeout)
    std::vector<std::unique_ptr<Search>> clones_;
    int root_wave_ = 0;  // see set_root_wave
    int root_lag_ = 0;   // see set_root_lag
    int root_level_ = -1;  // see set_root_level
    int top_d_ = 0;        // the top node's depth of the search running, and the level of its nodes
    int level_ = 0;        // whose roots run on the threads (root_level_)
    i64 waves_ = 0, wave_roots_ = 0, wave_task_us_ = 0, wave_span_us_ = 0, wave_cpu_ = 0;
    static i64 thread_cpu_us();
    // one root of a wave: chosen by the owner (t, its interval, the bounds it must beat), its
    // children evaluated by a clone, applied by the owner in root order
    struct RootTask {
        int t = 0, run_lo = 0, run_hi = 0;
        i64 bound = 0, lb1 = 0, lb2 = 0;  // the incumbent's bound; lb of the first / second side of t
        bool left_first = true;
        std::vector<int> posL, posR;
        std::vector<i64> FL, FR;
        std::vector<char> presL, presR;
        std::vector<u64> maskL, maskR;
        Sub s1, s2;
        int evaluated = 0;  // children evaluated (1: the first only, 2: both)
        int status = 0;     // 0 not run, 1 done, 2 timed out / abandoned, 3 interrupted, 4 error
        int snap = 0;       // in a pipeline: the roots committed when it was chosen (the memo it sees)
        Counts counts;      // in a pipeline: its search's, added to the owner's when it is committed
        std::exception_ptr error;
        Memo memo;          // the entries its search added
    };
    void root_waves(const View& V, const std::vector<i64>& F, const i64* N, int d, i64 ub, i64 lb0, i64 tot,
                    const std::vector<i64>& ftot, std::vector<i64>& lbL, std::vector<i64>& lbR,
                    std::vector<char>& open, RootQueue<RootKey>& queue, Incumbent& inc, const ViewBits* bits,
                    const std::vector<i64>& pair_e, std::vector<i64>& floorL, std::vector<i64>& floorR, bool top);
    void root_pipeline(const View& V, const std::vector<i64>& F, const i64* N, int d, i64 ub, i64 lb0, i64 tot,
                       const std::vector<i64>& ftot, std::vector<i64>& lbL, std::vector<i64>& lbR,
                       std::vector<char>& open, RootQueue<RootKey>& queue, Incumbent& inc, const ViewBits* bits,
                       const std::vector<i64>& pair_e, std::vector<i64>& floorL, std::vector<i64>& floorR, bool top);
    // root j lies in the interval of open roots of rt, a root still running (one root per
    // interval, ConTree's halving: a second root of the same run would mostly be ruled out by the
    // first one's result, so it waits for that result)
    static bool covers(const RootTask& rt, const View& V, int j) {
        return V.cchain[j] == V.cchain[rt.t] && j >= rt.run_lo && j <= rt.run_hi;
    }
    // the next root as the serial loop picks it (search.cpp; waves.cpp): the open root of least
    // bound among those `busy` does not exclude, moved to the middle of its run of open roots
    // below the bound (ConTree's halving; the run in *lo, *hi), closed; the roots the missing rows'
    // floors rule out are closed on the way, their bounds raised; -1 when none is left below it
    template <class Busy>
    int pick_root(const View& V, std::vector<i64>& lbL, std::vector<i64>& lbR, std::vector<char>& open,
                  RootQueue<RootKey>& queue, i64 bound, std::vector<i64>& floorL, std::vector<i64>& floorR, int* lo,
                  int* hi, Busy&& busy) {
        while (true) {
            double kmin = 0;
            int t = queue.next(open, &kmin, busy);
            if (t < 0 || !(kmin < static_cast<double>(bound))) return -1;
            t = interval_middle(V, t, open, lbL, lbR, bound, lo, hi);
            open[t] = 0;
            if (floorL.empty() || std::max(lbL[t], floorL[t]) + std::max(lbR[t], floorR[t]) < bound) return t;
            lbL[t] = std::max(lbL[t], floorL[t]);  // ruled out by the missing rows' bound
            lbR[t] = std::max(lbR[t], floorR[t]);
            ++mb_skips_;
        }
    }
    template <class Busy>
    bool next_root(RootTask& rt, const View& V, i64 tot, const std::vector<i64>& ftot, std::vector<i64>& lbL,
                   std::vector<i64>& lbR, std::vector<char>& open, RootQueue<RootKey>& queue, i64 bound,
                   const std::vector<char>& kind, std::vector<i64>& floorL, std::vector<i64>& floorR, Busy&& busy);
    // one root on clone s (a wave's or the pipeline's task; never throws): rt.status 1 done, 2 cut
    // (the time limit, or `stop`), 3 interrupted, 4 an error (kept in rt.error); `stop` set when it
    // did not finish; the memo its search added handed to rt. Its thread CPU time (us).
    i64 run_root(Search& s, RootTask& rt, std::atomic<bool>& stop, const View& V, const std::vector<i64>& F,
                 const i64* N, int d, i64 tot, const std::vector<i64>& ftot, const ViewBits* bits);
    // what the calling thread's host calls saw while its roots ran (idle_host)
    struct HostSeen {
        bool timeout = false, interrupted = false;
        std::exception_ptr error;
    };
    // the calling thread's duties while a wave's or the pipeline's roots run (clone 0's clock and
    // the host): a time-out, an interrupt or anything else the host throws sets `stop` and is
    // recorded in `seen`, never thrown (a pool task or idle call must not throw)
    void idle_host(std::atomic<bool>& stop, HostSeen& seen);
    bool apply_root(const RootTask& rt, const View& V, int T, i64 tot, const std::vector<i64>& ftot,
                    std::vector<i64>& lbL, std::vector<i64>& lbR, Incumbent& inc, i64 ub, i64 lb0,
                    const std::vector<char>& kind, const std::vector<i64>& pair_e, std::vector<i64>& floorL,
                    std::vector<i64>& floorR, bool top);
    void eval_root(RootTask& rt, const View& V, const std::vector<i64>& F, const i64* N, int d, i64 tot,
                   const std::vector<i64>& ftot, const ViewBits* bits);

    // ------------------------------------------------------------------ helpers (search.cpp)
    // a call's clock (solve, greedy): check_time counts from now
    void start_clock(double time_limit, Host* host);

    // the clock is read every 64th call, or at every call of a step over at least kPollRows rows
    // (10^6 rows: one depth-two root scan takes ~15 ms, 64 of them a second past the limit)
    static constexpr int kPollRows = 4096;
    void check_time(bool force = false) {
        if (!force && (++ticks_ & 63) != 0) return;
        double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        if (el > limit_) throw Timeout();
        if (stop_ != nullptr && stop_->load(std::memory_order_relaxed)) throw Timeout();
        if (el >= next_poll_) poll(el);
    }

    // the host: its signals, then the progress report when it is due
    void poll(double el);

    const i64* w(int row) const { return &wext_[static_cast<size_t>(row) * C1_]; }
    const i64* wd(int row) const { return &wdiv_[static_cast<size_t>(row) * C1_]; }

    int argmax(const i64* v, int stride = 1) const {
        int best = 0;
        for (int c = 1; c < C_; ++c)
            if (v[c * stride] > v[best * stride]) best = c;
        return best;
    }

    int new_split(int col, int left, int right) { return arena_->push({col, left, right}); }

    int materialize(const Sub& s) {
        if (s.stump_col >= 0) return new_split(s.stump_col, leaf_ref(s.lab_l), leaf_ref(s.lab_r));
        return s.tree;
    }

    // preorder arrays (feature column, left index, right index, label); leaves have feature -1
    TreeArrays export_tree(int ref) const;

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

    // the memo entry of (rows, depth): lower bound lb, and the optimum opt when not null; in the
    // restricted search's memo when `restricted`
    void store(const std::vector<int>& rows, int depth, u64 h, i64 lb, const Sub* opt, bool restricted = false) {
        Memo& memo = restricted ? rmemo_ : memo_;
        if (base_ != nullptr && !restricted) {  // a clone: its entry starts from the owner's bound
            i64 blb, bcost;
            int btree;
            if (shared_find(rows, depth, h, blb, btree, bcost)) lb = std::max(lb, blb);
        }
        if (opt == nullptr) {
            memo.store(rows, depth, h, lb, NONE, INF);
        } else {
            const int tree = materialize(*opt);
            memo.store(rows, depth, h, lb, tree, opt->val);
        }
    }

    // ------------------------------------------------------------------ counting (view.cpp)
    void count(const View& V, const int* pos, int np, std::vector<i64>& F, std::vector<char>* present, int rows);
    void build_bits(const View& V, ViewBits& B) const;
    void count_bits(const View& V, const ViewBits& B, const u64* mask, std::vector<i64>& F,
                    std::vector<char>* present, int rows) const;
    void presence(const View& V, const int* pos, int np, std::vector<char>& present);
    std::vector<int> useful(const std::vector<i64>& F, const std::vector<char>& present, const i64* N, int T) const;
    View subview(const View& P, const int* pos, int np, const std::vector<int>& keep) const;

    // ------------------------------------------------------------------ greedy (greedy.cpp)
    int greedy_node(const std::vector<int>& pos, int d, i64* cost);
    void cart_tests(const View& V, const std::vector<i64>& F, const i64* N, int k, std::vector<int>& out);
    int gini_best(const View& V, const std::vector<int>& pos, const std::vector<i64>* Fin, const i64* Nin);

    // ------------------------------------------------------------------ depth one and two (depth2.cpp)
    struct PairBest {
        std::vector<i64> vr, vl;  // best value of the right / left subtree of each root
        std::vector<int> jr, jl;  // its column (-1: a leaf)
    };
    std::vector<PairBest> pair_parts_;  // one per thread (threads > 1)
    std::vector<std::vector<i64>> pair_hist_;
    Sub depth1(const std::vector<i64>& F, int T, const i64* N);
    inline void pair_values(int i, int j, const i64* P, const std::vector<i64>& F, int T, const i64* N, i64& vr,
                     i64& vl) const;
    inline void pair_update(PairBest& pb, int i, int j, const i64* P, const std::vector<i64>& F, int T,
                            const i64* N) const;
    // pair_update in any order of the pairs: a tie goes to the child the serial order meets
    // first (rank, see pair_rank), so the threads' parts combine to the serial answer
    inline void pair_update_ranked(PairBest& pb, int i, int j, const i64* P, const std::vector<i64>& F, int T,
                                   const i64* N, const View& V, bool hist) const;
    // the class weights of the rows of two bitsets' intersection (the pair solver's counts):
    // bit-planes of weight / unit_ (a popcount per bit of the weights, few for merged counts and
    // class weights), or, when the weights have many bits (float sample weights scaled to 2^32),
    // a table per byte of rows of the weights of each of its 256 subsets (8 lookups per word
    // whatever the weights' bits), or per root the row sums (rows, count_root; AVX-512 BW or AVX2)
    struct PairWeights {
        int C = 0, W = 0;
        bool table = false;
        std::vector<std::vector<u64>> planes;
        std::vector<int> plane_class, plane_shift;
        std::vector<i64> unit;
        std::vector<i64> tab;      // (8 W bytes) x 256 x C
        std::vector<int32_t> tab32;  // the same in 32 bits when its entries fit (half the cache)
        std::vector<u64> tab2;       // two classes whose totals are below 2^32: both in one word
                                     // (class 1 in the high half; the sums carry nothing across)
        // row sums (AVX-512 BW or AVX2, class totals below 2^32): per root i, the weights of its rows
        // added into every column j > i that holds them (masked 32-bit adds, 16 columns per
        // instruction) instead of counting each pair; no tables (count_root)
        bool rows = false;
        bool avx2 = false;               // by AVX2's 8 lanes (no AVX-512 BW, or forced)
        int S16 = 0;                     // a row's stride in 16-bit blocks
        std::vector<uint16_t> rowbits;   // n x S16 blocks: the columns right of each row
        std::vector<u64> cls;            // C x W: the rows with a weight of class c
        std::vector<uint32_t> w32;       // C x n: the rows' weights per class
        void count(const u64* a, const u64* b, i64* P) const;
        // P[j * C + c] for j > i: the class weights of the rows right of i and of j
        void count_root(const u64* bi, int i, int T, i64* P) const;
        template <class E>
        void count_table(const E* tab, const u64* a, const u64* b, i64* P) const;
    };
    void pair_weights(const View& V, PairWeights& pw) const;
    // the row sums' inputs (row_sums_into) for the first `classes` columns of the weights: the
    // rows holding each (cls, classes x W words) and their weights (w32, classes x 64 W); false,
    // nothing filled, when a column's total on V reaches 2^32 (the sums are 32-bit)
    bool row_weights(const View& V, int classes, std::vector<u64>& cls, std::vector<uint32_t>& w32) const;
    void pair_threads(const View& V, const std::vector<i64>& F, const i64* N, PairBest& pb, bool by_bits,
                      const std::vector<u64>& bits, const PairWeights& pw);
    double bitset_ops(const View& V) const;
    double hist_ops(const View& V) const;
    bool use_pair_solver(const View& V) const;
    Sub pair_depth2(const View& V, const std::vector<i64>& F, const i64* N);
    void pair_histogram(const View& V, int a, int b, std::vector<i64>& H) const;
    int side_tree(const View& V, const std::vector<i64>& F, const i64* N, int i, int j, bool right);

    // ------------------------------------------------------------------ the recursion (search.cpp)
    Sub solve_node(const View& P, const std::vector<int>& pos, int d, i64 ub, const std::vector<i64>* Fin,
                   const std::vector<char>* presin, bool top);
    View node_view(const View& P, const std::vector<int>& pos, const i64* N, const std::vector<i64>* Fin,
                   const std::vector<char>* presin, std::vector<i64>& FV);
    Sub top_part(const View& P, const std::vector<int>& pos, const std::vector<i64>& N, int d, i64 ub,
                 const Sub& leaf, i64 lb0, const std::vector<i64>* Fin, const std::vector<char>* presin);
    void similar(i64 v, const std::vector<i64>& Fa, int T, i64 n, std::vector<i64>& lb_same,
                 std::vector<i64>& lb_other, bool left);
    // the missing rows' bound (roots.cpp): pair_e[k] for the first chain k of each pair (kind 1),
    // else -1; the floors of the children holding M at once; similar_missing after a pair
    // root's side without M (value v, counts Fa, weight n)
    void missing_bounds(const View& V, const std::vector<i64>& F, const i64* N, const std::vector<char>& kind, int d,
                        std::vector<i64>& floorL, std::vector<i64>& floorR, std::vector<i64>& pair_e);
    void similar_missing(i64 v, const std::vector<i64>& Fa, int T, i64 n, const View& V, int k, i64 e,
                         std::vector<i64>& floorL, std::vector<i64>& floorR) const;
    void missing_floors(const View& V, const i64* fc, const i64* N, int k, i64 gain, std::vector<i64>& floorL,
                        std::vector<i64>& floorR) const;
    Sub child(const View& V, const std::vector<int>& pos, int d, i64 ub, const std::vector<i64>& F,
              const std::vector<char>* pres, const i64* Nside);
    void root_bounds(const std::vector<i64>& F, int T, const i64* N, i64 tot, std::vector<i64>& lbL,
                     std::vector<i64>& lbR, std::vector<double>& tie, std::vector<i64>& ftot) const;
    bool adopt(Incumbent& inc, const View& V, int t, const Sub& l, const Sub& r, i64 ub, i64 lb0, bool top);
    Sub roots_result(const View& V, const Sub& leaf, Incumbent& inc, const std::vector<i64>& lbL,
                     const std::vector<i64>& lbR, i64 ub, i64 lb0, bool top, i64* lb_out);
    void record_top_bound(i64 leaf, const std::vector<i64>& lbL, const std::vector<i64>& lbR, const Incumbent& inc);
    Sub root_search(const View& V, const std::vector<i64>& F, const i64* N, int d, i64 ub, const Sub& leaf,
                    i64 lb0, bool top, i64* lb_out, const std::vector<int>* tests = nullptr);

    // ------------------------------------------------------------------ depth two, long chains (scan.cpp)
    Sub depth2_scan(const View& V, const std::vector<i64>& F, const i64* N, i64 ub, const Sub& leaf, i64 lb0,
                    bool top, i64* lb_out);
    template <class Best>
    void scan_chain_blocks(const View& V, int k, int a, int la, const std::vector<int>& start,
                           const std::vector<i64>& tot_side, const std::vector<i64>& side_n, Best& best,
                           bool merged = false) const;
    // the kind of each chain of a node's view in the depth-two scan: 0 on its own, 1 the first
    // chain of a missing-value pair scanned as one with the next, 2 a chain whose columns split
    // the node's rows as some column of the previous one (skipped), 3 the second chain of a pair
    // (skipped in the blocks scan only, where pairs are merged)
    void pair_kinds(const View& V, std::vector<char>& kind) const;
    void scan_missing_bounds(const View& V, const std::vector<i64>& F, const i64* N, const std::vector<char>& kind,
                             const std::vector<int>& start, const int* upos, const int* ucls, const i64* uw,
                             std::vector<i64>& lbL, std::vector<i64>& lbR) const;
    // the roots of chains of kind 2 that the depth-two scan leaves to their copies (scan.cpp)
    static int copy_roots(const View& V, const std::vector<char>& kind, const std::vector<i64>& wsum,
                          std::vector<int>& copy_of, std::vector<char>& open);
};

}  // namespace satdt_dp
