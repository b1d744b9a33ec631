// What the hand-written declarations (web/lib/*.d.ts) say against what the JS does: the comparison behind
// types-drift.test.js. The JS side is read from the API a loaded module really returns (its keys, its classes and
// their prototypes, each function's own source, parsed by TypeScript's parser), and the option keys from the
// `options(value, [keys], fn)` calls that check every options object (web/lib/arguments.js); the declarations'
// side from TypeScript's checker. 1,248 lines of .d.ts beside 2,620 of JS drifted apart with nobody told.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import ts from 'typescript';

export const LIB = fileURLToPath(new URL('../../web/lib/', import.meta.url));

/** The JS files of the package, parsed. */
function jsSources() {
  return readdirSync(LIB).filter((f) => f.endsWith('.js')).map((f) =>
    ts.createSourceFile(f, readFileSync(join(LIB, f), 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.JS));
}

const stringsOf = (node) => (ts.isStringLiteralLike(node) ? node.text : null);

/**
 * The key lists the package's files name (`const NAME = ['a', ...OTHER]`, frozen or not), resolved: the lists the
 * `options` calls spread in (ATTENTION_OPTIONS, ROPE_SETTINGS, HUB_OPTIONS).
 */
function keyLists(sources) {
  const raw = new Map();
  for (const source of sources) {
    const visit = (node) => {
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
        let init = node.initializer;
        if (ts.isCallExpression(init) && init.getText().startsWith('Object.freeze(')) init = init.arguments[0];
        if (init && ts.isArrayLiteralExpression(init)) raw.set(node.name.text, init);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  const resolved = new Map();
  const resolve = (array) => array.elements.flatMap((e) => {
    if (ts.isSpreadElement(e) && ts.isIdentifier(e.expression) && raw.has(e.expression.text)) return resolve(raw.get(e.expression.text));
    const s = stringsOf(e);
    return s === null ? [`<unresolved ${e.getText()}>`] : [s];
  });
  for (const [name, array] of raw) resolved.set(name, resolve(array));
  return resolved;
}

/**
 * The keys an `options(value, KEYS, …)` call allows, its KEYS an array literal or a named list. A spread of one of
 * `params` (a helper's keys its caller adds, as core.js's moduleOptions takes them) stands as `<parameter N>`.
 */
function keysOf(node, lists, params = []) {
  if (ts.isArrayLiteralExpression(node)) {
    return node.elements.flatMap((e) => {
      if (ts.isSpreadElement(e) && ts.isIdentifier(e.expression) && params.includes(e.expression.text)) return [`<parameter ${params.indexOf(e.expression.text)}>`];
      if (ts.isSpreadElement(e) && ts.isIdentifier(e.expression)) return lists.get(e.expression.text) ?? [`<unresolved ${e.getText()}>`];
      return [stringsOf(e) ?? `<unresolved ${e.getText()}>`];
    });
  }
  if (ts.isIdentifier(node) && lists.has(node.text)) return lists.get(node.text);
  return null;
}

const paramName = (p) => (ts.isIdentifier(p.name) ? p.name.text : p.name.getText());

/**
 * Which parameter of `fn` (a function-like node) is checked as options, and with which keys: a call
 * `options(param, KEYS, …)` in its body, or a call of a helper that checks one of its own parameters so.
 */
function optionParams(fn, lists, helpers) {
  const params = fn.parameters.map(paramName);
  const found = new Map();
  const visit = (node) => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) {
      const callee = node.expression.text;
      const checks = callee === 'options' ? [[0, keysOf(node.arguments[1] ?? node, lists, params)]] : helpers.get(callee) ?? [];
      for (const [index, helperKeys] of checks) {
        const arg = node.arguments[index];
        // A helper's `<parameter N>`: the keys this call passes it as its argument N.
        const keys = helperKeys?.flatMap((k) => {
          const n = /^<parameter (\d+)>$/.exec(k)?.[1];
          if (n === undefined) return [k];
          const given = node.arguments[Number(n)];
          return given ? keysOf(given, lists, params) ?? [`<unresolved ${given.getText()}>`] : [];
        });
        if (arg && ts.isIdentifier(arg) && params.includes(arg.text) && keys) {
          found.set(arg.text, [...new Set([...(found.get(arg.text) ?? []), ...keys])]);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  if (fn.body) visit(fn.body);
  return found;
}

/** Helpers that check one of their parameters as options: name → [[parameter index, keys]], to a fixed point. */
function optionHelpers(sources, lists) {
  let helpers = new Map();
  for (;;) {
    // Each pass sees the helpers the last one found; two functions of one name (in two files) count as one.
    const next = new Map();
    for (const source of sources) {
      const visit = (node) => {
        if (ts.isFunctionDeclaration(node) && node.name && node.name.text !== 'options') {
          const params = node.parameters.map(paramName);
          const checks = [...optionParams(node, lists, helpers)].map(([name, keys]) => [params.indexOf(name), keys]);
          if (checks.length) next.set(node.name.text, [...(next.get(node.name.text) ?? []), ...checks]);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    if (JSON.stringify([...next]) === JSON.stringify([...helpers])) return helpers;
    helpers = next;
  }
}

/** A function's or class's own source text, parsed: the function-like node or the class node. */
function parseValue(value) {
  const text = Function.prototype.toString.call(value);
  for (const wrapped of [`(${text})`, `({${text}})`]) {
    const file = ts.createSourceFile('value.js', wrapped, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
    if (file.parseDiagnostics.length) continue;
    let expression = file.statements[0].expression;
    while (ts.isParenthesizedExpression(expression)) expression = expression.expression;
    if (ts.isObjectLiteralExpression(expression)) return expression.properties[0];
    return expression;
  }
  return null; // native code: a bound or built-in function
}

/** What the JS does: for a function its parameters and option keys; for a class also its constructor and methods. */
function describeFunction(node, lists, helpers) {
  if (!node || !node.parameters) return null;
  const options = optionParams(node, lists, helpers);
  return node.parameters.map((p) => ({ name: paramName(p), rest: Boolean(p.dotDotDotToken), keys: options.get(paramName(p)) ?? null }));
}

function describeClass(cls, lists, helpers) {
  const methods = new Map();
  let construct = null;
  // The class and the classes it extends, nearest first: a method is the nearest one's.
  for (let c = cls; c && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    const node = parseValue(c);
    if (!node || !ts.isClassLike(node)) continue;
    for (const member of node.members) {
      if (ts.isConstructorDeclaration(member)) {
        construct ??= describeFunction(member, lists, helpers);
      } else if ((ts.isMethodDeclaration(member) || ts.isGetAccessor(member)) && member.name && !ts.isPrivateIdentifier(member.name)) {
        // `[disposeSymbol]()` is the declarations' `[Symbol.dispose]()`, and an `_underscored` method the package's
        // own, shared between its files (handles.js): neither is compared.
        if (ts.isComputedPropertyName(member.name) || member.name.text.startsWith('_')) continue;
        const name = member.name.text;
        const isStatic = member.modifiers?.some((m) => m.kind === ts.SyntaxKind.StaticKeyword) ?? false;
        // A static method is declared on the class that defines it (a subclass inherits it in JS, unasked).
        if (isStatic && c !== cls) continue;
        const key = `${isStatic ? 'static ' : ''}${name}`;
        if (!methods.has(key)) methods.set(key, ts.isGetAccessor(member) ? 'getter' : describeFunction(member, lists, helpers));
      }
    }
  }
  return { construct: construct ?? [], methods };
}

/** The JS side of the API object `api` (createAttention's): every member, described. */
export function describeApi(api) {
  const sources = jsSources();
  const lists = keyLists(sources);
  const helpers = optionHelpers(sources, lists);
  const members = new Map();
  for (const [name, value] of Object.entries(api)) {
    if (typeof value !== 'function') members.set(name, { kind: 'value' });
    else if (/^class\b/.test(Function.prototype.toString.call(value))) members.set(name, { kind: 'class', ...describeClass(value, lists, helpers) });
    else members.set(name, { kind: 'function', params: describeFunction(parseValue(value), lists, helpers) });
  }
  return members;
}

/** A module's exports as the JS gives them: name → description. */
export function describeExports(namespace) {
  return describeApi(Object.fromEntries(Object.entries(namespace).filter(([name]) => name !== 'default')));
}

/** The TypeScript program over the declarations (`overrides`: file name → text, in place of a file's own). */
export function declarations(entry, overrides = {}) {
  const options = { strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.esnext.disposable.d.ts'], types: [], noEmit: true };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (file) => overrides[file] ?? read(file);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, version, onError, create) => (file in overrides
    ? ts.createSourceFile(file, overrides[file], version) : getSourceFile(file, version, onError, create));
  const program = ts.createProgram([join(LIB, entry)], options, host);
  return { program, checker: program.getTypeChecker(), source: program.getSourceFile(join(LIB, entry)) };
}

/** A declared parameter's option keys: the properties of its object type (null, undefined and primitives left out). */
function declaredKeys(checker, param, at) {
  const type = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(param, at));
  const parts = type.isUnion() ? type.types : [type];
  const objects = parts.filter((t) => t.flags & ts.TypeFlags.Object || t.isIntersection());
  if (!objects.length || objects.some((t) => checker.getSignaturesOfType(t, ts.SignatureKind.Call).length)) return null;
  // An array or a typed array (a tensor, ids) is no options object.
  if (objects.some((t) => checker.isArrayLikeType(t) || checker.getPropertyOfType(t, 'byteLength'))) return null;
  return [...new Set(objects.flatMap((t) => checker.getPropertiesOfType(t).map((p) => p.name)))];
}

/** A declared callable's parameters, over all its overloads: the longest list, each with every overload's keys. */
function declaredParams(checker, signatures, at) {
  const longest = signatures.reduce((a, s) => (s.parameters.length > a.parameters.length ? s : a), signatures[0]);
  return longest.parameters.map((param, i) => {
    const decl = param.valueDeclaration;
    const keys = signatures.flatMap((s) => (s.parameters[i] ? declaredKeys(checker, s.parameters[i], at) ?? [] : []));
    return { name: param.name, rest: Boolean(decl && ts.isParameter(decl) && decl.dotDotDotToken), keys: keys.length ? [...new Set(keys)] : null };
  });
}

/** JS's `opts` and the declarations' `options` are one parameter under the project's two spellings. */
const sameName = (a, b) => a === b || (['opts', 'options'].includes(a) && ['opts', 'options'].includes(b));

function compareParams(where, js, declared, drift) {
  if (!js) return;
  const names = (list) => list.map((p) => `${p.rest ? '...' : ''}${p.name}`).join(', ');
  if (js.length !== declared.length || js.some((p, i) => !sameName(p.name, declared[i].name) || p.rest !== declared[i].rest)) {
    drift.push(`${where}: the JS takes (${names(js)}), the declarations say (${names(declared)})`);
  }
  js.forEach((p, i) => {
    const d = declared[i];
    if (!p.keys || !d) return;
    const said = new Set(d.keys ?? []);
    const missing = p.keys.filter((k) => !said.has(k)).sort();
    const extra = [...said].filter((k) => !p.keys.includes(k)).sort();
    if (missing.length) drift.push(`${where}: option${missing.length > 1 ? 's' : ''} ${missing.join(', ')} of ${p.name} not declared`);
    if (extra.length) drift.push(`${where}: option${extra.length > 1 ? 's' : ''} ${extra.join(', ')} declared, which the JS refuses`);
  });
}

/** The drift between `members` (describeApi) and the declared type `type`: a list of sentences, empty when none. */
export function compare(checker, at, what, members, type) {
  const drift = [];
  const declared = new Map(checker.getPropertiesOfType(type).map((p) => [p.name, p]));
  for (const name of members.keys()) if (!declared.has(name)) drift.push(`${what}.${name}: in the JS, not declared`);
  for (const name of declared.keys()) if (!members.has(name)) drift.push(`${what}.${name}: declared, not in the JS`);
  for (const [name, js] of members) {
    const symbol = declared.get(name);
    if (!symbol) continue;
    const t = checker.getTypeOfSymbolAtLocation(symbol, at);
    if (js.kind === 'function') {
      const calls = checker.getSignaturesOfType(t, ts.SignatureKind.Call);
      if (!calls.length) drift.push(`${what}.${name}: a function in the JS, declared as no function`);
      else compareParams(`${what}.${name}`, js.params, declaredParams(checker, calls, at), drift);
    } else if (js.kind === 'class') {
      const constructs = checker.getSignaturesOfType(t, ts.SignatureKind.Construct);
      if (!constructs.length) {
        drift.push(`${what}.${name}: a class in the JS, declared with no constructor`);
        continue;
      }
      // `abstract new (...args: never)`: a class the declarations keep users from constructing (Tokenizer).
      const closed = constructs.every((s) => s.parameters.length === 1 &&
        checker.typeToString(checker.getTypeOfSymbolAtLocation(s.parameters[0], at)) === 'never');
      if (!closed) compareParams(`new ${what}.${name}`, js.construct, declaredParams(checker, constructs, at), drift);
      const instance = constructs[0].getReturnType();
      for (const [key, method] of js.methods) {
        const isStatic = key.startsWith('static ');
        const member = isStatic ? key.slice(7) : key;
        const owner = isStatic ? t : instance;
        const property = checker.getPropertyOfType(owner, member);
        const label = `${what}.${name}${isStatic ? '.' : '#'}${member}`;
        if (!property) {
          drift.push(`${label}: in the JS, not declared`);
          continue;
        }
        if (method === 'getter') continue;
        const calls = checker.getSignaturesOfType(checker.getTypeOfSymbolAtLocation(property, at), ts.SignatureKind.Call);
        if (!calls.length) drift.push(`${label}: a method in the JS, declared as no function`);
        else compareParams(label, method, declaredParams(checker, calls, at), drift);
      }
    }
  }
  return drift;
}

/** The declared type of an exported interface or type alias of the entry. */
export function exportedType(checker, source, name) {
  const symbol = checker.getExportsOfModule(checker.getSymbolAtLocation(source)).find((s) => s.name === name);
  if (!symbol) throw new Error(`${source.fileName} exports no ${name}`);
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  return checker.getDeclaredTypeOfSymbol(target);
}

/** The module's value exports as a type whose properties they are (for compare). */
export function exportsType(checker, source) {
  const symbol = checker.getSymbolAtLocation(source);
  return checker.getTypeOfSymbolAtLocation(symbol, source);
}
