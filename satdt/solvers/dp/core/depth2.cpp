// satdt.solvers.dp core: depth one from the column counts, and MurTree's specialised depth-two
// solver [2, sec. 4.3]: pair counts per class by bitsets (one word per 64 rows, weight
// bit-planes; weights with many bits: byte tables, or each root's row sums by masked AVX-512 or AVX2
// adds) or, for long chains (thresholds of a numeric feature), by 2-D histograms of two chains'
// buckets with suffix sums, whichever is estimated cheaper.

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "kernels.h"
#include "search.h"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define SATDT_ROW_SUMS 1
#endif

namespace satdt_dp {

#ifdef SATDT_ROW_SUMS
// the pair solver's row sums (PairWeights::count_root): for the rows r of bi & cl (W words),
// w[r] added into NB blocks of 16 columns from block b0 where row r's bits (rb: 16-bit blocks,
// S16 a row) are set: out[16 k + l] = the weight of those rows in column 16 (b0 + k) + l. One
// masked 32-bit add per 16 columns and row, the accumulators in registers; sums mod 2^32 (the
// caller's class totals are below it)
template <int NB>
__attribute__((target("avx512f,avx512bw"))) static void row_sums(const u64* bi, const u64* cl, int W,
                                                                const uint16_t* rb, int S16, int b0,
                                                                const uint32_t* w, uint32_t* out) {
    __m512i acc[NB];
    for (int k = 0; k < NB; ++k) acc[k] = _mm512_setzero_si512();
    for (int x = 0; x < W; ++x) {
        u64 m = bi[x] & cl[x];
        while (m != 0) {
            const int r = 64 * x + __builtin_ctzll(m);
            m &= m - 1;
            const __m512i wv = _mm512_set1_epi32(static_cast<int>(w[r]));
            const uint16_t* mr = rb + static_cast<size_t>(r) * S16 + b0;
            for (int k = 0; k < NB; ++k) acc[k] = _mm512_mask_add_epi32(acc[k], mr[k], acc[k], wv);
        }
    }
    for (int k = 0; k < NB; ++k) _mm512_storeu_si512(out + 16 * k, acc[k]);
}
using RowSumsFn = void (*)(const u64*, const u64*, int, const uint16_t*, int, int, const uint32_t*, uint32_t*);
static const RowSumsFn kRowSums[9] = {nullptr,      row_sums<1>, row_sums<2>, row_sums<3>, row_sums<4>,
                                      row_sums<5>, row_sums<6>, row_sums<7>, row_sums<8>};

// the same sums with AVX2 (no masked adds): 8 columns a vector, a byte of the row's column bits
// (rb: bytes, S8 a row) turned into its 8 lane masks by a table, and-ed with w[r] and added
alignas(32) static const auto kLaneMasks = [] {
    struct Masks { uint32_t m[256][8]; } t{};
    for (int v = 0; v < 256; ++v)
        for (int l = 0; l < 8; ++l) t.m[v][l] = (v >> l) & 1 ? 0xffffffffu : 0u;
    return t;
}();
template <int NB>
__attribute__((target("avx2"))) static void row_sums8(const u64* bi, const u64* cl, int W, const uint8_t* rb,
                                                      int S8, int b0, const uint32_t* w, uint32_t* out) {
    __m256i acc[NB];
    for (int k = 0; k < NB; ++k) acc[k] = _mm256_setzero_si256();
    for (int x = 0; x < W; ++x) {
        u64 m = bi[x] & cl[x];
        while (m != 0) {
            const int r = 64 * x + __builtin_ctzll(m);
            m &= m - 1;
            const __m256i wv = _mm256_set1_epi32(static_cast<int>(w[r]));
            const uint8_t* mr = rb + static_cast<size_t>(r) * S8 + b0;
            for (int k = 0; k < NB; ++k) {
                const __m256i lanes = _mm256_load_si256(reinterpret_cast<const __m256i*>(kLaneMasks.m[mr[k]]));
                acc[k] = _mm256_add_epi32(acc[k], _mm256_and_si256(lanes, wv));
            }
        }
    }
    for (int k = 0; k < NB; ++k) _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8 * k), acc[k]);
}
using RowSums8Fn = void (*)(const u64*, const u64*, int, const uint8_t*, int, int, const uint32_t*, uint32_t*);
static const RowSums8Fn kRowSums8[9] = {nullptr,      row_sums8<1>, row_sums8<2>, row_sums8<3>, row_sums8<4>,
                                        row_sums8<5>, row_sums8<6>, row_sums8<7>, row_sums8<8>};
#endif

// ------------------------------------------------------------------ depth one
// best depth-one tree from the counts F of the columns of a node (T columns): a Sub
Sub Search::depth1(const std::vector<i64>& F, int T, const i64* N) {
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
        const i64* f = F.data() + static_cast<size_t>(c) * T;  // (T = 0: F is empty)
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

// root i, child j: what the best depth-one subtree on x_j keeps right of i (x_i: vr) and left of
// it (not x_i: vl), from the pair counts P of (x_i, x_j); q * kept rows - the leaf cost
void Search::pair_values(int i, int j, const i64* P, const std::vector<i64>& F, int T, const i64* N, i64& vr,
                         i64& vl) const {
    i64 rr = 0, rl = 0, lr = 0, ll = 0;
    for (int c = 0; c < C_; ++c) {
        const i64 fi = F[static_cast<size_t>(c) * T + i], fj = F[static_cast<size_t>(c) * T + j];
        rr = std::max(rr, P[c]);
        rl = std::max(rl, fi - P[c]);
        lr = std::max(lr, fj - P[c]);
        ll = std::max(ll, N[c] - fi - fj + P[c]);
    }
    vr = q_ * (rr + rl) - lc_;
    vl = q_ * (lr + ll) - lc_;
}

void Search::pair_update(PairBest& pb, int i, int j, const i64* P, const std::vector<i64>& F, int T,
                                const i64* N) const {
    i64 vr, vl;
    pair_values(i, j, P, F, T, N, vr, vl);
    if (vr > pb.vr[i]) { pb.vr[i] = vr; pb.jr[i] = j; }
    if (vl > pb.vl[i]) { pb.vl[i] = vl; pb.jl[i] = j; }
}

// the order in which the serial pair solver meets child j of root i: the bitset counts in
// ascending columns; the histograms the columns of i's own chain first, then the other chains
// in order (columns are in chain order); the leaf (j = -1) before all
inline int pair_rank(const View& V, int i, int j, bool hist) {
    if (j < 0) return INT32_MIN;
    return hist && V.cchain[j] == V.cchain[i] ? j - V.T() : j;
}

void Search::pair_update_ranked(PairBest& pb, int i, int j, const i64* P, const std::vector<i64>& F, int T,
                                const i64* N, const View& V, bool hist) const {
    i64 vr, vl;
    pair_values(i, j, P, F, T, N, vr, vl);
    if (vr > pb.vr[i] || (vr == pb.vr[i] && pair_rank(V, i, j, hist) < pair_rank(V, i, pb.jr[i], hist))) {
        pb.vr[i] = vr;
        pb.jr[i] = j;
    }
    if (vl > pb.vl[i] || (vl == pb.vl[i] && pair_rank(V, i, j, hist) < pair_rank(V, i, pb.jl[i], hist))) {
        pb.vl[i] = vl;
        pb.jl[i] = j;
    }
}

// the pair counts of pair_depth2 on the threads: each thread keeps its own best children (ties
// by pair_rank), combined into pb (which holds the leaves' values) in the same way. The clock
// is read between batches of tasks, on this thread.
void Search::pair_threads(const View& V, const std::vector<i64>& F, const i64* N, PairBest& pb, bool by_bits,
                          const std::vector<u64>& bits, const PairWeights& pw) {
    const int T = V.T(), n = V.n(), p = V.p, nt = pool_->size();
    const bool hist = !by_bits;
    pair_parts_.resize(nt);
    pair_hist_.resize(nt);
    for (PairBest& part : pair_parts_) {
        part.vr = pb.vr;
        part.vl = pb.vl;
        part.jr = pb.jr;
        part.jl = pb.jl;
    }
    if (by_bits) {
        const int W = (n + 63) / 64;
        const int batch = 8 * nt;
        for (int i0 = 0; i0 < T; i0 += batch) {
            pool_->run(std::min(batch, T - i0), [&](int task, int th) {
                const int i = i0 + task;
                PairBest& part = pair_parts_[th];
                if (pw.rows) {
                    std::vector<i64> PR(static_cast<size_t>(T) * C_);
                    pw.count_root(&bits[static_cast<size_t>(i) * W], i, T, PR.data());
                    for (int j = i + 1; j < T; ++j) {
                        const i64* Pj = &PR[static_cast<size_t>(j) * C_];
                        pair_update_ranked(part, i, j, Pj, F, T, N, V, false);
                        pair_update_ranked(part, j, i, Pj, F, T, N, V, false);
                    }
                    return;
                }
                i64 P[64];
                std::vector<i64> Pv(C_ > 64 ? C_ : 0);
                i64* Pc = C_ > 64 ? Pv.data() : P;
                const u64* bi = &bits[static_cast<size_t>(i) * W];
                for (int j = i + 1; j < T; ++j) {
                    const u64* bj = &bits[static_cast<size_t>(j) * W];
                    pw.count(bi, bj, Pc);
                    pair_update_ranked(part, i, j, Pc, F, T, N, V, false);
                    pair_update_ranked(part, j, i, Pc, F, T, N, V, false);
                }
            });
            check_time(true);
        }
    } else {
        // tasks: each chain's own pairs (nested columns), then each pair of chains
        std::vector<std::pair<int, int>> tasks;
        for (int k = 0; k < p; ++k) tasks.push_back({k, k});
        for (int a = 0; a < p; ++a)
            for (int b = a + 1; b < p; ++b) tasks.push_back({a, b});
        const int nts = static_cast<int>(tasks.size()), batch = 4 * nt;
        for (int x0 = 0; x0 < nts; x0 += batch) {
            pool_->run(std::min(batch, nts - x0), [&](int task, int th) {
                const auto [a, b] = tasks[x0 + task];
                PairBest& part = pair_parts_[th];
                if (a == b) {  // same chain: x_i and x_j = the higher level
                    std::vector<i64> P(C_);
                    for (int i = V.col0[a]; i < V.col0[a + 1]; ++i)
                        for (int j = i + 1; j < V.col0[a + 1]; ++j) {
                            for (int c = 0; c < C_; ++c) P[c] = F[static_cast<size_t>(c) * T + j];
                            pair_update_ranked(part, i, j, P.data(), F, T, N, V, true);
                            pair_update_ranked(part, j, i, P.data(), F, T, N, V, true);
                        }
                    return;
                }
                std::vector<i64>& H = pair_hist_[th];
                pair_histogram(V, a, b, H);
                const int ta = V.col0[a + 1] - V.col0[a], tb = V.col0[b + 1] - V.col0[b], sb = tb + 1;
                for (int la = 1; la <= ta; ++la)
                    for (int lb = 1; lb <= tb; ++lb) {
                        const i64* h = &H[(static_cast<size_t>(la) * sb + lb) * C_];
                        const int i = V.col0[a] + la - 1, j = V.col0[b] + lb - 1;
                        pair_update_ranked(part, i, j, h, F, T, N, V, true);
                        pair_update_ranked(part, j, i, h, F, T, N, V, true);
                    }
            });
            check_time(true);
        }
    }
    for (const PairBest& part : pair_parts_)
        for (int i = 0; i < T; ++i) {
            if (part.vr[i] > pb.vr[i] ||
                (part.vr[i] == pb.vr[i] && pair_rank(V, i, part.jr[i], hist) < pair_rank(V, i, pb.jr[i], hist))) {
                pb.vr[i] = part.vr[i];
                pb.jr[i] = part.jr[i];
            }
            if (part.vl[i] > pb.vl[i] ||
                (part.vl[i] == pb.vl[i] && pair_rank(V, i, part.jl[i], hist) < pair_rank(V, i, pb.jl[i], hist))) {
                pb.vl[i] = part.vl[i];
                pb.jl[i] = part.jl[i];
            }
        }
}

// the pair solver's weights of the node's rows (see PairWeights): weight bit-planes per class,
// weight of class c on a row set = unit_[c] sum_k 2^k popcount (the planes of weight / unit_[c]:
// class weights such as balanced accuracy's cost one plane per bit of the rows' multiplicity,
// not of the scaled weight); byte tables instead when the planes outnumber the 8 lookups per
// word of a table (over 8 planes per class) by more than the tables' cost, and in that case the
// row sums (count_root) where the CPU has AVX-512 BW or AVX2 and every class's total on the node is below
// 2^32 (the rows' column bits come from the column bits: rows_from_columns); exact in all three
void Search::pair_weights(const View& V, PairWeights& pw) const {
    const int n = V.n(), W = (n + 63) / 64;
    pw.C = C_;
    pw.W = W;
    pw.unit = unit_;
    int NP = 0;
    std::vector<i64> mx(C_, 0);
    for (int c = 0; c < C_; ++c) {
        for (int r = 0; r < n; ++r) mx[c] |= wd(V.rows[r])[c];  // the bits of the largest
        for (int k = 0; (mx[c] >> k) > 0; ++k) ++NP;
    }
    // per pair of columns: NP popcounts per word, or 8 lookups per word after the tables' 256 C
    // entries per byte of rows are built
    const double pairs = 0.5 * V.T() * V.T();
    pw.table = pair_path_ >= 0 ? pair_path_ > 0 : NP > 8 * C_ && (NP - 8.0) * pairs > 2048.0 * C_;
    if (pw.table && row_sums_ && (kAvx512bw || kAvx2)) {
        // row sums instead of the tables when every class's total fits 32 bits (the sums of
        // count_root are mod 2^32): each row's columns in 16-bit blocks, each class's rows and
        // weights
        if (row_weights(V, C_, pw.cls, pw.w32)) {
            const int T = V.T();
            pw.table = false;
            pw.rows = true;
            pw.avx2 = !kAvx512bw || pair_path_ == 2;  // (2: AVX2's on a CPU with AVX-512 too)
            pw.S16 = 4 * ((T + 63) / 64);  // the row's 64-bit words read as 16-bit blocks (little-endian)
            // pw.rowbits: from the column bits (rows_from_columns, pair_depth2)
            return;
        }
    }
    if (pw.table) {
        // entry (g, v): the weights of the rows 8 g + b for the bits b of v, from the entry of
        // v without its lowest bit
        const int G = 8 * W;
        i64 wmax = 0;
        std::vector<i64> ctot(C_, 0);
        for (int r = 0; r < n; ++r)
            for (int c = 0; c < C_; ++c) {
                wmax = std::max(wmax, w(V.rows[r])[c]);
                ctot[c] += w(V.rows[r])[c];
            }
        // built directly in the entry type count() reads (no i64 table converted afterwards):
        // entry (g, v) of `cols` words, the weights added as `add` gives them
        auto build = [&](auto& tab, int cols, auto add) {
            tab.assign(static_cast<size_t>(G) * 256 * cols, 0);
            for (int g = 0; g < G; ++g) {
                auto* t = &tab[static_cast<size_t>(g) * 256 * cols];
                for (int v = 1; v < 256; ++v) {
                    const int b = __builtin_ctz(v), r = 8 * g + b;
                    const auto* prev = t + static_cast<size_t>(v & (v - 1)) * cols;
                    auto* e = t + static_cast<size_t>(v) * cols;
                    if (r < n)
                        add(e, prev, w(V.rows[r]));
                    else
                        for (int c = 0; c < cols; ++c) e[c] = prev[c];
                }
            }
        };
        if (C_ == 2 && ctot[0] < (i64{1} << 32) && ctot[1] < (i64{1} << 32)) {
            // one word per entry: class 0 in the low half, class 1 in the high half
            build(pw.tab2, 1, [](u64* e, const u64* prev, const i64* wr) {
                e[0] = prev[0] + (static_cast<u64>(wr[0]) | (static_cast<u64>(wr[1]) << 32));
            });
        } else if (8 * wmax < (i64{1} << 31)) {
            build(pw.tab32, C_, [&](int32_t* e, const int32_t* prev, const i64* wr) {
                for (int c = 0; c < C_; ++c) e[c] = prev[c] + static_cast<int32_t>(wr[c]);
            });
        } else {
            build(pw.tab, C_, [&](i64* e, const i64* prev, const i64* wr) {
                for (int c = 0; c < C_; ++c) e[c] = prev[c] + wr[c];
            });
        }
        return;
    }
    for (int c = 0; c < C_; ++c)
        for (int k = 0; (mx[c] >> k) > 0; ++k) {
            std::vector<u64> pl(W, 0);
            for (int r = 0; r < n; ++r) pl[r >> 6] |= static_cast<u64>((wd(V.rows[r])[c] >> k) & 1) << (r & 63);
            pw.planes.push_back(std::move(pl));
            pw.plane_class.push_back(c);
            pw.plane_shift.push_back(k);
        }
}

void Search::PairWeights::count(const u64* a, const u64* b, i64* P) const {
    if (table) {
        if (!tab2.empty()) {
            u64 acc = 0;
            for (int x = 0; x < W; ++x) {
                u64 m = a[x] & b[x];
                const u64* t = &tab2[static_cast<size_t>(x) * 8 * 256];
                for (; m != 0; m >>= 8, t += 256) acc += t[m & 255];
            }
            P[0] = static_cast<i64>(acc & 0xffffffffULL);
            P[1] = static_cast<i64>(acc >> 32);
        } else if (tab32.empty())
            count_table(tab.data(), a, b, P);
        else
            count_table(tab32.data(), a, b, P);
        return;
    }
    std::fill(P, P + C, 0);
    for (size_t pl = 0; pl < planes.size(); ++pl)
        P[plane_class[pl]] += popcount_and(a, b, planes[pl].data(), W) << plane_shift[pl];
    for (int c = 0; c < C; ++c) P[c] *= unit[c];  // the planes count weight / unit
}

bool row_sums_into(const u64* a, const u64* b, int W, const uint16_t* rowbits, int S16, const uint32_t* w, int j0,
                   int T, bool avx2, i64* out, size_t stride) {
#ifdef SATDT_ROW_SUMS
    if (!avx2 && !kAvx512bw) return false;
    alignas(64) uint32_t sums[128];
    const int L = avx2 ? 8 : 16, B = (T + L - 1) / L;  // columns a vector (AVX2 / AVX-512 BW); blocks
    for (int b0 = j0 / L; b0 < B; b0 += 8) {  // 8 blocks a pass
        const int nb = std::min(8, B - b0);
        if (avx2)
            kRowSums8[nb](a, b, W, reinterpret_cast<const uint8_t*>(rowbits), 2 * S16, b0, w, sums);
        else
            kRowSums[nb](a, b, W, rowbits, S16, b0, w, sums);
        for (int j = std::max(j0, L * b0), j1 = std::min(T, L * (b0 + nb)); j < j1; ++j)
            out[static_cast<size_t>(j) * stride] = sums[j - L * b0];
    }
    return true;
#else
    (void)a, (void)b, (void)W, (void)rowbits, (void)S16, (void)w, (void)j0, (void)T, (void)avx2, (void)out, (void)stride;
    return false;
#endif
}

// a 64 x 64 bit block transposed in place: bit c of A[r] <-> bit r of A[c]
static void transpose64(u64* A) {
    u64 m = 0x00000000FFFFFFFFULL;
    for (int j = 32; j != 0; j >>= 1, m ^= m << j)
        for (int k = 0; k < 64; k = ((k | j) + 1) & ~j) {
            const u64 t = ((A[k] >> j) ^ A[k | j]) & m;
            A[k] ^= t << j;
            A[k | j] ^= t;
        }
}

void rows_from_columns(const std::vector<u64>& bits, int T, int W, int n, int S64, std::vector<uint16_t>& rows) {
    rows.assign(static_cast<size_t>(n) * S64 * 4, 0);
    u64 A[64];
    for (int cb = 0; cb < S64; ++cb)
        for (int x = 0; x < W; ++x) {
            const int nc = std::min(64, T - 64 * cb), nr = std::min(64, n - 64 * x);
            for (int jj = 0; jj < 64; ++jj) A[jj] = jj < nc ? bits[static_cast<size_t>(64 * cb + jj) * W + x] : 0;
            transpose64(A);
            for (int rr = 0; rr < nr; ++rr)  // little-endian: block b of the word holds its bits 16 b ..
                std::memcpy(&rows[(static_cast<size_t>(64 * x + rr) * S64 + cb) * 4], &A[rr], sizeof(u64));
        }
}

bool Search::row_sums_available() {
#ifdef SATDT_ROW_SUMS
    return kAvx512bw || kAvx2;
#else
    return false;
#endif
}

void Search::PairWeights::count_root(const u64* bi, int i, int T, i64* P) const {
    for (int c = 0; c < C; ++c)
        row_sums_into(bi, &cls[static_cast<size_t>(c) * W], W, rowbits.data(), S16,
                      &w32[static_cast<size_t>(c) * 64 * W], i + 1, T, avx2, P + c, C);
}

template <class E>
void Search::PairWeights::count_table(const E* tb, const u64* a, const u64* b, i64* P) const {
    std::fill(P, P + C, 0);
    for (int x = 0; x < W; ++x) {
        u64 m = a[x] & b[x];
        const E* t = tb + static_cast<size_t>(x) * 8 * 256 * C;
        for (; m != 0; m >>= 8, t += 256 * C) {
            const unsigned v = static_cast<unsigned>(m & 255);
            const E* e = t + static_cast<size_t>(v) * C;
            for (int c = 0; c < C; ++c) P[c] += e[c];
        }
    }
}

double Search::bitset_ops(const View& V) const {
    const double T = V.T(), W = (V.n() + 63) / 64;
    return T * T / 2 * W * (1 + C_ * 3);
}

double Search::hist_ops(const View& V) const {
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
bool Search::use_pair_solver(const View& V) const {
    const double bits = bitset_ops(V), hist = hist_ops(V), pair = std::min(bits, hist);
    if (pair_ops_ >= 0) return pair <= pair_ops_;
    const double T = V.T();
    if (hist < bits && T >= 512 && T >= 8.0 * V.p) return false;
    const double root = T * (static_cast<double>(V.n()) * V.p * C1_ + 4.0 * T * C_) * 0.1;
    return pair <= root;
}

// the class weights of every (level_a >= la, level_b >= lb) of two chains a < b of the view: a 2-D
// histogram of (bucket_a, bucket_b) per class, then 2-D suffix sums; H[(la * (tb + 1) + lb) * C + c]
void Search::pair_histogram(const View& V, int a, int b, std::vector<i64>& H) const {
    const int n = V.n(), p = V.p;
    const int ta = V.col0[a + 1] - V.col0[a], tb = V.col0[b + 1] - V.col0[b], sb = tb + 1;
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
}

Sub Search::pair_depth2(const View& V, const std::vector<i64>& F, const i64* N) {
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
    const bool by_bits = bitset_ops(V) <= hist_ops(V);
    const int W = (n + 63) / 64;
    std::vector<u64> bits;
    PairWeights pw;
    if (by_bits) {
        column_bits(V, W, bits);
        pair_weights(V, pw);
        if (pw.rows) rows_from_columns(bits, V.T(), W, n, pw.S16 / 4, pw.rowbits);
        tables_ += pw.table;
        rowsums_ += pw.rows;
    }
    if (pool_ && std::min(bitset_ops(V), hist_ops(V)) >= pair_threads_ops_ && pool_->engaged()) {
        pair_threads(V, F, N, pb, by_bits, bits, pw);
    } else if (by_bits && pw.rows) {
        std::vector<i64> PR(static_cast<size_t>(T) * C_);
        for (int i = 0; i < T; ++i) {
            check_time();
            pw.count_root(&bits[static_cast<size_t>(i) * W], i, T, PR.data());
            for (int j = i + 1; j < T; ++j) {
                const i64* Pj = &PR[static_cast<size_t>(j) * C_];
                pair_update(pb, i, j, Pj, F, T, N);
                pair_update(pb, j, i, Pj, F, T, N);
            }
        }
    } else if (by_bits) {
        for (int i = 0; i < T; ++i) {
            check_time();
            const u64* bi = &bits[static_cast<size_t>(i) * W];
            for (int j = i + 1; j < T; ++j) {
                const u64* bj = &bits[static_cast<size_t>(j) * W];
                pw.count(bi, bj, P.data());
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
                pair_histogram(V, a, b, H);
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
int Search::side_tree(const View& V, const std::vector<i64>& F, const i64* N, int i, int j, bool right) {
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

}  // namespace satdt_dp
