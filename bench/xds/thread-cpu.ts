// CPU time of the calling thread, for the xDS bench's server thread and its simulated-proxy workers alike.
import { readFileSync } from 'node:fs';

/** CPU ms of the calling thread (utime + stime of /proc/thread-self/stat, Linux, 10 ms ticks); NaN elsewhere. */
export function threadCpuMs(): number {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}
