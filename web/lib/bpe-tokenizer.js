// The JS API of the byte-pair-encoding tokenizer (cpp/include/attn/bpe_tokenizer.hpp): a Hugging Face
// tokenizer.json or GPT-2's vocab.json + merges.txt, with tokenizer_config.json's special tokens and its chat
// template, as transformers runs them. bpeTokenizerApi(M) gives the class for one loaded module M.
import { boolean, integers, options, refuse, string } from './arguments.js';
import { renderChatTemplate, templatesOf } from './chat-template.js';
import { AdoptedHandle, Module } from './handles.js';
import { parseJson } from './json-text.js';

export function bpeTokenizerApi(M) {
  /**
   * A byte-pair-encoding tokenizer, as transformers runs it: `files` is `{ tokenizerJson }` (a Hugging Face
   * tokenizer.json: its normalizer, pre-tokenizer, added tokens, post-processor and decoder) or `{ vocab, merges }`
   * (GPT-2's vocab.json and merges.txt), with `tokenizerConfig`, the text of tokenizer_config.json, optional.
   */
  class BPETokenizer extends Module {
    #pieces = null;
    #named = null;
    #chat = { templates: {}, specialTokens: {} }; // what applyChatTemplate renders with (chatTemplates)
    constructor(files) {
      const fn = 'BPETokenizer';
      const handle = files instanceof AdoptedHandle ? files.handle : null;
      let make = () => handle;
      let chat = null;
      if (!handle) {
        const { vocab, merges, tokenizerJson, tokenizerConfig, chatTemplate } =
          options(files, ['vocab', 'merges', 'tokenizerJson', 'tokenizerConfig', 'chatTemplate'], fn);
        if (tokenizerConfig !== undefined) string(tokenizerConfig, fn, 'tokenizerConfig (the text of tokenizer_config.json)');
        if (chatTemplate !== undefined) string(chatTemplate, fn, 'chatTemplate (the text of chat_template.jinja)');
        chat = chatTemplates({ tokenizerConfig: tokenizerConfig ?? null, chatTemplateJinja: chatTemplate ?? null }, fn);
        if (tokenizerJson !== undefined) {
          if (vocab !== undefined || merges !== undefined) refuse(fn, 'either { vocab, merges } or { tokenizerJson }', files);
          string(tokenizerJson, fn, 'tokenizerJson');
          make = () => M.BPETokenizer.fromTokenizerJson(tokenizerJson, tokenizerConfig);
        } else {
          string(vocab, fn, 'vocab (the text of vocab.json)');
          string(merges, fn, 'merges (the text of merges.txt)');
          make = () => M.BPETokenizer.fromFiles(vocab, merges, tokenizerConfig);
        }
      }
      super(fn, make);
      if (chat) this.#chat = chat;
    }
    /** The chat templates of a model folder's files (loadPretrained's `files`). @internal */
    _setChatTemplates(files) {
      this.#chat = chatTemplates(files, 'loadPretrained');
    }
    /**
     * A conversation as the text a chat model was trained on: `messages` ([{ role, content }]) rendered by the
     * tokenizer's chat template (chat_template.jinja, chat_template.json, or tokenizer_config.json's chat_template),
     * as transformers' apply_chat_template renders it. With `tokenize` (the default) its ids, the rendered text
     * encoded without adding special tokens (the template writes them), else the text.
     */
    applyChatTemplate(messages, opts = {}) {
      const fn = 'BPETokenizer.applyChatTemplate';
      const { tokenize = true, ...render } = options(opts, ['tokenize', 'addGenerationPrompt', 'tools', 'documents', 'chatTemplate', 'variables'], fn);
      boolean(tokenize, fn, 'tokenize');
      const text = renderChatTemplate(this.#chat.templates, messages, render, this.#chat.specialTokens);
      return tokenize ? this.encode(text, { addSpecialTokens: false }) : text;
    }
    /** Whether the tokenizer has a chat template (applyChatTemplate needs one, or options.chatTemplate). */
    get hasChatTemplate() {
      const { chatTemplate, chatTemplateJinja } = this.#chat.templates;
      return chatTemplateJinja != null || chatTemplate != null;
    }
    /**
     * The ids of a text, with what the tokenizer's post-processor adds around them (Llama's and Gemma's BOS …) unless
     * `addSpecialTokens` is false: what transformers' tokenizer(text) gives. A lone surrogate is encoded as U+FFFD,
     * as TextEncoder encodes it.
     */
    encode(text, opts) {
      const fn = 'BPETokenizer.encode';
      const { addSpecialTokens = true } = options(opts, ['addSpecialTokens'], fn);
      return Array.from(this._handle.encode(string(text, fn, 'text'), boolean(addSpecialTokens, fn, 'addSpecialTokens')));
    }
    /**
     * The text of ids, without the special added tokens (<s>, <|im_start|> …) when `skipSpecialTokens`. Bytes that
     * end inside a character show as U+FFFD, as TextDecoder shows them. `cleanUpTokenizationSpaces` (default:
     * tokenizer_config.json's, else false, as transformers) removes the space before . ? ! , and 's 't 're 've 'm.
     */
    decode(ids, opts) {
      const fn = 'BPETokenizer.decode';
      const { skipSpecialTokens = false, cleanUpTokenizationSpaces } = options(opts, ['skipSpecialTokens', 'cleanUpTokenizationSpaces'], fn);
      const cleanUp = cleanUpTokenizationSpaces === undefined ? undefined : boolean(cleanUpTokenizationSpaces, fn, 'cleanUpTokenizationSpaces');
      return this._handle.decode(integers(ids, fn, 'ids'), boolean(skipSpecialTokens, fn, 'skipSpecialTokens'), cleanUp);
    }
    #namedTokens() {
      this.#named ??= Object.freeze(this._handle.namedTokens());
      return this.#named;
    }
    /** tokenizer_config.json's bos_token, or null. */
    get bosToken() { return this.#namedTokens().bosToken; }
    /** Its id, or null. */
    get bosTokenId() { return this.#namedTokens().bosTokenId; }
    /** tokenizer_config.json's eos_token, or null. */
    get eosToken() { return this.#namedTokens().eosToken; }
    /** Its id, or null. */
    get eosTokenId() { return this.#namedTokens().eosTokenId; }
    /** tokenizer_config.json's pad_token, or null. */
    get padToken() { return this.#namedTokens().padToken; }
    /** Its id, or null. */
    get padTokenId() { return this.#namedTokens().padTokenId; }
    /** tokenizer_config.json's unk_token, or null. */
    get unkToken() { return this.#namedTokens().unkToken; }
    /** Its id, or null. */
    get unkTokenId() { return this.#namedTokens().unkTokenId; }
    /** 'bpe'. */
    get kind() { return 'bpe'; }
    get vocabSize() { return this._handle.vocabSize(); }
    /** Each token's text in id order (U+FFFD for a byte that does not complete a character). */
    get pieces() {
      this.#pieces ??= Object.freeze(this._handle.pieces());
      return this.#pieces;
    }
  }

  return { BPETokenizer };
}

/**
 * What applyChatTemplate renders with, from a folder's texts: tokenizer_config.json (its chat_template and special
 * tokens), chat_template.jinja, and chat_template.json ({ "chat_template": … }); a .jinja file wins, as in transformers.
 */
function chatTemplates({ tokenizerConfig = null, chatTemplateJinja = null, chatTemplateJson = null }, fn) {
  const config = tokenizerConfig === null ? {} : parseJson(tokenizerConfig, 'tokenizer_config.json', fn);
  const json = chatTemplateJson === null ? {} : parseJson(chatTemplateJson, 'chat_template.json', fn);
  const fromJson = typeof json?.chat_template === 'string' ? json.chat_template : null;
  const templates = { chatTemplate: config?.chat_template ?? null, chatTemplateJinja: chatTemplateJinja ?? fromJson };
  templatesOf(templates, fn); // a chat_template of another type is the file's error, named now (hasChatTemplate said true)
  return { templates, specialTokens: config !== null && typeof config === 'object' && !Array.isArray(config) ? config : {} };
}
