// Which IR fields the proxy's code reads, by the TypeScript checker rather than by name (issue 32): a property
// access, element access or destructuring whose property is declared on a generated IR message
// (src/ir/gen), and a oneof case compared to its discriminator (`credential.kind === 'passthrough'`). A name
// such as `host` that appears everywhere counts only where it is read off the IR message that declares it.
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? tsFiles(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

/** `Message.field` (camelCase, as the coverage table names them) of every IR field read under `dir`. */
export function irFieldsRead(dir = 'src/proxy', generated = 'src/ir/gen'): Set<string> {
  const config = ts.getParsedCommandLineOfConfigFile(
    'tsconfig.json',
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('tsconfig.json could not be read');
  const program = ts.createProgram(tsFiles(dir), { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  const gen = resolve(generated);
  const root = resolve(dir);
  const out = new Set<string>();
  /** The IR message declaring the symbol (`StaticBackend`), or undefined for anything else. */
  const messageOf = (sym: ts.Symbol | undefined): string | undefined => {
    for (const d of sym?.declarations ?? []) {
      if (!resolve(d.getSourceFile().fileName).startsWith(gen)) continue;
      if (ts.isInterfaceDeclaration(d.parent)) return d.parent.name.text.replace(/__Output$/, '');
    }
    return undefined;
  };
  const read = (sym: ts.Symbol | undefined): void => {
    const m = messageOf(sym);
    if (m && sym) out.add(`${m}.${sym.name}`);
  };
  /** `x.kind === 'case'` and `case 'case':` under `switch (x.kind)`: the oneof member `case` is read. */
  const oneofCase = (discriminator: ts.Expression, literal: ts.Expression): void => {
    if (!ts.isPropertyAccessExpression(discriminator) || !ts.isStringLiteral(literal)) return;
    const m = messageOf(checker.getSymbolAtLocation(discriminator.name));
    if (m) out.add(`${m}.${literal.text}`);
  };
  const visit = (n: ts.Node): void => {
    if (ts.isPropertyAccessExpression(n)) read(checker.getSymbolAtLocation(n.name));
    else if (ts.isElementAccessExpression(n) && ts.isStringLiteral(n.argumentExpression))
      read(checker.getSymbolAtLocation(n.argumentExpression));
    else if (ts.isBindingElement(n) && ts.isObjectBindingPattern(n.parent)) {
      const name = n.propertyName ?? n.name;
      if (ts.isIdentifier(name)) read(checker.getTypeAtLocation(n.parent).getProperty(name.text));
    } else if (ts.isBinaryExpression(n) && /^[!=]==?$/.test(n.operatorToken.getText())) {
      oneofCase(n.left, n.right);
      oneofCase(n.right, n.left);
    } else if (ts.isCaseClause(n)) oneofCase(n.parent.parent.expression, n.expression);
    ts.forEachChild(n, visit);
  };
  for (const sf of program.getSourceFiles()) if (resolve(sf.fileName).startsWith(root)) visit(sf);
  return out;
}
