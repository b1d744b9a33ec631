#include "post_processor.hpp"

#include "attn/error.hpp"

namespace attn {

namespace {
using json = nlohmann::json;

[[noreturn]] void fail(const std::string& where, const std::string& what) {
    throw FormatError("BPETokenizer: tokenizer.json: " + where + " " + what);
}

// A template piece: a special token's name, or "" for the text (Sequence A). Pair-only pieces (Sequence B) are
// refused: a single text has no second sequence.
std::string piece_name(const json& piece, const std::string& where) {
    if (piece.is_string()) {  // "$A", "$B:1", "[CLS]", "[SEP]:0" (template.rs, Piece::try_from)
        std::string s = piece.get<std::string>();
        if (const size_t colon = s.rfind(':'); colon != std::string::npos && colon + 1 < s.size() &&
                                               s.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
            s.resize(colon);
        }
        if (s == "$" || s == "$A" || s == "$a" || s == "$0") return "";
        if (!s.empty() && s[0] == '$') fail(where, "is \"" + s.substr(0, 40) + "\"; a single text has only the sequence $A");
        if (s.empty()) fail(where, "is an empty string");
        return s;
    }
    if (piece.is_object() && piece.size() == 1 && piece.contains("Sequence")) {
        const json id = piece["Sequence"].is_object() ? piece["Sequence"].value("id", json("A")) : json();
        if (id != "A") fail(where, "is the sequence " + id.dump().substr(0, 20) + "; a single text has only the sequence A");
        return "";
    }
    if (piece.is_object() && piece.size() == 1 && piece.contains("SpecialToken") && piece["SpecialToken"].is_object()) {
        const json id = piece["SpecialToken"].value("id", json());
        if (!id.is_string() || id.get<std::string>().empty()) fail(where, "names no special token (" + piece.dump().substr(0, 60) + ")");
        return id.get<std::string>();
    }
    fail(where, "is " + piece.dump().substr(0, 60) + ", expected {\"Sequence\": …} or {\"SpecialToken\": …}");
}

std::vector<int64_t> ids_of(const json& list, const std::string& where) {
    if (!list.is_array()) fail(where, "is " + list.dump().substr(0, 40) + ", expected an array of ids");
    std::vector<int64_t> ids;
    for (const json& id : list) {
        if (!id.is_number_unsigned() || id.get<uint64_t>() >= (uint64_t{1} << 31)) fail(where, "holds " + id.dump().substr(0, 40) + ", expected ids");
        ids.push_back(static_cast<int64_t>(id.get<uint64_t>()));
    }
    return ids;
}

// RobertaProcessing's and BertProcessing's cls and sep: ["token", id].
int64_t token_pair_id(const json& p, const std::string& where) {
    if (!p.is_array() || p.size() != 2 || !p[0].is_string()) fail(where, "is " + p.dump().substr(0, 40) + ", expected [\"token\", id]");
    return ids_of(json::array({p[1]}), where)[0];
}

void read(const json& j, const std::string& where, std::vector<int64_t>& before, std::vector<int64_t>& after) {
    if (!j.is_object() || !j.contains("type") || !j["type"].is_string()) fail(where, "is " + j.dump().substr(0, 60) + ", expected an object with a \"type\"");
    const std::string type = j["type"].get<std::string>();
    // Each processor wraps what the ones before it made: its own ids go outside theirs.
    std::vector<int64_t> b, a;
    if (type == "TemplateProcessing") {
        const json single = j.value("single", json());
        if (!single.is_array()) fail(where + ".single", "is " + single.dump().substr(0, 40) + ", expected a template (an array of pieces)");
        const json specials = j.value("special_tokens", json::object());
        if (!specials.is_object()) fail(where + ".special_tokens", "must be an object");
        bool text_seen = false;
        for (size_t i = 0; i < single.size(); ++i) {
            const std::string piece_where = where + ".single[" + std::to_string(i) + "]";
            const std::string name = piece_name(single[i], piece_where);
            if (name.empty()) {
                if (text_seen) fail(piece_where, "is the sequence A a second time");
                text_seen = true;
                continue;
            }
            if (!specials.contains(name) || !specials[name].is_object()) fail(piece_where, "names \"" + name.substr(0, 40) + "\", which special_tokens does not hold");
            const std::vector<int64_t> ids = ids_of(specials[name].value("ids", json()), where + ".special_tokens[\"" + name.substr(0, 40) + "\"].ids");
            (text_seen ? a : b).insert((text_seen ? a : b).end(), ids.begin(), ids.end());
        }
        if (!text_seen) fail(where + ".single", "has no sequence A (the text would be dropped)");
    } else if (type == "RobertaProcessing" || type == "BertProcessing") {
        b.push_back(token_pair_id(j.value("cls", json()), where + ".cls"));
        a.push_back(token_pair_id(j.value("sep", json()), where + ".sep"));
    } else if (type == "Sequence") {
        const json list = j.value("processors", json());
        if (!list.is_array()) fail(where + ".processors", "is " + list.dump().substr(0, 40) + ", expected an array");
        for (size_t i = 0; i < list.size(); ++i) read(list[i], where + ".processors[" + std::to_string(i) + "]", before, after);
        return;
    } else if (type != "ByteLevel") {
        fail(where + ".type", "is \"" + type.substr(0, 40) + "\"; this library's post-processors are TemplateProcessing, RobertaProcessing, "
                              "BertProcessing, ByteLevel and Sequence");
    }
    before.insert(before.begin(), b.begin(), b.end());
    after.insert(after.end(), a.begin(), a.end());
}
}  // namespace

PostProcessor PostProcessor::from_json(const json& j) {
    PostProcessor p;
    if (!j.is_null()) read(j, "post_processor", p.before_, p.after_);
    return p;
}

PostProcessor PostProcessor::bos_and_eos(std::vector<int64_t> bos, std::vector<int64_t> eos) {
    PostProcessor p;
    p.before_ = std::move(bos);
    p.after_ = std::move(eos);
    return p;
}

std::vector<int64_t> PostProcessor::apply(const std::vector<int64_t>& ids) const {
    std::vector<int64_t> out;
    out.reserve(ids.size() + added());
    out.insert(out.end(), before_.begin(), before_.end());
    out.insert(out.end(), ids.begin(), ids.end());
    out.insert(out.end(), after_.begin(), after_.end());
    return out;
}

}  // namespace attn
