// Module hooks of record-modules.mjs: each loaded URL, appended to $GW_RECORD_MODULES/<pid>.txt.
import { appendFileSync } from 'node:fs';
import path from 'node:path';

const dir = process.env.GW_RECORD_MODULES;

export async function load(url, context, next) {
  if (dir) appendFileSync(path.join(dir, `${process.pid}.txt`), `${url}\n`);
  return next(url, context);
}
