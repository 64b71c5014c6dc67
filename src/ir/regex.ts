// The one regex dialect of the IR (path, header and query parameter matches): ECMAScript syntax
// without flags, always matched against the whole value. The translator validates with this and the
// proxy compiles with it, so a pattern the controller accepted never fails in the proxy.

/** Throws a SyntaxError when `source` is not a valid pattern. */
export function compileIrRegex(source: string): RegExp {
  return new RegExp(`^(?:${source})$`);
}

/** Why `source` is not a valid pattern, or undefined when it is. */
export function irRegexError(source: string): string | undefined {
  try {
    compileIrRegex(source);
    return undefined;
  } catch (err) {
    return (err as Error).message.replace(/^Invalid regular expression: \/\^\(\?:(.*)\)\$\/: /s, '');
  }
}
