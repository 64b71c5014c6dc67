// The e2e tests' controller process: `gw controller` flags in, cluster mode out. It stands in for the
// CLI wiring (src/cli/controller.ts calls the same runClusterController) so the tests run exactly the
// code users run, as a separate process that can be killed and restarted.
import { parseControllerFlags } from '../../../../src/cli/controller.js';
import { runClusterController } from '../../../../src/controller/run-cluster.js';
import { createLogger } from '../../../../src/log.js';

const cfg = parseControllerFlags(process.argv.slice(2));
const logger = createLogger({ level: cfg.logLevel, format: 'json', name: 'controller', destination: process.stdout });
process.exitCode = await runClusterController(cfg, logger);
