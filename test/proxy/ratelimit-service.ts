// A real global rate-limit service for the `traffic.rateLimit.global` tests: envoyproxy/ratelimit (Envoy's
// reference RateLimitService, built from Go modules by `make ratelimit`, test/ratelimit) on a real Redis
// (`redis-server`, Debian's package; installed with apt-get when missing and this runs as root), each on a
// free loopback port. Redis can be killed and started again on the same port (failure-mode tests).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const binary = path.resolve(here, '../ratelimit/bin/gw-ratelimit');

/** Only between polls: callers wait for an event (a port answering), never for a fixed time. */
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

function redisServerPath(): string {
  const found = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((p) => existsSync(p));
  if (found) return found;
  if (process.getuid?.() !== 0)
    throw new Error('redis-server is missing and this is not root: install the Debian package redis-server');
  try {
    execFileSync('apt-get', ['install', '-y', 'redis-server'], { stdio: 'pipe', timeout: 300_000 });
  } catch (err) {
    throw new Error(
      `redis-server is missing and \`apt-get install -y redis-server\` failed: ${(err as Error).message}`,
    );
  }
  if (!existsSync('/usr/bin/redis-server'))
    throw new Error('apt-get installed redis-server but /usr/bin/redis-server is missing');
  return '/usr/bin/redis-server';
}

/** Spawns `cmd`, resolving once `ready` matches its output; rejects with the output when it exits first. */
function started(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  what: string,
): Promise<ChildProcess> {
  const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  return new Promise((resolve, reject) => {
    const seen = (c: Buffer) => {
      out = (out + c.toString()).slice(-4000);
      if (ready.test(out)) resolve(proc);
    };
    proc.stdout?.on('data', seen);
    proc.stderr?.on('data', seen);
    proc.once('exit', (code) => reject(new Error(`${what} exited (${code}): ${out}`)));
  });
}

async function stopped(proc: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill(signal);
  await exited;
}

export class RateLimitService {
  private redis?: ChildProcess;

  private constructor(
    /** The gRPC port of envoy.service.ratelimit.v3.RateLimitService. */
    readonly grpcPort: number,
    readonly redisPort: number,
    private readonly service: ChildProcess,
    private readonly dir: string,
    private readonly redisBinary: string,
  ) {}

  /** Starts Redis and the service with `config` (envoyproxy/ratelimit's YAML: domain, descriptors). */
  static async start(config: string): Promise<RateLimitService> {
    if (!existsSync(binary))
      throw new Error(`${binary} is missing: run \`make ratelimit\` (builds envoyproxy/ratelimit from test/ratelimit)`);
    const redisBinary = redisServerPath();
    const dir = mkdtempSync(path.join(tmpdir(), 'gw-ratelimit-'));
    mkdirSync(path.join(dir, 'ratelimit/config'), { recursive: true });
    writeFileSync(path.join(dir, 'ratelimit/config/config.yaml'), config);
    const [redisPort, grpcPort, httpPort, debugPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const redis = await startRedis(redisBinary, redisPort);
    const env = {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: String(httpPort),
      GRPC_HOST: '127.0.0.1',
      GRPC_PORT: String(grpcPort),
      DEBUG_HOST: '127.0.0.1',
      DEBUG_PORT: String(debugPort),
      USE_STATSD: 'false',
      LOG_LEVEL: 'info',
      REDIS_SOCKET_TYPE: 'tcp',
      REDIS_URL: `127.0.0.1:${redisPort}`,
      RUNTIME_ROOT: dir,
      RUNTIME_SUBDIRECTORY: 'ratelimit',
      RUNTIME_WATCH_ROOT: 'false',
      LIMIT_RESPONSE_HEADERS_ENABLED: 'true',
      LIMIT_LIMIT_HEADER: 'X-RateLimit-Limit',
      LIMIT_REMAINING_HEADER: 'X-RateLimit-Remaining',
      LIMIT_RESET_HEADER: 'X-RateLimit-Reset',
    };
    const service = await started(
      binary,
      [],
      env,
      /Listening for gRPC on|listening for gRPC on/i,
      'the test ratelimit service',
    ).catch(async (err: unknown) => {
      await stopped(redis);
      throw err;
    });
    const out = new RateLimitService(grpcPort, redisPort, service, dir, redisBinary);
    out.redis = redis;
    return out;
  }

  /** The service's process id (the benchmark reads its CPU time from /proc). */
  get pid(): number {
    return this.service.pid ?? 0;
  }

  /** Kills Redis (SIGKILL: no goodbye to its clients); the service stays up and fails its calls. */
  async killRedis(): Promise<void> {
    await stopped(this.redis, 'SIGKILL');
    this.redis = undefined;
  }

  /** Starts Redis again on the same port (empty: counters start over). */
  async startRedis(): Promise<void> {
    this.redis = await startRedis(this.redisBinary, this.redisPort);
  }

  /** The value of every Redis counter whose key contains `part` (the service's keys embed descriptor entries). */
  counters(part: string): number[] {
    const cli = ['-h', '127.0.0.1', '-p', String(this.redisPort), '--raw'];
    const keys = execFileSync('redis-cli', [...cli, 'KEYS', `*${part}*`], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
    return keys.map((k) => Number(execFileSync('redis-cli', [...cli, 'GET', k], { encoding: 'utf8' }).trim()));
  }

  async stop(): Promise<void> {
    await stopped(this.service);
    await stopped(this.redis);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function startRedis(redisBinary: string, port: number): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  // A port just freed by a killed Redis can take a moment to bind again.
  for (let tries = 0; ; tries++) {
    try {
      return await started(redisBinary, args, process.env, /Ready to accept connections/, 'redis-server');
    } catch (err) {
      if (tries >= 20 || !/Address already in use/.test((err as Error).message)) throw err;
      await pause(100);
    }
  }
}
