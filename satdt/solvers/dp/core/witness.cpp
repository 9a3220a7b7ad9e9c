// satdt.solvers.dp core: the witness questions over every box of the data and the deletion loop
// (witness.h says what and why).

#include "witness.h"

#include <algorithm>
#include <stdexcept>

namespace satdt_dp {

namespace {
constexpr long long kMaxBoxCells = 100000000;  // (depth + 1) x boxes table entries (400 MB): refused above
// the deletion's repairs (repaired_yes()): the newest trees kept, and the visits of a top-down search in the
// row's leaf box (measured: 2-16 trees and 2-32 visits answer the same 126 of balance-scale DT_size's 203 "yes"
// trials; more trees or visits only cost on the cells where few are answered, car DT_size / DT_depth)
constexpr size_t kRepairTrees = 4;
constexpr int kRepairVisits = 2;
}

BoxWitness::BoxWitness(const int32_t* rank, int n, int p, const int32_t* R, const int32_t* cls, int C, int depth,
                       int max_leaves)
    // (more leaves than rows are never needed: max_leaves clamped to n, so that inf_ = n + 1 stays above every
    // allowed count; unclamped, a graft or a trial read inf_ as a real count: review46a)
    : n_(n), p_(p), C_(C), depth_(depth), max_leaves_(max_leaves < 0 ? max_leaves : std::min(max_leaves, n)),
      inf_(max_leaves < 0 ? n + 1 : std::min(n, max_leaves) + 1), any_(max_leaves < 0) {
    if (n < 0 || p < 0 || C < 1 || depth < 0 || depth > 100) throw std::invalid_argument("BoxWitness: bad sizes");
    R_.assign(R, R + p);
    I_.resize(p);
    stride_.resize(p);
    id_.resize(p);
    lo_.resize(p);
    hi_.resize(p);
    for (int f = 0; f < p; ++f) {
        const int r = R_[f];
        if (r < 1) throw std::invalid_argument("BoxWitness: a chain needs >= 1 rank");
        // in 64 bits: r (r + 1) overflows an int from r = 46,341 on (the check comes after it)
        const long long intervals = static_cast<long long>(r) * (r + 1) / 2;
        if (intervals > 65535) throw std::invalid_argument("BoxWitness: a chain has too many intervals");
        I_[f] = static_cast<int>(intervals);
        id_[f].assign(static_cast<size_t>(r) * r, -1);
        for (int lo = 0; lo < r; ++lo)
            for (int hi = lo; hi < r; ++hi) {
                id_[f][static_cast<size_t>(lo) * r + hi] = static_cast<int>(lo_[f].size());
                lo_[f].push_back(lo);
                hi_[f].push_back(hi);
            }
        stride_[f] = nbox_;
        if (nbox_ > kMaxBoxCells / I_[f]) throw std::invalid_argument("BoxWitness: too many boxes");
        nbox_ *= I_[f];
        full_ += id_[f][r - 1] * stride_[f];  // [0, R - 1]
    }
    if (nbox_ > kMaxBoxCells / (depth + 1) || nbox_ > kMaxBoxCells / C)
        throw std::invalid_argument("BoxWitness: too many boxes");
    rank_.assign(rank, rank + static_cast<size_t>(n) * p);
    cls_.assign(cls, cls + n);
    for (int r = 0; r < n; ++r) {
        if (cls_[r] < 0 || cls_[r] >= C) throw std::invalid_argument("BoxWitness: class out of range");
        for (int f = 0; f < p; ++f)
            if (rank_[static_cast<size_t>(r) * p + f] < 0 || rank_[static_cast<size_t>(r) * p + f] >= R_[f])
                throw std::invalid_argument("BoxWitness: rank out of range");
    }
    present_.assign(n, 0);
    cc_.assign(static_cast<size_t>(nbox_) * C, 0);
    lev_.assign(static_cast<size_t>(depth + 1) * nbox_, 0);  // no row: every box empty (0 leaves)
    if (any_) std::fill(lev_.begin() + nbox_, lev_.end(), 1);  // (DT_depth above level 0: a tree exists)
    stamp_.assign(nbox_, 0);
    seen_.assign(nbox_, 0);
    ids_.resize(static_cast<size_t>(nbox_) * p);  // each box's interval on each chain (no division per cell)
    top_.resize(nbox_);
    std::vector<int> idx(p, 0);  // the box's interval ids, an odometer over b (chain 0 fastest: stride 1)
    for (long long b = 0; b < nbox_; ++b) {
        int narrow = 0;  // chains on which the box is not the whole range
        for (int f = 0; f < p; ++f) {
            const int id = idx[f];
            ids_[static_cast<size_t>(b) * p + f] = static_cast<uint16_t>(id);
            narrow += lo_[f][id] != 0 || hi_[f][id] != R_[f] - 1;
        }
        for (int f = 0; f < p && ++idx[f] == I_[f]; ++f) idx[f] = 0;
        // a box at d levels below the top has at most d narrowed chains: it is needed at levels
        // 0 .. depth - narrow only (the others are never read: the answer is the full box's at depth)
        top_[b] = static_cast<int8_t>(std::max(-1, depth - narrow));
    }
    exact_ = top_;  // no row: every box exact (empty) at every level it is needed at
    on_stale_.assign(nbox_, 0);
}

// every box holding row r: one interval containing its rank on each chain, chain by chain (the
// boxes so far, each moved by the offset of every other interval around the rank on the next chain:
// a few instructions a box, against ~120 for an odometer over the chains, balance-scale DT_depth)
void BoxWitness::boxes_of(int r, std::vector<long long>& out) {
    const int32_t* rk = &rank_[static_cast<size_t>(r) * p_];
    long long b = 0;
    size_t total = 1;
    for (int f = 0; f < p_; ++f) {
        b += id_[f][static_cast<size_t>(rk[f]) * R_[f] + rk[f]] * stride_[f];
        total *= static_cast<size_t>(rk[f] + 1) * (R_[f] - rk[f]);
    }
    out.resize(total);
    out[0] = b;
    size_t n = 1;
    for (int f = 0; f < p_; ++f) {
        const int r0 = R_[f], k = rk[f];
        const int* ids = id_[f].data();
        const long long s = stride_[f], me = ids[static_cast<size_t>(k) * r0 + k];
        const size_t n0 = n;
        for (int lo = 0; lo <= k; ++lo)
            for (int hi = k; hi < r0; ++hi) {
                if (lo == k && hi == k) continue;  // (the boxes so far)
                const long long o = (ids[static_cast<size_t>(lo) * r0 + hi] - me) * s;
                for (size_t i = 0; i < n0; ++i) out[n++] = out[i] + o;
            }
    }
}

void BoxWitness::flip(const std::vector<int>& rows, bool on, Collect collect) {
    std::vector<long long>& bx = bx_;
    for (int r : rows) {
        present_[r] = on;
        boxes_of(r, bx);
        const int c = cls_[r], d = on ? 1 : -1;
        for (long long b : bx) {
            int32_t& k = cc_[static_cast<size_t>(b) * C_ + c];
            k += d;
            if (collect == kStale) {
                exact_[b] = -1;
                if (!on_stale_[b]) {
                    on_stale_[b] = 1;
                    stale_.push_back(b);
                }
                continue;
            }
            if (collect == kNone || (collect == kCrossing && k != (on ? 1 : 0))) continue;
            if (stamp_[b] != epoch_) {
                stamp_[b] = epoch_;
                aff_.push_back(b);
            }
        }
    }
}

int BoxWitness::level0(long long b) const {
    const int32_t* c = &cc_[static_cast<size_t>(b) * C_];
    int k = 0;
    for (int i = 0; i < C_; ++i) k += c[i] > 0;
    return k == 0 ? 0 : k == 1 ? 1 : inf_;
}

// opt(b, d) = min(opt(b, d - 1), min over chains and cuts of the two sides at d - 1); DT_depth (any_):
// 1 when a tree exists (the box's at d - 1, or a cut with a tree on each side), else inf_
int BoxWitness::cell(int d, long long b, int lb) const {
    const int32_t* P = &lev_[static_cast<size_t>(d - 1) * nbox_];
    int v = P[b];
    if (any_ && v < inf_) return 1;
    lb = std::max(lb, 2);  // empty, one class, or two leaves: no split does better
    if (v <= lb) return v;
    const bool stopped = for_each_cut(b, [&](long long l, long long r) {
        if (any_) return P[l] < inf_ && P[r] < inf_;  // DT_depth: any tree will do
        v = std::min(v, P[l] + P[r]);
        return v <= lb;
    });
    return stopped && any_ ? 1 : std::min(v, inf_);
}

int BoxWitness::update(long long b, int d) {
    for (int e = exact_[b] + 1; e <= d; ++e) {
        lev_[static_cast<size_t>(e) * nbox_ + b] = e == 0 ? level0(b) : lazy_cell(e, b);
        exact_[b] = static_cast<int8_t>(e);
    }
    return lev_[static_cast<size_t>(d) * nbox_ + b];
}

// cell() on demand (rows only came since the box's last values, each a lower bound then). DT_depth: a
// "no tree" the box had at d stays so, else a tree at d - 1, or the first cut whose sides have one at
// d - 1, a side brought up to date only when its value (exact, or its last one) says a tree. DT_size:
// the box at d - 1, then the cuts whose sides' values (exact or lower bounds) sum below the best so
// far, each side brought up to date only then; stops at the box's last value at d or at 2
int BoxWitness::lazy_cell(int d, long long b) {
    const int last = lev_[static_cast<size_t>(d) * nbox_ + b];
    if (any_ && last >= inf_) return inf_;
    int v = get(b, d - 1);
    if (any_ && v < inf_) return 1;
    const int lb = std::max(last, 2);
    if (!any_ && v <= lb) return v;
    const int32_t* P = &lev_[static_cast<size_t>(d - 1) * nbox_];
    const bool stopped = for_each_cut(b, [&](long long l, long long r) {
        if (any_) return P[l] < inf_ && P[r] < inf_ && get(l, d - 1) < inf_ && get(r, d - 1) < inf_;
        if (P[l] + P[r] >= v || get(l, d - 1) + P[r] >= v) return false;
        v = std::min(v, P[l] + get(r, d - 1));
        return v <= lb;
    });
    return any_ ? (stopped ? 1 : inf_) : std::min(v, inf_);
}

// Whether base_ grafted answers the question: its leaves' boxes' fewest leaves (exact: get()) within
// max_leaves. Sound only (a tree of depth <= depth_: base_'s splits, then subtrees within the depth left).
bool BoxWitness::repair_growth() {
    if (base_.feat.empty()) return false;
    const Kept& t = base_;
    long long total = 0;
    for (size_t i = 0; i < t.feat.size(); ++i) {
        if (t.feat[i] >= 0) continue;
        // a leaf whose box emptied since base_ was predicted counts 0 but stays a leaf: at least 1
        total += std::max(1, get(t.box[i], t.rem[i]));
        if (total > max_leaves_) return false;
    }
    return true;
}

// base_'s tree from node i on, each leaf replaced by its box's best subtree (build()); returns its root
int BoxWitness::graft(const Kept& t, int i, std::vector<int>& feat, std::vector<int>& cut, std::vector<int>& left,
                      std::vector<int>& right, std::vector<int>& label) {
    if (t.feat[i] < 0) return build(t.box[i], t.rem[i], feat, cut, left, right, label);
    const int node = static_cast<int>(feat.size());
    feat.push_back(t.feat[i]);
    cut.push_back(t.cut[i]);
    left.push_back(-1);
    right.push_back(-1);
    label.push_back(0);
    const int a = graft(t, t.left[i], feat, cut, left, right, label);
    left[node] = a;
    const int z = graft(t, t.right[i], feat, cut, left, right, label);
    right[node] = z;
    return node;
}

// every stale box brought up to date at every level it is needed at, level by level (its sides at d - 1
// are then exact; a box's last "no tree" stays: cell()'s stop at lb)
void BoxWitness::settle() {
    for (int d = 0; d <= depth_ && !stale_.empty(); ++d) {
        int32_t* L = &lev_[static_cast<size_t>(d) * nbox_];
        for (long long b : stale_)
            if (exact_[b] < d && top_[b] >= d) {
                L[b] = d == 0 ? level0(b) : cell(d, b, L[b]);
                exact_[b] = static_cast<int8_t>(d);
            }
    }
    for (long long b : stale_) on_stale_[b] = 0;
    stale_.clear();
}

void BoxWitness::recompute_all() {
    for (long long b = 0; b < nbox_; ++b) lev_[b] = level0(b);
    for (int d = 1; d <= depth_; ++d) {
        int32_t* L = &lev_[static_cast<size_t>(d) * nbox_];
        for (long long b = 0; b < nbox_; ++b)
            if (top_[b] >= d) L[b] = cell(d, b);
    }
}

// the boxes of aff_ at every level, bottom up (their sub-boxes are in aff_ or unchanged); stops
// at a level where none changed (the levels above cannot change either). With `log`, every value
// changed is logged (restore() writes them back).
void BoxWitness::recompute_affected(bool log) {
    const size_t A = aff_.size();
    for (int d = 0; d <= depth_; ++d) {
        int32_t* L = &lev_[static_cast<size_t>(d) * nbox_];
        bool changed = false;
        for (size_t i = 0; i < A; ++i) {
            const long long b = aff_[i];
            if (top_[b] < d) continue;  // not needed at this level (never read)
            const int v = d == 0 ? level0(b) : cell(d, b);
            if (v == L[b]) continue;
            if (log) undo_.emplace_back(static_cast<long long>(d) * nbox_ + b, L[b]);
            L[b] = v;
            changed = true;
        }
        if (!changed) return;
    }
}

// When rows only went (boxes only gain a tree, or need fewer leaves): level 0 over aff_ (the boxes
// where a class disappeared), then level by level only the boxes that may change, from the boxes that
// changed a level below (`front_`). A box's value at level d is its own at d - 1 or a cut's two sides
// at d - 1, so a box changes at d only if it changed at d - 1 or a side of one of its cuts did: it is
// that box itself or a parent of it (the box extended on one chain past one end, the cut at that end).
// The parent's new value is the least of its old one and the changed inputs (the others did not go
// down: no scan of the cuts; DT_depth: a tree when the cut's other side has one). Stops at a level
// where none changed. DT_size's values are capped at inf_ (max_leaves + 1: "too many"), so a box that
// stays over the cap stops the walk. (Rows coming: the lazy growth, get().)
void BoxWitness::propagate(bool log) {
    front_.clear();
    for (long long b : aff_) {
        const int old = lev_[b], v = level0(b);
        if (v == old) continue;
        if (log) undo_.emplace_back(b, old);
        lev_[b] = v;
        if (!any_ || (v < inf_) != (old < inf_)) front_.push_back(b);
    }
    for (int d = 1; d <= depth_ && !front_.empty(); ++d) {
        int32_t* L = &lev_[static_cast<size_t>(d) * nbox_];
        const int32_t* P = &lev_[static_cast<size_t>(d - 1) * nbox_];
        ++mark_;
        next_.clear();
        // b: a box that may change at d; other: the other side of the cut that makes it a parent of
        // c (-1: b is c itself). A box not needed at level d (top_[b] < d) is never computed there
        // (DT_depth: it keeps the 1 it got at the start, and a gain passes it by; DT_size: skipped)
        auto consider = [&](long long b, long long c, long long other) {
            if (!any_) {  // values only went down: the least of the old value and the changed inputs
                if (top_[b] < d) return;
                const int v = other < 0 ? P[c] : std::min(P[c] + P[other], inf_);
                if (v >= L[b]) return;
                if (log) undo_.emplace_back(static_cast<long long>(d) * nbox_ + b, L[b]);
                L[b] = v;
                if (seen_[b] == mark_) return;  // (already in next_)
                seen_[b] = mark_;
            } else {  // DT_depth: a box with no tree at d gains one when the cut's other side has one
                if (L[b] < inf_ || (other >= 0 && P[other] >= inf_)) return;
                if (log) undo_.emplace_back(static_cast<long long>(d) * nbox_ + b, L[b]);
                L[b] = 1;
            }
            next_.push_back(b);
        };
        for (long long c : front_) {
            consider(c, c, -1);
            const uint16_t* cid = &ids_[static_cast<size_t>(c) * p_];
            for (int f = 0; f < p_; ++f) {
                const int id = cid[f], lo = lo_[f][id], hi = hi_[f][id], r0 = R_[f];
                const long long s = stride_[f];
                const int* ids = id_[f].data();
                for (int h = hi + 1; h < r0; ++h)  // c the left side of [lo, h], the right side [hi + 1, h]
                    consider(c + (ids[static_cast<size_t>(lo) * r0 + h] - id) * s, c,
                             c + (ids[static_cast<size_t>(hi + 1) * r0 + h] - id) * s);
                for (int l = 0; l < lo; ++l)  // c the right side of [l, hi], the left side [l, lo - 1]
                    consider(c + (ids[static_cast<size_t>(l) * r0 + hi] - id) * s, c,
                             c + (ids[static_cast<size_t>(l) * r0 + lo - 1] - id) * s);
            }
        }
        front_.swap(next_);
    }
}

void BoxWitness::restore() {
    for (size_t i = undo_.size(); i-- > 0;) lev_[static_cast<size_t>(undo_[i].first)] = undo_[i].second;
    undo_.clear();
}

void BoxWitness::set_present(const std::vector<char>& present) {
    if (static_cast<int>(present.size()) != n_) throw std::invalid_argument("BoxWitness: present has a wrong size");
    std::vector<int> on, off;
    for (int r = 0; r < n_; ++r)
        if ((present[r] != 0) != (present_[r] != 0)) (present[r] ? on : off).push_back(r);

    if (off.empty()) {  // rows only coming: the boxes holding them go stale (get(), settle())
        flip(on, true, kStale);
        ++asked_;
        if (!on.empty()) grafts_ += grafted_ = !any_ && repair_growth();
        return;
    }
    grafted_ = false;
    settle();
    ++epoch_;
    aff_.clear();
    // rows only going: level 0 changes only in the boxes where a class disappears, and propagate()
    // finds the rest
    const bool going = on.empty();
    flip(on, true, going ? kCrossing : kAll);
    flip(off, false, going ? kCrossing : kAll);
    ++asked_;
    if (going)
        propagate(false);
    else if (static_cast<long long>(aff_.size()) * 2 > nbox_)
        recompute_all();
    else
        recompute_affected(false);
}

int BoxWitness::build(long long b, int d, std::vector<int>& feat, std::vector<int>& cut, std::vector<int>& left,
                      std::vector<int>& right, std::vector<int>& label) {
    const int v = get(b, d);
    if (any_)  // DT_depth: the lowest level with a tree (its values say only whether one exists)
        while (d > 0 && get(b, d - 1) < inf_) --d;
    else
        while (d > 0 && get(b, d - 1) == v) --d;
    const int node = static_cast<int>(feat.size());
    feat.push_back(-1);
    cut.push_back(0);
    left.push_back(-1);
    right.push_back(-1);
    label.push_back(0);
    if (any_ ? level0(b) <= 1 : v <= 1) {
        const int32_t* c = &cc_[static_cast<size_t>(b) * C_];
        for (int i = 0; i < C_; ++i)
            if (c[i] > 0) label[node] = i;
        return node;
    }
    if (d == 0 || v >= inf_) throw std::logic_error("BoxWitness: no tree for this box");
    const int32_t* P = &lev_[static_cast<size_t>(d - 1) * nbox_];
    long long rest = b;
    for (int f = 0; f < p_; ++f) {
        const int id = static_cast<int>(rest % I_[f]);
        rest /= I_[f];
        const int lo = lo_[f][id], hi = hi_[f][id], r0 = R_[f];
        for (int c = lo + 1; c <= hi; ++c) {
            const long long l = b + (id_[f][static_cast<size_t>(lo) * r0 + c - 1] - id) * stride_[f];
            const long long r = b + (id_[f][static_cast<size_t>(c) * r0 + hi] - id) * stride_[f];
            // both sides hold rows (v < opt(b, d - 1): a side with all rows is no better; DT_depth: the
            // box has no tree at d - 1, the side with all its rows would give it one)
            if (any_ ? P[l] < inf_ && P[r] < inf_ && get(l, d - 1) < inf_ && get(r, d - 1) < inf_
                     : P[l] + P[r] == v) {
                feat[node] = f;
                cut[node] = c;
                const int a = build(l, d - 1, feat, cut, left, right, label);
                left[node] = a;
                const int z = build(r, d - 1, feat, cut, left, right, label);
                right[node] = z;
                return node;
            }
        }
    }
    throw std::logic_error("BoxWitness: the tables are inconsistent");
}

int BoxWitness::predict(int32_t* label, int32_t* leaf) {
    if (!yes()) throw std::logic_error("BoxWitness: no tree to predict with");
    std::vector<int> feat, cut, left, right, lab;
    if (grafted_) {
        const Kept t = base_;
        graft(t, 0, feat, cut, left, right, lab);
    } else {
        build(full_, depth_, feat, cut, left, right, lab);
    }
    int leaves = 0;
    for (int f : feat) leaves += f < 0;
    keep(feat, cut, left, right, grafted_);
    for (int r = 0; r < n_; ++r) {
        int node = 0;
        while (feat[node] >= 0)
            node = rank_[static_cast<size_t>(r) * p_ + feat[node]] >= cut[node] ? right[node] : left[node];
        label[r] = lab[node];
        leaf[r] = node;
    }
    return leaves;
}

void BoxWitness::keep(const std::vector<int>& feat, const std::vector<int>& cut, const std::vector<int>& left,
                      const std::vector<int>& right, bool grafted) {
    Kept t{feat, cut, left, right, std::vector<long long>(feat.size()), std::vector<int>(feat.size())};
    t.box[0] = full_;
    t.rem[0] = depth_;
    for (size_t i = 0; i < feat.size(); ++i) {  // (preorder: a node before its children)
        if (feat[i] < 0) continue;
        const int f = feat[i], c = cut[i], id = ids_[static_cast<size_t>(t.box[i]) * p_ + f];
        const int lo = lo_[f][id], hi = hi_[f][id], r0 = R_[f];
        t.box[left[i]] = t.box[i] + (id_[f][static_cast<size_t>(lo) * r0 + c - 1] - id) * stride_[f];
        t.box[right[i]] = t.box[i] + (id_[f][static_cast<size_t>(c) * r0 + hi] - id) * stride_[f];
        t.rem[left[i]] = t.rem[right[i]] = t.rem[i] - 1;
    }
    base_ = t;
    if (grafted) return;
    if (kept_.size() == kRepairTrees) kept_.erase(kept_.begin());
    kept_.push_back(std::move(t));
}

// A tree for the rows present but x (x present, in box b) of depth <= d and <= k leaves (DT_depth: any
// number), searched top down along the boxes holding x: b without x is one leaf (of one class, or
// empty: no leaf), or a cut of b whose side without x has a tree of v <= k leaves at d - 1 (its value
// in the tables stands: x is not in it) and whose side with x has one of <= k - v at d - 1. The tables
// hold the value of every box a tree from the full box can reach at that depth (top_), and these are
// such boxes. Failures are remembered per (level, box) with the largest k tried; after `budget`
// expansions it gives up (false). Sound only: true is a tree, false proves nothing.
bool BoxWitness::tree_without(int x, long long b, int d, int k, int& budget,
                              std::unordered_map<long long, int>& failed) const {
    const int32_t* c = &cc_[static_cast<size_t>(b) * C_];
    const int cx = cls_[x];
    int classes = 0;
    for (int i = 0; i < C_; ++i) classes += c[i] - (i == cx) > 0;
    if (classes <= 1) return classes <= k;
    if (d == 0 || k < 2) return false;
    const int v = lev_[static_cast<size_t>(d) * nbox_ + b];
    if (any_ ? v < inf_ : v <= k) return true;  // b with x has one: so has b without x
    const long long key = static_cast<long long>(d) * nbox_ + b;
    const auto it = failed.find(key);
    if (it != failed.end() && it->second >= k) return false;
    if (--budget < 0) return false;
    const int32_t* P = &lev_[static_cast<size_t>(d - 1) * nbox_];
    const uint16_t* bid = &ids_[static_cast<size_t>(b) * p_];
    const int32_t* rk = &rank_[static_cast<size_t>(x) * p_];
    for (int f = 0; f < p_; ++f) {
        const int id = bid[f], lo = lo_[f][id], hi = hi_[f][id], r0 = R_[f];
        const int* ids = id_[f].data();
        for (int cut = lo + 1; cut <= hi; ++cut) {
            const long long l = b + (ids[static_cast<size_t>(lo) * r0 + cut - 1] - id) * stride_[f];
            const long long r = b + (ids[static_cast<size_t>(cut) * r0 + hi] - id) * stride_[f];
            const bool right = rk[f] >= cut;  // x's side
            const int other = P[right ? l : r];
            if (any_ ? other >= inf_ : other > k) continue;
            if (tree_without(x, right ? r : l, d - 1, any_ ? k : k - other, budget, failed)) return true;
            if (budget < 0) return false;
        }
    }
    failed[key] = std::max(k, it == failed.end() ? -1 : it->second);
    return false;
}

// Whether a kept tree, repaired by the tables, classifies the rows present but x: every leaf's box
// but x's replaced by its best subtree within the depth left there (its value in the tables: x is not
// in it; a box of no row needs no leaf), and x's leaf box, without x, by a tree found top down
// (tree_without) within the leaves left (DT_size: max_leaves_ minus the others' sum). The tree's splits
// stay, so the depth stays within depth_. Sound only: true is a tree without x (x is then necessary).
bool BoxWitness::repaired_yes(int x) {
    for (auto t = kept_.rbegin(); t != kept_.rend(); ++t) {  // the newest first
        int lx = 0;  // x's leaf
        while (t->feat[lx] >= 0)
            lx = rank_[static_cast<size_t>(x) * p_ + t->feat[lx]] >= t->cut[lx] ? t->right[lx] : t->left[lx];
        long long others = 0;
        bool ok = true;
        for (size_t i = 0; i < t->feat.size() && ok; ++i) {
            if (t->feat[i] >= 0 || static_cast<int>(i) == lx) continue;
            const int v = lev_[static_cast<size_t>(t->rem[i]) * nbox_ + t->box[i]];
            ok = v < inf_;
            others += any_ ? 0 : v;
        }
        if (!ok || (!any_ && others > max_leaves_)) continue;
        int budget = kRepairVisits;
        repair_failed_.clear();
        if (tree_without(x, t->box[lx], t->rem[lx], any_ ? inf_ : max_leaves_ - static_cast<int>(others), budget,
                         repair_failed_))
            return true;
    }
    return false;
}

// out_ (witness.h) from the tables as they are (exact: settled), level by level from the full box at depth_:
// a box reached at level d with o leaves off its path gives each cut's side o plus the other side's value
// at d - 1 (DT_depth: o when the other side has a tree); only values that leave room within the cap go on
void BoxWitness::outside() {
    if (out_cur_.size() != static_cast<size_t>(nbox_)) {
        out_cur_.assign(nbox_, inf_);
        out_next_.assign(nbox_, inf_);
    }
    out_.assign(nbox_, inf_);
    out_front_.assign(1, full_);
    out_cur_[full_] = 0;
    for (int d = depth_;; --d) {
        for (long long b : out_front_) out_[b] = std::min(out_[b], out_cur_[b]);
        out_more_.clear();
        if (d > 0) {
            const int32_t* P = &lev_[static_cast<size_t>(d - 1) * nbox_];
            const int32_t* L0 = lev_.data();  // level 0: 0 for a box with no row, 1 for one class
            auto reach = [&](long long side, int o, int other) {
                if (L0[side] == 0) return;  // (no row: no leaf box holds x there)
                const int v = any_ ? (other < inf_ ? o : inf_) : o + other;
                // (reached higher up with as few leaves: more depth left there, the same leaf boxes below)
                if (v >= inf_ || (!any_ && v > max_leaves_) || v >= out_next_[side] || v >= out_[side]) return;
                if (out_next_[side] == inf_) out_more_.push_back(side);
                out_next_[side] = v;
            };
            for (long long b : out_front_) {
                const int o = out_cur_[b];
                if (L0[b] <= 1) continue;  // one class: a leaf for any row of it, none of its sub-boxes does better
                for_each_cut(b, [&](long long l, long long r) {
                    reach(l, o, P[r]);
                    reach(r, o, P[l]);
                    return false;
                });
            }
        }
        for (long long b : out_front_) out_cur_[b] = inf_;
        if (out_more_.empty()) break;
        out_cur_.swap(out_next_);
        out_front_.swap(out_more_);
    }
}

bool BoxWitness::outside_yes(int x) {
    if (out_.empty()) return false;
    boxes_of(x, bx_);
    const int cx = cls_[x];
    for (long long b : bx_) {
        const int o = out_[b];
        if (o >= inf_) continue;
        const int32_t* c = &cc_[static_cast<size_t>(b) * C_];
        int classes = 0;  // of the box's rows but x
        for (int i = 0; i < C_; ++i) classes += c[i] - (i == cx) > 0;
        if (classes > 1) continue;
        const int total = any_ ? o : o + classes;  // (a box with no row left: no leaf, as the tables count it)
        if (total < inf_ && (any_ || total <= max_leaves_)) return true;
    }
    return false;
}

std::vector<int> BoxWitness::shrink(const std::vector<int>& order, const std::vector<int>& row_of) {
    int top = 0;
    for (int r : order) {
        if (r < 0 || static_cast<size_t>(r) >= row_of.size()) throw std::invalid_argument("shrink: row out of range");
        if (row_of[r] < 0 || row_of[r] >= n_) throw std::invalid_argument("shrink: row_of out of range");
        top = std::max(top, r + 1);
    }
    std::vector<int> cnt(n_, 0);
    for (int r : order) ++cnt[row_of[r]];
    std::vector<char> present(n_);
    for (int i = 0; i < n_; ++i) present[i] = cnt[i] > 0;
    set_present(present);
    settle();
    if (yes()) throw std::invalid_argument("shrink: the rows admit a tree");
    if (use_outside_)
        outside();  // (its values upper bounds from here on: rows only go)
    else
        out_.clear();
    std::vector<char> gone(top, 0);
    std::vector<int> flips;
    for (int row : order) {  // one row a trial (chunks of rows: slower, see witness.h)
        ++epoch_;
        aff_.clear();
        flips.clear();
        if (--cnt[row_of[row]] == 0) flips.push_back(row_of[row]);
        if (!flips.empty() && outside_yes(flips[0])) {  // a tree without the row, from the outside pass: necessary
            ++cnt[row_of[row]];
            ++asked_;
            ++outside_yes_;
            continue;
        }
        if (!flips.empty() && repaired_yes(flips[0])) {  // a kept tree repaired without the row: necessary
            ++cnt[row_of[row]];
            ++asked_;
            ++repaired_;
            continue;
        }
        flip(flips, false, kCrossing);
        undo_.clear();
        propagate(true);
        ++asked_;
        if (!yes()) {  // still no: the row goes for good
            gone[row] = 1;
            continue;
        }
        ++cnt[row_of[row]];  // yes: the row is necessary; undone
        if (!any_) {  // DT_size: its tree kept for the next trials' repairs (the growth's trees are mostly grafted)
            std::vector<int> f, c, l, r, lab;
            build(full_, depth_, f, c, l, r, lab);
            keep(f, c, l, r, false);
        }
        flip(flips, true, kNone);
        restore();
    }
    std::vector<int> out;
    for (int r : order)
        if (!gone[r]) out.push_back(r);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace satdt_dp
