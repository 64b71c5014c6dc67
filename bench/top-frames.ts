// Top frames of a V8 CPU profile (`node --cpu-prof`), by self time: the "where does a call's time go"
// table in docs/performance.md comes from this. Usage: tsx bench/top-frames.ts <file.cpuprofile> [n]
// Idle time is reported apart, and the percentages are of busy time, so two profiles of runs that
// carried different loads compare.
import { readFileSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self microseconds per frame label, from the sample stream (timeDeltas precede their sample). */
export function selfTimes(profile: Profile): Map<string, number> {
  const label = new Map<number, string>();
  for (const n of profile.nodes) {
    const { functionName, url, lineNumber } = n.callFrame;
    const file = url ? `${shortPath(url)}:${lineNumber + 1}` : '';
    label.set(n.id, `${functionName || '(anonymous)'}${file ? ` ${file}` : ''}`);
  }
  const out = new Map<string, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const key = label.get(profile.samples[i]!) ?? '?';
    out.set(key, (out.get(key) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
  }
  return out;
}

function shortPath(url: string): string {
  const p = url.replace(/^file:\/\//, '');
  const nm = p.lastIndexOf('node_modules/');
  if (nm >= 0) return p.slice(nm + 'node_modules/'.length);
  const src = p.search(/\/(dist|src)\//);
  return src >= 0 ? p.slice(src + 1) : path.basename(p);
}

function main(): void {
  const [file, count] = process.argv.slice(2);
  if (!file) throw new Error('usage: top-frames.ts <file.cpuprofile> [n]');
  const times = selfTimes(JSON.parse(readFileSync(file, 'utf8')) as Profile);
  const idle = times.get('(idle)') ?? 0;
  times.delete('(idle)');
  const busy = [...times.values()].reduce((a, b) => a + b, 0);
  console.log(`busy ${(busy / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms`);
  const top = [...times.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(count ?? 15));
  for (const [name, us] of top) console.log(`${((us / busy) * 100).toFixed(1).padStart(5)}%  ${name}`);
}

main();
