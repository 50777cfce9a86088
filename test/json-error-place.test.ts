import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { ConfigError } from '../src/api/errors.js';
import { loadConfig } from '../src/config.js';
import { ENDPOINTS } from '../src/endpoints/registry.js';
import { jsonErrorPlace } from '../src/json-error-place.js';
import { shapeCatalog } from '../src/shapes/catalog.js';
import { parseShapesFile } from '../src/shapes/file.js';
import { loadSources } from '../src/sources.js';

/** What JSON.parse said about `text`. */
function parseError(text: string): string {
  try {
    JSON.parse(text);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`${text} parsed`);
}

describe('jsonErrorPlace', () => {
  it('turns the parser position into a line and a column, both from 1', () => {
    const text = '{\n  "sources": [\n    { "name": "a", }\n  ]\n}\n';
    // The stray comma's closing brace: the place the parser stopped.
    const line = 3;
    const column = text.split('\n')[line - 1]!.indexOf('}') + 1;
    expect(jsonErrorPlace(text, parseError(text))).toMatchObject({ line, column });
  });

  it('places a text cut short at its end', () => {
    const text = '{\n  "sources": [';
    expect(jsonErrorPlace(text, parseError(text))).toEqual({ line: 2, column: text.split('\n')[1]!.length + 1, problem: 'the text ends too soon' });
  });

  it('gives null for a message that names no place', () => {
    expect(jsonErrorPlace('x', 'something else')).toBeNull();
  });
});

describe('a sources file with a JSON syntax error', () => {
  it('is one line naming PITWALL_SOURCES, the file, its line and its column', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pitwall-sources-'));
    try {
      const file = join(dir, 'sources.json');
      const entry = '    { "name": "a", "keyEnv": "KEY_A", }';
      writeFileSync(file, `{\n  "sources": [\n${entry}\n  ]\n}\n`);
      const config = loadConfig({ PITWALL_SOURCES: file }, {});
      let thrown: unknown;
      try {
        loadSources(config, { KEY_A: 'k' });
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(ConfigError);
      expect((thrown as Error).message).toMatch(new RegExp(`^PITWALL_SOURCES: ${file} is not JSON: line 3, column ${entry.indexOf('}') + 1}: \\S`));
      expect((thrown as Error).message).not.toContain('\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a shapes file with a JSON syntax error', () => {
  it('names its line and column', () => {
    expect(() => parseShapesFile('{\n  "results": {\n    x\n', shapeCatalog(ENDPOINTS))).toThrow(/^not JSON: line 3, column 5: \S/);
  });
});
