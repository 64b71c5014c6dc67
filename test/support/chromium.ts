// Chromium for browser tests: Debian's /usr/bin/chromium (browser downloads cannot work here), installed
// with apt-get when missing and this is root (a fresh CI machine), else a clear failure naming the package.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const EXECUTABLE = process.env.GW_CHROMIUM ?? '/usr/bin/chromium';

function ensureChromium(): string {
  if (existsSync(EXECUTABLE)) return EXECUTABLE;
  if (process.getuid?.() !== 0)
    throw new Error(`${EXECUTABLE} is missing: install the Debian package chromium (apt-get install -y chromium)`);
  try {
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], {
      stdio: 'ignore',
      timeout: 600_000,
    });
  } catch (err) {
    throw new Error(`apt-get install -y chromium failed (${(err as Error).message}); the browser tests need it`);
  }
  if (!existsSync(EXECUTABLE)) throw new Error(`apt-get installed chromium but ${EXECUTABLE} is still missing`);
  return EXECUTABLE;
}

/** Headless Chromium; as root (containers) its sandbox cannot start, so it runs without. */
export function launchChromium(): Promise<Browser> {
  const executablePath = ensureChromium();
  return chromium.launch({ executablePath, headless: true, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
}
