// satdt.solvers.dp core: popcount kernels.
//
// popcount(a & b) and popcount(a & b & c) over W words: the inner loops of the pair counts and of
// frequency counting by bitsets. Built twice: for CPUs with AVX-512 VPOPCNTQ (8 words per
// instruction; chosen at run time, so the module still runs on any x86-64) and portable.
#pragma once

#include "types.h"

namespace satdt_dp {

#define SATDT_POPCOUNT_BODY(EXPR)                                   \
    i64 cnt = 0;                                                    \
    for (int x = 0; x < W; ++x) cnt += __builtin_popcountll(EXPR);  \
    return cnt;

inline i64 and2_portable(const u64* __restrict a, const u64* __restrict b, int W) { SATDT_POPCOUNT_BODY(a[x] & b[x]) }
inline i64 and3_portable(const u64* __restrict a, const u64* __restrict b, const u64* __restrict c, int W) {
    SATDT_POPCOUNT_BODY(a[x] & b[x] & c[x])
}
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
__attribute__((target("avx512f,avx512vpopcntdq"))) inline i64 and2_avx512(const u64* __restrict a,
                                                                         const u64* __restrict b, int W) {
    SATDT_POPCOUNT_BODY(a[x] & b[x])
}
__attribute__((target("avx512f,avx512vpopcntdq"))) inline i64 and3_avx512(const u64* __restrict a,
                                                                         const u64* __restrict b,
                                                                         const u64* __restrict c, int W) {
    SATDT_POPCOUNT_BODY(a[x] & b[x] & c[x])
}
inline bool has_vpopcnt() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq");
}
inline const bool kVpopcnt = has_vpopcnt();
// AVX-512 F + BW (masked 32-bit adds, 16-bit mask loads): the pair solver's row sums (depth2.cpp)
inline bool has_avx512bw() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
}
inline const bool kAvx512bw = has_avx512bw();
// AVX2 (8 lanes of 32 bits): the pair solver's row sums where AVX-512 BW is not there
inline bool has_avx2() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}
inline const bool kAvx2 = has_avx2();
inline i64 popcount_and(const u64* a, const u64* b, int W) { return kVpopcnt ? and2_avx512(a, b, W) : and2_portable(a, b, W); }
inline i64 popcount_and(const u64* a, const u64* b, const u64* c, int W) {
    return kVpopcnt ? and3_avx512(a, b, c, W) : and3_portable(a, b, c, W);
}
#else
inline const bool kAvx512bw = false;
inline const bool kAvx2 = false;
inline i64 popcount_and(const u64* a, const u64* b, int W) { return and2_portable(a, b, W); }
inline i64 popcount_and(const u64* a, const u64* b, const u64* c, int W) { return and3_portable(a, b, c, W); }
#endif
#undef SATDT_POPCOUNT_BODY

}  // namespace satdt_dp
