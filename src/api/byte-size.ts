// ByteSize values as numbers, for the translator and the data plane; the schema rule enforces the limit.
import { BYTE_SIZE_PATTERN, BYTE_SIZE_SUFFIXES } from './schema-kit.js';

/** Bytes in a ByteSize string (`2Mi` → 2097152, `16kb` → 16000), or undefined when it is not one. */
export function parseByteSize(text: string): number | undefined {
  if (!new RegExp(BYTE_SIZE_PATTERN).test(text)) return undefined;
  for (const [suffix, mult] of BYTE_SIZE_SUFFIXES) {
    if (text.endsWith(suffix)) return Number(text.slice(0, -suffix.length)) * mult;
  }
  return Number(text);
}
