// `node --import ./test/support/record-modules.mjs …`: every module a process (and each cluster worker,
// which inherits the flag) loads is appended to $GW_RECORD_MODULES/<pid>.txt, one URL a line. Tests use it
// to check what a process imports, e.g. that the `--workers` primary never loads the proxy runtime.
import { register } from 'node:module';

register(new URL('./record-modules-hooks.mjs', import.meta.url));
