// A dense float32 tensor: a shape and its elements in row-major order.
//
// This is deliberately the smallest thing that can carry the notebooks' tensors
// ([T, d] inputs, [B, T, d] batches, [B, H, T, T] weights) between functions.
// Arithmetic goes through Eigen maps of 2-D slices (see `matrix`), so the
// maths reads like the notebooks' `inputs @ W_query`.
#pragma once

#include "attn/error.hpp"

#include <Eigen/Core>

#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace attn {

using Shape = std::vector<int64_t>;

// Row-major like PyTorch, so a tensor's data is an Eigen matrix without copies.
using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixMap = Eigen::Map<Matrix>;
using ConstMatrixMap = Eigen::Map<const Matrix>;

// The largest tensor the library will allocate (elements). Larger requests are
// almost always a mistake (a typo in a size) and would otherwise exhaust memory
// or, in WASM, abort the module.
constexpr int64_t kMaxElements = int64_t{1} << 28;

// The 16-bit formats a model's weights may be kept in as loaded (float16 and bfloat16 files): widening either to
// float32 is exact, so a product that widens them as it reads gives the float32 weights' result.
enum class Half : unsigned char { None, F16, BF16 };

struct Tensor {
    Shape shape;              // e.g. (T, d), (B, T, d), (B, H, T, T)
    std::vector<float> data;  // numel(shape) elements, row-major
    // A loaded model's large weights kept in their file's 16 bits instead of `data` (then empty): half the
    // memory. Only the forward pass reads them (gemm.hpp widens them as it packs); half_kind says which format.
    std::vector<uint16_t> half;
    Half half_kind = Half::None;

    Tensor() = default;
    // Zero-filled tensor of the given shape (validated against kMaxElements).
    explicit Tensor(Shape shape);
    // Takes ownership of data; its size must equal numel(shape).
    Tensor(Shape shape, std::vector<float> data);

    int64_t dim() const { return static_cast<int64_t>(shape.size()); }
    int64_t numel() const { return static_cast<int64_t>(half_kind == Half::None ? data.size() : half.size()); }
    bool is_half() const { return half_kind != Half::None; }
    // size(-1) is the last dimension, as in PyTorch.
    int64_t size(int64_t d) const;

    float& operator[](int64_t i) { return data[static_cast<size_t>(i)]; }
    float operator[](int64_t i) const { return data[static_cast<size_t>(i)]; }
    // Element (i, j) of a 2-D tensor.
    float& at(int64_t i, int64_t j) { return data[static_cast<size_t>(i * shape[1] + j)]; }
    float at(int64_t i, int64_t j) const { return data[static_cast<size_t>(i * shape[1] + j)]; }
};

// A 16-bit value as the float it stands for, exactly.
float widen(uint16_t h, Half kind);
// Every float16's value, indexed by its bits (what a GemmOperand of float16 values reads); null for bfloat16,
// which widens by a shift.
const float* half_table(Half kind);
// The tensor's values as float32: `data` itself, or its 16-bit values widened (a copy).
std::vector<float> float_values(const Tensor& t);

// Number of elements of a shape; throws Error (naming `fn`) for negative sizes
// or more than kMaxElements.
int64_t numel(const Shape& shape, const char* fn = "Tensor");

// "[6, 3]"
std::string shape_str(const Shape& shape);
// A number as a person writes it ("0", "1.5", "-inf", "nan"), for messages.
std::string format_number(double x);
// A size in bytes as a person writes it ("512 B", "3.0 MiB", "5.0 GiB"), for messages.
std::string format_bytes(double bytes);

// The 2-D tensor as an Eigen matrix (no copy).
MatrixMap matrix(Tensor& t);
ConstMatrixMap matrix(const Tensor& t);
// Slice `index` of a tensor viewed as a stack of (rows, cols) matrices, where
// rows and cols are its last two dimensions.
MatrixMap matrix_slice(Tensor& t, int64_t index);
ConstMatrixMap matrix_slice(const Tensor& t, int64_t index);
// How many (rows, cols) slices a tensor of dim >= 2 holds: the product of its
// leading (batch) dimensions.
int64_t batch_count(const Tensor& t);
Tensor from_matrix(const Matrix& m);

// x @ w for x of shape (..., n) and w of shape (n, m): the product every
// projection in the notebooks is made of (`inputs @ W_query`). Returns (..., m).
Tensor matmul(const Tensor& x, const Tensor& w, const char* fn = "matmul");

// ---- argument checks shared by every public entry point -----------------

// Throws Error unless every element is finite, naming the first bad index.
void check_finite(const Tensor& t, const char* fn, const char* name);
// The index of the first NaN or ±Infinity among x[0, n), or -1 when all are finite.
int64_t first_non_finite(const float* x, int64_t n);
// Throws Error with "fn: expected <name> of shape <expected>, got <actual>".
[[noreturn]] void throw_shape(const char* fn, const char* name, const std::string& expected,
                              const Shape& actual);

}  // namespace attn
