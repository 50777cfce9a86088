import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- ]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(text: string): Set<string> {
  const withoutCode = text.replace(/```[\s\S]*?```/g, '');
  return new Set([...withoutCode.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));
}

/** Relative links of a Markdown file, outside code blocks: `[text](target)`. */
function linksOf(text: string): string[] {
  const withoutCode = text.replace(/```[\s\S]*?```/g, '');
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/i.test(t));
}

describe('the README and docs/', () => {
  it('link to files and headings that exist', () => {
    const broken: string[] = [];
    for (const doc of DOCS) {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      for (const link of linksOf(text)) {
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path ? resolve(dirname(join(ROOT, doc)), path) : join(ROOT, doc);
        if (!existsSync(target)) {
          broken.push(`${doc}: ${link} (no such file)`);
          continue;
        }
        if (anchor && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor)) {
          broken.push(`${doc}: ${link} (no heading #${anchor} in ${relative(ROOT, target)})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('docs/ holds at most 200 KB of Markdown: each page says the current truth once, and links for the rest', () => {
    const bytes = DOCS.filter((d) => d !== 'README.md').reduce((sum, doc) => sum + Buffer.byteLength(readFileSync(join(ROOT, doc), 'utf8')), 0);
    expect(bytes).toBeLessThanOrEqual(200_000);
  });

  it('the README links to every file in docs/', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const linked = new Set(linksOf(readme).map((l) => l.split('#')[0]));
    for (const doc of DOCS.filter((d) => d !== 'README.md')) expect(linked, doc).toContain(doc);
  });
});
