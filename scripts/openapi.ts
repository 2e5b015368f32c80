/** Writes docs/openapi.json and docs/asyncapi.json from the code (see scripts/contract-files.ts). */
import fs from 'node:fs';
import path from 'node:path';
import { contractDocuments, fileText } from './contract-files.ts';

const root = path.resolve(import.meta.dirname, '..');
for (const [file, doc] of Object.entries(contractDocuments())) {
  fs.writeFileSync(path.join(root, file), fileText(doc));
  console.log(`wrote ${file}`);
}
