// satdt.solvers.dp core: parallel roots (see search.h): the top node's roots (or, set_root_level,
// those of the nodes some levels below it) in deterministic waves on the threads of n_jobs
// (root_waves), each root evaluated on a clone of the search (eval_root), the clones and their
// CPU clock.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <memory>
#include <mutex>
#include <exception>
#include <vector>

#include "search.h"

namespace satdt_dp {

// a clone for one thread of the top node's waves of roots (see search.h); the root view stays the
// owner's (pair_kinds reads its chains through owner_)
Search::Search(const Search& o, int tid)
    : m_(o.m_), C_(o.C_), C1_(o.C1_), B_(o.B_), q_(o.q_), lc_(o.lc_), pair_ops_(o.pair_ops_), wext_(o.wext_),
      unit_(o.unit_), wdiv_(o.wdiv_), nz_off_(o.nz_off_), nz_cls_(o.nz_cls_), nz_w_(o.nz_w_), arena_(o.arena_),
      owner_(const_cast<Search*>(&o)), tid_(tid) {
    pair_lo_ = o.pair_lo_;
    pairing_ = o.pairing_;
    missing_bound_ = o.missing_bound_;
    skip_copy_roots_ = o.skip_copy_roots_;
    bits_path_ = o.bits_path_;
    pair_path_ = o.pair_path_;
}

// the next root as the serial loop picks it (pick_root), among those `busy` does not exclude, with
// the bound as it stands: filled into rt (its bounds and which side first), false when none is left
template <class Busy>
bool Search::next_root(RootTask& rt, const View& V, i64 tot, const std::vector<i64>& ftot, std::vector<i64>& lbL,
                       std::vector<i64>& lbR, std::vector<char>& open, RootQueue<RootKey>& queue, i64 bound,
                       const std::vector<char>& kind, std::vector<i64>& floorL, std::vector<i64>& floorR,
                       Busy&& busy) {
    int run_lo = 0, run_hi = 0;
    const int t = pick_root(V, lbL, lbR, open, queue, bound, floorL, floorR, &run_lo, &run_hi, busy);
    if (t < 0) return false;
    roots_++;
    rt.t = t;
    rt.run_lo = run_lo;
    rt.run_hi = run_hi;
    rt.bound = bound;
    rt.left_first = tot - ftot[t] >= ftot[t];
    if (kind[V.cchain[t]] == 1 || kind[V.cchain[t]] == 3) rt.left_first = kind[V.cchain[t]] == 3;
    rt.lb1 = rt.left_first ? lbL[t] : lbR[t];
    rt.lb2 = rt.left_first ? lbR[t] : lbL[t];
    rt.evaluated = 0;
    rt.status = 0;
    rt.error = nullptr;
    return true;
}

i64 Search::run_root(Search& s, RootTask& rt, std::atomic<bool>& stop, const View& V, const std::vector<i64>& F,
                     const i64* N, int d, i64 tot, const std::vector<i64>& ftot, const ViewBits* bits) {
    const i64 c0 = thread_cpu_us();
    if (stop.load(std::memory_order_relaxed)) {
        rt.status = 2;
    } else {
        try {
            s.eval_root(rt, V, F, N, d, tot, ftot, bits);
            rt.status = 1;
        } catch (const Timeout&) {
            rt.status = 2;
        } catch (const Interrupted&) {
            rt.status = 3;
        } catch (...) {
            rt.status = 4;
            rt.error = std::current_exception();
        }
    }
    if (rt.status != 1) stop.store(true, std::memory_order_relaxed);
    std::swap(rt.memo, s.memo_);
    return thread_cpu_us() - c0;
}

void Search::idle_host(std::atomic<bool>& stop, HostSeen& seen) {
    try {
        clones_[0]->check_time(true);
        return;
    } catch (const Timeout&) {
        seen.timeout = true;
    } catch (const Interrupted&) {
        seen.interrupted = true;
    } catch (...) {
        if (!seen.error) seen.error = std::current_exception();
    }
    stop.store(true, std::memory_order_relaxed);
}

// an evaluated root's result as the serial loop applies it: the similarity bounds of its children
// on every root (and a missing-value pair's floors), then the incumbent when the root is strictly
// better; true when the incumbent reaches the node's bound lb0 (no root can do better)
bool Search::apply_root(const RootTask& rt, const View& V, int T, i64 tot, const std::vector<i64>& ftot,
                        std::vector<i64>& lbL, std::vector<i64>& lbR, Incumbent& inc, i64 ub, i64 lb0,
                        const std::vector<char>& kind, const std::vector<i64>& pair_e, std::vector<i64>& floorL,
                        std::vector<i64>& floorR, bool top) {
    const int t = rt.t;
    const bool lf = rt.left_first;
    const i64 nL = tot - ftot[t], nR = ftot[t];
    std::vector<i64>& lb1 = lf ? lbL : lbR;
    std::vector<i64>& lb2 = lf ? lbR : lbL;
    similar(rt.s1.val, lf ? rt.FL : rt.FR, T, lf ? nL : nR, lb1, lb2, lf);
    {  // a pair's root: its first side is the one without M (the missing rows' bound)
        const int ch = V.cchain[t], kp = kind[ch] == 1 ? ch : kind[ch] == 3 ? ch - 1 : -1;
        if (kp >= 0 && pair_e[kp] >= 0)
            similar_missing(rt.s1.val, lf ? rt.FL : rt.FR, T, lf ? nL : nR, V, kp, pair_e[kp], floorL, floorR);
    }
    if (rt.evaluated < 2) return false;
    similar(rt.s2.val, lf ? rt.FR : rt.FL, T, lf ? nR : nL, lb2, lb1, !lf);
    const Sub& sl = lf ? rt.s1 : rt.s2;
    const Sub& sr = lf ? rt.s2 : rt.s1;
    return sr.has_tree() && sl.val + sr.val < inc.bound && adopt(inc, V, t, sl, sr, ub, lb0, top);
}

// The top node's roots in waves (P-STreeD's parallel roots [REFERENCES], made deterministic):
// the calling thread picks the next `wave` roots as the serial loop would (best-first, interval
// halving) with the bounds as they stand; the threads evaluate them (each root's two children,
// with the wave's incumbent bound), each on a clone that reads the shared memo and writes a memo
// of its own; then the calling thread applies the results in root order as the serial loop does
// (similarity bounds, the incumbent with the serial tie-break: a strictly better root only) and
// absorbs the roots' memos in that order. Nothing a root sees depends on which thread ran it or
// when, so the answer and the tree are fixed for a given wave size. Between waves the memo, the
// incumbent and the bounds are shared.
void Search::root_waves(const View& V, const std::vector<i64>& F, const i64* N, int d, i64 ub, i64 lb0, i64 tot,
                        const std::vector<i64>& ftot, std::vector<i64>& lbL, std::vector<i64>& lbR,
                        std::vector<char>& open, RootQueue<RootKey>& queue, Incumbent& inc, const ViewBits* bits,
                        const std::vector<i64>& pair_e, std::vector<i64>& floorL, std::vector<i64>& floorR, bool top) {
    const int T = V.T(), nth = pool_->size();
    // the wave: at depth three a root is one or two depth-two solves (many roots, short and
    // uneven): four per thread, claimed as the threads come free, even the threads' loads; deeper,
    // a root is a big search whose result prunes the next ones: one per thread taking part
    const int K = root_wave_ > 0 ? root_wave_ : (d == 3 ? 4 * pool_->active() : pool_->active());
    if (static_cast<int>(clones_.size()) != nth) {
        clones_.clear();
        for (int th = 0; th < nth; ++th) clones_.emplace_back(new Search(*this, th));
    }
    std::vector<RootTask> tasks(K);
    // missing-value pairs on this node: a pair's root solves the side without the missing rows
    // first, as the serial loop does (root_search)
    std::vector<char> kind(V.p, 0);
    if (pairing_) pair_kinds(V, kind);
    std::atomic<bool> stop{false};
    HostSeen seen;
    for (bool done = false; !done;) {
        check_time();
        const i64 bound = inc.bound;
        int k = 0;
        auto busy = [&](int j) {
            for (int i = 0; i < k; ++i)
                if (covers(tasks[i], V, j)) return true;
            return false;
        };
        while (k < K && next_root(tasks[k], V, tot, ftot, lbL, lbR, open, queue, bound, kind, floorL, floorR, busy))
            ++k;
        if (k == 0) break;
        waves_++;
        wave_roots_ += k;
        for (auto& c : clones_) {
            c->start_ = start_;
            c->limit_ = limit_;
            c->ticks_ = 0;
            c->next_poll_ = next_poll_;
            c->base_ = &memo_;
            c->overlay_ = nullptr;
            c->stop_ = &stop;
        }
        pool_->run_idle(
            k,
            [&](int i, int th) {
                Search& s = *clones_[th];
                s.wave_cpu_ += run_root(s, tasks[i], stop, V, F, N, d, tot, ftot, bits);
            },
            [&] { idle_host(stop, seen); });  // the calling thread, out of roots, while the workers finish
        i64 span = 0;
        for (auto& c : clones_) {
            wave_task_us_ += c->wave_cpu_;
            span = std::max(span, c->wave_cpu_);
            c->wave_cpu_ = 0;
            add_counts(c->take_counts());
            c->stop_ = nullptr;
        }
        wave_span_us_ += span;
        // the results in root order, as the serial loop applies them
        if (seen.error) std::rethrow_exception(seen.error);
        int worst = seen.interrupted ? 3 : 0;
        for (int i = 0; i < k; ++i) {
            RootTask& rt = tasks[i];
            worst = std::max(worst, rt.status);
            if (rt.status == 1 && !done)
                done = apply_root(rt, V, T, tot, ftot, lbL, lbR, inc, ub, lb0, kind, pair_e, floorL, floorR, top);
        }
        for (int i = 0; i < k; ++i) memo_.absorb(tasks[i].memo);
        if (worst == 4) {
            for (int i = 0; i < k; ++i)
                if (tasks[i].error) std::rethrow_exception(tasks[i].error);
        }
        // the roots a time limit cut are open again (a kept top-level search resumes them)
        for (int i = 0; i < k; ++i)
            if (tasks[i].status != 1) open[tasks[i].t] = 1;
        if (worst == 3) throw Interrupted();
        if (worst == 2) throw Timeout();
    }
}

// The top node's roots in a pipeline (depth >= 4; parallel roots without the waves' barrier).
// In waves every thread waits at the end of each wave for the wave's longest root; here a thread
// that finishes a root takes the next one at once. Still deterministic: roots are chosen and
// committed (applied as the serial loop applies them, their memos made visible) in one fixed
// order, under a lock, by whichever thread finished the root; right after each commit, roots are
// chosen as the serial loop would (best-first, interval halving, not in the interval of a root
// still running) until `lag` roots are chosen and not yet committed. So root j is chosen with
// the bounds, the incumbent and the memo as they stand after a fixed number of commits, and a root
// reads the memo as it stood then (the Overlay: the committed roots' memos stamped in order, over
// the memo of the node's start), however far the other threads have gone since. The answer, the
// tree and the node count are fixed for a given lag (default: one more than the threads taking
// part). When a committed root reaches the node's bound (no root can do better), the roots chosen
// after it stop at once and their work is dropped (their memos and search counters; the tree
// nodes they made stay in the arena, unreferenced, so the stats' tree_nodes may vary). At the end
// the roots' memos are absorbed in root order, as after waves. A thread with nothing to take
// waits for a commit; the calling thread polls the host meanwhile.
void Search::root_pipeline(const View& V, const std::vector<i64>& F, const i64* N, int d, i64 ub, i64 lb0, i64 tot,
                           const std::vector<i64>& ftot, std::vector<i64>& lbL, std::vector<i64>& lbR,
                           std::vector<char>& open, RootQueue<RootKey>& queue, Incumbent& inc, const ViewBits* bits,
                           const std::vector<i64>& pair_e, std::vector<i64>& floorL, std::vector<i64>& floorR, bool top) {
    const int T = V.T(), nth = pool_->size(), K = pool_->active();
    // roots chosen and not yet committed, at most: one more than the threads (a thread that ends
    // its root while an older one runs finds the next one chosen; on compas d5, raisin d4 and
    // bidding d4 faster than K, see benchmarks/results/threads.md)
    const int L = root_lag_ > 0 ? root_lag_ : K + 1;
    if (static_cast<int>(clones_.size()) != nth) {
        clones_.clear();
        for (int th = 0; th < nth; ++th) clones_.emplace_back(new Search(*this, th));
    }
    std::vector<char> kind(V.p, 0);
    if (pairing_) pair_kinds(V, kind);
    if (!overlay_own_) overlay_own_.reset(new Overlay());
    Overlay& ov = *overlay_own_;
    std::vector<RootTask> ring(L);  // root j in slot j % L while chosen and not committed
    std::vector<char> finished(L, 0);
    std::vector<std::unique_ptr<Memo>> layers;  // the committed roots' memos, in root order
    struct Timing {
        i64 cpu;
        long long after;  // commits before it was chosen
    };
    std::vector<Timing> timing;  // per root, for the span on free cores (stats)
    std::mutex mu;
    std::condition_variable cv;
    std::atomic<bool> stop{false};
    long long chosen = 0, taken = 0, committed = 0;
    bool closed = false, done = false;
    int worst = 0;
    std::exception_ptr error;

    auto running = [&](int j) {  // j in the interval of a root chosen and not committed
        for (long long i = committed; i < chosen; ++i)
            if (covers(ring[static_cast<size_t>(i % L)], V, j)) return true;
        return false;
    };
    auto choose = [&] {  // (the lock held) up to L roots chosen and not committed
        while (!closed && chosen - committed < L) {
            RootTask& rt = ring[static_cast<size_t>(chosen % L)];
            if (!next_root(rt, V, tot, ftot, lbL, lbR, open, queue, inc.bound, kind, floorL, floorR, running)) break;
            rt.snap = static_cast<int>(committed);
            finished[static_cast<size_t>(chosen % L)] = 0;
            timing.push_back({0, committed});
            ++chosen;
        }
        if (chosen == committed) closed = true;  // nothing running, nothing left below the bound
    };
    bool broken = false;  // a commit threw (no memory): nothing more is committed
    auto commit = [&] {  // (the lock held) the finished roots, in root order
        while (!broken && committed < chosen && finished[static_cast<size_t>(committed % L)]) {
            RootTask& rt = ring[static_cast<size_t>(committed % L)];
            if (done) {  // chosen before the root that ended the search: abandoned, its work dropped
                rt.memo.clear();
                ++committed;
                continue;
            }
            add_counts(rt.counts);
            worst = std::max(worst, rt.status);
            if (rt.status == 4 && !error) error = rt.error;
            if (rt.status != 1) {
                open[rt.t] = 1;  // cut by the time limit (a kept top-level search resumes it)
                closed = true;
            } else if (apply_root(rt, V, T, tot, ftot, lbL, lbR, inc, ub, lb0, kind, pair_e, floorL, floorR, top)) {
                // no root can do better: the roots still running stop at once (the serial search
                // would not run them; in waves they run to their end, here they could run for
                // minutes), and their work is dropped whenever they finished, so that the memo
                // and the counters stay those of a fixed set of roots
                done = closed = true;
                stop.store(true, std::memory_order_relaxed);
            }
            layers.emplace_back(new Memo(std::move(rt.memo)));
            rt.memo.clear();
            ov.add(*layers.back(), memo_, static_cast<int>(layers.size()));
            ++committed;
            choose();
        }
    };
    choose();
    for (auto& c : clones_) {
        c->start_ = start_;
        c->limit_ = limit_;
        c->ticks_ = 0;
        c->next_poll_ = next_poll_;
        c->base_ = &memo_;
        c->overlay_ = &ov;
        c->stop_ = &stop;
    }
    pipe_mu_ = &mu;
    // the calling thread's host calls while it waits (the lock not held; only that thread writes
    // `seen`): a time-out or an interrupt seen there ends the pipeline as one seen by a root
    // does, even when every root still running then ends unhurt (the roots never chosen would
    // otherwise pass for ruled out)
    HostSeen seen;
    // whatever leaves this function: no clone keeps the pipeline's stop flag or overlay, and the
    // owner's poll no longer takes its lock
    struct Restore {
        Search* s;
        ~Restore() {
            s->pipe_mu_ = nullptr;
            for (auto& c : s->clones_) {
                c->stop_ = nullptr;
                c->overlay_ = nullptr;
            }
        }
    } restore{this};
    pool_->run_idle(
        K,
        [&](int, int th) {
            Search& s = *clones_[th];
            std::unique_lock<std::mutex> lk(mu);
            while (true) {
                if (taken < chosen) {
                    const long long j = taken++;
                    RootTask& rt = ring[static_cast<size_t>(j % L)];
                    s.snap_ = rt.snap;
                    lk.unlock();
                    const i64 cpu = run_root(s, rt, stop, V, F, N, d, tot, ftot, bits);
                    rt.counts = s.take_counts();
                    lk.lock();
                    timing[static_cast<size_t>(j)].cpu = cpu;
                    wave_task_us_ += cpu;
                    finished[static_cast<size_t>(j % L)] = 1;
                    try {  // (a pool task must not throw: e.g. no memory left for a commit)
                        commit();
                    } catch (...) {
                        if (!error) error = std::current_exception();
                        broken = closed = true;
                        stop.store(true, std::memory_order_relaxed);
                    }
                    cv.notify_all();
                    continue;
                }
                if (closed) break;
                if (stop.load(std::memory_order_relaxed)) {  // nothing more will be chosen
                    closed = true;
                    cv.notify_all();
                    continue;
                }
                if (th == 0) {
                    cv.wait_for(lk, std::chrono::microseconds(200));
                    lk.unlock();
                    idle_host(stop, seen);
                    lk.lock();
                } else {
                    cv.wait(lk);
                }
            }
        },
        [&] { idle_host(stop, seen); });
    ov.clear();  // (no reader left)
    for (auto& m : layers) memo_.absorb(*m);
    // the span on free cores: the roots replayed on K threads, each taken in order by the first
    // thread free once chosen (after its commits), commits in order
    {
        std::vector<i64> free_at(static_cast<size_t>(K), 0), commit_at(timing.size(), 0);
        for (size_t j = 0; j < timing.size(); ++j) {
            const i64 avail = timing[j].after == 0 ? 0 : commit_at[static_cast<size_t>(timing[j].after - 1)];
            auto th = std::min_element(free_at.begin(), free_at.end());
            *th = std::max(avail, *th) + timing[j].cpu;
            commit_at[j] = std::max(*th, j > 0 ? commit_at[j - 1] : 0);
        }
        wave_span_us_ += timing.empty() ? 0 : commit_at.back();
    }
    waves_++;
    wave_roots_ += chosen;
    if (error) std::rethrow_exception(error);
    if (seen.error) std::rethrow_exception(seen.error);
    if (worst == 3 || seen.interrupted) throw Interrupted();
    if (worst == 2) throw Timeout();
    if (seen.timeout && !done) {  // unless nothing was left to choose: a root open below the bound
        for (int j = 0; j < T; ++j)
            if (open[j] && lbL[j] + lbR[j] < inc.bound) throw Timeout();
    }
}

// this thread's CPU time (microseconds): the waves' work and span in stats
i64 Search::thread_cpu_us() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<i64>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

// one root of a wave on a clone: the serial loop's evaluation of root rt.t (its children's rows
// and counts, the first child, the second when the first leaves room), with the wave's bounds
void Search::eval_root(RootTask& rt, const View& V, const std::vector<i64>& F, const i64* N, int d, i64 tot,
                       const std::vector<i64>& ftot, const ViewBits* bits) {
    const int T = V.T(), n = V.n(), t = rt.t;
    const bool leafy = d - 1 == 1;
    const int rowsF = leafy ? C_ : C1_;
    const int ch = V.cchain[t], lv = V.clevel[t];
    rt.posL.clear();
    rt.posR.clear();
    for (int a = 0; a < n; ++a) (V.bucket[static_cast<size_t>(a) * V.p + ch] >= lv ? rt.posR : rt.posL).push_back(a);
    if (bits != nullptr) {
        rt.maskL.resize(bits->W);
        rt.maskR.resize(bits->W);
        const u64* ct = &bits->col[static_cast<size_t>(t) * bits->W];
        for (int x = 0; x < bits->W; ++x) {
            const u64 valid = x + 1 < bits->W || (n & 63) == 0 ? ~0ULL : (1ULL << (n & 63)) - 1;
            rt.maskR[x] = ct[x];
            rt.maskL[x] = ~ct[x] & valid;
        }
        count_bits(V, *bits, rt.maskL.data(), rt.FL, leafy ? nullptr : &rt.presL, rowsF);
    } else {
        count(V, rt.posL.data(), static_cast<int>(rt.posL.size()), rt.FL, leafy ? nullptr : &rt.presL, rowsF);
    }
    std::vector<i64> NL(C1_, 0), NR(C1_, 0);
    for (int c = 0; c < C_; ++c) {
        NR[c] = F[static_cast<size_t>(c) * T + t];
        NL[c] = N[c] - NR[c];
    }
    rt.FR.resize(static_cast<size_t>(C1_) * T);
    for (size_t x = 0, e = static_cast<size_t>(rowsF) * T; x < e; ++x) rt.FR[x] = F[x] - rt.FL[x];
    if (!leafy) {
        if (bits != nullptr)
            presence_bits(*bits, T, rt.maskR.data(), rt.presR);
        else
            presence(V, rt.posR.data(), static_cast<int>(rt.posR.size()), rt.presR);
    }
    const bool lf = rt.left_first;
    rt.s1 = child(V, lf ? rt.posL : rt.posR, d - 1, rt.bound - rt.lb2, lf ? rt.FL : rt.FR,
                  leafy ? nullptr : (lf ? &rt.presL : &rt.presR), lf ? NL.data() : NR.data());
    rt.evaluated = 1;
    if (!rt.s1.has_tree() || rt.s1.val + rt.lb2 >= rt.bound) return;
    const i64 extra = q_ * std::max(ftot[rt.run_lo] - ftot[t], ftot[t] - ftot[rt.run_hi]);
    rt.s2 = child(V, lf ? rt.posR : rt.posL, d - 1, rt.bound - rt.s1.val + extra, lf ? rt.FR : rt.FL,
                  leafy ? nullptr : (lf ? &rt.presR : &rt.presL), lf ? NR.data() : NL.data());
    rt.evaluated = 2;
}

}  // namespace satdt_dp
