#include "regex.hpp"

#include "attn/tensor.hpp"
#include "attn/tokenizer.hpp"
#include "unicode_classes.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace attn {

namespace {
using unicode::Category;

// What one code point is tested against: items, any of which matches it (each possibly negated), the whole
// possibly negated. \s and \d are Oniguruma's (Hugging Face's tokenizers): \p{White_Space} and \p{Nd}.
struct Set {
    enum class Kind { Range, Categories, Space, Dot };
    struct Item {
        Kind kind;
        char32_t first = 0, last = 0;  // Range
        uint32_t categories = 0;       // Categories: a bit per unicode::Category
        bool negated = false;
    };
    std::vector<Item> items;
    bool negated = false;
    bool icase = false;  // (?i:…): ASCII letters match in either case

    bool raw(char32_t c) const {
        for (const Item& it : items) {
            bool in = false;
            switch (it.kind) {
                case Kind::Range: in = c >= it.first && c <= it.last; break;
                case Kind::Categories: in = (it.categories >> unicode::category(c)) & 1u; break;
                case Kind::Space: in = unicode::is_white_space(c); break;
                case Kind::Dot: in = c != '\n' && c != '\r' && c != 0x2028 && c != 0x2029; break;
            }
            if (in != it.negated) return true;
        }
        return false;
    }
    bool matches(char32_t c) const {
        bool in = raw(c);
        if (!in && icase && c < 0x80 && ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')) in = raw(c ^ 0x20);
        return in != negated;
    }
};

struct Node {
    enum class Kind { Atom, Seq, Alt, Repeat, Ahead };
    Kind kind = Kind::Seq;
    Set set;                  // Atom
    std::vector<Node> kids;   // Seq, Alt: in order; Repeat, Ahead: one
    int64_t min = 0, max = 0; // Repeat; max −1: unbounded
    bool negate = false;      // Ahead: (?!…)
};

constexpr uint32_t bit(Category c) { return 1u << c; }
constexpr uint32_t kLetters = bit(unicode::Lu) | bit(unicode::Ll) | bit(unicode::Lt) | bit(unicode::Lm) | bit(unicode::Lo);
constexpr uint32_t kCased = bit(unicode::Lu) | bit(unicode::Ll) | bit(unicode::Lt);

// \p{…}'s names: the general categories and their one-letter groups.
uint32_t categories_named(const std::string& name) {
    static const char* const kNames[] = {"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe",
                                         "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn"};
    std::string n = name;
    for (const char* prefix : {"gc=", "General_Category="}) {
        if (n.rfind(prefix, 0) == 0) n = n.substr(std::strlen(prefix));
    }
    for (int c = 0; c < unicode::kCategories; ++c) {
        if (n == kNames[c]) return 1u << c;
    }
    if (n == "L" || n == "Letter") return kLetters;
    if (n == "LC" || n == "L&") return kCased;
    uint32_t group = 0;
    const char* const kGroups = "MNPSZC";
    if (n.size() == 1 && std::strchr(kGroups, n[0])) {
        for (int c = 0; c < unicode::kCategories; ++c) {
            if (kNames[c][0] == n[0]) group |= 1u << c;
        }
    }
    return group;
}

class Parser {
public:
    Parser(const std::string& pattern, const std::string& where) : where_(where) {
        const std::vector<char32_t> cps = utf8_decode(pattern, (where + ": the pattern").c_str());
        p_.assign(cps.begin(), cps.end());
    }

    Node parse() {
        Node n = alternation(false);
        if (i_ < p_.size()) fail("an unmatched ')'");
        return n;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        std::string shown;
        for (char32_t c : p_) {
            if (shown.size() > 80) break;
            shown += c < 0x80 ? static_cast<char>(c) : '?';
        }
        throw FormatError(where_ + ": the pattern \"" + shown + "\" at character " + std::to_string(i_) + ": " + what +
                    " (this library's engine takes literals, classes, \\p{…}, groups, alternation, look-ahead and greedy quantifiers)");
    }
    bool more() const { return i_ < p_.size(); }
    char32_t peek() const { return p_[i_]; }
    bool eat(char32_t c) {
        if (more() && peek() == c) {
            ++i_;
            return true;
        }
        return false;
    }

    Node alternation(bool icase) {
        Node alt;
        alt.kind = Node::Kind::Alt;
        alt.kids.push_back(sequence(icase));
        while (eat('|')) alt.kids.push_back(sequence(icase));
        return alt.kids.size() == 1 ? std::move(alt.kids[0]) : alt;
    }

    Node sequence(bool icase) {
        Node seq;
        seq.kind = Node::Kind::Seq;
        while (more() && peek() != '|' && peek() != ')') seq.kids.push_back(quantified(icase));
        return seq;
    }

    Node quantified(bool icase) {
        Node atom = primary(icase);
        int64_t min = 1, max = 1;
        if (!more()) return atom;
        const size_t at = i_;
        if (eat('?')) {
            min = 0;
        } else if (eat('*')) {
            min = 0, max = -1;
        } else if (eat('+')) {
            max = -1;
        } else if (peek() == '{' && bounds(min, max)) {
        } else {
            return atom;
        }
        if (more() && (peek() == '?' || peek() == '+')) fail(peek() == '?' ? "a lazy quantifier" : "a possessive quantifier");
        if (atom.kind == Node::Kind::Ahead) fail("a quantified look-ahead");
        if (atom.kind != Node::Kind::Atom && !(min == 0 && max == 1)) {
            i_ = at;
            fail("a group repeated other than by '?'");
        }
        Node r;
        r.kind = Node::Kind::Repeat;
        r.min = min;
        r.max = max;
        r.kids.push_back(std::move(atom));
        return r;
    }

    // {n}, {n,}, {n,m}: true when one was read; a '{' that starts none is a literal, as in JavaScript's Annex B.
    bool bounds(int64_t& min, int64_t& max) {
        const size_t start = i_;
        ++i_;
        auto number = [&](int64_t& out) {
            const size_t from = i_;
            out = 0;
            while (more() && peek() >= '0' && peek() <= '9' && out < 100000) out = out * 10 + (peek() - '0'), ++i_;
            return i_ > from;
        };
        if (!number(min)) return (i_ = start, false);
        max = min;
        if (eat(',')) {
            if (!number(max)) max = -1;
        }
        if (!eat('}')) return (i_ = start, false);
        if (max >= 0 && max < min) fail("a quantifier {n,m} with m < n");
        return true;
    }

    Node primary(bool icase) {
        const char32_t c = peek();
        if (c == '(') return group(icase);
        Node atom;
        atom.kind = Node::Kind::Atom;
        atom.set.icase = icase;
        if (c == '[') {
            ++i_;
            atom.set = char_class(icase);
        } else if (c == '.') {
            ++i_;
            atom.set.items.push_back({Set::Kind::Dot});
        } else if (c == '\\') {
            ++i_;
            atom.set.items.push_back(escape(false, icase));
        } else if (c == '^' || c == '$') {
            fail("an anchor");
        } else if (c == '*' || c == '+' || c == '?') {
            fail("a quantifier with nothing to repeat");
        } else {
            ++i_;
            atom.set.items.push_back(literal(c, icase));
        }
        return atom;
    }

    Node group(bool icase) {
        ++i_;  // (
        Node inner;
        if (eat('?')) {
            if (eat(':')) {
                inner = alternation(icase);
            } else if (peek() == 'i' && i_ + 1 < p_.size() && p_[i_ + 1] == ':') {
                i_ += 2;
                inner = alternation(true);
            } else if (peek() == '=' || peek() == '!') {
                const bool negate = peek() == '!';
                ++i_;
                Node ahead;
                ahead.kind = Node::Kind::Ahead;
                ahead.negate = negate;
                ahead.kids.push_back(alternation(icase));
                inner = std::move(ahead);
            } else if (peek() == '<' && i_ + 1 < p_.size() && (p_[i_ + 1] == '=' || p_[i_ + 1] == '!')) {
                fail("a look-behind");
            } else {
                fail("a group kind (?" + std::string(1, peek() < 0x80 ? static_cast<char>(peek()) : '?') + "…)");
            }
        } else {
            inner = alternation(icase);  // a capturing group: only its grouping matters here
        }
        if (!eat(')')) fail("a '(' without its ')'");
        return inner;
    }

    Set::Item literal(char32_t c, bool icase) const {
        if (icase && c >= 0x80 && ((kCased >> unicode::category(c)) & 1u)) fail("a case-insensitive letter beyond ASCII");
        return {Set::Kind::Range, c, c};
    }

    // After a backslash; in_class: inside [...] (where \b would be a backspace, refused all the same).
    Set::Item escape(bool in_class, bool icase) {
        if (!more()) fail("a pattern that ends in '\\'");
        const char32_t c = p_[i_++];
        switch (c) {
            case 'n': return {Set::Kind::Range, '\n', '\n'};
            case 'r': return {Set::Kind::Range, '\r', '\r'};
            case 't': return {Set::Kind::Range, '\t', '\t'};
            case 'f': return {Set::Kind::Range, '\f', '\f'};
            case 'v': return {Set::Kind::Range, '\v', '\v'};
            case '0': return {Set::Kind::Range, 0, 0};
            case 's': return {Set::Kind::Space};
            case 'S': return {Set::Kind::Space, 0, 0, 0, true};
            case 'd': return {Set::Kind::Categories, 0, 0, bit(unicode::Nd)};
            case 'D': return {Set::Kind::Categories, 0, 0, bit(unicode::Nd), true};
            case 'p':
            case 'P': {
                if (!eat('{')) fail("\\p without {name}");
                std::string name;
                while (more() && peek() != '}') name += peek() < 0x80 ? static_cast<char>(p_[i_++]) : (++i_, '?');
                if (!eat('}')) fail("\\p{ without its }");
                const uint32_t cats = categories_named(name);
                if (cats == 0) fail("the property \\p{" + name + "}, which is not a general category");
                if (icase && (cats & kCased) && (cats & kCased) != kCased) fail("a case-insensitive \\p{" + name + "}");
                return {Set::Kind::Categories, 0, 0, cats, c == 'P'};
            }
            case 'x':
            case 'u': {
                const bool braced = eat('{');
                const int digits = braced ? 6 : c == 'x' ? 2 : 4;
                char32_t v = 0;
                int n = 0;
                while (more() && n < digits && std::isxdigit(static_cast<int>(peek() < 0x80 ? peek() : 'g'))) {
                    const char32_t h = p_[i_++];
                    v = v * 16 + static_cast<char32_t>(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
                    ++n;
                }
                if (n == 0 || (braced && !eat('}')) || (!braced && n != digits) || v > 0x10FFFF) fail("a malformed \\" + std::string(1, static_cast<char>(c)) + " escape");
                return literal(v, icase);
            }
            case 'b': fail(in_class ? "\\b inside a class" : "a word boundary \\b");
            default:
                if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '1' && c <= '9')) {
                    fail("the escape \\" + std::string(1, static_cast<char>(c)));
                }
                return literal(c, icase);
        }
    }

    Set char_class(bool icase) {
        Set s;
        s.icase = icase;
        s.negated = eat('^');
        bool first = true;
        while (more() && (peek() != ']' || first)) {
            first = false;
            Set::Item item;
            if (eat('\\')) {
                item = escape(true, icase);
            } else {
                if (peek() == '[') fail("a nested class");
                item = literal(p_[i_++], icase);
            }
            // A range a-b between two single characters.
            if (item.kind == Set::Kind::Range && item.first == item.last && !item.negated && more() && peek() == '-' &&
                i_ + 1 < p_.size() && p_[i_ + 1] != ']') {
                ++i_;
                Set::Item hi;
                if (eat('\\')) {
                    hi = escape(true, icase);
                } else {
                    hi = literal(p_[i_++], icase);
                }
                if (hi.kind != Set::Kind::Range || hi.first != hi.last || hi.first < item.first) fail("a character range out of order");
                item.last = hi.first;
                if (icase && item.last >= 0x80) fail("a case-insensitive range beyond ASCII");
            }
            s.items.push_back(item);
        }
        if (!eat(']')) fail("a '[' without its ']'");
        return s;
    }

    std::u32string p_;
    size_t i_ = 0;
    std::string where_;
};
}  // namespace

struct Regex::Program {
    std::vector<Node> whole;  // the pattern, as a sequence of one node
};

namespace {
// The matcher: continuation-passing over the pattern's nodes, so that every alternative and every count of a
// quantifier can be taken back; a repeated single-character atom is counted in a loop, never by recursion.
struct Matcher {
    const std::u32string& text;
    size_t end = 0;     // where the last successful match ended
    uint64_t steps = 0;  // nodes tried so far in this text
    uint64_t budget = 0;

    struct Cont {
        const std::vector<Node>* seq;  // nullptr: the end of the pattern
        size_t i;
        const Cont* next;
        bool accept_only;  // a look-ahead's end: success without recording
    };

    bool run(const Cont* c, size_t pos) {
        if (c->seq == nullptr) {
            if (!c->accept_only) end = pos;
            return true;
        }
        if (c->i == c->seq->size()) return run(c->next, pos);
        const Cont rest{c->seq, c->i + 1, c->next, false};
        return step((*c->seq)[c->i], pos, &rest);
    }

    bool step(const Node& n, size_t pos, const Cont* next) {
        if (++steps > budget) throw Error("");  // reworded by find_all, which knows the pattern
        switch (n.kind) {
            case Node::Kind::Atom:
                return pos < text.size() && n.set.matches(text[pos]) && run(next, pos + 1);
            case Node::Kind::Seq: {
                const Cont c{&n.kids, 0, next, false};
                return run(&c, pos);
            }
            case Node::Kind::Alt:
                for (const Node& k : n.kids) {
                    if (step(k, pos, next)) return true;
                }
                return false;
            case Node::Kind::Ahead: {
                const Cont accept{nullptr, 0, nullptr, true};
                const bool found = step(n.kids[0], pos, &accept);
                return found != n.negate && run(next, pos);
            }
            case Node::Kind::Repeat: {
                const Node& k = n.kids[0];
                if (k.kind != Node::Kind::Atom) return step(k, pos, next) || run(next, pos);  // `?` of a group
                size_t count = 0;
                const size_t most = n.max < 0 ? text.size() - pos : std::min<size_t>(static_cast<size_t>(n.max), text.size() - pos);
                while (count < most && k.set.matches(text[pos + count])) ++count;
                for (size_t j = count + 1; j-- > static_cast<size_t>(n.min);) {
                    if (run(next, pos + j)) return true;
                }
                return false;
            }
        }
        return false;
    }
};
}  // namespace

Regex::Regex(const std::string& pattern, const std::string& where) : program_(std::make_unique<Program>()), where_(where) {
    program_->whole.push_back(Parser(pattern, where).parse());
}
Regex::~Regex() = default;
Regex::Regex(Regex&&) noexcept = default;
Regex& Regex::operator=(Regex&&) noexcept = default;

std::vector<std::pair<size_t, size_t>> Regex::find_all(const std::u32string& text) const {
    std::vector<std::pair<size_t, size_t>> out;
    Matcher m{text};
    // Backtracking can take exponential time on a pattern like (a?)?(a?)?…: a tokenizer's patterns try a few dozen
    // nodes a character, so a budget of kStepsPerCharacter a character (and a floor) ends a pattern that does not
    // finish with an Error instead of a frozen tab.
    m.budget = kStepsPerCharacter * (static_cast<uint64_t>(text.size()) + 1) + 1000000;
    const std::vector<Node>& whole = program_->whole;
    for (size_t start = 0; start < text.size();) {
        const Matcher::Cont finish{nullptr, 0, nullptr, false};
        const Matcher::Cont c{&whole, 0, &finish, false};
        bool found = false;
        try {
            found = m.run(&c, start);
        } catch (const Error&) {
            throw Error(where_ + ": the pattern took more than " + std::to_string(kStepsPerCharacter) +
                        " steps a character on a text of " + std::to_string(text.size()) + " characters (at character " +
                        std::to_string(start) + "); it backtracks without end");
        }
        if (found && m.end > start) {
            out.emplace_back(start, m.end);
            start = m.end;
        } else {
            ++start;
        }
    }
    return out;
}

}  // namespace attn
