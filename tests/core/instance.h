// An instance in the compiled core's input form (see satdt/solvers/dp/core/search.h): m distinct
// rows, p chains (rank[row * p + chain]), B columns in chain order (chain, level), C classes
// (counts[row * C + class]).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

struct Instance {
    std::string name;
    int m = 0, p = 0, B = 0, C = 0;
    std::vector<int32_t> rank, chain, level;
    std::vector<int64_t> counts;
};

// An instance with its optimum cost (errors + lc * leaves) at depth <= depth.
struct Known {
    Instance in;
    int depth;
    int64_t lc;
    int64_t opt;
};

inline Instance make_instance(const char* name, const int32_t* rank, int m, int p, const int32_t* chain,
                              const int32_t* level, int B, const int64_t* counts, int C) {
    Instance in;
    in.name = name;
    in.m = m;
    in.p = p;
    in.B = B;
    in.C = C;
    in.rank.assign(rank, rank + static_cast<size_t>(m) * p);
    in.chain.assign(chain, chain + B);
    in.level.assign(level, level + B);
    in.counts.assign(counts, counts + static_cast<size_t>(m) * C);
    return in;
}
