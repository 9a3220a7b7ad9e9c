// satdt.solvers.dp core: the witness questions of a consistent-tree certificate (issue 23;
// satdt/proof/witness.py) answered over every box of the data, with the deletion loop that shrinks
// a witness to a minimal one.
//
// The question, on a set S of distinct rows (each of one class): is there a tree of depth <= D
// with <= max_leaves leaves and no error on S? The box DP of satdt/solvers/dp/boxes.py (its module
// doc has the recurrence) gives the fewest leaves opt(box, d) of every box of the chains' ranks.
// Only the boxes holding a row change when that row comes or goes, so a question on S plus or
// minus a few rows recomputes only those boxes (at every level), and a trial removal is undone by
// writing their old values back. Data with few distinct values per feature only (the caller
// bounds the number of boxes and the work per level).
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace satdt_dp {

class BoxWitness {
  public:
    // rank: n rows x p chains (row major), 0 <= rank < R[f]; cls: each row's class (< C);
    // max_leaves < 0: any number of leaves (DT_depth's question)
    BoxWitness(const int32_t* rank, int n, int p, const int32_t* R, const int32_t* cls, int C, int depth,
               int max_leaves);

    // the rows present: row r is present iff cnt[r] > 0 (recomputes the boxes that change; rows only
    // coming: they go stale instead, and DT_size's question is first answered by grafting, below)
    void set_present(const std::vector<char>& present);
    // the fewest leaves (DT_depth at depth >= 1: 1 when a tree exists); inf_: none (DT_size: none
    // with <= max_leaves leaves; its values are capped at inf_ = max_leaves + 1)
    int value() { return get(full_, depth_); }
    bool yes() {
        if (grafted_) return true;
        const int v = value();
        return v < inf_ && (max_leaves_ < 0 || v <= max_leaves_);
    }
    int inf() const { return inf_; }
    long long boxes() const { return nbox_; }
    long long asked() const { return asked_; }
    long long repaired() const { return repaired_; }
    long long grafts() const { return grafts_; }
    long long outside_yeses() const { return outside_yes_; }
    void set_outside(bool on) { use_outside_ = on; }  // (off: the tests of the repairs alone)

    // a tree of the current answer (yes() must hold), as the class and the leaf (preorder node
    // index) of every row, present or not; returns its number of leaves. The tree is kept (the newest
    // few; not a grafted one) for shrink()'s repairs
    int predict(int32_t* label, int32_t* leaf);

    // A minimal subset of the original rows `order` (row_of: their distinct rows) on which the
    // answer is no (it must be no on all of them): deletion of one row at a time, in that order,
    // where a yes makes the row necessary (the set minus it has a tree, so has every subset of it).
    // A trial is first answered yes, when it can, by the outside pass made once before the trials
    // (outside_yes(); car / balance-scale DT_depth: all 43 / 36 yes trials, car / balance-scale DT_size
    // 100 of 113 / 167 of 201), then by a kept tree (predict()) repaired by the tables (repaired_yes(): no
    // table changed either), else by the tables (DT_size: the tree of a yes then kept too).
    // Sorted original row indices. (Chunks of half the rows left, halved after a yes, down to single
    // rows, as the Python loop does: 1.3-2.5x slower on every box-DP cell of the InferDT sets, same
    // witness sizes: a trial costs about the boxes its rows change, and a yes on a chunk is lost work.)
    std::vector<int> shrink(const std::vector<int>& order, const std::vector<int>& row_of);

  private:
    int n_, p_, C_, depth_, max_leaves_, inf_;
    bool any_;                                // DT_depth: above level 0 a box's value is 1 (a tree exists) or inf_
    long long nbox_ = 1, full_ = 0, asked_ = 0, repaired_ = 0, grafts_ = 0, outside_yes_ = 0;
    std::vector<int> R_, I_;                  // ranks, intervals per chain
    std::vector<long long> stride_;
    std::vector<std::vector<int>> id_;        // id_[f][lo * R + hi]
    std::vector<std::vector<int>> lo_, hi_;   // of each interval id
    std::vector<int32_t> rank_, cls_;
    std::vector<char> present_;
    std::vector<int32_t> cc_;                 // present rows per (box, class)
    std::vector<int32_t> lev_;                // (depth + 1) x boxes
    std::vector<uint16_t> ids_;              // boxes x chains: each box's interval ids
    std::vector<int8_t> top_;                 // the highest level at which a box is needed
    // The growth (rows only came) is lazy: a box holding a row that came is exact up to level exact_[b]
    // only (-1: none); above, its values are its last ones, lower bounds (rows only came since; a
    // DT_depth "no tree" among them still holds). get() brings a box up to date on demand (the
    // question's answer and its tree, found top down: most boxes never looked at), settle() every box
    // listed in stale_ (on_stale_: listed) before any other update. Measured (CPU): car / balance-scale
    // DT_depth's growth 29 / 36 -> 7 / 14 ms, settling 4-6 ms; DT_size alone no gain (its values rise
    // in most boxes as rows come), with the grafts below its growth 75 / 101 -> 42 / 43 ms
    std::vector<int8_t> exact_;
    std::vector<char> on_stale_;
    std::vector<long long> stale_;
    std::vector<int32_t> stamp_;
    int epoch_ = 0;
    std::vector<long long> aff_;              // boxes holding a changed row (see flip())
    std::vector<long long> bx_;               // flip(): the boxes of one row
    std::vector<std::pair<long long, int32_t>> undo_;  // (level x boxes + box, old value) of each change
    std::vector<long long> front_, next_;     // propagate(): the boxes that changed at a level, the next's
    std::vector<int32_t> seen_;               // propagate(): a box considered at this level (== mark_)
    int32_t mark_ = 0;
    struct Kept {                             // a tree predict() gave: preorder arrays, each node's box and depth left
        std::vector<int> feat, cut, left, right;
        std::vector<long long> box;
        std::vector<int> rem;
    };
    std::vector<Kept> kept_;                  // the newest few
    Kept base_;                               // the newest tree predicted (grafted or not)
    // DT_size's growth: a question on rows that came is first answered by the newest tree predicted
    // (base_), grafted: its splits, each leaf's box's best subtree within the depth left there (get():
    // only the boxes below the leaves brought up to date), when their leaves sum to <= max_leaves (a
    // tree on the rows present: yes). Else the tables answer (get() from the full box).
    // balance-scale DT_size: its growth 101 -> 43 ms CPU (other rows grown, the same witness size)
    bool grafted_ = false;                    // the current question answered by grafting base_
    bool repair_growth();
    int graft(const Kept& t, int i, std::vector<int>& feat, std::vector<int>& cut, std::vector<int>& left,
              std::vector<int>& right, std::vector<int>& label);
    std::unordered_map<long long, int> repair_failed_;  // tree_without()'s failures in one search

    void boxes_of(int r, std::vector<long long>& out);
    // the class counts of the boxes holding the rows; aff_ gets every such box (kAll), those where
    // the row's class appeared or disappeared (kCrossing) or none
    enum Collect { kAll, kCrossing, kNone, kStale };  // kStale: the boxes are marked stale, aff_ untouched
    void flip(const std::vector<int>& rows, bool on, Collect collect);
    // visit(l, r) for every cut of box b (the boxes of its two sides), feature by feature, until
    // visit returns true (then true)
    template <class Visit>
    bool for_each_cut(long long b, Visit&& visit) const {
        const uint16_t* bid = &ids_[static_cast<size_t>(b) * p_];
        for (int f = 0; f < p_; ++f) {
            const int id = bid[f];
            const int lo = lo_[f][id], hi = hi_[f][id], r0 = R_[f];
            const long long s = stride_[f];
            const int* ids = id_[f].data();
            for (int c = lo + 1; c <= hi; ++c)
                if (visit(b + (ids[static_cast<size_t>(lo) * r0 + c - 1] - id) * s,
                          b + (ids[static_cast<size_t>(c) * r0 + hi] - id) * s))
                    return true;
        }
        return false;
    }
    // opt(b, d) from level d - 1; lb: a lower bound of it (the scan stops on reaching it)
    int cell(int d, long long b, int lb = 0) const;
    int level0(long long b) const;
    // opt(b, d), the box brought up to date to level d first (exact_); lazy_cell(): opt(b, d) from
    // level d - 1 by get()
    int get(long long b, int d) {
        return exact_[b] >= d ? lev_[static_cast<size_t>(d) * nbox_ + b] : update(b, d);
    }
    int update(long long b, int d);
    int lazy_cell(int d, long long b);
    void settle();
    void recompute_all();
    void recompute_affected(bool log);
    void propagate(bool log);
    void restore();
    void keep(const std::vector<int>& feat, const std::vector<int>& cut, const std::vector<int>& left,
              const std::vector<int>& right, bool grafted);
    bool tree_without(int x, long long b, int d, int k, int& budget, std::unordered_map<long long, int>& failed) const;
    bool repaired_yes(int x);
    // The deletion's "yes" trials answered at once from one top-down pass over the tables (outside()):
    // out_[b], the fewest leaves of the rest of a tree from the full box at depth_ with a node at box b
    // (the sides off the path at their values in the tables), least over the levels b is reached at;
    // inf_: none within the cap (DT_depth: 0 when the sides off some path all have a tree). Rows only go
    // after it, so its values stay upper bounds. outside_yes(x): a box holding x, of one class but x, whose
    // out_ leaves room for it as a leaf: a tree without x (x is necessary). Sound only (a stale out_ proves
    // nothing when it fails); exact on the rows of the pass. Measured: benchmarks/results/proof.md (h46w)
    bool use_outside_ = true;
    std::vector<int32_t> out_, out_cur_, out_next_;
    std::vector<long long> out_front_, out_more_;
    void outside();
    bool outside_yes(int x);
    int build(long long b, int d, std::vector<int>& feat, std::vector<int>& cut, std::vector<int>& left,
              std::vector<int>& right, std::vector<int>& label);
};

}  // namespace satdt_dp
