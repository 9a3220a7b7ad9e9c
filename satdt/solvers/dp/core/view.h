// satdt.solvers.dp core: the view of a search node, and its rows as bitsets.
//
// A node of the search is a View: its rows and, per chain, a *compressed* rank (bucket): only
// the columns that still split the node are kept, renumbered 1..t per chain, so counting on a
// node costs O(rows x chains + columns of the node), never the columns of the whole problem.
// Counting itself ("frequency counting" [2, sec. 4.2]: count, count_bits, presence, useful,
// subview) needs the problem's class weights and lives with the search (view.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "types.h"

namespace satdt_dp {

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
    // weights of many bits (over two planes a class row) where the CPU has row sums (AVX2 or
    // AVX-512 BW) and every class row's total on the node is below 2^32: no planes; the counts
    // are each mask row's weight added into the columns that hold it (row_sums_into)
    bool rows = false, avx2 = false;
    int S16 = 0;                             // a row's stride in 16-bit blocks of columns
    std::vector<uint16_t> rowbits;           // n x S16: the columns right of each row
    std::vector<u64> cls;                    // class rows x W: the rows with a weight there
    std::vector<uint32_t> w32;               // class rows x 64 W: the rows' weights
};

// each row's columns (n x S64 words, as 4 S64 16-bit blocks) from the columns' rows (bits: T x W
// words), by 64 x 64 blocks
void rows_from_columns(const std::vector<u64>& bits, int T, int W, int n, int S64, std::vector<uint16_t>& rows);

// out[j * stride] = the weights w[r] of the rows r of a & b (W words) that column j holds (bit j
// of rowbits' row r: n x S16 16-bit blocks), for j0 <= j < T; sums mod 2^32 (the caller's totals
// are below it); AVX-512 BW (16 columns an instruction) or AVX2 (8); false where neither runs
bool row_sums_into(const u64* a, const u64* b, int W, const uint16_t* rowbits, int S16, const uint32_t* w, int j0,
                   int T, bool avx2, i64* out, size_t stride);

inline double bits_work(const View& V, int planes) {
    return static_cast<double>(V.T()) * planes * ((V.n() + 63) / 64);
}

// each column's rows (right of it) as a bitset: T x W words; a one-level chain (a binary
// column) is set without a branch per row
void column_bits(const View& V, int W, std::vector<u64>& col);

// present[j]: some row of `mask` sits exactly at column j's level (right of j, not of the next)
void presence_bits(const ViewBits& B, int T, const u64* mask, std::vector<char>& present);

}  // namespace satdt_dp
