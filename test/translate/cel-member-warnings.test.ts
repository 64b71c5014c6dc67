// The status of every GwPolicy names rules that read a member their variable never has; the warnings are
// remembered by rule text (a full translation asks for each policy), within a bound.
import { expect, it } from 'vitest';
import { celMemberWarnings } from '../../src/cel/data-plane.js';

it('gives each rule its own warnings however many other rules were asked about before', () => {
  const tools = celMemberWarnings('mcp.tools == "a"');
  expect(tools).toEqual([expect.stringContaining('reads mcp.tools, which mcp never has')]);
  for (let i = 0; i < 4200; i++) expect(celMemberWarnings(`request.path == "/${i}"`)).toEqual([]);
  expect(celMemberWarnings('mcp.tools == "a"')).toEqual(tools);
  expect(celMemberWarnings('request.header == "a"')).toEqual([
    expect.stringContaining('reads request.header, which request never has'),
  ]);
});
