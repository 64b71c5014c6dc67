import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startProxy, textOf, type Started } from './harness.js';
import { startResumableUpstream, type ResumableUpstream } from './resumable-upstream.js';

let resumable: ResumableUpstream;
let plain: ResumableUpstream;
let refusing: ResumableUpstream;
let proxy: Started;

beforeAll(async () => {
  resumable = await startResumableUpstream();
  plain = await startResumableUpstream({ eventStore: false });
  refusing = await startResumableUpstream({ refuseResume: true });
  proxy = await startProxy({
    targets: [
      { name: 'r', streamableHttp: { url: resumable.url } },
      { name: 'p', streamableHttp: { url: plain.url } },
      { name: 'x', streamableHttp: { url: refusing.url } },
    ],
  });
});
afterAll(async () => {
  await proxy?.close();
  await resumable?.close();
  await plain?.close();
  await refusing?.close();
});

describe('a target that drops a call stream mid-call', () => {
  it('resumes with Last-Event-ID when the target closes the stream (polling) and the client still gets the answer and all progress', async () => {
    const { client } = await connectClient(proxy.url);
    const progress: number[] = [];
    const result = await client.callTool({ name: 'r_poll', arguments: {} }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(textOf(result)).toBe('poll answered after the stream was lost');
    expect(progress).toEqual([1, 2]);
    expect(resumable.resumes.length).toBeGreaterThan(0);
    await client.close();
  });

  it('resumes when the TCP connection carrying the call is cut mid-stream', async () => {
    const { client } = await connectClient(proxy.url);
    const before = resumable.resumes.length;
    const result = await client.callTool({ name: 'r_cut', arguments: {} });
    expect(textOf(result)).toBe('cut answered after the stream was lost');
    expect(resumable.resumes.length).toBe(before + 1);
    await client.close();
  });

  it('fails the call with a clear error when the target gave no event ids to resume from', async () => {
    const { client } = await connectClient(proxy.url);
    await expect(client.callTool({ name: 'p_cut', arguments: {} })).rejects.toThrow(
      /target p: .*(closed the stream before answering|other side closed|terminated)/,
    );
    expect(plain.resumes).toEqual([]);
    await client.close();
  });

  it('fails the call naming the status when the target refuses to resume', async () => {
    const { client } = await connectClient(proxy.url);
    await expect(client.callTool({ name: 'x_poll', arguments: {} })).rejects.toThrow(
      /target x: the target closed the stream before answering and refused to resume it from event .+ \(HTTP 405\)/,
    );
    expect(refusing.resumes).toHaveLength(1);
    await client.close();
  });
});
