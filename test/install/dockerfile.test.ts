import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

/**
 * No container engine runs here, so the Dockerfile is read instead: the image must be built from
 * the same package a user installs (`npm pack`, then that tarball installed), never from the
 * checkout's sources.
 */

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  name: string;
  instructions: Instruction[];
}

/** The Dockerfile's stages, each with its instructions (continuation lines joined, comments dropped). */
function stages(text: string): Stage[] {
  const lines = text.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const found: Stage[] = [];
  for (const line of lines) {
    const [op = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (op === 'FROM') found.push({ name: /\bAS (\S+)$/i.exec(args)?.[1] ?? `#${found.length}`, instructions: [] });
    else found.at(-1)?.instructions.push({ op, args });
  }
  return found;
}

const runs = (stage: Stage) => stage.instructions.filter((i) => i.op === 'RUN').map((i) => i.args);
const copies = (stage: Stage) => stage.instructions.filter((i) => i.op === 'COPY').map((i) => i.args);
/** A COPY's sources (its arguments but the destination and the flags). */
const sources = (copy: string) => copy.split(/\s+/).filter((a) => !a.startsWith('--')).slice(0, -1);

describe('the Dockerfile', () => {
  const all = stages(read('Dockerfile'));
  const final = all.at(-1)!;
  const packStage = all.find((s) => runs(s).some((r) => /^npm pack\b/.test(r)));
  const installStage = all.find((s) => copies(s).some((c) => c.startsWith(`--from=${packStage?.name} `) && c.includes('.tgz')));

  it('packs the package with npm pack in a build stage, from the files package.json ships', () => {
    expect(packStage).toBeDefined();
    const copied = new Set(copies(packStage!).flatMap(sources).map((s) => s.split('/')[0]));
    const shipped = (JSON.parse(read('package.json')) as { files: string[] }).files
      .filter((f) => f !== 'dist/') // built by npm pack's prepack inside the stage
      .map((f) => f.split('/')[0]!);
    expect(shipped.filter((f) => !copied.has(f))).toEqual([]);
    const ignored = read('.dockerignore').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    expect(ignored.filter((pattern) => copied.has(pattern))).toEqual([]);
  });

  it('installs the packed tarball with its production dependencies only', () => {
    expect(installStage).toBeDefined();
    const tarball = sources(copies(installStage!).find((c) => c.includes('.tgz'))!)[0]!;
    expect(runs(packStage!).join('\n')).toContain(tarball.slice(tarball.lastIndexOf('/') + 1));
    expect(runs(installStage!).some((r) => /^tar -xzf \S+\.tgz/.test(r))).toBe(true);
    expect(runs(installStage!).some((r) => /^npm install --omit=dev\b/.test(r))).toBe(true);
  });

  it('copies nothing from src/ or the checkout into the installed package or the image', () => {
    for (const stage of all.filter((s) => s !== packStage)) {
      for (const copy of copies(stage)) {
        expect({ stage: stage.name, copy, fromAStage: copy.startsWith('--from=') }).toEqual({ stage: stage.name, copy, fromAStage: true });
        expect(sources(copy).filter((s) => /(^|\/)src(\/|$)/.test(s))).toEqual([]);
      }
    }
    // The image is the installed package: everything it holds comes from the install stage.
    expect(copies(final).map((c) => c.split(/\s+/)[0])).toEqual([`--from=${installStage!.name}`]);
  });
});
