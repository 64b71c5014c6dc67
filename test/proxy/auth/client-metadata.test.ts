// Which client ids are Client ID Metadata Document URLs (the flow itself: cimd.test.ts).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isMetadataDocumentUrl } from '../../../src/proxy/auth/client-metadata.js';

const cases = JSON.parse(readFileSync(new URL('./testdata/metadata-document-urls.json', import.meta.url), 'utf8')) as {
  documents: string[];
  notDocuments: string[];
};

describe('isMetadataDocumentUrl', () => {
  it.each(cases.documents)('takes %s for a document URL', (id) => expect(isMetadataDocumentUrl(id)).toBe(true));
  it.each(cases.notDocuments)('takes %s for a plain client id', (id) => expect(isMetadataDocumentUrl(id)).toBe(false));
});
