#include "attn/state_dict.hpp"

#include "attn/error.hpp"

#include <set>

namespace attn {

void load_state_dict(const char* fn, const std::vector<std::pair<std::string, Tensor*>>& parameters,
                     const StateDict& given, bool strict) {
    std::vector<std::string> names;
    for (const auto& [name, t] : parameters) names.push_back(name);
    const auto list = [](const std::vector<std::string>& v) {
        std::string out;
        for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
        return out;
    };
    std::vector<Tensor*> targets;
    std::set<std::string> seen;
    for (const auto& [name, t] : given) {
        Tensor* target = nullptr;
        for (const auto& [known, p] : parameters) {
            if (known == name) target = p;
        }
        if (target == nullptr) {
            const std::string near = nearest_name(name, names);
            throw Error(std::string(fn) + ": unexpected key '" + name + "' in the state dict" +
                        (near.empty() ? "" : " (did you mean '" + near + "'?)") + "; expected " + list(names));
        }
        if (!seen.insert(name).second) throw Error(std::string(fn) + ": key '" + name + "' given twice");
        if (t.shape != target->shape) {
            throw_shape(fn, ("'" + name + "'").c_str(), shape_str(target->shape) + " (its shape in this module)", t.shape);
        }
        check_finite(t, fn, name.c_str());
        targets.push_back(target);
    }
    if (strict) {
        std::vector<std::string> missing;
        for (const auto& name : names) {
            if (seen.count(name) == 0) missing.push_back(name);
        }
        if (!missing.empty()) {
            throw Error(std::string(fn) + ": missing key(s) " + list(missing) +
                        " in the state dict (pass strict: false to keep their current values)");
        }
    }
    for (std::size_t i = 0; i < targets.size(); ++i) *targets[i] = given[i].second;
}

}  // namespace attn
