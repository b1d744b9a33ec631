// Chat templates: a conversation as the text a chat model was trained on, rendered from the Jinja template its
// tokenizer files carry. The template is chosen as transformers' `get_chat_template` chooses it and rendered with
// the context its `apply_chat_template` builds (tokenization_utils_base.py), by the engine transformers.js renders
// chat templates with, @huggingface/jinja (whose Template trims blocks as transformers' Jinja environment does, and
// which defines `raise_exception` and `strftime_now` as transformers does). tools/build.sh copies it into vendor/,
// so that pages without a bundler and module workers, neither of which resolves a package name, load it too.
//
//   renderChatTemplate({ chatTemplate: tokenizerConfig.chat_template }, messages,
//                      { addGenerationPrompt: true, variables: { enable_thinking: false } }, tokenizerConfig)
//   // → '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n' (Qwen3)
import { Template } from './vendor/jinja.js';

import { fail } from './arguments.js';
import { attnError } from './errors.js';

const FN = 'BPETokenizer.applyChatTemplate';

/**
 * The longest text a render may produce: 2²⁰ UTF-16 code units (1 MiB of ASCII text). A conversation that long is
 * far past every model's context; a template that loops past it is refused rather than handed on to the tokenizer.
 */
export const MAX_CHAT_TEMPLATE_OUTPUT = 1 << 20;

// The special tokens transformers puts in the context (SpecialTokensMixin.SPECIAL_TOKENS_ATTRIBUTES), each as text.
const SPECIAL_TOKENS = ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token'];
const ADDITIONAL = 'additional_special_tokens';
// Names the context sets itself, which `variables` may not set again: the arguments of apply_chat_template and
// the engine's globals (a second value for one of these is an error inside @huggingface/jinja).
const RESERVED = new Set(['messages', 'add_generation_prompt', 'tools', 'documents', 'raise_exception', 'strftime_now',
  'range', 'namespace', 'true', 'false', 'none', 'True', 'False', 'None']);

// Compiled templates by their text: a chat renders the same template once a turn. A few at most are kept.
const compiled = new Map();
const COMPILED_KEPT = 8;

const isPlainObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value) && !ArrayBuffer.isView(value);
const invalid = (message) => attnError('ERR_ATTN_INVALID_ARGUMENT', `${FN}: ${message}`);
const invalidFile = (message, fn = FN) => attnError('ERR_ATTN_INVALID_FILE', `${fn}: ${message}`);

/**
 * A special token's text: tokenizer_config.json writes one as a string, or as an AddedToken object
 * (`{ "__type": "AddedToken", "content": "<s>", "lstrip": false, … }`) whose `content` is the text.
 */
function tokenText(value, name) {
  if (typeof value === 'string') return value;
  if (isPlainObject(value) && typeof value.content === 'string') return value.content;
  throw invalidFile(`expected tokenizer_config.json's ${name} to be a string or an AddedToken object with a string content, got ${JSON.stringify(value)?.slice(0, 80)}`);
}

/** The special tokens map transformers renders with: each one set, as text; null and absent ones left out. */
function specialTokensMap(specialTokens) {
  if (specialTokens === undefined || specialTokens === null) return {};
  if (!isPlainObject(specialTokens)) fail(FN, "the special tokens as an object (tokenizer_config.json's)", specialTokens);
  const map = {};
  for (const name of SPECIAL_TOKENS) {
    const value = specialTokens[name];
    if (value !== undefined && value !== null) map[name] = tokenText(value, name);
  }
  const additional = specialTokens[ADDITIONAL];
  if (additional !== undefined && additional !== null) {
    if (!Array.isArray(additional)) throw invalidFile(`expected tokenizer_config.json's ${ADDITIONAL} to be a list, got ${JSON.stringify(additional)?.slice(0, 80)}`);
    map[ADDITIONAL] = additional.map((token, i) => tokenText(token, `${ADDITIONAL}[${i}]`));
  }
  return map;
}

/**
 * The tokenizer's templates: chat_template.jinja's text when the folder has one (transformers ≥ 4.43 saves the
 * template there, and reads it over tokenizer_config.json's), else tokenizer_config.json's `chat_template`: one
 * template's text, or a list of `{ name, template }`. Returns a string, a Map from name to text, or null. A tokenizer
 * checks its templates with it as it is made (`fn` names the maker), so that a file's error is not met at the first chat.
 */
export function templatesOf(templates, fn = FN) {
  if (!isPlainObject(templates)) fail(FN, "the templates as { chatTemplate, chatTemplateJinja }", templates);
  const { chatTemplate = null, chatTemplateJinja = null } = templates;
  if (chatTemplateJinja !== null) {
    if (typeof chatTemplateJinja !== 'string') fail(FN, "chatTemplateJinja as chat_template.jinja's text", chatTemplateJinja);
    return chatTemplateJinja;
  }
  if (chatTemplate === null || typeof chatTemplate === 'string') return chatTemplate;
  if (!Array.isArray(chatTemplate)) {
    throw invalidFile(`expected tokenizer_config.json's chat_template to be a template or a list of { name, template }, got ${JSON.stringify(chatTemplate)?.slice(0, 80)}`, fn);
  }
  const named = new Map();
  for (const [i, entry] of chatTemplate.entries()) {
    if (!isPlainObject(entry) || typeof entry.name !== 'string' || typeof entry.template !== 'string') {
      throw invalidFile(`expected tokenizer_config.json's chat_template[${i}] to be { name, template } (two strings), got ${JSON.stringify(entry)?.slice(0, 80)}`, fn);
    }
    named.set(entry.name, entry.template);
  }
  return named;
}

/**
 * The template to render, as transformers' get_chat_template picks it: `chosen` (options.chatTemplate) is the name
 * of one of the tokenizer's templates or a template's text; without it, a single template, or of named ones
 * "tool_use" when tools are given and the tokenizer has it, else "default". `own` says whether the text came from
 * the tokenizer's files (whose faults are the files') or from the caller.
 */
function chooseTemplate(templates, chosen, tools) {
  if (chosen !== null) {
    if (templates instanceof Map && templates.has(chosen)) return { text: templates.get(chosen), own: true };
    return { text: chosen, own: false };
  }
  if (templates instanceof Map) {
    if (tools !== null && templates.has('tool_use')) return { text: templates.get('tool_use'), own: true };
    if (templates.has('default')) return { text: templates.get('default'), own: true };
    throw invalid(`this tokenizer has several chat templates and none named "default"; name one with the chatTemplate option: ${[...templates.keys()].sort().join(', ')}`);
  }
  if (templates === null) {
    throw invalid('this tokenizer has no chat_template (neither tokenizer_config.json nor a chat_template.jinja holds one); ' +
      'pass a template\'s text as the chatTemplate option');
  }
  return { text: templates, own: true };
}

/** messages as transformers' templates read them: { role, content } each, content text or a list of parts. */
function checkMessages(messages) {
  if (!Array.isArray(messages)) fail(FN, 'messages as an array of { role, content }', messages);
  for (const [i, message] of messages.entries()) {
    if (!isPlainObject(message)) fail(FN, `messages[${i}] as an object { role, content }`, message);
    if (typeof message.role !== 'string') fail(FN, `messages[${i}].role as a string ('system', 'user', 'assistant', …)`, message.role);
    const { content } = message;
    // An assistant's turn that only calls tools may have no content (transformers' tool-use format).
    if ((content === undefined || content === null) && message.tool_calls !== undefined) continue;
    if (typeof content === 'string') continue;
    if (!Array.isArray(content)) fail(FN, `messages[${i}].content as a string or an array of parts ({ type: 'text', text }, …)`, content);
    for (const [j, part] of content.entries()) {
      if (!isPlainObject(part) || typeof part.type !== 'string') fail(FN, `messages[${i}].content[${j}] as a part with a string type ({ type: 'text', text }, …)`, part);
    }
  }
}

/** tools and documents: null, or an array of objects (a tool's JSON schema, a document's { title, text }). */
function listOfObjects(value, name) {
  if (value === null) return null;
  if (!Array.isArray(value) || !value.every(isPlainObject)) fail(FN, `${name} as an array of objects, or null`, value);
  return value;
}

function compile(text, own) {
  let template = compiled.get(text);
  if (template) return template;
  try {
    template = new Template(text);
  } catch (error) {
    const message = `the chat template could not be parsed: ${error.message}`;
    throw own ? invalidFile(message) : invalid(message);
  }
  if (compiled.size >= COMPILED_KEPT) compiled.delete(compiled.keys().next().value);
  compiled.set(text, template);
  return template;
}

/**
 * A conversation as the text its model was trained on: the tokenizer's chat template rendered with the context
 * transformers' apply_chat_template builds (messages, add_generation_prompt, tools, documents, the special tokens
 * as text, and `variables`).
 *
 * @param {{ chatTemplate?: string | { name: string, template: string }[] | null, chatTemplateJinja?: string | null }} templates
 *   tokenizer_config.json's `chat_template`, and chat_template.jinja's text when the folder has one (it wins).
 * @param {{ role: string, content: string | object[] }[]} messages the conversation.
 * @param {{ addGenerationPrompt?: boolean, tools?: object[] | null, documents?: object[] | null,
 *   chatTemplate?: string | null, variables?: Record<string, unknown> }} [options]
 *   addGenerationPrompt: end with the opening of the assistant's turn; chatTemplate: the name of one of the
 *   tokenizer's templates, or a template's text; variables: more values for the template, by the names it reads
 *   (Qwen3's `enable_thinking`, Llama 3.1's `date_string`).
 * @param {object} [specialTokens] tokenizer_config.json (its bos_token, eos_token, unk_token, sep_token, pad_token,
 *   cls_token, mask_token and additional_special_tokens are read; other keys are ignored).
 * @returns {string} the rendered text.
 */
export function renderChatTemplate(templates, messages, options = {}, specialTokens = {}) {
  if (!isPlainObject(options)) fail(FN, 'options as an object', options);
  const allowed = ['addGenerationPrompt', 'tools', 'documents', 'chatTemplate', 'variables'];
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) {
      throw invalid(`unknown option "${key}"; expected one of ${allowed.join(', ')} (values the template reads by other names go in variables)`);
    }
  }
  const { addGenerationPrompt = false, chatTemplate = null, variables = {} } = options;
  if (typeof addGenerationPrompt !== 'boolean') fail(FN, 'addGenerationPrompt as true or false', addGenerationPrompt);
  if (chatTemplate !== null && typeof chatTemplate !== 'string') fail(FN, "chatTemplate as a template's name or text", chatTemplate);
  if (!isPlainObject(variables)) fail(FN, 'variables as an object', variables);
  for (const name of Object.keys(variables)) {
    if (RESERVED.has(name)) throw invalid(`variables may not set "${name}", which the context sets itself`);
  }
  const tools = listOfObjects(options.tools ?? null, 'tools');
  const documents = listOfObjects(options.documents ?? null, 'documents');
  checkMessages(messages);
  const special = specialTokensMap(specialTokens);
  const { text, own } = chooseTemplate(templatesOf(templates), chatTemplate, tools);
  const template = compile(text, own);
  let rendered;
  try {
    // transformers: render(messages=…, tools=…, documents=…, add_generation_prompt=…, **special_tokens_map, **kwargs)
    rendered = template.render({ messages, tools, documents, add_generation_prompt: addGenerationPrompt, ...special, ...variables });
  } catch (error) {
    // raise_exception's message, or the engine's own (a method called on a value that has none, …).
    throw invalid(`the chat template refused this conversation: ${error.message}`);
  }
  if (rendered.length > MAX_CHAT_TEMPLATE_OUTPUT) {
    throw invalid(`the chat template rendered ${rendered.length} characters, more than the ${MAX_CHAT_TEMPLATE_OUTPUT} allowed`);
  }
  return rendered;
}
