#include "attn/linear.hpp"

#include "gemm.hpp"
#include "thread_pool.hpp"

#include <cmath>
#include <string>

namespace attn {

namespace {
// torch.nn.init.kaiming_uniform_(w, a=math.sqrt(5)) computed as Python does,
// in double: gain = sqrt(2 / (1 + a²)), bound = sqrt(3) * gain / sqrt(fan_in).
double kaiming_uniform_bound(int64_t fan_in) {
    const double a = std::sqrt(5.0);
    const double gain = std::sqrt(2.0 / (1.0 + a * a));
    return std::sqrt(3.0) * (gain / std::sqrt(static_cast<double>(fan_in)));
}

void check_features(int64_t in, int64_t out) {
    if (in <= 0 || out <= 0) {
        throw Error("Linear: expected in_features > 0 and out_features > 0, got " +
                    std::to_string(in) + " and " + std::to_string(out));
    }
}
}  // namespace

void linear_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                     const float* weight, int64_t N, int64_t C, int64_t OC) {
    if (dinp) gemm(N, C, OC, {dout, OC}, {weight, C}, dinp, C, false);               // dout W
    gemm(OC, C, N, {dout, OC, /*transposed=*/true}, {inp, C}, dweight, C, true);     // += doutᵀ inp
    // dbias += Σ_rows dout, each column summed over the rows in order by one thread: Eigen's colwise().sum()
    // vectorises from wherever the buffer happens to be aligned, which changed the last bit between runs.
    if (dbias) {
        parallel_chunks(OC, grain_for_work(static_cast<double>(N)), [&](int64_t j0, int64_t j1) {
            for (int64_t r = 0; r < N; ++r)
                for (int64_t j = j0; j < j1; ++j) dbias[j] += dout[r * OC + j];
        });
    }
}

void linear_init_(Tensor& weight, Tensor* bias, Generator& gen) {
    const int64_t in = weight.shape[1];
    uniform_(weight, -kaiming_uniform_bound(in), kaiming_uniform_bound(in), gen);
    if (bias) {
        const double bound = 1.0 / std::sqrt(static_cast<double>(in));
        uniform_(*bias, -bound, bound, gen);
    }
}

Linear::Linear(int64_t in, int64_t out, bool with_bias, Generator& gen)
    : weight((check_features(in, out), Shape{out, in})),
      bias(with_bias ? Tensor(Shape{out}) : Tensor()) {
    linear_init_(weight, with_bias ? &bias : nullptr, gen);
}

void linear_forward(float* out, const float* inp, const float* weight, const float* bias, int64_t N,
                    int64_t C, int64_t OC) {
    gemm(N, OC, C, {inp, C}, {weight, C, /*transposed=*/true}, out, OC, false);  // inp Wᵀ
    if (bias) MatrixMap(out, N, OC).rowwise() += Eigen::Map<const Eigen::RowVectorXf>(bias, OC);
}

Tensor Linear::forward(const Tensor& x) const {
    if (x.dim() < 1 || x.size(-1) != in_features()) {
        throw_shape("Linear.forward", "x", "[..., " + std::to_string(in_features()) + "]",
                    x.shape);
    }
    check_finite(x, "Linear.forward", "x");
    const int64_t rows = x.numel() / in_features();
    Shape out_shape = x.shape;
    out_shape.back() = out_features();
    Tensor y(out_shape);
    linear_forward(y.data.data(), x.data.data(), weight.data.data(), has_bias() ? bias.data.data() : nullptr,
                   rows, in_features(), out_features());
    return y;
}

}  // namespace attn
