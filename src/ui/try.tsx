// The LLM and CEL playgrounds (docs/ui.md). The LLM playground is a client of a route, like the MCP one:
// it calls the route's URL from this browser with the pasted token, so the route's whole pipeline applies,
// and the token stays in this page's memory. The CEL playground asks the proxy to evaluate an expression
// with its own CEL environment against the context typed here.
import { useState } from 'preact/hooks';
import { getJson, type CelResult, type LlmView, type SnapshotView } from './api.js';
import { RouteFields, routeUrls } from './playground.js';
import { Loading, useApi } from './views.js';

/** The chat completions URL under a route's path (`/v1` → `/v1/chat/completions`, `/` → `/v1/chat/completions`). */
function chatUrl(routeUrl: string): string {
  const base = routeUrl.replace(/\/+$/, '');
  return base.endsWith('/v1') ? `${base}/chat/completions` : `${base}/v1/chat/completions`;
}

interface Chunk {
  choices?: { delta?: { content?: string } }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

/** Reads an OpenAI chat stream (SSE `data:` lines), handing each content delta to `onText`. */
async function readStream(res: Response, onText: (t: string) => void, onUsage: (u: string) => void): Promise<void> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += decoder.decode(value, { stream: true });
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      const data = /^data: ?(.*)$/.exec(line.trim())?.[1];
      if (!data || data === '[DONE]') continue;
      const chunk = JSON.parse(data) as Chunk;
      const text = chunk.choices?.[0]?.delta?.content;
      if (text) onText(text);
      if (chunk.usage)
        onUsage(`${chunk.usage.prompt_tokens ?? 0} input, ${chunk.usage.completion_tokens ?? 0} output tokens`);
    }
  }
}

/** A streamed chat call: the answer as it arrives, the usage the provider reported, or the route's error. */
function useChat() {
  const [answer, setAnswer] = useState('');
  const [usage, setUsage] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const send = async (url: string, token: string, model: string, prompt: string): Promise<void> => {
    setBusy(true);
    setAnswer('');
    setUsage('');
    setError('');
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({
          ...(model ? { model } : {}),
          messages: [{ role: 'user', content: prompt }],
          stream: true,
          stream_options: { include_usage: true },
        }),
      });
      if (!res.ok) setError(`HTTP ${res.status}: ${await res.text()}`);
      else await readStream(res, (t) => setAnswer((a) => a + t), setUsage);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return { answer, usage, error, busy, send };
}

function Chat(props: { routes: { route: string; url: string }[]; models: string[] }) {
  const [url, setUrl] = useState(props.routes[0] ? chatUrl(props.routes[0].url) : '');
  const [token, setToken] = useState('');
  const [model, setModel] = useState(props.models[0] ?? '');
  const [prompt, setPrompt] = useState('');
  const { answer, usage, error, busy, send } = useChat();
  const field = (set: (v: string) => void) => (e: Event) => set((e.target as HTMLInputElement).value);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void send(url, token, model, prompt);
      }}
      data-testid="chat-form"
    >
      <RouteFields
        routes={props.routes}
        url={url}
        token={token}
        onUrl={setUrl}
        onToken={setToken}
        urlOf={chatUrl}
      />
      <label>
        <span>Model</span>
        <input type="text" name="model" value={model} placeholder="the route's default" onInput={field(setModel)} />
      </label>
      <label>
        <span>Message</span>
        <textarea name="prompt" rows={3} value={prompt} onInput={field(setPrompt)} />
      </label>
      <button class="action" type="submit" disabled={busy || url === '' || prompt === ''}>
        Send (streamed)
      </button>
      {error ? <p class="bad" data-testid="chat-error">{error}</p> : null}
      {answer || busy ? <pre data-testid="chat-answer">{answer || '…'}</pre> : null}
      {usage ? <p class="muted" data-testid="chat-usage">{usage}</p> : null}
    </form>
  );
}

export function LlmPlaygroundView() {
  const snap = useApi<SnapshotView>('snapshot');
  const llm = useApi<LlmView>('llm');
  return (
    <Loading state={snap}>
      {(s) => {
        const routes = routeUrls(s, location.hostname, 'ai');
        return (
          <section data-testid="llm-playground">
            <h2>LLM playground</h2>
            <p class="muted">
              A chat through a route to an LLM backend, from this browser, through the route's whole pipeline
              (the route needs a CORS policy that allows this page's origin and the <code>authorization</code> and{' '}
              <code>content-type</code> headers).
            </p>
            {routes.length === 0 ? (
              <p class="muted">No route to an LLM backend in this snapshot.</p>
            ) : (
              <Chat routes={routes} models={llm.data?.models.map((m) => m.name) ?? []} />
            )}
          </section>
        );
      }}
    </Loading>
  );
}

const SAMPLE_CONTEXT = {
  request: { method: 'POST', path: '/mcp', host: 'gw.example', headers: { 'x-team': 'payments' } },
  jwt: { sub: 'alice', iss: 'https://idp.example', groups: ['ops'] },
  mcp: { method: 'tools/call', tool: 'echo' },
  llmRequest: { model: 'gpt-4o-mini' },
  response: { code: 200, durationMs: 12.5 },
};

export function CelPlaygroundView() {
  const uses = useApi<{ uses: { name: string; variables: string[] }[] }>('cel');
  const [use, setUse] = useState('authorization');
  const [expression, setExpression] = useState('jwt.sub == "alice" && mcp.tool.startsWith("ec")');
  const [context, setContext] = useState(JSON.stringify(SAMPLE_CONTEXT, null, 2));
  const [result, setResult] = useState<CelResult>();
  const evaluate = async (e: Event): Promise<void> => {
    e.preventDefault();
    let parsed: unknown;
    try {
      parsed = JSON.parse(context);
    } catch (err) {
      setResult({ ok: false, phase: 'request', error: `context: not JSON (${(err as Error).message})` });
      return;
    }
    try {
      setResult(
        await getJson<CelResult>('cel', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ expression, context: parsed, use }),
        }),
      );
    } catch (err) {
      setResult({ ok: false, phase: 'request', error: (err as Error).message });
    }
  };
  const known = uses.data?.uses.find((u) => u.name === use)?.variables ?? [];
  return (
    <section data-testid="cel-playground">
      <h2>CEL playground</h2>
      <p class="muted">
        Evaluated by this proxy with its own CEL environment, as a policy expression where you pick it is used;
        errors read as the proxy reports them.
      </p>
      <form onSubmit={(e) => void evaluate(e)}>
        <label>
          <span>Used in</span>
          <select name="use" value={use} onChange={(e) => setUse((e.target as HTMLSelectElement).value)}>
            {(uses.data?.uses ?? [{ name: 'authorization', variables: [] }]).map((u) => (
              <option key={u.name} value={u.name}>
                {u.name}
              </option>
            ))}
          </select>{' '}
          <span class="muted">variables: {known.join(', ')}</span>
        </label>
        <label>
          <span>Expression</span>
          <textarea
            name="expression"
            rows={2}
            value={expression}
            onInput={(e) => setExpression((e.target as HTMLTextAreaElement).value)}
          />
        </label>
        <label>
          <span>Context (JSON)</span>
          <textarea
            name="context"
            rows={12}
            value={context}
            onInput={(e) => setContext((e.target as HTMLTextAreaElement).value)}
          />
        </label>
        <button class="action" type="submit">
          Evaluate
        </button>
      </form>
      {result ? (
        result.ok ? (
          <pre data-testid="cel-result" class="good">
            {JSON.stringify(result.value)} <span class="muted">({result.type})</span>
          </pre>
        ) : (
          <pre data-testid="cel-result" class="bad">
            {result.phase} error: {result.error}
          </pre>
        )
      ) : null}
    </section>
  );
}
