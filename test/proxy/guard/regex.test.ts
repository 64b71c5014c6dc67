// Regex prompt guards end to end from YAML: the real translator expands builtins, the proxy applies them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createPromptGuards, type PromptGuards } from '../../../src/proxy/guard/factory.js';
import { captureLog, chat, completion, ctxOf, edgeOf, guardsFor, llmManifests } from './guard-harness.js';

const all: PromptGuards[] = [];
afterAll(async () => {
  await Promise.all(all.map((p) => p.close()));
});

const cases = parse(readFileSync(join(import.meta.dirname, 'testdata/builtins.yaml'), 'utf8')) as {
  builtin: string;
  text: string;
  masked: string;
}[];
const allBuiltins = {
  request: [{ regex: { action: 'Mask', builtins: ['Ssn', 'CreditCard', 'PhoneNumber', 'Email', 'CaSin'] } }],
};

describe('regex prompt guard builtins', () => {
  const { guards } = guardsFor(llmManifests(allBuiltins), all);
  for (const c of cases) {
    it(`${c.masked === c.text ? 'leaves' : 'masks'} ${c.builtin} in "${c.text}"`, async () => {
      const body = chat({ role: 'user', content: c.text });
      const v = await guards?.request?.(body, ctxOf(body));
      if (c.masked === c.text) expect(v).toEqual({ action: 'allow' });
      else expect(v).toEqual({ action: 'modify', body: chat({ role: 'user', content: c.masked }) });
    });
  }
});

describe('regex prompt guard actions', () => {
  it('rejects with the CustomResponse defaults (403, the fixed sentence) as a JSON error', async () => {
    const { guards } = guardsFor(llmManifests({ request: [{ regex: { builtins: ['Email'] } }] }), all);
    const body = chat({ role: 'user', content: 'mail me at a@b.example' });
    expect(await guards?.request?.(body, ctxOf(body))).toEqual({
      action: 'reject',
      status: 403,
      contentType: 'application/json',
      body: JSON.stringify({
        error: 'prompt_guard_rejected',
        error_description: 'The request was rejected by a prompt guard.',
      }),
    });
  });

  it('rejects with the CustomResponse status and message when set', async () => {
    const pg = {
      request: [
        {
          regex: { action: 'Reject', matches: [{ pattern: 'project-[0-9]+', name: 'project' }] },
          customResponse: { statusCode: 422, message: 'no project names' },
        },
      ],
    };
    const { guards } = guardsFor(llmManifests(pg), all);
    const body = chat({ role: 'user', content: 'status of project-42?' });
    const v = await guards?.request?.(body, ctxOf(body));
    expect(v).toMatchObject({ action: 'reject', status: 422 });
    expect(JSON.parse((v as { body: string }).body)).toEqual({
      error: 'prompt_guard_rejected',
      error_description: 'no project names',
    });
  });

  it('masks a named user pattern with <NAME> and an unnamed one with ****', async () => {
    const pg = {
      request: [
        {
          regex: {
            action: 'Mask',
            matches: [{ pattern: 'project-[0-9]+', name: 'project-id' }, { pattern: 'hunter2' }],
          },
        },
      ],
    };
    const { guards } = guardsFor(llmManifests(pg), all);
    const body = chat({ role: 'user', content: 'project-42 password hunter2' });
    expect(await guards?.request?.(body, ctxOf(body))).toEqual({
      action: 'modify',
      body: chat({ role: 'user', content: '<PROJECT_ID> password ****' }),
    });
    expect(body).toEqual(chat({ role: 'user', content: 'project-42 password hunter2' }));
  });

  it('audits: passes content unchanged and logs which patterns matched, never the matched text', async () => {
    const { guards, logs } = guardsFor(
      llmManifests({ request: [{ regex: { action: 'Audit', builtins: ['Ssn'] } }] }),
      all,
    );
    const body = chat({ role: 'user', content: 'ssn 123-45-6789' });
    expect(await guards?.request?.(body, ctxOf(body))).toEqual({ action: 'allow' });
    const audit = logs.entries().find((e) => String(e.msg).includes('audit'));
    expect(audit).toMatchObject({
      patterns: ['Ssn'],
      phase: 'request',
      route: 'HTTPRoute/default/chat/0',
      guard: 'GwPolicy default/guards backend.ai.promptGuard.request[0]',
    });
    expect(logs.text()).not.toContain('123-45-6789');
  });

  it('behaves the same on an IR that went over the wire (proto encode and decode)', async () => {
    const pg = createPromptGuards({ env: {} });
    all.push(pg);
    const { route, ref } = edgeOf(
      llmManifests({ request: [{ regex: { action: 'Mask', builtins: ['Ssn'], scopes: ['Messages'] } }] }),
      true,
    );
    const guards = pg.llmGuards(route, ref, captureLog().log);
    const body = chat({ role: 'system', content: '123-45-6789' }, { role: 'user', content: 'ssn 123-45-6789' });
    expect(await guards?.request?.(body, ctxOf(body))).toEqual({
      action: 'modify',
      body: chat({ role: 'system', content: '123-45-6789' }, { role: 'user', content: 'ssn <SSN>' }),
    });
  });

  it('allows content that matches nothing without logging', async () => {
    const { guards, logs } = guardsFor(llmManifests({ request: [{ regex: { builtins: ['Ssn'] } }] }), all);
    const body = chat({ role: 'user', content: 'hello' });
    expect(await guards?.request?.(body, ctxOf(body))).toEqual({ action: 'allow' });
    expect(logs.entries()).toEqual([]);
  });

  it('masks response choices, text parts and tool-call arguments', async () => {
    const { guards } = guardsFor(llmManifests({ response: [{ regex: { action: 'Mask', builtins: ['Email'] } }] }), all);
    expect(guards?.request).toBeUndefined();
    const body = completion('reach me at a@b.example');
    const v = await guards?.response?.(body, ctxOf(chat({ role: 'user', content: 'hi' })));
    expect(v).toEqual({ action: 'modify', body: completion('reach me at <EMAIL>') });
    const tool = {
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 't', type: 'function', function: { name: 'send', arguments: '{"to":"a@b.example"}' } }],
          },
        },
      ],
    };
    expect(await guards?.response?.(tool, ctxOf(chat()))).toEqual({
      action: 'modify',
      body: {
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 't', type: 'function', function: { name: 'send', arguments: '{"to":"<EMAIL>"}' } }],
            },
          },
        ],
      },
    });
  });
});

describe('regex prompt guard scopes', () => {
  const convo = chat(
    { role: 'system', content: 'sys a@b.example' },
    { role: 'user', content: [{ type: 'text', text: 'user a@b.example' }] },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '{"e":"a@b.example"}' } }],
    },
    { role: 'tool', tool_call_id: 't', content: 'tool a@b.example' },
  );
  const masked = (scopes: string[]) =>
    guardsFor(llmManifests({ request: [{ regex: { action: 'Mask', builtins: ['Email'], scopes } }] }), all).guards;
  const contentOf = (v: unknown) => JSON.stringify((v as { body: unknown }).body);

  it('checks every scope when scopes is unset', async () => {
    const { guards } = guardsFor(llmManifests({ request: [{ regex: { action: 'Mask', builtins: ['Email'] } }] }), all);
    const v = await guards?.request?.(convo, ctxOf(convo));
    expect(contentOf(v)).not.toContain('a@b.example');
    expect(contentOf(v).match(/<EMAIL>/g)).toHaveLength(4);
  });

  it.each([
    ['SystemPrompt', 'sys <EMAIL>'],
    ['Messages', 'user <EMAIL>'],
    ['ToolInput', '{\\"e\\":\\"<EMAIL>\\"}'],
    ['ToolOutput', 'tool <EMAIL>'],
  ])('masks only the %s scope when it is the only one given', async (scope, expected) => {
    const v = await masked([scope])?.request?.(convo, ctxOf(convo));
    expect(contentOf(v)).toContain(expected);
    expect(contentOf(v).match(/<EMAIL>/g)).toHaveLength(1);
  });
});
