// Bench upstream: the fixture MCP server over streamable HTTP (JSON responses) on 127.0.0.1:0.
// Prints its URL on stdout and runs until killed.
import { startHttpFixture } from '../../test/fixtures/mcp-http-server.js';

const fixture = await startHttpFixture({ id: 'bench', json: true });
console.log(fixture.url);
// The bench holds our stdin: when it goes away (even killed), so do we.
process.stdin.on('end', () => process.exit(0)).resume();
