// Golden numbers for the tests, read from tests/golden/*.json (written from
// real PyTorch by tools/make_golden.py) so that C++, Node and browser tests
// compare against the same numbers.
#pragma once

#include "attn/tensor.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <string>

namespace golden {

inline const nlohmann::json& file(const std::string& name) {
    static std::map<std::string, nlohmann::json> cache;
    auto it = cache.find(name);
    if (it == cache.end()) {
        std::ifstream in(std::string(ATTN_GOLDEN_DIR) + "/" + name);
        if (!in) throw std::runtime_error("cannot open golden file " + name);
        it = cache.emplace(name, nlohmann::json::parse(in)).first;
    }
    return it->second;
}

inline const nlohmann::json& rng(const std::string& key) { return file("torch_rng.json").at(key); }

// A tensor written by tools/make_golden.py: {"shape": [...], "data": [...]}.
inline attn::Tensor tensor(const nlohmann::json& j) {
    return attn::Tensor(j.at("shape").get<attn::Shape>(), j.at("data").get<std::vector<float>>());
}

// A tensor a notebook prints, as PyTorch computes it, e.g. notebook("nb000.attn_weights").
inline attn::Tensor notebook(const std::string& key) { return tensor(file("notebooks.json").at(key)); }

// Same shape and every element within tol: 1e-4 absolute, the notebooks
// print 4 decimals.
inline ::testing::AssertionResult near(const attn::Tensor& actual, const attn::Tensor& expected,
                                       float tol = 1e-4f) {
    if (actual.shape != expected.shape) {
        return ::testing::AssertionFailure() << "shape " << attn::shape_str(actual.shape)
                                             << " != " << attn::shape_str(expected.shape);
    }
    for (int64_t i = 0; i < actual.numel(); ++i) {
        if (!(std::fabs(actual[i] - expected[i]) <= tol)) {
            return ::testing::AssertionFailure() << "element " << i << ": " << actual[i]
                                                 << " != " << expected[i] << " (tol " << tol << ")";
        }
    }
    return ::testing::AssertionSuccess();
}

// The elements of `actual`, in order, against a flat list of values.
inline ::testing::AssertionResult near(const attn::Tensor& actual, const std::vector<float>& expected,
                                       float tol = 1e-4f) {
    if (actual.numel() != static_cast<int64_t>(expected.size())) {
        return ::testing::AssertionFailure() << actual.numel() << " elements, expected " << expected.size();
    }
    return near(actual, attn::Tensor(actual.shape, expected), tol);
}

// Row r of a 2-D tensor as a 1-D tensor.
inline attn::Tensor row(const attn::Tensor& t, int64_t r) {
    const int64_t n = t.shape[1];
    return attn::Tensor({n}, std::vector<float>(t.data.begin() + r * n, t.data.begin() + (r + 1) * n));
}

}  // namespace golden
