// satdt.solvers.dp core: ConTree's depth-two scan [3] for nodes whose columns are mostly
// thresholds of a few numeric features (long chains).

#include <algorithm>
#include <atomic>
#include <vector>

#include "bounds.h"
#include "search.h"

namespace satdt_dp {

// ------------------------------------------------------------------ depth two, long chains
// The best split point of each side as scan_chain_blocks keeps it. Serial: the chains in order,
// a point kept when strictly below the best (the first of the least errors wins).
struct SerialScanBest {
    std::vector<i64>& best_err;
    std::vector<int>& best_col;
    std::vector<int>& best_lab_l;
    std::vector<int>& best_lab_r;
    i64 err(int sd) const { return best_err[sd]; }
    void record(int sd, i64 e, int col, int lab_l, int lab_r) {
        best_err[sd] = e;
        best_col[sd] = col;
        best_lab_l[sd] = lab_l;
        best_lab_r[sd] = lab_r;
    }
};

// Threads: chain k's points against the best of all chains so far, G = err * p + chain (an
// atomic minimum). A point (e, k) is kept when e * p + k < G: it beats every point found on
// the lower chains and ties or beats those of the higher ones, so the serial answer (least
// errors, then lowest chain, then first point) is always kept and G ends at it, whatever the
// threads' timing. Within a chain the first point of the least errors is found as in the
// serial scan (a point is skipped only when it cannot be strictly below the chain's best).
struct SharedScanBest {
    std::atomic<i64>* g;
    i64 p;
    int k;
    int *col, *lab_l, *lab_r;  // this chain's slots, per side
    i64 cache[2] = {0, 0};     // err() of each side as last read from G (it only falls)
    int reads = 0;
    SharedScanBest(std::atomic<i64>* g_, int p_, int k_, int* col_, int* lab_l_, int* lab_r_)
        : g(g_), p(p_), k(k_), col(col_), lab_l(lab_l_), lab_r(lab_r_) {
        refresh(0);
        refresh(1);
    }
    // the least e with e * p + k >= G: what a point of this chain must be below
    void refresh(int sd) {
        const i64 x = g[sd].load(std::memory_order_relaxed) - k;
        cache[sd] = x <= 0 ? 0 : (x + p - 1) / p;
    }
    // G read now and then (a division): a stale value is only larger, so the scan evaluates more
    // points, never skips one that can win
    i64 err(int sd) {
        if ((++reads & 127) == 0) refresh(sd);
        return cache[sd];
    }
    void record(int sd, i64 e, int c, int ll, int lr) {
        col[sd] = c;
        lab_l[sd] = ll;
        lab_r[sd] = lr;
        const i64 enc = e * p + k;
        i64 cur = g[sd].load(std::memory_order_relaxed);
        while (enc < cur && !g[sd].compare_exchange_weak(cur, enc, std::memory_order_relaxed)) {
        }
        refresh(sd);  // <= e: a later point of this chain must beat this one strictly
    }
};

Sub Search::depth2_scan(const View& V, const std::vector<i64>& F, const i64* N, i64 ub, const Sub& leaf, i64 lb0,
                        bool top, i64* lb_out) {
    const int T = V.T(), n = V.n(), p = V.p;
    ++scans_;
    i64 tot = 0;
    for (int c = 0; c < C_; ++c) tot += N[c];
    // units (position, class, weight) sorted by bucket in each chain (counting sort; a merged row
    // with several classes is one unit per class), and each chain's bucket weights
    std::vector<int> start(T + p + 1, 0);
    std::vector<i64> wsum(T + p + 1, 0);  // prefix of the node's weight over (chain, bucket) slots
    // threads: each chain's slots, units and tables are its own (the same arrays as one thread)
    const bool threaded = pool_ && static_cast<double>(n) * p >= scan_threads_work_ && pool_->engaged();
    // (the clock read between chains: on 10^6 rows each chain's pass is ~10^7 entries)
    auto per_chain = [&](auto&& body) {
        if (threaded) {
            check_time(n >= kPollRows);
            pool_->run(p, [&](int k, int) { body(k); });
        } else {
            for (int k = 0; k < p; ++k) {
                check_time(n >= kPollRows);
                body(k);
            }
        }
    };
    std::vector<int> row_nu(n);
    std::vector<i64> row_wt(n);
    int units = 0;
    for (int r = 0; r < n; ++r) {
        const int row = V.rows[r];
        int nu = 0;
        i64 wt = 0;
        for (int z = nz_off_[row]; z < nz_off_[row + 1]; ++z)
            if (nz_cls_[z] < C_) { ++nu; wt += nz_w_[z]; }
        units += nu;
        row_nu[r] = nu;
        row_wt[r] = wt;
    }
    per_chain([&](int k) {
        const int s0 = V.col0[k] + k + 1;
        for (int r = 0; r < n; ++r) {
            const int32_t bk = V.bucket[static_cast<size_t>(r) * p + k];
            start[s0 + bk] += row_nu[r];
            wsum[s0 + bk] += row_wt[r];
        }
    });
    for (int x = 0; x < T + p; ++x) {
        start[x + 1] += start[x];
        wsum[x + 1] += wsum[x];
    }
    // the units' tables, kept between calls (scan_upos_, ...: fresh pages for 10^7 units cost more
    // than the scan that fills them)
    const size_t nunits = static_cast<size_t>(units) * p;
    if (scan_upos_.size() < nunits) {
        scan_upos_.resize(nunits);
        scan_ucls_.resize(nunits);
        scan_uw_.resize(nunits);
    }
    int* const upos = scan_upos_.data();
    int* const ucls = scan_ucls_.data();
    i64* const uw = scan_uw_.data();
    {
        std::vector<int> fill(start.begin(), start.end() - 1);
        per_chain([&](int k) {
            const int s0 = V.col0[k] + k;
            for (int r = 0; r < n; ++r) {
                const int row = V.rows[r];
                const int32_t bk = V.bucket[static_cast<size_t>(r) * p + k];
                for (int z = nz_off_[row]; z < nz_off_[row + 1]; ++z) {
                    if (nz_cls_[z] >= C_) continue;
                    const int x = fill[s0 + bk]++;
                    upos[x] = r;
                    ucls[x] = nz_cls_[z];
                    uw[x] = nz_w_[z];
                }
            }
        });
    }
    // (the blocks' sums are 32-bit, unsigned: exact below 2^32; float sample weights scale to a
    // 2^32 total, so most of their nodes pass)
    const bool blocks_ok = C_ == 2 && tot < (i64(1) << 32);  // = blocks below: merged pairs scanned as one
    // missing-value pairs (pair_kinds): a merged pair's units in bucket order of k, then of k + 1
    std::vector<char> kind(p, 0);
    if (pairing_) {
        pair_kinds(V, kind);
        for (int k = 0; k < p; ++k) {
            if (kind[k] != 1) continue;
            if (blocks_ok) ++merged_;
            const int s0 = V.col0[k] + k, t_k = V.col0[k + 1] - V.col0[k];
            auto hi = [&](int x) { return V.bucket[static_cast<size_t>(upos[x]) * p + k + 1]; };
            for (int b = 1; b <= t_k; ++b) {
                const int x0 = start[s0 + b], x1 = start[s0 + b + 1];
                bool sorted = true;
                for (int x = x0 + 1; x < x1 && sorted; ++x) sorted = hi(x - 1) <= hi(x);
                if (sorted) continue;
                std::vector<int> idx(x1 - x0);
                for (int x = x0; x < x1; ++x) idx[x - x0] = x;
                std::stable_sort(idx.begin(), idx.end(), [&](int u, int v) { return hi(u) < hi(v); });
                std::vector<int> pu(idx.size()), pc(idx.size());
                std::vector<i64> pw(idx.size());
                for (size_t y = 0; y < idx.size(); ++y) {
                    pu[y] = upos[idx[y]];
                    pc[y] = ucls[idx[y]];
                    pw[y] = uw[idx[y]];
                }
                std::copy(pu.begin(), pu.end(), upos + x0);
                std::copy(pc.begin(), pc.end(), ucls + x0);
                std::copy(pw.begin(), pw.end(), uw + x0);
            }
        }
    }
    // two classes (the common case) scan in blocks: each unit's bucket in every chain (so the
    // side of a root is a compare on a sequential array) and prefix weights (so a block of
    // units that cannot reach an evaluation is summed without looking at its buckets)
    const int U = static_cast<int>(nunits);
    const bool blocks = blocks_ok;
    if (blocks) {
        scan_bkt_.resize(static_cast<size_t>(p) * U);
        scan_w_.resize(U);
        scan_w1_.resize(U);
        scan_wpre_.resize(U + 1);
        scan_w1pre_.resize(U + 1);
        scan_wpre_[0] = scan_w1pre_[0] = 0;
        per_chain([&](int kk) {  // the units of chain kk's order
            for (int x = start[V.col0[kk] + kk], e = start[V.col0[kk + 1] + kk + 1]; x < e; ++x) {
                const int32_t* b = &V.bucket[static_cast<size_t>(upos[x]) * p];
                for (int k = 0; k < p; ++k) scan_bkt_[static_cast<size_t>(k) * U + x] = b[k];
                scan_w_[x] = static_cast<uint32_t>(uw[x]);
                scan_w1_[x] = ucls[x] == 1 ? static_cast<uint32_t>(uw[x]) : 0;
            }
        });
        for (int x = 0; x < U; ++x) {
            scan_wpre_[x + 1] = scan_wpre_[x] + uw[x];
            scan_w1pre_[x + 1] = scan_w1pre_[x] + scan_w1_[x];
        }
        scan_block_slack_ = 8 * std::max<i64>(1, U > 0 ? scan_wpre_[U] / U : 1);
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
    std::vector<int> copy_of;  // (copy_roots)
    if (skip_copy_roots_)
        copy_skips_ += copy_roots(V, kind, wsum, copy_of, open);
    auto copy_bounds = [&] {
        for (size_t j = 0; j < copy_of.size(); ++j)
            if (copy_of[j] >= 0) {
                lbL[j] = lbL[copy_of[j]];
                lbR[j] = lbR[copy_of[j]];
            }
    };
    // each merged pair's missing rows M: a child holding them costs at least e more (issue 24)
    if (pairing_ && missing_bound_) scan_missing_bounds(V, F, N, kind, start, upos, ucls, uw, lbL, lbR);
    for (int k = 0; k < p; ++k) chain_best(k);
    Incumbent inc(leaf, ub);
    const i64& bound = inc.bound;  // what a root must beat: min(ub, best so far)
    std::vector<i64> cum(2 * C_), tot_side(2 * C_), best_err(2), side_n(2), cap_err(2);
    std::vector<int> best_col(2), best_lab_l(2), best_lab_r(2);
    std::atomic<i64> shared_g[2];  // threads: the best split point of each side, err * p + chain
    std::vector<int> slot_col(2 * p), slot_lab_l(2 * p), slot_lab_r(2 * p);  // each chain's
    try {
        while (true) {
            check_time(n >= kPollRows);
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
            const int* __restrict up = upos;
            const int* __restrict uc = ucls;
            const i64* __restrict uwt = uw;
            const char* __restrict sdv = side.data();
            i64* __restrict cm = cum.data();
            const bool two = C_ == 2;  // two classes: the counts live in registers
            if (blocks && pool_ && static_cast<double>(U) * p >= scan_threads_work_ && pool_->engaged()) {
                // the chains on the threads: each finds its side's first best split point below
                // the shared best G (err * p + chain: a chain keeps the points that beat the lower
                // chains strictly and tie the higher ones), so G ends at the serial answer
                for (int sd = 0; sd < 2; ++sd) shared_g[sd].store(best_err[sd] * p, std::memory_order_relaxed);
                pool_->run(p, [&](int k, int) {
                    if (kind[k] >= 2) return;
                    SharedScanBest sb(shared_g, p, k, &slot_col[2 * k], &slot_lab_l[2 * k], &slot_lab_r[2 * k]);
                    if (sb.err(0) > 0 || sb.err(1) > 0)
                        scan_chain_blocks(V, k, a, la, start, tot_side, side_n, sb, kind[k] == 1);
                });
                for (int sd = 0; sd < 2; ++sd) {
                    const i64 g = shared_g[sd].load(std::memory_order_relaxed);
                    if (g >= best_err[sd] * p) continue;  // no split point beat the leaf or the cap
                    const int k = static_cast<int>(g % p);
                    best_err[sd] = g / p;
                    best_col[sd] = slot_col[2 * k + sd];
                    best_lab_l[sd] = slot_lab_l[2 * k + sd];
                    best_lab_r[sd] = slot_lab_r[2 * k + sd];
                }
            } else if (blocks) {
                SerialScanBest sb{best_err, best_col, best_lab_l, best_lab_r};
                for (int k = 0; k < p && (best_err[0] > 0 || best_err[1] > 0); ++k)
                    if (kind[k] < 2) scan_chain_blocks(V, k, a, la, start, tot_side, side_n, sb, kind[k] == 1);
            }
            for (int k = 0; !blocks && k < p && (best_err[0] > 0 || best_err[1] > 0); ++k) {
                if (kind[k] == 2) continue;  // the columns of chain k - 1 again
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
    } catch (const Cut&) {  // its time cap or the host's stop
        copy_bounds();
        if (top) record_top_bound(leaf.val, lbL, lbR, inc);
        throw;
    }
    copy_bounds();
    return roots_result(V, leaf, inc, lbL, lbR, ub, lb0, top, lb_out);
}

// The roots of a chain k of kind 2 in depth2_scan (pair_kinds: the second chain of a
// missing-value pair, on a node without a missing value of its feature) split the node's rows as
// roots of chain k - 1: the two chains order the rows alike (every bucket of k - 1 in one bucket
// of k, non-decreasing), so the left sides of their columns are nested, and a column of k has a
// copy in k - 1 when one has as much weight on its left (equal weights of nested sides: the same
// rows, up to rows of weight 0, which change no cost). Such a root is closed before the scan:
// copy_of[j] its copy (-1 for the other roots; the scan gives it its copy's bounds when it ends),
// and the scan evaluates the same roots' values once instead of twice: the same optimum. The
// number of roots closed. O(columns of the two chains) per pair (wsum: depth2_scan's prefix
// weights of the chains' buckets).
int Search::copy_roots(const View& V, const std::vector<char>& kind, const std::vector<i64>& wsum,
                       std::vector<int>& copy_of, std::vector<char>& open) {
    const int T = V.T(), p = V.p;
    auto left = [&](int k, int j) {  // the weight on the left of column j of chain k
        const int s = V.col0[k] + k;
        return wsum[s + V.clevel[j]] - wsum[s];
    };
    copy_of.assign(T, -1);
    int closed = 0;
    for (int k = 1; k < p; ++k) {
        if (kind[k] != 2) continue;
        int j = V.col0[k - 1];
        for (int c = V.col0[k]; c < V.col0[k + 1]; ++c) {
            const i64 wl = left(k, c);
            while (j < V.col0[k] && left(k - 1, j) < wl) ++j;
            if (j < V.col0[k] && left(k - 1, j) == wl) {
                copy_of[c] = j;
                open[c] = 0;
                ++closed;
            }
        }
    }
    return closed;
}

// One chain k of depth2_scan for the root (chain a, level la), two classes: the best stump of
// each side over the chain's split points. A side is evaluated at a bucket's end when its
// seen weight passed thr (see depth2_scan); between two evaluations, a block of units whose
// weight cannot carry either side past its thr, or whose class weights fit both sides'
// class-wise room (class_caps below: a rare class's plateaus), is summed in one vectorizable
// pass (its class-1 and right-side weights), without looking at bucket ends; the chain ends
// when no split point left can beat either side's best (thr, or the class-wise room).
//
// merged: chains k and k + 1 are a missing-value pair on this node (pair_kinds), the units of
// buckets 1..t_k of k in the order (bucket of k, bucket of k + 1). Bucket 0 of k (M) is
// counted per side first, and the split point "M | the rest" (column 0 of k) evaluated; then
// one pass over the other units meets every split point of both chains: where the bucket of k
// changes, column b of k (M and the units so far on the left); where the bucket of k + 1
// changes, its column c (the units so far on the left, M on the right). Both errors are
// computed at every evaluated point, and thr holds their minimum: each changes by at most the
// weight moved across the split point, so their minimum does too, and no split point that
// could beat the best of either chain is skipped. Points are met in the pass's order, the
// column of k before that of k + 1 (the first of the least errors wins).
template <class Best>
void Search::scan_chain_blocks(const View& V, int k, int a, int la, const std::vector<int>& start,
                               const std::vector<i64>& tot_side, const std::vector<i64>& side_n, Best& best,
                               bool merged) const {
    const int U = static_cast<int>(scan_w_.size());
    const int32_t* __restrict Ba = &scan_bkt_[static_cast<size_t>(a) * U];
    const int32_t* __restrict Bk = &scan_bkt_[static_cast<size_t>(k) * U];
    const int32_t* __restrict Bh = merged ? &scan_bkt_[static_cast<size_t>(k + 1) * U] : Bk;
    const uint32_t* __restrict w = scan_w_.data();
    const uint32_t* __restrict w1 = scan_w1_.data();
    const i64* __restrict wpre = scan_wpre_.data();
    const i64* __restrict w1pre = scan_w1pre_.data();
    const int t_k = V.col0[k + 1] - V.col0[k];
    const int s0 = V.col0[k] + k;
    int x = start[s0];
    // the last bucket (beyond every split point) is not scanned, but for a merged pair (the
    // columns of k + 1 within it)
    const int xe = start[s0 + t_k + (merged ? 1 : 0)];
    i64 sn[2] = {0, 0}, k1[2] = {0, 0}, thr[2] = {0, 0};
    i64 mn[2] = {0, 0}, m1[2] = {0, 0};  // merged: the weight and class-1 weight of M per side
    // The class-wise room of a side, beside thr's weight: with n0, n1 the side's class weights
    // and d = l0 - l1 the class-0 minus class-1 weight left of a split point (M's included in
    // the direction that sends M left), its errors are min(n0, n1, n0 - d, n1 + d); the side's
    // best b is at most its leaf min(n0, n1), so a point beats b only when d < b - n1 or
    // d > n0 - b. Class-1 weight moved left lowers d by its weight, class-0 weight raises it;
    // so after an evaluated point no point of the side beats b (b only falls) before its seen
    // class-1 weight passes cap1 = l1 + (d - (b - n1)) or its class-0 weight passes
    // cap0 = l0 + (n0 - b - d), the least over the directions. On a plateau of the errors (a
    // rare class, the best at the leaf) thr's slack is 0 at every unit, while these caps let
    // a block run to the next few units of the rare class.
    i64 cap0[2] = {0, 0}, cap1[2] = {0, 0};
    // the node's weight per unit of class-1 (class-0) weight: how far room for one more unit
    // of that class reaches on average
    const double block_min = static_cast<double>(scan_block_slack_);
    const double stride1 = static_cast<double>(wpre[U]) / static_cast<double>(std::max<i64>(1, w1pre[U]));
    const double stride0 = static_cast<double>(wpre[U]) / static_cast<double>(std::max<i64>(1, wpre[U] - w1pre[U]));
    auto class_caps = [&](int sd) {
        const i64 n0 = tot_side[sd * 2], n1 = tot_side[sd * 2 + 1], b = best.err(sd);
        const i64 l1 = k1[sd], l0 = sn[sd] - l1;
        i64 room0 = INF, room1 = INF;
        for (int dir = 0; dir < (merged ? 2 : 1); ++dir) {
            const i64 dd = l0 - l1 + (dir == 0 ? mn[sd] - 2 * m1[sd] : 0);
            room1 = std::min(room1, dd - (b - n1));
            room0 = std::min(room0, n0 - b - dd);
        }
        cap1[sd] = l1 + room1;
        cap0[sd] = l0 + room0;
    };
    // the side's units not yet seen (its present units past x) within its caps: no point left beats b
    auto rest_fits = [&](int sd) {
        const i64 rest1 = tot_side[sd * 2 + 1] - m1[sd] - k1[sd];
        const i64 rest0 = tot_side[sd * 2] - (mn[sd] - m1[sd]) - (sn[sd] - k1[sd]);
        return rest1 <= cap1[sd] - k1[sd] && rest0 <= cap0[sd] - (sn[sd] - k1[sd]);
    };
    // the end of a block from x (at most `lim`) whose class-0 and class-1 weights are within
    // room0 and room1 (both prefix sums rise with the end: a binary search)
    auto class_block_end = [&](int x0, int lim, i64 room0, i64 room1) {
        auto fits = [&](int y) {
            const i64 c1 = w1pre[y] - w1pre[x0];
            return c1 <= room1 && wpre[y] - wpre[x0] - c1 <= room0;
        };
        int lo = x0, hi = lim;
        while (lo < hi) {
            const int mid = lo + (hi - lo + 1) / 2;
            if (fits(mid))
                lo = mid;
            else
                hi = mid - 1;
        }
        return lo;
    };
    if (merged) {
        for (const int xm = start[s0 + 1]; x < xm; ++x) {
            const int sd = Ba[x] >= la;
            mn[sd] += w[x];
            m1[sd] += w1[x];
        }
        for (int sd = 0; sd < 2; ++sd) {  // the split point "M | the rest": column 0 of k
            const i64 l1 = m1[sd], l0 = mn[sd] - l1;
            const i64 r0 = tot_side[sd * 2] - l0, r1 = tot_side[sd * 2 + 1] - l1;
            const i64 ml = std::max(l0, l1), mr = std::max(r0, r1);
            const i64 err = side_n[sd] - ml - mr;
            if (err < best.err(sd) && ml > 0 && mr > 0) best.record(sd, err, V.col0[k], l1 > l0, r1 > r0);
            // M on the right at this point: nothing on the left, the side's leaf
            const i64 leaf = side_n[sd] - std::max(tot_side[sd * 2], tot_side[sd * 2 + 1]);
            thr[sd] = std::min(err, leaf) - best.err(sd);
            class_caps(sd);
        }
    }
    while (x < xe) {
        const i64 slack = std::min(thr[0] - sn[0], thr[1] - sn[1]);
        int xb = x;
        // a block when it holds about 8 units or more (8 of the node's mean unit weight: 1
        // unweighted; float sample weights scaled to integers weigh millions, and a slack of 8
        // of their least weight made blocks of 2-3 units, each paying its binary search: raisin
        // depth 3 cost 1.7x the unweighted CPU per root); every weight is >= 1: the block
        // ends before x + slack. Blocks skip only split points that cannot beat the side's
        // best, so the same points are recorded (the first of the least errors) whatever the
        // blocks: the same stumps.
        if (slack >= scan_block_slack_) {
            const i64* hi = wpre + std::min<i64>(xe, x + slack) + 1;
            xb = static_cast<int>(std::upper_bound(wpre + x, hi, wpre[x] + slack) - wpre) - 1;
        } else {  // the class-wise room (class_caps), when the weight's slack is short
            const i64 room0 = std::min(cap0[0] - (sn[0] - k1[0]), cap0[1] - (sn[1] - k1[1]));
            const i64 room1 = std::min(cap1[0] - k1[0], cap1[1] - k1[1]);
            // tried when the block would hold about 8 units at the node's class shares (a
            // balanced node's next unit of the short class comes within a unit or two)
            if (room0 >= 0 && room1 >= 0 && static_cast<double>(room1 + 1) * stride1 >= block_min &&
                static_cast<double>(room0 + 1) * stride0 >= block_min)
                xb = class_block_end(x, static_cast<int>(std::min<i64>(xe, x + room0 + room1)), room0, room1);
        }
        if (xb > x) {
            uint32_t r = 0, r1 = 0;  // right-side weight and class-1 weight of the block
            for (int y = x; y < xb; ++y) {
                const uint32_t m = 0u - static_cast<uint32_t>(Ba[y] >= la);
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
        const int32_t bb = Bk[x], bh = Bh[x];  // the rest of this bucket, unit by unit
        i64 a0 = sn[0], a1 = sn[1], b0 = k1[0], b1 = k1[1];
        do {
            const i64 m = -static_cast<i64>(Ba[x] >= la);
            const i64 wx = w[x], wx1 = w1[x];
            a1 += wx & m;
            a0 += wx & ~m;
            b1 += wx1 & m;
            b0 += wx1 & ~m;
        } while (++x < xe && Bk[x] == bb && Bh[x] == bh);
        sn[0] = a0; sn[1] = a1; k1[0] = b0; k1[1] = b1;
        if (merged && x >= xe) break;  // every unit on the left: column 0 of k mirrored
        // the columns at this point: of k (M on the left when merged), of k + 1 (merged)
        const int col_k = !merged || Bk[x] != bb ? V.col0[k] + bb : -1;
        const int col_h = merged && Bh[x] != bh ? V.col0[k + 1] + bh : -1;
        bool evaluated = false;
        for (int sd = 0; sd < 2; ++sd) {
            if (sn[sd] <= thr[sd]) continue;
            i64 low = INF;  // the least errors of this split point (both directions when merged)
            for (int dir = 0; dir < (merged ? 2 : 1); ++dir) {
                const i64 l1 = k1[sd] + (dir == 0 ? m1[sd] : 0), l0 = sn[sd] + (dir == 0 ? mn[sd] : 0) - l1;
                const i64 r0 = tot_side[sd * 2] - l0, r1 = tot_side[sd * 2 + 1] - l1;
                const i64 ml = std::max(l0, l1), mr = std::max(r0, r1);
                const i64 err = side_n[sd] - ml - mr;
                const int col = dir == 0 ? col_k : col_h;
                if (col >= 0 && err < best.err(sd) && ml > 0 && mr > 0) best.record(sd, err, col, l1 > l0, r1 > r0);
                low = std::min(low, err);
            }
            thr[sd] = low + sn[sd] - best.err(sd);
            class_caps(sd);
            evaluated = true;
        }
        if (evaluated && ((thr[0] >= side_n[0] && thr[1] >= side_n[1]) || (rest_fits(0) && rest_fits(1)))) break;
    }
}

// The missing rows' bound in the depth-two scan (issue 24; missing_bounds, roots.cpp, at depth
// three). A merged pair (kind 1: chain k sends the rows M missing its feature left, k + 1 right)
// has M in one child of each of its roots; for rows S disjoint from M and a tree of depth one,
// cost(S + M) = q err(S) + lc leaves + q err(M) >= opt(S) + e, with e = q err*(M) the least
// errors of a tree of depth <= 1 on M alone (the leaf, or a stump on any chain: M's units,
// bucket 0 of k, counted by each chain's buckets). So each child holding M costs at least its
// other rows' leaf-conflict errors and a leaf (root_bounds) plus e; raised in lbL / lbR (the
// roots' order as well: as floors that only skip a root, more roots on all six measured cells,
// benchmarks/results/weights.md). Bounds only: the same optimum. O(|M| p + T / 64) per pair.
void Search::scan_missing_bounds(const View& V, const std::vector<i64>& F, const i64* N, const std::vector<char>& kind,
                                 const std::vector<int>& start, const int* upos, const int* ucls, const i64* uw,
                                 std::vector<i64>& lbL, std::vector<i64>& lbR) const {
    const int p = V.p, n = V.n(), T = V.T();
    const i64* fc = F.data() + static_cast<size_t>(C_) * T;
    // M's class weights per (chain, bucket) slot, and which slots hold any (a bit each), filled
    // in one pass over M's units (each unit's buckets are a row of V.bucket); each chain's sweep
    // visits its slots that hold M only (M is a small part of the node: a sweep over every
    // bucket of every chain was most of this function's time) and leaves them zero again
    const int slots = T + p;
    std::vector<i64> hist(static_cast<size_t>(slots) * C_, 0), side(2 * C_);
    std::vector<u64> held((slots + 63) / 64, 0);
    for (int k = 0; k + 1 < p; ++k) {
        if (kind[k] != 1) continue;
        const int x0 = start[V.col0[k] + k], x1 = start[V.col0[k] + k + 1];  // M: bucket 0 of k
        if (x0 == x1) continue;
        i64 confM = 0;
        for (int a = 0; a < n; ++a)
            if (V.bucket[static_cast<size_t>(a) * p + k] == 0) confM += w(V.rows[a])[C_];
        std::fill(side.begin(), side.end(), 0);
        for (int x = x0; x < x1; ++x) {
            side[C_ + ucls[x]] += uw[x];
            const int32_t* bk = &V.bucket[static_cast<size_t>(upos[x]) * p];
            for (int c2 = 0; c2 < p; ++c2) {
                const int s = V.col0[c2] + c2 + bk[c2];
                hist[static_cast<size_t>(s) * C_ + ucls[x]] += uw[x];
                held[s >> 6] |= u64{1} << (s & 63);
            }
        }
        i64 wM = 0, mx = 0;
        for (int c = 0; c < C_; ++c) { wM += side[C_ + c]; mx = std::max(mx, side[C_ + c]); }
        i64 err = wM - mx;  // the leaf
        for (int c2 = 0; c2 < p; ++c2) {  // each chain's stumps on M: left, its buckets 0..b < t
            const int s0 = V.col0[c2] + c2, s1 = V.col0[c2 + 1] + c2;  // slots of buckets 0..t - 1
            std::fill(side.begin(), side.begin() + C_, 0);
            for (int word = s0 >> 6; word <= s1 >> 6; ++word) {
                u64 bits = held[word];
                if (word == s1 >> 6) bits &= (u64{1} << (s1 & 63)) - 1;  // (bucket t: every unit left)
                if (word == s0 >> 6) bits &= ~((u64{1} << (s0 & 63)) - 1);
                for (; bits != 0; bits &= bits - 1) {
                    const int b = (word << 6) + __builtin_ctzll(bits);
                    i64 ml = 0, mr = 0, nl = 0;
                    for (int c = 0; c < C_; ++c) {
                        side[c] += hist[static_cast<size_t>(b) * C_ + c];
                        nl += side[c];
                        ml = std::max(ml, side[c]);
                        mr = std::max(mr, side[C_ + c] - side[c]);
                    }
                    err = std::min(err, nl - ml + (wM - nl) - mr);
                }
            }
        }
        for (int word = 0; word < static_cast<int>(held.size()); ++word) {  // zero again
            for (u64 bits = held[word]; bits != 0; bits &= bits - 1) {
                const int b = (word << 6) + __builtin_ctzll(bits);
                std::fill(&hist[static_cast<size_t>(b) * C_], &hist[static_cast<size_t>(b) * C_] + C_, 0);
            }
            held[word] = 0;
        }
        scan_missing_errors_ += err;
        const i64 e = q_ * err;
        if (e > q_ * confM) missing_floors(V, fc, N, k, e - q_ * confM, lbL, lbR);
    }
}

// the kinds of depth2_scan's chains (see search.h), from the buckets of the node's rows in a
// pair of chains (k, k + 1) that the constructor marked:
//   - every row of bucket b of k in one bucket h(b) of k + 1, h non-decreasing over b = 0..t_k:
//     each column c of k + 1 splits the rows as the column of k after its last bucket b with
//     h(b) <= c: kind 2 for k + 1 (its columns are k's again; no missing row on this node);
//   - bucket 0 of k (M, the rows missing the feature) all in the last bucket of k + 1, and the
//     buckets 1..t_k of k in rising buckets of k + 1 (the largest of bucket b at most the least
//     of bucket b + 1; a bucket of k may span several of k + 1): merged (kind 1 and 3). In the
//     order (bucket of k, bucket of k + 1) of the rows of buckets 1..t_k, every column of k
//     (but column 0, M | the rest) and every column of k + 1 (but those that send every such row
//     left: column 0 of k mirrored, the same stump errors) splits them at a point of that
//     order, M on the left for k, on the right for k + 1. scan_chain_blocks' merged pass meets
//     exactly those points.
// A chain is in one pair at most. The test is O(rows) per pair and node.
void Search::pair_kinds(const View& V, std::vector<char>& kind) const {
    const int p = V.p, n = V.n();
    const View& root = owner_ != nullptr ? owner_->root_ : root_;  // a clone's root view is its owner's
    std::vector<int> lo_min, lo_max;
    for (int k = 0; k + 1 < p; ++k) {
        const int t = V.col0[k + 1] - V.col0[k], t2 = V.col0[k + 2] - V.col0[k + 1];
        if (t == 0 || t2 == 0) continue;
        const int g = root.cchain[V.gcol[V.col0[k]]];
        if (!pair_lo_[g] || root.cchain[V.gcol[V.col0[k + 1]]] != g + 1) continue;
        lo_min.assign(t + 1, INT32_MAX);
        lo_max.assign(t + 1, -1);
        for (int r = 0; r < n; ++r) {
            const int32_t lo = V.bucket[static_cast<size_t>(r) * p + k], hi = V.bucket[static_cast<size_t>(r) * p + k + 1];
            lo_min[lo] = std::min<int>(lo_min[lo], hi);
            lo_max[lo] = std::max<int>(lo_max[lo], hi);
        }
        // rising over the buckets from `from` on (buckets without rows skipped)
        auto rising = [&](int from, bool single) {
            int last = -1;
            for (int b = from; b <= t; ++b) {
                if (lo_max[b] < 0) continue;
                if (lo_min[b] < last || (single && lo_min[b] != lo_max[b])) return false;
                last = lo_max[b];
            }
            return true;
        };
        if (rising(0, true)) {
            kind[k + 1] = 2;
        } else if (lo_max[0] >= 0 && lo_min[0] == t2 && rising(1, false)) {
            kind[k] = 1;
            kind[k + 1] = 3;
        } else {
            continue;
        }
        ++k;
    }
}

}  // namespace satdt_dp
