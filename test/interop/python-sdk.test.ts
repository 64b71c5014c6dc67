// The MCP Python SDK (mcp 2.3) and the TypeScript SDK 2.4 on either side of one multiplexed Gw route
// (targets `py`, a Python SDK server, and `ts`, Gw's 2026 everything server on @modelcontextprotocol/server
// 2.4): each SDK's client in its default mode and pinned to 2026-07-28 reaches both targets, so a Python client
// talks through Gw to a TS server and a TS client to a Python server. Python starts cost seconds of CPU on
// the shared machine: one server process and one client process (all its connections in it) for the file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VersionNegotiationMode } from '@modelcontextprotocol/client';
import { startEverything2026, type UrlServer } from '../fixtures/url-server.js';
import { startProxy, type Started } from '../proxy/harness.js';
import { connect2026, pinned2026, textOf } from '../support/mcp-client-2026.js';
import { pythonMcp, runPythonClient, startPythonServer, type PythonOutcome } from '../support/python-mcp.js';

const simpleText = 'This is a simple text response for testing.';

describe('Python SDK 2.3 and TypeScript SDK 2.4 through one multiplexed Gw route', () => {
  let python: string;
  let py: UrlServer;
  let ts: UrlServer;
  let gw: Started;

  beforeAll(async () => {
    python = await pythonMcp();
    [py, ts] = await Promise.all([startPythonServer(python, 'py'), startEverything2026()]);
    gw = await startProxy({
      targets: [
        { name: 'py', streamableHttp: { url: py.url } },
        { name: 'ts', streamableHttp: { url: ts.url } },
      ],
    });
  }, 300_000);

  afterAll(async () => {
    await gw?.close();
    py?.stop();
    ts?.stop();
  });

  it('serves the Python client, in its default mode and pinned to 2026-07-28, from the TS and the Python target', async () => {
    const [autoTs, pinnedTs, pinnedPy] = await runPythonClient(python, gw.url, [
      { mode: 'auto', tool: 'ts_test_simple_text' },
      { mode: '2026-07-28', tool: 'ts_test_simple_text' },
      { mode: '2026-07-28', tool: 'py_echo', args: { text: 'hi' } },
    ]);
    const ok = (o: PythonOutcome | undefined) => {
      expect(o && 'error' in o ? o.error : undefined).toBeUndefined();
      return o as Extract<PythonOutcome, { text: string }>;
    };
    expect(ok(autoTs)).toMatchObject({ protocolVersion: '2026-07-28', isError: false, text: simpleText });
    expect(ok(autoTs).tools).toEqual(expect.arrayContaining(['py_echo', 'ts_test_simple_text']));
    expect(ok(pinnedTs)).toMatchObject({ protocolVersion: '2026-07-28', isError: false, text: simpleText });
    expect(ok(pinnedPy)).toMatchObject({ protocolVersion: '2026-07-28', isError: false, text: 'py:hi' });
  }, 120_000);

  const modes: Array<[string, VersionNegotiationMode]> = [
    ['legacy (its default)', 'legacy'],
    ['auto', 'auto'],
    ['pinned to 2026-07-28', pinned2026],
  ];
  it.each(modes)(
    'serves the TS 2.4 client, %s, from the Python and the TS target',
    async (_name, mode) => {
      const client = await connect2026(gw.url, mode);
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        expect(names).toEqual(expect.arrayContaining(['py_echo', 'ts_test_simple_text']));
        expect(textOf(await client.callTool({ name: 'py_echo', arguments: { text: 'from ts' } }))).toBe('py:from ts');
        expect(textOf(await client.callTool({ name: 'ts_test_simple_text', arguments: {} }))).toBe(simpleText);
        const prompt = await client.getPrompt({ name: 'py_greet', arguments: { who: 'ts' } });
        expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Hello ts from py' });
        // Gw answers server/discover, so the probing mode settles on the new revision as the pinned one does.
        const expected = mode === 'legacy' ? ['2025-03-26', '2025-06-18', '2025-11-25'] : ['2026-07-28'];
        expect(expected).toContain(client.getNegotiatedProtocolVersion());
      } finally {
        await client.close();
      }
    },
    60_000,
  );
});
