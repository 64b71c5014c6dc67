// The one `gw` binary: each subcommand lives in src/cli/<name>.ts and is loaded only when used,
// so `gw validate` never pays for the proxy's or the controller's imports.

export interface Command {
  run(argv: string[]): Promise<number>;
}

interface Entry {
  summary: string;
  load: () => Promise<Command>;
}

const commands: Record<string, Entry> = {
  version: { summary: 'Print the version of gw', load: () => import('./cli/version.js') },
  controller: {
    summary: 'Run the control plane (local mode: --manifests DIR)',
    load: () => import('./cli/controller.js'),
  },
  explain: {
    summary: 'Explain the effective policy of a route, field by field',
    load: () => import('./cli/explain.js'),
  },
  validate: {
    summary: 'Validate Gw and Kubernetes manifests offline (schema and CEL rules)',
    load: () => import('./cli/validate.js'),
  },
  proxy: { summary: 'Run the MCP gateway proxy from a config file', load: () => import('./cli/proxy.js') },
};

function usage(): string {
  const width = Math.max(...Object.keys(commands).map((n) => n.length));
  const lines = Object.entries(commands).map(([name, e]) => `  ${name.padEnd(width)}  ${e.summary}`);
  return [
    'Usage: gw <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Run `gw <command> --help` for the options of a command.',
  ].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version') return main(['version']);
  const entry = commands[name];
  if (!entry) {
    console.error(`gw: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  const command = await entry.load();
  return command.run(rest);
}
