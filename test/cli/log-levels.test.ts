// Log levels as GwParameters `logging.level` may carry them: a level, or RUST_LOG-style directives.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, parseLogLevels } from '../../src/log.js';
import { run } from '../../src/cli/proxy.js';

describe('log levels', () => {
  it('reads a bare level and the directive form, dropping the gw:: prefix of targets', () => {
    expect(parseLogLevels('debug')).toEqual({ level: 'debug', components: {} });
    expect(parseLogLevels('info,gw::xds=debug, mcp-auth=WARN')).toEqual({
      level: 'info',
      components: { xds: 'debug', 'mcp-auth': 'warn' },
    });
    expect(parseLogLevels('gw::xds=trace')).toEqual({ level: 'info', components: { xds: 'trace' } });
    expect(parseLogLevels('loud')).toBeUndefined();
    expect(parseLogLevels('info,xds=loud')).toBeUndefined();
  });

  it('logs a named component at its own level and the rest at the default', () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _e, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const log = createLogger({ level: 'warn,gw::xds=debug', destination });
    log.child({ component: 'xds' }).debug('xds detail');
    log.child({ component: 'mcp-auth' }).debug('auth detail');
    log.info('root info');
    log.warn('root warn');
    const text = lines.join('');
    expect(text).toContain('xds detail');
    expect(text).not.toContain('auth detail');
    expect(text).not.toContain('root info');
    expect(text).toContain('root warn');
  });

  it('gw proxy accepts the directive form and exits 2 naming a bad level', async () => {
    const errors: string[] = [];
    const original = console.error;
    console.error = (m: string) => {
      errors.push(m);
    };
    try {
      expect(await run(['-f', '/nonexistent.yaml', '--validate-only', '--log-level', 'info,gw::xds=debug'])).toBe(1);
      expect(errors.join('\n')).not.toContain('--log-level');
      expect(await run(['-f', '/nonexistent.yaml', '--log-level', 'chatty'])).toBe(2);
      expect(errors.join('\n')).toContain('--log-level "chatty"');
    } finally {
      console.error = original;
    }
  });
});
