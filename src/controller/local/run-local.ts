// Runs local mode from a parsed controller config until SIGINT/SIGTERM (or once, with --once).
import { existsSync, statSync } from 'node:fs';
import type { Logger } from 'pino';
import { translateOptionsOf, type ControllerConfig } from '../config.js';
import { LocalController } from './local-controller.js';

export async function runLocal(cfg: ControllerConfig, logger: Logger): Promise<number> {
  const dir = cfg.manifests as string;
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    logger.error({ manifests: dir }, 'the --manifests folder does not exist or is not a folder');
    return 2;
  }
  const controller = new LocalController({
    manifests: dir,
    ...(cfg.statusDir ? { statusDir: cfg.statusDir } : {}),
    translate: translateOptionsOf(cfg),
    builtinClass: { name: cfg.gatewayClassName, controllerName: cfg.controllerName },
    logger,
  });
  logger.info({ manifests: dir, statusDir: cfg.statusDir }, 'local mode: watching manifests');
  if (cfg.once) {
    const s = controller.reload();
    logger.info(
      {
        changed: s.changedObjects.length,
        gateways: s.gateways.length,
        statusFiles: s.statusFilesWritten,
        problems: s.problems.length,
      },
      'manifests applied',
    );
    return 0;
  }
  controller.start();
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  controller.stop();
  logger.info('local mode stopped');
  return 0;
}
