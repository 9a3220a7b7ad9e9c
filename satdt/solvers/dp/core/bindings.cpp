// satdt.solvers.dp._core: the Python module of satdt's compiled DP search (search.h), the only
// file of the core that knows Python. It converts numpy arrays to the search's plain arrays and
// back, releases the GIL while the search runs, and implements the search's Host with Python's
// signals (Ctrl-C) and the progress callback.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <stdexcept>

#include "search.h"
#include "witness.h"  // proof witness (issue 23): the block at the end

namespace py = pybind11;
using satdt_dp::i64;

namespace {

using IntArray = py::array_t<int32_t, py::array::c_style | py::array::forcecast>;
using CountArray = py::array_t<int64_t, py::array::c_style | py::array::forcecast>;

// The search's Host in Python: polled with the GIL released, it takes the GIL to check Python's
// pending signals and to call progress(elapsed, best cost or None, bound or None, nodes). A
// signal, or an exception raised by the callback, stops the search; the error is left set for
// the caller to raise.
class PyHost : public satdt_dp::Host {
  public:
    explicit PyHost(py::object progress, py::object stop = py::none())
        : progress_(std::move(progress)), stop_(std::move(stop)), reports_(!progress_.is_none()) {}
    bool reports() const override { return reports_; }
    bool poll(const satdt_dp::Report* rep) override {
        py::gil_scoped_acquire gil;
        if (PyErr_CheckSignals() != 0) {
            failed_ = true;
            return false;
        }
        if (!stop_.is_none()) {  // the caller's deadline expired (e.g. satdt.deadline.interrupt): stop, no error
            try {
                if (py::cast<bool>(stop_())) return false;
            } catch (py::error_already_set& e) {
                e.restore();
                failed_ = true;
                return false;
            }
        }
        if (rep == nullptr) return true;
        py::object best = rep->has_best ? py::object(py::int_(rep->best)) : py::object(py::none());
        py::object bound = rep->has_bound ? py::object(py::int_(rep->bound)) : py::object(py::none());
        try {
            progress_(rep->elapsed, best, bound, rep->nodes);
        } catch (py::error_already_set& e) {
            e.restore();
            failed_ = true;
            return false;
        }
        return true;
    }
    bool failed() const { return failed_; }

  private:
    py::object progress_;
    py::object stop_;
    bool reports_;
    bool failed_ = false;
};

py::object tree_tuple(const satdt_dp::TreeArrays& t) {
    return py::make_tuple(py::array_t<int>(t.feature.size(), t.feature.data()),
                          py::array_t<int>(t.left.size(), t.left.data()),
                          py::array_t<int>(t.right.size(), t.right.data()),
                          py::array_t<int>(t.label.size(), t.label.data()));
}

std::unique_ptr<satdt_dp::Search> make_search(IntArray rank, IntArray col_chain, IntArray col_level, CountArray counts,
                                              i64 q, i64 lc, double pair_ops, int threads) {
    if (rank.ndim() != 2 || counts.ndim() != 2 || col_chain.ndim() != 1 || col_level.ndim() != 1)
        throw std::invalid_argument("rank and counts must be 2-D, col_chain and col_level 1-D");
    const int m = static_cast<int>(rank.shape(0)), p = static_cast<int>(rank.shape(1));
    const int C = static_cast<int>(counts.shape(1)), B = static_cast<int>(col_chain.shape(0));
    if (counts.shape(0) != m || col_level.shape(0) != B || C < 1)
        throw std::invalid_argument("shapes of rank, counts, col_chain, col_level disagree");
    if (threads < 1) throw std::invalid_argument("threads must be >= 1");
    return std::make_unique<satdt_dp::Search>(rank.data(), m, p, col_chain.data(), col_level.data(), B, counts.data(),
                                              C, q, lc, pair_ops, threads);
}

py::dict solve(satdt_dp::Search& s, int depth, i64 ub, double time_limit, py::object progress, double interval,
               int width, py::object rows, py::object stop, py::object roots, bool satisfice) {
    PyHost host(progress, stop);
    satdt_dp::SolveOutcome res;
    std::vector<int> subset, part;
    if (!roots.is_none()) {
        auto r = roots.cast<py::array_t<int64_t, py::array::c_style | py::array::forcecast>>();
        if (r.ndim() != 1) throw std::invalid_argument("roots must be 1-D");
        for (py::ssize_t i = 0; i < r.shape(0); ++i) {
            if (r.data()[i] < 0 || r.data()[i] > INT32_MAX) throw std::invalid_argument("roots out of range");
            part.push_back(static_cast<int>(r.data()[i]));
        }
    }
    if (!rows.is_none()) {
        auto r = rows.cast<py::array_t<int64_t, py::array::c_style | py::array::forcecast>>();
        if (r.ndim() != 1) throw std::invalid_argument("rows must be 1-D");
        subset.assign(r.data(), r.data() + r.shape(0));
        for (size_t i = 0; i < subset.size(); ++i)
            if (r.data()[i] < 0 || r.data()[i] > INT32_MAX) throw std::invalid_argument("rows out of range");
    }
    {
        py::gil_scoped_release release;
        res = s.solve(depth, ub, time_limit, &host, interval, width, rows.is_none() ? nullptr : &subset,
                      roots.is_none() ? nullptr : &part, satisfice);
    }
    if (host.failed()) throw py::error_already_set();
    py::dict out;
    out["finished"] = res.finished;
    if (res.finished) {
        out["value"] = res.value;
        out["tree"] = res.has_tree ? tree_tuple(res.tree) : py::object(py::none());
    } else {
        out["top_valid"] = res.top_valid;
        out["top_best"] = res.top_best;
        out["top_tree"] = res.has_top_tree ? tree_tuple(res.top_tree) : py::object(py::none());
        out["top_bound"] = res.top_bound;
        out["top_done"] = res.top_done;
        out["top_live"] = res.top_live;
    }
    return out;
}

py::object greedy(satdt_dp::Search& s, int depth, double time_limit) {
    PyHost host{py::none()};
    satdt_dp::GreedyOutcome res;
    {
        py::gil_scoped_release release;
        res = s.greedy(depth, time_limit, &host);
    }
    if (host.failed()) throw py::error_already_set();
    if (!res.finished) return py::none();
    return py::make_tuple(res.cost, tree_tuple(res.tree));
}

py::dict stats(const satdt_dp::Search& s) {
    const satdt_dp::Stats st = s.stats();
    py::dict d;
    d["nodes"] = st.nodes;
    d["roots_evaluated"] = st.roots_evaluated;
    d["pair_solves"] = st.pair_solves;
    d["depth2_scans"] = st.depth2_scans;
    d["memo_hits"] = st.memo_hits;
    d["memo_entries"] = st.memo_entries;
    d["tree_nodes"] = st.tree_nodes;
    d["restricted_entries"] = st.restricted_entries;
    d["thread_runs"] = st.thread_runs;
    d["root_waves"] = st.root_waves;
    d["wave_roots"] = st.wave_roots;
    d["wave_task_us"] = st.wave_task_us;
    d["wave_span_us"] = st.wave_span_us;
    d["worker_tasks"] = st.worker_tasks;
    d["merged_pairs"] = st.merged_pairs;
    d["top_resumes"] = st.top_resumes;
    d["pair_tables"] = st.pair_tables;
    return d;
}

}  // namespace

PYBIND11_MODULE(_core, mod) {
    mod.doc() = "Compiled branch and bound of satdt's exact DP (see satdt.solvers.dp).";
    py::class_<satdt_dp::Search>(mod, "Search")
        .def(py::init(&make_search), py::arg("rank"), py::arg("col_chain"), py::arg("col_level"), py::arg("counts"),
             py::arg("q"), py::arg("leaf_cost"), py::arg("pair_ops"), py::arg("threads") = 1)
        .def("solve", &solve, py::arg("depth"), py::arg("upper_bound"), py::arg("time_limit"),
             py::arg("progress") = py::none(), py::arg("interval") = 2.0, py::arg("width") = 0,
             py::arg("rows") = py::none(), py::arg("stop") = py::none(), py::arg("roots") = py::none(),
             py::arg("satisfice") = false)
        .def("greedy", &greedy, py::arg("depth"), py::arg("time_limit"))
        .def("stats", &stats)
        .def_property_readonly("threads", &satdt_dp::Search::threads)
        .def("set_thread_work", &satdt_dp::Search::set_thread_work, py::arg("scan_units"), py::arg("pair_ops"))
        .def("set_pairing", &satdt_dp::Search::set_pairing, py::arg("on"))
        .def_property_readonly("missing_pairs", &satdt_dp::Search::missing_pairs)
        .def("set_root_wave", &satdt_dp::Search::set_root_wave, py::arg("wave"))
        .def("set_root_lag", &satdt_dp::Search::set_root_lag, py::arg("lag"))
        .def("set_root_level", &satdt_dp::Search::set_root_level, py::arg("level"))
        .def("set_solo", &satdt_dp::Search::set_solo, py::arg("on"));

    // --- proof witness (issue 23) ---
    // BoxWitness (witness.h): the witness questions of satdt/proof/witness.py over every box of the data
    py::class_<satdt_dp::BoxWitness>(mod, "BoxWitness")
        .def(py::init([](IntArray rank, IntArray R, IntArray cls, int C, int depth, int max_leaves) {
                 if (rank.ndim() != 2 || R.ndim() != 1 || cls.ndim() != 1 || R.shape(0) != rank.shape(1) ||
                     cls.shape(0) != rank.shape(0))
                     throw std::invalid_argument("BoxWitness: rank (n, p), R (p,) and cls (n,) disagree");
                 return std::make_unique<satdt_dp::BoxWitness>(rank.data(), static_cast<int>(rank.shape(0)),
                                                               static_cast<int>(rank.shape(1)), R.data(), cls.data(),
                                                               C, depth, max_leaves);
             }),
             py::arg("rank"), py::arg("R"), py::arg("cls"), py::arg("n_classes"), py::arg("depth"),
             py::arg("max_leaves"))
        .def("set_present", [](satdt_dp::BoxWitness& w, py::array_t<uint8_t, py::array::c_style | py::array::forcecast> a) {
                 if (a.ndim() != 1) throw std::invalid_argument("present must be 1-D");
                 std::vector<char> v(a.data(), a.data() + a.shape(0));
                 w.set_present(v);
                 return w.yes();
             }, py::arg("present"))
        .def("predict", [](satdt_dp::BoxWitness& w, int n) {
                 py::array_t<int32_t> label(n), leaf(n);
                 const int leaves = w.predict(label.mutable_data(), leaf.mutable_data());
                 return py::make_tuple(label, leaf, leaves);
             }, py::arg("n"))
        .def("shrink", [](satdt_dp::BoxWitness& w, CountArray order, CountArray row_of) {
                 if (order.ndim() != 1 || row_of.ndim() != 1) throw std::invalid_argument("order and row_of must be 1-D");
                 std::vector<int> o(order.data(), order.data() + order.shape(0));
                 std::vector<int> ro(row_of.data(), row_of.data() + row_of.shape(0));
                 std::vector<int> out;
                 {
                     py::gil_scoped_release release;
                     out = w.shrink(o, ro);
                 }
                 return py::array_t<int64_t>(out.size(), std::vector<int64_t>(out.begin(), out.end()).data());
             }, py::arg("order"), py::arg("row_of"))
        .def_property_readonly("value", &satdt_dp::BoxWitness::value)
        .def_property_readonly("inf", &satdt_dp::BoxWitness::inf)
        .def_property_readonly("boxes", &satdt_dp::BoxWitness::boxes)
        .def_property_readonly("asked", &satdt_dp::BoxWitness::asked)
        .def_property_readonly("repaired", &satdt_dp::BoxWitness::repaired)
        .def_property_readonly("grafts", &satdt_dp::BoxWitness::grafts)
        .def_property_readonly("outside_yeses", &satdt_dp::BoxWitness::outside_yeses)
        .def("set_outside", &satdt_dp::BoxWitness::set_outside, py::arg("on"));
    // --- end proof witness ---
    // --- weights / missing (issue 24) ---
    // the row sums need AVX-512 F + BW or AVX2 (depth2.cpp); else the byte tables and planes
    mod.attr("has_row_sums") = satdt_dp::Search::row_sums_available();
    py::reinterpret_borrow<py::class_<satdt_dp::Search>>(mod.attr("Search"))
        .def("set_missing_bound", &satdt_dp::Search::set_missing_bound, py::arg("on"))
        .def("set_skip_copy_roots", &satdt_dp::Search::set_skip_copy_roots, py::arg("on"))
        .def_property_readonly("copy_roots_skipped", &satdt_dp::Search::copy_roots_skipped)
        .def("set_row_sums", &satdt_dp::Search::set_row_sums, py::arg("on"))
        .def("set_count_paths", &satdt_dp::Search::set_count_paths, py::arg("bits"), py::arg("pair"))
        .def_property_readonly("row_sum_solves", &satdt_dp::Search::row_sum_solves)
        .def("missing_bound_stats", [](const satdt_dp::Search& s) {
            const auto [solves, skips] = s.missing_bound_stats();
            py::dict d;
            d["missing_rows_solved"] = solves;
            d["roots_ruled_out"] = skips;
            d["scan_missing_errors"] = s.scan_missing_errors();
            return d;
        });
}
