// The SDK 2.4 client pinned to 2026-07-28 for the input-bridge tests: it answers a target's sampling with
// `said`, elicitation with accept and `{ ok }`, and roots/list with `roots`, and records what it was asked.
import type { Client } from '@modelcontextprotocol/client';
import { connectModernClient } from './modern-client.js';

export interface Answers {
  said?: string;
  ok?: boolean;
  roots?: string[];
}

export async function answeringClient(
  url: string,
  answers: Answers = {},
): Promise<{ client: Client; asked: string[] }> {
  const asked: string[] = [];
  const { client } = await connectModernClient(url, {}, { sampling: {}, elicitation: {}, roots: {} });
  client.setRequestHandler('sampling/createMessage', (req) => {
    asked.push(req.method);
    return { role: 'assistant', model: 'm', content: { type: 'text', text: answers.said ?? 'model-said' } };
  });
  client.setRequestHandler('elicitation/create', (req) => {
    asked.push(req.method);
    return { action: 'accept', content: { ok: answers.ok ?? true } };
  });
  client.setRequestHandler('roots/list', (req) => {
    asked.push(req.method);
    return { roots: (answers.roots ?? ['file:///work']).map((uri) => ({ uri })) };
  });
  return { client, asked };
}
