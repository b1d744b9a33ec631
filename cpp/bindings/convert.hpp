// Conversions between JS values and the C++ library's types, and the error
// contract every binding follows. Used by the glue files (*_glue.cpp); the
// registration (bindings.cpp) only names what they define.
//
// Conventions:
// - Tensors cross as the value_object {data: Float32Array, shape: number[]}.
//   Arrays handed to JS are JS-owned copies (one copy out of a
//   typed_memory_view), so they stay valid when WASM memory grows.
// - Options cross as value_objects or, when a C++ schema owns their names,
//   defaults and limits (configs, generation options), as JSON text that the
//   schema reads. Results (traces, reports) cross as plain JS objects built by
//   one converter per C++ struct (traces.cpp).
// - class_ is only for objects with a lifetime (layers holding parameters, a
//   model, a trainer). Their constructors are the static `create` functions,
//   so that a bad argument is an Error like any other.
// - Errors are returned, never thrown: every exported function runs inside
//   `guarded` and returns its result or a JS Error, which index.js throws once
//   the call has returned. A JS exception thrown from inside WASM would unwind
//   the WASM frames without restoring the stack pointer or running the C++
//   destructors of the call (its strings, vectors and the emval handles of
//   its arguments): each caught error leaked, and some 60,000 of them
//   overflowed the stack. For the same reason index.js hands every argument
//   over already checked and in the exact type declared here (Float32Array
//   data, number[] shapes, Float64Array ids, strings, booleans), so that no
//   conversion can throw inside WASM either.
// - Names: the C++ library validates every quantity and names it as C++ does
//   (d_model, num_heads); a message crossing to JS has those names translated
//   to the JS API's (dModel, numHeads) by `js_message`. docs/conventions.md.
#pragma once

#include "attn/error.hpp"
#include "attn/tensor.hpp"

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace attn::js {

using emscripten::val;

// ---- errors ---------------------------------------------------------------

// The message of a C++ error as JS shows it: under the name of the function
// the caller called (an "attentionScores: ..." raised inside
// simpleSelfAttention reads "simpleSelfAttention: ..."), with C++ parameter
// names spelled as the JS API spells them.
std::string js_message(const char* fn, const std::string& what);
// A JS Error with the stable `code` an app can branch on; web/lib/errors.js lists the codes (and
// tests/js/errors.test.js holds this file's to that list).
val js_error(const std::string& message, const char* code);

// f's result as a JS value, or the Error describing why it failed.
template <typename F>
val guarded(const char* fn, F&& f) {
    try {
        if constexpr (std::is_void_v<decltype(f())>) {
            f();
            return val::undefined();
        } else {
            return val(f());
        }
    } catch (const std::bad_alloc&) {
        return js_error(std::string(fn) + ": out of memory", "ERR_ATTN_OUT_OF_MEMORY");
    } catch (const std::length_error&) {  // a std::vector longer than WASM's 32-bit size_t can count says only "vector"
        return js_error(std::string(fn) + ": out of memory", "ERR_ATTN_OUT_OF_MEMORY");
    } catch (const FormatError& e) {
        return js_error(js_message(fn, e.what()), "ERR_ATTN_INVALID_FILE");
    } catch (const std::exception& e) {
        return js_error(js_message(fn, e.what()), "ERR_ATTN_INVALID_ARGUMENT");
    } catch (...) {
        return js_error(std::string(fn) + ": unexpected C++ exception", "ERR_ATTN_INTERNAL");
    }
}

// A new C++ object as a JS handle that owns it (its delete() frees it), as
// embind hands over a raw pointer returned with allow_raw_pointers(). val's
// public constructor refuses raw pointers, hence the internal type id.
template <typename T>
val owned_by_js(T* object) {
    using namespace emscripten::internal;
    WireTypePack<T*> argv(std::move(object));
    return val::take_ownership(_emval_take_value(TypeID<AllowedRawPointer<T>>::get(), argv));
}

// ---- tensors and arrays ------------------------------------------------------

struct JsTensor {
    val data = val::undefined();   // Float32Array, row-major
    val shape = val::undefined();  // number[]
};

Shape to_shape(const val& shape, const char* fn, const char* name);
Tensor to_tensor(const JsTensor& t, const char* fn, const char* name);
// null, or a tensor {data, shape} (a head mask, a mask option).
std::optional<Tensor> optional_tensor(const val& t, const char* fn, const char* name);
JsTensor to_js(const Tensor& t);
// Token ids out, as {data: Int32Array, shape}; PyTorch would hold int64.
JsTensor int_tensor_to_js(const std::vector<int64_t>& v, const Shape& shape);
val strings_to_js(const std::vector<std::string>& strings);
// A Float64Array copy of doubles.
val doubles_to_js(const std::vector<double>& values);

// Token ids (a Float64Array of integers).
std::vector<int64_t> to_ids(const val& ids, const char* fn);

// ---- numbers: a JS number is a double; these turn it into a C++ integer ----

int64_t to_count(double d, const char* fn, const char* name);  // a whole number >= 0
int64_t to_size(double d, const char* fn, const char* name);   // a whole number in [1, kMaxElements]
int64_t to_integer(double d, const char* fn, const char* name);  // any whole number a double holds exactly
uint64_t to_seed(double d, const char* fn);  // an integer; negative seeds wrap to uint64 as in PyTorch

// ---- bytes ----------------------------------------------------------------------

val bytes_to_js(const std::string& bytes);
std::string bytes_from_js(const val& array, const char* fn);

// ---- text -----------------------------------------------------------------------

// Text that may be long (a corpus, a file, a vocabulary) crosses as UTF-8 in one bulk copy each way, encoded
// and decoded by the JS engine (TextEncoder, TextDecoder). embind's own std::string conversion copies a byte at
// a time, and in the threaded build every byte first checks whether WASM memory has grown: the 1.1 MB agreement
// corpus took twice as long to build there as in the single-threaded module. A lone surrogate is encoded as
// U+FFFD, TextEncoder's rule: the JS API refuses one where that would change what the text means (a corpus, a
// vocabulary: arguments.js's wellFormed) and BPETokenizer.encode takes it as js-tiktoken does. A U+FEFF at the
// start is kept. Each thread that calls in makes its one encoder and one decoder on first use.
// TextEncoder and TextDecoder throw only when the engine cannot allocate their result, where embind's own
// conversion failed too (its malloc of the copy).
std::string text_from_js(const val& text);
val text_to_js(const std::string& utf8);

}  // namespace attn::js
