// The proxy spells the semantic-convention attribute names itself (src/proxy/telemetry/semconv.ts) so it
// does not load the package's thousands of names; each must still be the package's own value.
import { describe, expect, it } from 'vitest';
import * as stable from '@opentelemetry/semantic-conventions';
import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import * as ours from '../../src/proxy/telemetry/semconv.js';

describe('semantic-convention names', () => {
  it('are the @opentelemetry/semantic-conventions values', () => {
    const theirs = { ...incubating, ...stable } as Record<string, unknown>;
    for (const [name, value] of Object.entries(ours)) expect({ name, value }).toEqual({ name, value: theirs[name] });
  });
});
