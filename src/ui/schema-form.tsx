// A form from a tool's JSON Schema `inputSchema`: one input per top-level property; objects and arrays
// are edited as JSON text.
import { useState } from 'preact/hooks';

interface Prop {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  default?: unknown;
}

export interface InputSchema {
  properties?: Record<string, Prop>;
  required?: string[];
}

const typeOf = (p: Prop): string => (Array.isArray(p.type) ? (p.type.find((t) => t !== 'null') ?? '') : (p.type ?? ''));

/** The arguments a form's text values stand for; throws naming the field that does not parse. */
export function argumentsOf(schema: InputSchema, values: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const text = values[name] ?? '';
    if (text === '') continue;
    const type = typeOf(prop);
    if (type === 'number' || type === 'integer') {
      const n = Number(text);
      if (!Number.isFinite(n)) throw new Error(`${name}: must be a number`);
      out[name] = n;
    } else if (type === 'boolean') out[name] = text === 'true';
    else if (type === 'string' || prop.enum) out[name] = text;
    else {
      try {
        out[name] = JSON.parse(text);
      } catch {
        throw new Error(`${name}: must be JSON`);
      }
    }
  }
  return out;
}

function initial(schema: InputSchema): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, p] of Object.entries(schema.properties ?? {}))
    if (p.default !== undefined) out[name] = typeof p.default === 'string' ? p.default : JSON.stringify(p.default);
  return out;
}

function Field(props: { name: string; prop: Prop; required: boolean; value: string; set: (v: string) => void }) {
  const { name, prop, value, set } = props;
  const type = typeOf(prop);
  const label = `${name}${props.required ? ' *' : ''}`;
  let input;
  if (prop.enum)
    input = (
      <select name={name} value={value} onChange={(e) => set((e.target as HTMLSelectElement).value)}>
        <option value="" />
        {prop.enum.map((v) => (
          <option key={String(v)} value={String(v)}>
            {String(v)}
          </option>
        ))}
      </select>
    );
  else if (type === 'boolean')
    input = (
      <input
        type="checkbox"
        name={name}
        checked={value === 'true'}
        onChange={(e) => set((e.target as HTMLInputElement).checked ? 'true' : 'false')}
      />
    );
  else if (type === 'object' || type === 'array')
    input = <textarea name={name} rows={3} value={value} onInput={(e) => set((e.target as HTMLTextAreaElement).value)} />;
  else if (type === 'number' || type === 'integer')
    input = <input type="number" name={name} value={value} onInput={(e) => set((e.target as HTMLInputElement).value)} />;
  else input = <input type="text" name={name} value={value} onInput={(e) => set((e.target as HTMLInputElement).value)} />;
  return (
    <label>
      <span>{label}</span> {input} {prop.description ? <small class="muted">{prop.description}</small> : null}
    </label>
  );
}

export function SchemaForm(props: { schema: InputSchema; busy: boolean; onSubmit: (args: Record<string, unknown>) => void }) {
  const [values, setValues] = useState<Record<string, string>>(() => initial(props.schema));
  const [error, setError] = useState('');
  const required = new Set(props.schema.required ?? []);
  const submit = (e: Event): void => {
    e.preventDefault();
    try {
      setError('');
      props.onSubmit(argumentsOf(props.schema, values));
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <form onSubmit={submit} data-testid="tool-form">
      {Object.entries(props.schema.properties ?? {}).map(([name, prop]) => (
        <Field
          key={name}
          name={name}
          prop={prop}
          required={required.has(name)}
          value={values[name] ?? ''}
          set={(v) => setValues({ ...values, [name]: v })}
        />
      ))}
      {error ? <p class="bad">{error}</p> : null}
      <button class="action" type="submit" disabled={props.busy}>
        Call tool
      </button>
    </form>
  );
}
