// What a PromQL expression reads: the metric names it selects (with their matchers' label names) and
// the labels it groups by. Tests that hold a dashboard to the metrics the code exports read queries
// through this, so functions, keywords, numbers, durations and Grafana variables never pass for metrics.

export interface PromqlRefs {
  /** Each selector: its metric name and the label names its matchers use. */
  selectors: { metric: string; labels: string[] }[];
  /** Label names of by / without / on / ignoring / group_left / group_right clauses. */
  grouping: string[];
}

const GROUPING = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);
const KEYWORDS = new Set(['bool', 'and', 'or', 'unless', 'offset', 'atan2', 'inf', 'nan']);
// Aggregations may be written `sum by (x) (...)`: the name is then not followed by `(`.
const AGGREGATIONS = new Set([
  'sum',
  'min',
  'max',
  'avg',
  'group',
  'stddev',
  'stdvar',
  'count',
  'count_values',
  'bottomk',
  'topk',
  'quantile',
  'limitk',
  'limit_ratio',
]);

type Token = { kind: 'ident' | 'string' | 'number' | 'punct'; text: string };

const TOKEN =
  /\s+|("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)|((?:\d+(?:ms|[smhdwy]))+|0x[0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|([a-zA-Z_:][a-zA-Z0-9_:]*)|(=~|!~|!=|==|<=|>=|[{}()[\],=<>+\-*/%^@])/y;

function tokenize(expr: string): Token[] {
  // Outside strings a Grafana variable ($__rate_interval, ${q}, [[q]]) stands for a duration or a number.
  const text = expr.replace(/\$\{[^}]*\}|\$[a-zA-Z_][a-zA-Z0-9_]*|\[\[[^\]]*\]\]/g, '1');
  const tokens: Token[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(text);
    if (!m) throw new Error(`cannot read PromQL at offset ${at}: ${JSON.stringify(text.slice(at, at + 20))}`);
    if (m[1] !== undefined) tokens.push({ kind: 'string', text: m[1] });
    else if (m[2] !== undefined) tokens.push({ kind: 'number', text: m[2] });
    else if (m[3] !== undefined) tokens.push({ kind: 'ident', text: m[3] });
    else if (m[4] !== undefined) tokens.push({ kind: 'punct', text: m[4] });
  }
  return tokens;
}

export function promqlRefs(expr: string): PromqlRefs {
  const t = tokenize(expr);
  const refs: PromqlRefs = { selectors: [], grouping: [] };
  const is = (i: number, text: string) => t[i]?.kind === 'punct' && t[i]?.text === text;

  /** Reads `{l op "v", ...}` from t[i] = `{`; returns the label names and the index after `}`. */
  const matchers = (i: number): { labels: string[]; name?: string; next: number } => {
    const labels: string[] = [];
    let name: string | undefined;
    let j = i + 1;
    while (!is(j, '}')) {
      const label = t[j];
      const value = t[j + 2];
      if (label?.kind !== 'ident' || t[j + 1]?.kind !== 'punct' || value?.kind !== 'string')
        throw new Error(`cannot read the label matchers of ${JSON.stringify(expr)}`);
      if (label.text === '__name__' && t[j + 1]?.text === '=') name = value.text.slice(1, -1);
      else labels.push(label.text);
      j += 3;
      if (is(j, ',')) j++;
    }
    return { labels, name, next: j + 1 };
  };

  for (let i = 0; i < t.length;) {
    const tok = t[i] as Token;
    if (tok.kind === 'punct' && tok.text === '[') {
      // Range or subquery durations: nothing in brackets names a metric or a label.
      while (i < t.length && !is(i, ']')) i++;
      i++;
    } else if (tok.kind === 'punct' && tok.text === '{') {
      const m = matchers(i);
      if (m.name !== undefined) refs.selectors.push({ metric: m.name, labels: m.labels });
      i = m.next;
    } else if (tok.kind !== 'ident') {
      i++;
    } else if (GROUPING.has(tok.text)) {
      i++;
      if (!is(i, '(')) continue; // group_left without a label list
      for (i++; !is(i, ')') && i < t.length; i++) if (t[i]?.kind === 'ident') refs.grouping.push(t[i]!.text);
      i++;
    } else if (is(i + 1, '(') || KEYWORDS.has(tok.text.toLowerCase()) || AGGREGATIONS.has(tok.text)) {
      i++; // a function or aggregation call, or an operator keyword
    } else if (is(i + 1, '{')) {
      const m = matchers(i + 1);
      refs.selectors.push({ metric: tok.text, labels: m.labels });
      i = m.next;
    } else {
      refs.selectors.push({ metric: tok.text, labels: [] });
      i++;
    }
  }
  return refs;
}
