// satdt.solvers.dp core: frequency counting on a node's view ([2, sec. 4.2]; view.h): the class
// weights on the right of every column of the node, by histograms over rows x chains or by
// popcounts of bitsets; which columns still split the node; the view of a child.

#include <algorithm>
#include <vector>

#include "kernels.h"
#include "search.h"

namespace satdt_dp {

// ------------------------------------------------------------------ counting
// Class weights (+ conflict errors) on the right of every column of V, over positions pos;
// F[c * T + j], present[j]: some row sits exactly at the column's level.
// rows: C1_ (classes and conflict errors) or C_ (classes only, for depth-one children);
// present: filled unless null
void Search::count(const View& V, const int* pos, int np, std::vector<i64>& F, std::vector<char>* present,
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

void Search::build_bits(const View& V, ViewBits& B) const {
    const int T = V.T(), n = V.n(), p = V.p, W = (n + 63) / 64;
    B.W = W;
    column_bits(V, W, B.col);
    B.next.assign(T, -1);
    for (int k = 0; k < p; ++k)
        for (int j = V.col0[k]; j + 1 < V.col0[k + 1]; ++j) B.next[j] = j + 1;
    B.plane.clear();
    B.plane_class.clear();
    B.plane_shift.clear();
    std::vector<i64> mx(C1_, 0);  // per class row: the bits of its largest weight / unit
    int NP = 0;
    for (int c = 0; c < C1_; ++c) {
        for (int r = 0; r < n; ++r) mx[c] |= wd(V.rows[r])[c];
        for (int k = 0; (mx[c] >> k) > 0; ++k) ++NP;
    }
    // many planes: the row sums instead (each class row's total below 2^32: 32-bit sums)
    B.rows = row_sums_ && Search::row_sums_available() && bits_path_ != 0 && bits_path_ != 1 &&
             (bits_path_ >= 0 || NP > 2 * C1_) && row_weights(V, C1_, B.cls, B.w32);
    if (B.rows) {
        B.avx2 = !kAvx512bw || bits_path_ == 3;
        const int S64 = (T + 63) / 64;
        B.S16 = 4 * S64;
        rows_from_columns(B.col, T, W, n, S64, B.rowbits);
        return;
    }
    for (int c = 0; c < C1_; ++c)
        for (int k = 0; (mx[c] >> k) > 0; ++k) {
            const size_t off = B.plane.size();
            B.plane.resize(off + W, 0);
            for (int r = 0; r < n; ++r) B.plane[off + (r >> 6)] |= static_cast<u64>((wd(V.rows[r])[c] >> k) & 1) << (r & 63);
            B.plane_class.push_back(c);
            B.plane_shift.push_back(k);
        }
}

bool Search::row_weights(const View& V, int classes, std::vector<u64>& cls, std::vector<uint32_t>& w32) const {
    const int n = V.n(), W = (n + 63) / 64;
    std::vector<i64> ctot(classes, 0);
    for (int r : V.rows)
        for (int c = 0; c < classes; ++c) ctot[c] += w(r)[c];
    for (int c = 0; c < classes; ++c)
        if (ctot[c] >= (i64{1} << 32)) return false;
    cls.assign(static_cast<size_t>(classes) * W, 0);
    w32.assign(static_cast<size_t>(classes) * 64 * W, 0);
    for (int r = 0; r < n; ++r) {
        const i64* wr = w(V.rows[r]);
        for (int c = 0; c < classes; ++c)
            if (wr[c] != 0) {
                cls[static_cast<size_t>(c) * W + (r >> 6)] |= 1ULL << (r & 63);
                w32[static_cast<size_t>(c) * 64 * W + r] = static_cast<uint32_t>(wr[c]);
            }
    }
    return true;
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
// count_bits' popcounts with AVX-512 VPOPCNTQ, for weights with many bit-planes: per column j
// and class, the planes' popcounts shifted and summed in the vector lanes, one horizontal sum
// per class instead of one per plane (the planes of a class are consecutive in `planes`)
__attribute__((target("avx512f,avx512vpopcntdq"))) static void count_planes_avx512(
    const u64* col, int T, int W, const u64* mp, const std::vector<int>& planes, const std::vector<int>& pl_class,
    const std::vector<int>& pl_shift, i64* F) {
    const int np = static_cast<int>(planes.size());
    if (W <= 16) {  // up to 1,024 rows: the column in two registers, loaded once
        const __mmask8 k0 = W >= 8 ? 0xff : static_cast<__mmask8>((1u << W) - 1);
        const __mmask8 k1 = W <= 8 ? 0 : W == 16 ? 0xff : static_cast<__mmask8>((1u << (W - 8)) - 1);
        for (int j = 0; j < T; ++j) {
            const u64* cj = col + static_cast<size_t>(j) * W;
            const __m512i c0 = _mm512_maskz_loadu_epi64(k0, cj), c1 = _mm512_maskz_loadu_epi64(k1, cj + 8);
            for (int a = 0; a < np;) {
                const int c = pl_class[planes[a]];
                __m512i acc = _mm512_setzero_si512();
                for (; a < np && pl_class[planes[a]] == c; ++a) {
                    const int pl = planes[a];
                    const u64* m = mp + static_cast<size_t>(pl) * W;
                    const __m512i s = _mm512_add_epi64(
                        _mm512_popcnt_epi64(_mm512_and_si512(c0, _mm512_maskz_loadu_epi64(k0, m))),
                        _mm512_popcnt_epi64(_mm512_and_si512(c1, _mm512_maskz_loadu_epi64(k1, m + 8))));
                    acc = _mm512_add_epi64(acc, _mm512_sllv_epi64(s, _mm512_set1_epi64(pl_shift[pl])));
                }
                F[static_cast<size_t>(c) * T + j] += _mm512_reduce_add_epi64(acc);
            }
        }
        return;
    }
    for (int j = 0; j < T; ++j) {
        const u64* cj = col + static_cast<size_t>(j) * W;
        for (int a = 0; a < np;) {
            const int c = pl_class[planes[a]];
            __m512i acc = _mm512_setzero_si512();
            for (; a < np && pl_class[planes[a]] == c; ++a) {
                const int pl = planes[a];
                const u64* m = mp + static_cast<size_t>(pl) * W;
                __m512i s = _mm512_setzero_si512();
                for (int x = 0; x < W; x += 8) {
                    const __mmask8 k = W - x >= 8 ? 0xff : static_cast<__mmask8>((1u << (W - x)) - 1);
                    const __m512i v = _mm512_and_si512(_mm512_maskz_loadu_epi64(k, cj + x), _mm512_maskz_loadu_epi64(k, m + x));
                    s = _mm512_add_epi64(s, _mm512_popcnt_epi64(v));
                }
                acc = _mm512_add_epi64(acc, _mm512_sllv_epi64(s, _mm512_set1_epi64(pl_shift[pl])));
            }
            F[static_cast<size_t>(c) * T + j] += _mm512_reduce_add_epi64(acc);
        }
    }
}
#define SATDT_COUNT_PLANES 1
#endif

// count() over the rows of `mask` (a subset of the node's rows), by popcounts
void Search::count_bits(const View& V, const ViewBits& B, const u64* mask, std::vector<i64>& F,
                        std::vector<char>* present, int rows) const {
    const int T = V.T(), W = B.W, NP = static_cast<int>(B.plane_class.size());
    F.assign(static_cast<size_t>(C1_) * T, 0);
    if (B.rows) {  // the row sums (build_bits): the weights themselves, no unit
        for (int c = 0; c < rows; ++c)
            row_sums_into(mask, &B.cls[static_cast<size_t>(c) * W], W, B.rowbits.data(), B.S16,
                          &B.w32[static_cast<size_t>(c) * 64 * W], 0, T, B.avx2, &F[static_cast<size_t>(c) * T], 1);
        if (present != nullptr) presence_bits(B, T, mask, *present);
        return;
    }
    std::vector<u64> mp(static_cast<size_t>(NP) * W);  // each plane restricted to the mask
    std::vector<int> planes;
    for (int pl = 0; pl < NP; ++pl) {
        if (B.plane_class[pl] >= rows) continue;
        for (int x = 0; x < W; ++x) mp[static_cast<size_t>(pl) * W + x] = B.plane[static_cast<size_t>(pl) * W + x] & mask[x];
        planes.push_back(pl);
    }
#ifdef SATDT_COUNT_PLANES
    // many planes (float sample weights: 20-odd a class): the vector sums
    if (kVpopcnt && planes.size() > 2 * static_cast<size_t>(rows)) {
        count_planes_avx512(B.col.data(), T, W, mp.data(), planes, B.plane_class, B.plane_shift, F.data());
        planes.clear();
    }
#endif
    for (int j = 0; j < T && !planes.empty(); ++j) {
        const u64* cj = &B.col[static_cast<size_t>(j) * W];
        for (int pl : planes) {
            const i64 cnt = popcount_and(cj, &mp[static_cast<size_t>(pl) * W], W);
            F[static_cast<size_t>(B.plane_class[pl]) * T + j] += cnt << B.plane_shift[pl];
        }
    }
    for (int c = 0; c < rows; ++c)  // the planes count weight / unit_[c]
        if (unit_[c] != 1)
            for (int j = 0; j < T; ++j) F[static_cast<size_t>(c) * T + j] *= unit_[c];
    if (present != nullptr) presence_bits(B, T, mask, *present);
}

void Search::presence(const View& V, const int* pos, int np, std::vector<char>& present) {
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
std::vector<int> Search::useful(const std::vector<i64>& F, const std::vector<char>& present, const i64* N, int T) const {
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
View Search::subview(const View& P, const int* pos, int np, const std::vector<int>& keep) const {
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
        // data() + offset, not &bucket[...]: a view with no chain left has an empty bucket
        const int32_t* b = P.bucket.data() + static_cast<size_t>(pos[i]) * P.p;
        int32_t* o = V.bucket.data() + static_cast<size_t>(i) * V.p;
        for (int k = 0; k < P.p; ++k)
            if (newchain[k] >= 0) o[newchain[k]] = lvmap[map_off[k] + b[k]];
    }
    return V;
}

// each column's rows (right of it) as a bitset: T x W words; a one-level chain (a binary
// column) is set without a branch per row
void column_bits(const View& V, int W, std::vector<u64>& col) {
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

// present[j]: some row of `mask` sits exactly at column j's level (right of j, not of the next)
void presence_bits(const ViewBits& B, int T, const u64* mask, std::vector<char>& present) {
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

}  // namespace satdt_dp
